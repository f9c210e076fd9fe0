// A table whose old snapshots freshet expired (after every commit, with tiny retention) is read
// row-exact by Java Paimon at its latest snapshot, and its remaining snapshots check clean.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include "freshet/stream.h"
#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

std::string Rows(int from, int to, const std::string& dt) {
  std::string out;
  for (int id = from; id < to; ++id) {
    out += R"({"id": )" + std::to_string(id) + R"(, "dt": ")" + dt + "\"}\n";
  }
  return out;
}

// The rows a stream reader hands out now, as JSON lines of the `id` and `dt` columns.
Result<std::string> ReadIdsAsJsonLines(TableStreamReader& reader) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader.ExportArrowSchema(&c_schema));
  auto schema = arrow::ImportSchema(&c_schema).ValueOrDie();
  std::string out;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&array));
    if (!more) break;
    auto batch = arrow::ImportRecordBatch(&array, schema).ValueOrDie();
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->GetColumnByName("id"));
    const auto& dts = static_cast<const arrow::StringArray&>(*batch->GetColumnByName("dt"));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out +=
          R"({"id": )" + std::to_string(ids.Value(i)) + R"(, "dt": ")" + dts.GetString(i) + "\"}\n";
    }
  }
  return out;
}

TEST(ExpirationInteropTest, JavaReadsLatestSnapshotOfExpiredTable) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  for (const std::string format : {"parquet", "orc"}) {
    freshet::testing::TempDir dir;
    std::string table = dir.Sub("t");
    WriteTextFile(
        dir.Sub("schema.json"),
        R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "dt", "type": "STRING"}],
                      "partitionKeys": ["dt"], "options": {"file.format": ")" +
            format + R"(", "snapshot.num-retained.min": "2",
                      "snapshot.num-retained.max": "3", "snapshot.time-retained": "0 ms"}})");
    std::string cli = FreshetCliPath();
    Chain chain = {{cli, "create", table, "--schema", dir.Sub("schema.json")}};
    std::string expected_a, expected_b;
    for (int i = 0; i < 6; ++i) {
      std::string dt = i % 2 ? "a" : "b";
      std::string rows = Rows(i * 10, i * 10 + 5, dt);
      std::string input = dir.Sub("in-" + std::to_string(i) + ".jsonl");
      WriteTextFile(input, rows);
      bool overwrite = i == 3;  // replaces partition "a"
      chain.push_back({cli, "write", table, "--input", input});
      if (overwrite) chain.back().push_back("--overwrite");
      std::string& expected = dt == "a" ? expected_a : expected_b;
      expected = overwrite ? rows : expected + rows;
    }
    ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");

    auto java = RunCommand(JavaCommand({"read", "--table", table}));
    ASSERT_TRUE(java.ok()) << java.Describe();
    EXPECT_EQ(CanonicalRows(java.out), CanonicalRows(expected_a + expected_b)) << format;
    auto snapshots = RunCommand(JavaCommand({"snapshots", "--table", table}));
    ASSERT_TRUE(snapshots.ok()) << snapshots.Describe();
    EXPECT_EQ(SplitLines(snapshots.out), (std::vector<std::string>{"5 APPEND", "6 APPEND"}));
    EXPECT_EQ(freshet::testing::ReadWholeFile(table + "/snapshot/EARLIEST"), "5");
    TableExpectation expectation;
    expectation.num_snapshots = 2;
    expectation.file_format = format;
    auto problems = CheckTableWithFreshet(table, expectation);
    EXPECT_TRUE(problems.empty()) << ListProblems(problems);
  }
}

// A freshet streaming reader's consumer file holds Java's expiration back: Java commits ten
// times with two snapshots retained, yet keeps every snapshot from the consumer's next one, and
// the reader resumes there without a gap. Java's own consumer files are read the same way.
TEST(ExpirationInteropTest, JavaKeepsTheSnapshotsAFreshetConsumerHasNotRead) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  std::string table = dir.Sub("t");
  WriteTextFile(dir.Sub("schema.json"),
                R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "dt", "type": "STRING"}],
                    "options": {"snapshot.num-retained.min": "2",
                    "snapshot.num-retained.max": "2", "snapshot.time-retained": "0 ms"}})");
  std::string cli = FreshetCliPath();
  Chain chain = {{cli, "create", table, "--schema", dir.Sub("schema.json")}};
  for (int i = 0; i < 2; ++i) {
    std::string input = dir.Sub("in-" + std::to_string(i) + ".jsonl");
    WriteTextFile(input, Rows(i * 10, i * 10 + 3, "x"));
    chain.push_back({cli, "write", table, "--input", input});
  }
  ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");
  // The consumer reads snapshot 1 (from-snapshot 1 up to 1) and stops: it is at snapshot 2.
  ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
  StreamOptions options;
  options.mode = ScanMode::kFromSnapshot;
  options.snapshot_id = 1;
  options.end_snapshot_id = 1;
  options.consumer_id = "c1";
  std::string read;
  {
    ASSERT_OK_AND_ASSIGN(auto reader, opened->NewStreamReader(options));
    ASSERT_OK_AND_ASSIGN(read, ReadIdsAsJsonLines(*reader));
  }
  EXPECT_EQ(CanonicalRows(read), CanonicalRows(Rows(0, 3, "x")));
  EXPECT_EQ(freshet::testing::ReadWholeFile(table + "/consumer/consumer-c1"),
            "{\n  \"nextSnapshot\" : 2\n}");

  Chain java;
  std::string expected = Rows(10, 13, "x");
  for (int i = 2; i < 12; ++i) {
    std::string input = dir.Sub("in-" + std::to_string(i) + ".jsonl");
    WriteTextFile(input, Rows(i * 10, i * 10 + 3, "x"));
    java.push_back(JavaCommand({"write", "--table", table, "--input", input}));
    expected += Rows(i * 10, i * 10 + 3, "x");
  }
  ASSERT_EQ(FirstFailure(RunChains({java}, 1)), "");
  auto snapshots = RunCommand(JavaCommand({"snapshots", "--table", table}));
  ASSERT_TRUE(snapshots.ok()) << snapshots.Describe();
  std::vector<std::string> kept = SplitLines(snapshots.out);
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front(), "2 APPEND");  // snapshot 1 went, the consumer's 2 stayed
  EXPECT_EQ(kept.size(), 11u);

  // The reader resumes at snapshot 2 and reads every later commit exactly once.
  options.end_snapshot_id = 12;
  {
    ASSERT_OK_AND_ASSIGN(auto reader, opened->NewStreamReader(options));
    ASSERT_OK_AND_ASSIGN(read, ReadIdsAsJsonLines(*reader));
  }
  EXPECT_EQ(CanonicalRows(read), CanonicalRows(expected));
}

}  // namespace
}  // namespace freshet::interop
