// Append-table compaction (docs/compaction.md, "Append tables") against Java Paimon: Java reads
// every snapshot of tables freshet compacted (fixed buckets and unaware-bucket, Parquet and ORC,
// the writer's background compaction, `freshet compact` and `--full`) exactly as freshet reads
// them; freshet reads, appends to and compacts a table Java compacted, and Java reads the result.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

std::string Rows(int from, int to) {
  std::string out;
  for (int id = from; id < to; ++id) {
    out += R"({"id": )" + std::to_string(id) + R"(, "v": "value-)" + std::to_string(id * 7) +
           R"(", "dt": ")" + (id % 3 ? "a" : "b") + "\"}\n";
  }
  return out;
}

void CreateTable(const std::string& dir, const std::string& table, const std::string& bucket,
                 const std::string& format) {
  std::string options = R"("bucket": ")" + bucket + R"(", "file.format": ")" + format +
                        R"(", "compaction.min.file-num": "3")";
  if (bucket != "-1") options += R"(, "bucket-key": "id")";
  WriteTextFile(dir + "/schema.json",
                R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "v", "type": "STRING"},
                    {"name": "dt", "type": "STRING"}], "partitionKeys": ["dt"], "options": {)" +
                    options + "}}");
  auto created = RunCommand({FreshetCliPath(), "create", table, "--schema", dir + "/schema.json"});
  ASSERT_TRUE(created.ok()) << created.Describe();
}

// Commits `commits` small batches through the CLI (each `write` is one writer and one commit).
void WriteCommits(const std::string& dir, const std::string& table, int first_id, int commits) {
  Chain chain;
  for (int c = 0; c < commits; ++c) {
    std::string input = dir + "/in-" + std::to_string(first_id + c) + ".jsonl";
    WriteTextFile(input, Rows(first_id + c * 10, first_id + c * 10 + 10));
    chain.push_back({FreshetCliPath(), "write", table, "--input", input});
  }
  ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");
}

void Compact(const std::string& table, bool full) {
  std::vector<std::string> argv = {FreshetCliPath(), "compact", table};
  if (full) argv.push_back("--full");
  auto compacted = RunCommand(argv);
  ASSERT_TRUE(compacted.ok()) << compacted.Describe();
}

// Java's rows of every snapshot equal freshet's; returns how many snapshots are COMPACT ones.
int ExpectJavaReadsEverySnapshotAsFreshet(const std::string& table) {
  auto java = RunCommand(JavaCommand({"read", "--table", table, "--all-snapshots"}));
  EXPECT_TRUE(java.ok()) << java.Describe();
  auto kinds = RunCommand(JavaCommand({"snapshots", "--table", table}));
  EXPECT_TRUE(kinds.ok()) << kinds.Describe();
  int compacts = 0;
  for (const std::string& line : SplitLines(kinds.out)) compacts += line.ends_with(" COMPACT");
  for (const auto& [id, rows] : SplitSnapshots(java.out)) {
    auto ours = RunCommand({FreshetCliPath(), "read", table, "--snapshot", std::to_string(id)});
    EXPECT_TRUE(ours.ok()) << ours.Describe();
    EXPECT_EQ(CanonicalRows(rows), CanonicalRows(ours.out)) << "snapshot " << id;
  }
  return compacts;
}

class AppendCompactionInteropTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(AppendCompactionInteropTest, JavaReadsEverySnapshotOfFreshetCompactions) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  const auto& [bucket, format] = GetParam();
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("t");
  CreateTable(dir.path(), table, bucket, format);
  WriteCommits(dir.path(), table, 0, 4);
  Compact(table, false);
  WriteCommits(dir.path(), table, 100, 3);
  Compact(table, true);
  EXPECT_GE(ExpectJavaReadsEverySnapshotAsFreshet(table), 1);
  TableExpectation expectation;
  expectation.file_format = format;
  auto problems = CheckTableWithFreshet(table, expectation);
  EXPECT_TRUE(problems.empty()) << ListProblems(problems);
}

INSTANTIATE_TEST_SUITE_P(Layouts, AppendCompactionInteropTest,
                         ::testing::Combine(::testing::Values("2", "-1"),
                                            ::testing::Values("parquet", "orc")),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == "-1" ? "unaware"
                                                                              : "bucket2") +
                                  "_" + std::get<1>(info.param);
                         });

// Java compacts freshet's fixed-bucket table; freshet reads it, appends and compacts on top;
// Java reads every snapshot as freshet does.
TEST(AppendCompactionInteropMixedTest, FreshetCompactsOnTopOfJavaCompactions) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("t");
  CreateTable(dir.path(), table, "2", "parquet");
  WriteCommits(dir.path(), table, 0, 4);
  auto java = RunCommand(JavaCommand({"compact", "--table", table, "--full"}));
  ASSERT_TRUE(java.ok()) << java.Describe();
  WriteCommits(dir.path(), table, 100, 4);
  Compact(table, true);
  EXPECT_GE(ExpectJavaReadsEverySnapshotAsFreshet(table), 2);
  auto all = RunCommand({FreshetCliPath(), "read", table});
  ASSERT_TRUE(all.ok()) << all.Describe();
  EXPECT_EQ(CanonicalRows(all.out), CanonicalRows(Rows(0, 40) + Rows(100, 140)));
}

}  // namespace
}  // namespace freshet::interop
