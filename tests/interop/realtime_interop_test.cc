// A table with the real-time layer on stays a plain Paimon table: Java Paimon reads every
// snapshot freshet commits row-exact (ignoring the progress property), and a snapshot Java
// commits in between (without progress) does not break freshet's progress: the next freshet
// process continues from the last progress freshet recorded.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "io/file_io.h"
#include "meta/snapshot/snapshot_manager.h"
#include "realtime/progress.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

std::string Rows(int k, int first, int n) {
  std::string out;
  for (int i = first; i < first + n; ++i) {
    out += R"({"k": )" + std::to_string(k) + R"(, "seq": )" + std::to_string(i) + R"(, "dt": ")" +
           (i % 2 ? "2026-11-29" : "2026-11-30") + "\"}\n";
  }
  return out;
}

// Total progress (sum of ends over partition-buckets) recorded in a snapshot, if any.
std::optional<int64_t> ProgressTotal(const meta::Snapshot& snapshot) {
  auto it = snapshot.properties.find(realtime::kProgressProperty);
  if (it == snapshot.properties.end()) return std::nullopt;
  auto progress = realtime::DecodeProgress(it->second, "snapshot");
  EXPECT_TRUE(progress.ok()) << progress.status().ToString();
  int64_t total = 0;
  for (const auto& [pb, end] : *progress) total += end;
  return total;
}

TEST(RealtimeInteropTest, JavaReadsEverySnapshotAndProgressSurvivesAJavaCommit) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  std::string table = dir.Sub("wh/db.db/rt");
  WriteTextFile(dir.Sub("schema.json"),
                R"({"fields": [{"name": "k", "type": "INT"}, {"name": "seq", "type": "BIGINT"},
                               {"name": "dt", "type": "STRING"}],
                    "partitionKeys": ["dt"],
                    "options": {"bucket": "2", "bucket-key": "k", "realtime.enabled": "true"}})");
  std::vector<std::string> batches = {Rows(1, 0, 6) + Rows(2, 0, 4), Rows(1, 6, 5), Rows(3, 0, 7)};
  for (size_t i = 0; i < batches.size(); ++i) {
    WriteTextFile(dir.Sub("b" + std::to_string(i) + ".jsonl"), batches[i]);
  }
  WriteTextFile(dir.Sub("java.jsonl"), Rows(9, 100, 3));
  std::string cli = FreshetCliPath();
  // Two freshet processes (commits every 5 rows), then Java, then freshet again.
  auto results =
      RunChains({{{cli, "create", table, "--schema", dir.Sub("schema.json")},
                  {cli, "write", table, "--input", dir.Sub("b0.jsonl"), "--batch-rows", "5",
                   "--commit-every", "5"},
                  {cli, "write", table, "--input", dir.Sub("b1.jsonl")},
                  JavaCommand({"write", "--table", table, "--input", dir.Sub("java.jsonl")}),
                  {cli, "write", table, "--input", dir.Sub("b2.jsonl")}}},
                1);
  ASSERT_EQ(FirstFailure(results), "");

  meta::SnapshotManager snapshots(io::LocalFileIO(), table);
  ASSERT_OK_AND_ASSIGN(auto ids, snapshots.ListSnapshotIds());
  ASSERT_EQ(ids.size(), 5u);  // 2 + 1 freshet commits, 1 Java commit, 1 freshet commit
  std::string expected;
  std::vector<std::string> expected_at;
  std::vector<std::string> contents = {Rows(1, 0, 5), Rows(1, 5, 1) + Rows(2, 0, 4), batches[1],
                                       Rows(9, 100, 3), batches[2]};
  for (const std::string& c : contents) expected_at.push_back(expected += c);
  std::vector<std::optional<int64_t>> progress;
  for (int64_t id : ids) {
    ASSERT_OK_AND_ASSIGN(auto snapshot, snapshots.ReadSnapshot(id));
    progress.push_back(ProgressTotal(snapshot));
    auto java =
        RunCommand(JavaCommand({"read", "--table", table, "--snapshot", std::to_string(id)}));
    ASSERT_TRUE(java.ok()) << java.Describe();
    EXPECT_EQ(CanonicalRows(java.out), CanonicalRows(expected_at[id - 1])) << "snapshot " << id;
  }
  // Offsets count freshet's rows: 5, 10, 15; Java's snapshot carries none; the last freshet
  // process restored 15 across it and added its 7 rows.
  EXPECT_EQ(progress, (std::vector<std::optional<int64_t>>{5, 10, 15, std::nullopt, 22}));
  auto ours = RunCommand({cli, "read", table});
  ASSERT_TRUE(ours.ok()) << ours.Describe();
  EXPECT_EQ(CanonicalRows(ours.out), CanonicalRows(expected));
}

// The (k INT, v BIGINT) rows a Table reads now (with rows in memory), as JSON lines.
std::string UnionRows(const Table& table) {
  auto reader = table.NewReader();
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return "";
  ArrowSchema c_schema;
  EXPECT_TRUE((*reader)->ExportArrowSchema(&c_schema).ok());
  auto schema = *arrow::ImportSchema(&c_schema);
  std::string rows;
  while (true) {
    ArrowArray array;
    auto more = (*reader)->Next(&array);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    const auto& k = static_cast<const arrow::Int32Array&>(*batch->column(0));
    const auto& v = static_cast<const arrow::Int64Array&>(*batch->column(1));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      rows += R"({"k": )" + std::to_string(k.Value(i)) + R"(, "v": )" + std::to_string(v.Value(i)) +
              "}\n";
    }
  }
  return rows;
}

// A real-time primary-key table (aggregation: v summed, so a row counted twice or lost shows)
// that Java compacts between freshet's commits, while this process keeps rows in memory: the
// union read stays the model's across Java's COMPACT snapshots (they inherit the progress), the
// next commits continue it, and Java reads every snapshot row-exact.
TEST(RealtimeInteropTest, PrimaryKeyProgressSurvivesJavaCompactions) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string path = dir.Sub("wh/db.db/rtpk");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, R"({"fields": [{"name": "k", "type": "INT"},
                                                         {"name": "v", "type": "BIGINT"}],
                                              "primaryKeys": ["k"],
                                              "options": {"bucket": "2", "merge-engine": "aggregation",
                                                          "fields.v.aggregate-function": "sum",
                                                          "realtime.enabled": "true"}})"));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  std::map<int, int64_t> model;
  auto write = [&](int round) {
    arrow::Int32Builder k;
    arrow::Int64Builder v;
    for (int key = 0; key < 12; ++key) {
      int64_t value = round * 100 + key;
      EXPECT_TRUE(k.Append(key).ok());
      EXPECT_TRUE(v.Append(value).ok());
      model[key] += value;
    }
    auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("k", arrow::int32(), false),
                                                         arrow::field("v", arrow::int64())}),
                                          12, {*k.Finish(), *v.Finish()});
    ArrowArray array;
    ArrowSchema schema;
    EXPECT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
    return writer->Write(&array, &schema);
  };
  auto model_rows = [&] {
    std::string rows;
    for (const auto& [key, sum] : model) {
      rows += R"({"k": )" + std::to_string(key) + R"(, "v": )" + std::to_string(sum) + "}\n";
    }
    return rows;
  };
  auto ours = [&] {
    auto read = RunCommand({FreshetCliPath(), "read", path});
    EXPECT_TRUE(read.ok()) << read.Describe();
    return read.out;
  };
  std::map<int64_t, std::string> expected_at;  // snapshot id -> committed rows
  std::string committed;
  for (int round = 0; round < 4; ++round) {
    ASSERT_OK(write(round));
    ASSERT_OK_AND_ASSIGN(auto id, writer->Commit());
    ASSERT_TRUE(id.has_value());
    committed = model_rows();
    ASSERT_OK_AND_ASSIGN(auto snapshots, table->SnapshotIds());
    for (int64_t s : snapshots) {
      if (!expected_at.count(s)) expected_at[s] = committed;
    }
    // Rows in memory, then a Java compaction of everything committed.
    ASSERT_OK(write(round + 10));
    auto compacted = RunCommand(JavaCommand({"compact", "--table", path, "--full"}));
    ASSERT_TRUE(compacted.ok()) << compacted.Describe();
    ASSERT_OK_AND_ASSIGN(snapshots, table->SnapshotIds());
    for (int64_t s : snapshots) {
      if (!expected_at.count(s)) expected_at[s] = committed;
    }
    EXPECT_EQ(CanonicalRows(UnionRows(*table)), CanonicalRows(model_rows())) << "round " << round;
    EXPECT_EQ(CanonicalRows(ours()), CanonicalRows(committed)) << "committed, round " << round;
  }
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK_AND_ASSIGN(auto snapshots, table->SnapshotIds());
  for (int64_t s : snapshots) {
    if (!expected_at.count(s)) expected_at[s] = model_rows();
  }
  meta::SnapshotManager manager(io::LocalFileIO(), path);
  int java_compactions = 0;
  for (const auto& [id, rows] : expected_at) {
    ASSERT_OK_AND_ASSIGN(auto snapshot, manager.ReadSnapshot(id));
    java_compactions += snapshot.commit_kind == meta::CommitKind::kCompact &&
                        !snapshot.properties.count(realtime::kProgressProperty);
    auto java =
        RunCommand(JavaCommand({"read", "--table", path, "--snapshot", std::to_string(id)}));
    ASSERT_TRUE(java.ok()) << java.Describe();
    EXPECT_EQ(CanonicalRows(java.out), CanonicalRows(rows)) << "snapshot " << id;
  }
  EXPECT_GE(java_compactions, 4);
  EXPECT_EQ(CanonicalRows(ours()), CanonicalRows(model_rows()));
}

}  // namespace
}  // namespace freshet::interop
