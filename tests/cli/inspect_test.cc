#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_util.h"
#include "common/json.h"

namespace freshet::cli_testing {
namespace {

namespace fs = std::filesystem;
using freshet::testing::GoldenDir;

// inspect --json --all-files on every Java-written table; every data file it lists must sit
// exactly where Java's partition-path algorithm puts it, which checks partition naming against
// real tables.
TEST(InspectTest, EveryGoldenTableAndItsFileLocations) {
  FRESHET_REQUIRE_GOLDEN();
  int files = 0;
  for (const auto& table : freshet::testing::GoldenTableDirs()) {
    SCOPED_TRACE(table);
    auto run = RunCli({"inspect", table, "--json", "--all-files"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto report = ParseJson(run.out, "inspect output");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    const Json& r = *report;
    ASSERT_FALSE(r["schema"]["fields"].empty());
    ASSERT_FALSE(r["snapshots"].empty());
    for (const auto& snapshot : r["snapshots"]) {
      int64_t rows = 0;
      for (const auto& f : snapshot["files"]) {
        std::string partition = f["partition"].get<std::string>();
        std::string path = table + "/" + (partition.empty() ? "" : partition + "/") + "bucket-" +
                           std::to_string(f["bucket"].get<int>()) + "/" +
                           f["fileName"].get<std::string>();
        EXPECT_TRUE(fs::exists(path)) << path;
        rows += f["rowCount"].get<int64_t>();
        ++files;
      }
      EXPECT_EQ(rows, snapshot["totalRecordCount"].get<int64_t>());
    }
  }
  EXPECT_GT(files, 60);
}

// By default only the latest snapshot lists its files (listing every snapshot's files costs
// snapshots x files); the history of every snapshot is still there.
TEST(InspectTest, ManySnapshotsListOnlyTheLatestFilesByDefault) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t");
  // write-only: a snapshot per commit, no COMPACT snapshots of the writer's small-file compaction.
  ASSERT_EQ(CreateTable(table, R"({"fields": [{"name": "id", "type": "BIGINT"}],
                                  "options": {"write-only": "true"}})")
                .exit_code,
            0);
  constexpr int kCommits = 200;
  auto write = WriteOneCommitPerRow(table, IdRows(1, kCommits));
  ASSERT_EQ(write.exit_code, 0) << write.err;

  auto run = RunCli({"inspect", table, "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto report = ParseJson(run.out, "inspect output");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const Json& snapshots = (*report)["snapshots"];
  ASSERT_EQ(snapshots.size(), size_t{kCommits});
  for (int i = 0; i < kCommits; ++i) {
    const Json& s = snapshots[static_cast<size_t>(i)];
    EXPECT_EQ(s["id"].get<int64_t>(), i + 1);
    EXPECT_EQ(s["commitKind"].get<std::string>(), "APPEND");
    EXPECT_EQ(s["totalRecordCount"].get<int64_t>(), i + 1);
    EXPECT_GT(s["timeMillis"].get<int64_t>(), 0);
    EXPECT_EQ(s.contains("files"), i + 1 == kCommits) << "snapshot " << i + 1;
  }
  EXPECT_EQ(snapshots.back()["files"].size(), size_t{kCommits});

  // The text form: every snapshot's line, one table of files.
  run = RunCli({"inspect", table});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Snapshots: 200\n  #1 APPEND"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  #200 APPEND"), std::string::npos);
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(run.out, "sequence  file"), 1u);
  EXPECT_EQ(count(run.out, ".parquet"), size_t{kCommits});

  // --all-files lists the files of every snapshot, as inspect did before.
  run = RunCli({"inspect", table, "--all-files"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(count(run.out, "sequence  file"), size_t{kCommits});
  EXPECT_EQ(count(run.out, ".parquet"), size_t{kCommits * (kCommits + 1) / 2});
}

TEST(InspectTest, TextOutputNamesSnapshotsAndFiles) {
  FRESHET_REQUIRE_GOLDEN();
  auto run = RunCli({"inspect", GoldenDir() + "/parquet/append_09.db/append_09"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Snapshots: 5"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("#5 COMPACT"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("f1=20"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("bucket-key = f2"), std::string::npos) << run.out;
}

TEST(InspectTest, ErrorsAreOneClearLine) {
  auto missing = RunCli({"inspect", "/no/such/table"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("'/no/such/table' is not a Paimon table"), std::string::npos)
      << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
  if (freshet::testing::HaveGoldenDir()) {  // optional external golden set
    auto bad_snapshot =
        RunCli({"inspect", GoldenDir() + "/parquet/append_09.db/append_09", "--snapshot", "42"});
    EXPECT_NE(bad_snapshot.exit_code, 0);
    EXPECT_NE(bad_snapshot.err.find("snapshot 42"), std::string::npos) << bad_snapshot.err;
  }
  auto bad_option = RunCli({"inspect", "x", "--frobnicate"});
  EXPECT_NE(bad_option.exit_code, 0);
  EXPECT_NE(bad_option.err.find("unknown option --frobnicate"), std::string::npos);
  auto both = RunCli({"inspect", "x", "--snapshot", "1", "--all-files"});
  EXPECT_EQ(both.err, "freshet inspect: Invalid: --snapshot and --all-files exclude each other\n");
}

}  // namespace
}  // namespace freshet::cli_testing
