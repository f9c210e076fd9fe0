// A table with the real-time layer on stays a plain Paimon table: Java Paimon reads every
// snapshot freshet commits row-exact (ignoring the progress property), and a snapshot Java
// commits in between (without progress) does not break freshet's progress: the next freshet
// process continues from the last progress freshet recorded.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace freshet::interop
