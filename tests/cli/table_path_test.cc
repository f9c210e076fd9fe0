// `freshet` refuses an empty table path (the current directory) and, for create, a path with a
// ".." component, before it makes any directory.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_util.h"

namespace freshet::cli_testing {
namespace {

namespace fs = std::filesystem;

// Runs each test in a fresh current directory, which the children inherit, so that anything an
// empty or relative path creates lands where the test looks.
class CliTablePathTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::current_path(cwd_.path()); }
  void TearDown() override { fs::current_path(saved_); }

  fs::path saved_ = fs::current_path();
  TempDir cwd_;
};

TEST_F(CliTablePathTest, EmptyPathIsRefusedByEveryCommand) {
  ProcessResult run = CreateTable("");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.err, "freshet create: Invalid: the table path is empty\n");
  EXPECT_TRUE(fs::is_empty(cwd_.path()));

  // Even with a table in the current directory.
  ASSERT_EQ(CreateTable(".").exit_code, 0);
  for (const char* command : {"read", "inspect"}) {
    run = RunCli({command, ""});
    EXPECT_EQ(run.err, std::string("freshet ") + command + ": Invalid: the table path is empty\n");
  }
  run = RunCli({"write", "", "--input", "-"}, "{\"id\": 1}\n");
  EXPECT_EQ(run.err, "freshet write: Invalid: the table path is empty\n");
  EXPECT_FALSE(fs::exists(cwd_.Sub("snapshot")));
}

TEST_F(CliTablePathTest, CreateRefusesParentComponents) {
  for (std::string path : {cwd_.Sub("wh/db.db/../t"), std::string("a/../t")}) {
    ProcessResult run = CreateTable(path);
    EXPECT_NE(run.exit_code, 0);
    EXPECT_EQ(run.err, "freshet create: Invalid: table path '" + path +
                           "' has a '..' component; name the table directory without it\n");
    EXPECT_TRUE(fs::is_empty(cwd_.path())) << path;
  }
}

}  // namespace
}  // namespace freshet::cli_testing
