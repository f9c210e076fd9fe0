// freshet remove-orphans: lists (--dry-run) or removes the old files no snapshot references,
// one path relative to the table per line and a summary; keeps young files and committed rows.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"

namespace freshet::cli_testing {
namespace {

namespace fs = std::filesystem;

void Plant(const fs::path& path, std::chrono::hours age) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "0123456789";  // 10 bytes
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

TEST(RemoveOrphansTest, DryRunListsThenRemoveDeletesOnlyOldOrphans) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t");
  ProcessResult run = CreateTable(table);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  run = WriteOneCommitPerRow(table, IdRows(1, 3));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Committed files are old too: only references keep them.
  for (const auto& entry : fs::recursive_directory_iterator(table)) {
    if (entry.is_regular_file()) {
      fs::last_write_time(entry.path(), fs::file_time_type::clock::now() - std::chrono::hours(3));
    }
  }
  Plant(table + "/bucket-0/data-orphan-0.parquet", std::chrono::hours(2));
  Plant(table + "/manifest/manifest-orphan-0", std::chrono::hours(2));
  Plant(table + "/bucket-0/data-young-0.parquet", std::chrono::hours(0));

  std::string listing = "bucket-0/data-orphan-0.parquet\nmanifest/manifest-orphan-0\n";
  run = RunCli({"remove-orphans", table, "--older-than", "1h", "--dry-run"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, listing + "would remove 2 orphan file(s), 20 bytes\n");
  EXPECT_TRUE(fs::exists(table + "/bucket-0/data-orphan-0.parquet"));

  // The default cut-off is one day: nothing is that old.
  run = RunCli({"remove-orphans", table, "--dry-run"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "would remove 0 orphan file(s), 0 bytes\n");

  run = RunCli({"remove-orphans", table, "--older-than", "90 min"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, listing + "removed 2 orphan file(s), 20 bytes\n");
  EXPECT_FALSE(fs::exists(table + "/bucket-0/data-orphan-0.parquet"));
  EXPECT_FALSE(fs::exists(table + "/manifest/manifest-orphan-0"));
  EXPECT_TRUE(fs::exists(table + "/bucket-0/data-young-0.parquet"));

  for (const char* snapshot : {"1", "2", "3"}) {
    run = RunCli({"read", table, "--snapshot", snapshot, "--format", "csv"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  run = RunCli({"read", table, "--format", "jsonl"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, IdRows(1, 3));
}

TEST(RemoveOrphansTest, OlderThanTakesATimestampAndRejectsTheFuture) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t");
  ProcessResult run = CreateTable(table);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Plant(table + "/bucket-0/data-orphan-0.parquet", std::chrono::hours(2));

  run = RunCli({"remove-orphans", table, "--older-than", "2000-01-01 00:00:00"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "removed 0 orphan file(s), 0 bytes\n");
  EXPECT_TRUE(fs::exists(table + "/bucket-0/data-orphan-0.parquet"));

  run = RunCli({"remove-orphans", table, "--older-than", "2999-01-01T00:00:00"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("freshet remove-orphans: Invalid: "), std::string::npos) << run.err;

  run = RunCli({"remove-orphans", table, "--older-than", "soon"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("--older-than expects"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::exists(table + "/bucket-0/data-orphan-0.parquet"));
}

}  // namespace
}  // namespace freshet::cli_testing
