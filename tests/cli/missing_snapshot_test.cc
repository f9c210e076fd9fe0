// A table whose newest snapshot file is lost: reads and writes fail with a Corruption error
// naming the file, instead of serving the snapshot before it (and committing over the lost one).
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using freshet::testing::ProcessResult;
using freshet::testing::RunProcess;
using freshet::testing::TempDir;

TEST(MissingSnapshotTest, ReadAndWriteReportTheLostNewestSnapshot) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t");
  ProcessResult run = RunProcess({FRESHET_CLI_PATH, "create", table, "--schema",
                                  R"({"fields": [{"name": "id", "type": "BIGINT"}]})"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  run = RunProcess({FRESHET_CLI_PATH, "write", table, "--input", "-", "--commit-every", "1",
                    "--batch-rows", "1"},
                   "{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}\n");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string lost = table + "/snapshot/snapshot-3";
  ASSERT_TRUE(fs::remove(lost));

  std::string message = "Corruption: the newest snapshot of table '" + table +
                        "' is missing: the LATEST hint names '" + lost +
                        "', and no newer snapshot exists\n";
  run = RunProcess({FRESHET_CLI_PATH, "read", table});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "freshet read: " + message);

  run = RunProcess({FRESHET_CLI_PATH, "write", table, "--input", "-"}, "{\"id\": 4}\n");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(lost));  // no new snapshot took the lost one's id
}

}  // namespace
}  // namespace freshet
