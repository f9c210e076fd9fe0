// `freshet compact` on append tables (docs/compaction.md, "Append tables"): Java's picks decide
// (fewer than compaction.min.file-num files: nothing), `--full` concatenates the small files,
// and `freshet read` returns every row, in write order for a fixed bucket.
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace freshet::cli_testing {
namespace {

class AppendCompactCliTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AppendCompactCliTest, CompactsSmallFiles) {
  TempDir dir;
  std::string table = dir.Sub("t");
  std::vector<std::string> create = {"create",  table,      "--schema",
                                     kIdSchema, "--option", std::string("bucket=") + GetParam()};
  if (std::string(GetParam()) != "-1") {
    create.insert(create.end(), {"--option", "bucket-key=id"});
  }
  ProcessResult created = RunCli(create);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  ProcessResult written = WriteOneCommitPerRow(table, IdRows(1, 4));
  ASSERT_EQ(written.exit_code, 0) << written.err;

  ProcessResult picked = RunCli({"compact", table});
  ASSERT_EQ(picked.exit_code, 0) << picked.err;
  EXPECT_EQ(picked.out, "nothing to compact\n");  // 4 files < compaction.min.file-num

  ProcessResult full = RunCli({"compact", table, "--full"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(full.out.find("(COMPACT): 1 bucket(s), 4 file(s) replaced by 1"), std::string::npos)
      << full.out;

  ProcessResult read = RunCli({"read", table, "--format", "jsonl"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, IdRows(1, 4));
}

INSTANTIATE_TEST_SUITE_P(Buckets, AppendCompactCliTest, ::testing::Values("1", "-1"),
                         [](const auto& info) {
                           return std::string(info.param) == "-1" ? "unaware" : "bucket1";
                         });

}  // namespace
}  // namespace freshet::cli_testing
