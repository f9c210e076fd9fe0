// A table whose newest snapshot file is lost: reads and writes fail with a Corruption error
// naming the file, instead of serving the snapshot before it (and committing over the lost one).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_util.h"

namespace freshet::cli_testing {
namespace {

namespace fs = std::filesystem;

TEST(MissingSnapshotTest, ReadAndWriteReportTheLostNewestSnapshot) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t");
  ProcessResult run = CreateTable(table);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  run = WriteOneCommitPerRow(table, IdRows(1, 3));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string lost = table + "/snapshot/snapshot-3";
  ASSERT_TRUE(fs::remove(lost));

  std::string message = "Corruption: the newest snapshot of table '" + table +
                        "' is missing: the LATEST hint names '" + lost +
                        "', and no newer snapshot exists\n";
  run = RunCli({"read", table});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "freshet read: " + message);

  run = RunCli({"write", table, "--input", "-"}, "{\"id\": 4}\n");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(lost));  // no new snapshot took the lost one's id
}

}  // namespace
}  // namespace freshet::cli_testing
