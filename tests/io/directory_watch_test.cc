// Versions of watched directories (io/directory_watch.h): every change gives another version at
// once, nothing else does, and paths inotify cannot vouch for are refused.
#include "io/directory_watch.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "io/file_io.h"
#include "testing/test_util.h"

namespace freshet::io {
namespace {

using freshet::testing::TempDir;
using Kind = WatchedVersion::Kind;

class DirectoryWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(fs_->MakeDirs(watched_));
    if (WatchedDirectoryVersion(watched_).kind != Kind::kWatched) {
      GTEST_SKIP() << "the temporary directory's file system is not watched here";
    }
  }

  FileVersion Now() const {
    WatchedVersion now = WatchedDirectoryVersion(watched_);
    EXPECT_EQ(now.kind, Kind::kWatched);
    EXPECT_TRUE(now.version.exact);
    return now.version;
  }

  TempDir dir_;
  std::shared_ptr<FileIO> fs_ = LocalFileIO();
  const std::string watched_ = dir_.Sub("table/snapshot");
};

TEST_F(DirectoryWatchTest, EveryChangeGivesANewVersionAtOnce) {
  FileVersion last = Now();
  EXPECT_EQ(Now(), last) << "nothing changed";
  auto expect_new = [&](const char* what) {
    FileVersion now = Now();
    EXPECT_NE(now, last) << what;
    last = now;
  };
  ASSERT_OK(fs_->WriteFile(watched_ + "/a", "1"));
  expect_new("a file created");
  ASSERT_OK(fs_->WriteFile(watched_ + "/a", "2"));
  expect_new("a file rewritten in place");
  ASSERT_OK_AND_ASSIGN(bool renamed, fs_->RenameNoReplace(watched_ + "/a", watched_ + "/b"));
  ASSERT_TRUE(renamed);
  expect_new("a file renamed within");
  ASSERT_OK(fs_->WriteFile(dir_.Sub("outside"), "x"));
  ASSERT_OK_AND_ASSIGN(renamed, fs_->RenameNoReplace(dir_.Sub("outside"), watched_ + "/c"));
  ASSERT_TRUE(renamed);
  expect_new("a file renamed into it");
  ASSERT_OK(fs_->Delete(watched_ + "/b", false));
  expect_new("a file removed");
  ASSERT_OK(fs_->MakeDirs(watched_ + "/sub"));
  expect_new("a directory created");
  // Changes beside it or below its entries are not its changes.
  ASSERT_OK(fs_->WriteFile(dir_.Sub("table/schema-0"), "x"));
  ASSERT_OK(fs_->WriteFile(watched_ + "/sub/deeper", "x"));
  EXPECT_EQ(Now(), last);
}

TEST_F(DirectoryWatchTest, ReplacedDirectoriesAndAncestorsChangeTheVersion) {
  FileVersion before = Now();
  // Removed and made again under the same path (a table dropped and created again).
  ASSERT_OK(fs_->Delete(watched_, true));
  EXPECT_EQ(WatchedDirectoryVersion(watched_).kind, Kind::kAbsent);
  ASSERT_OK(fs_->MakeDirs(watched_));
  FileVersion again = Now();
  EXPECT_NE(again, before);
  // An ancestor renamed away and another put in its place.
  const std::string table = dir_.Sub("table");
  std::filesystem::rename(table, dir_.Sub("table-old"));
  ASSERT_OK(fs_->MakeDirs(watched_));
  EXPECT_NE(Now(), again);
  // The renamed ancestor's old watch no longer speaks for the path.
  FileVersion replaced = Now();
  ASSERT_OK(fs_->WriteFile(dir_.Sub("table-old/snapshot/x"), "1"));
  EXPECT_EQ(Now(), replaced);
  ASSERT_OK(fs_->WriteFile(watched_ + "/x", "1"));
  EXPECT_NE(Now(), replaced);
}

TEST_F(DirectoryWatchTest, PathsThatCannotBeVouchedForAreRefused) {
  // A symbolic link on the way: pointed elsewhere, it would change nothing a watch sees.
  const std::string link = dir_.Sub("link");
  ASSERT_EQ(::symlink(dir_.Sub("table").c_str(), link.c_str()), 0);
  EXPECT_EQ(WatchedDirectoryVersion(link + "/snapshot").kind, Kind::kUnwatchable);
  EXPECT_EQ(WatchedDirectoryVersion(link).kind, Kind::kUnwatchable);
  // Relative paths and dot components.
  EXPECT_EQ(WatchedDirectoryVersion("relative/dir").kind, Kind::kUnwatchable);
  EXPECT_EQ(WatchedDirectoryVersion(dir_.Sub("table/../table/snapshot")).kind, Kind::kUnwatchable);
  // A file is stat'ed, not watched; a missing path is absent.
  ASSERT_OK(fs_->WriteFile(watched_ + "/file", "x"));
  EXPECT_EQ(WatchedDirectoryVersion(watched_ + "/file").kind, Kind::kUnwatchable);
  EXPECT_EQ(WatchedDirectoryVersion(watched_ + "/missing").kind, Kind::kAbsent);
  EXPECT_EQ(WatchedDirectoryVersion(watched_ + "/file/below").kind, Kind::kAbsent);
  // Through FileIO, the stat versions serve them as before.
  ASSERT_OK_AND_ASSIGN(auto through_link, fs_->Version(link + "/snapshot"));
  ASSERT_TRUE(through_link.has_value());
  EXPECT_FALSE(through_link->exact);
  ASSERT_OK_AND_ASSIGN(auto file, fs_->Version(watched_ + "/file"));
  ASSERT_TRUE(file.has_value());
  EXPECT_FALSE(file->exact);
  ASSERT_OK_AND_ASSIGN(auto missing, fs_->Version(watched_ + "/missing"));
  EXPECT_FALSE(missing.has_value());
}

// A forked child has its own notification queue: it does not take the parent's notifications,
// and its own versions move with the changes it makes.
TEST_F(DirectoryWatchTest, AForkedChildKeepsItsOwnQueue) {
  FileVersion before = Now();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    WatchedVersion first = WatchedDirectoryVersion(watched_);
    bool ok = first.kind == Kind::kWatched;
    ok = ok && fs_->WriteFile(watched_ + "/from-child", "1").ok();
    WatchedVersion second = WatchedDirectoryVersion(watched_);
    ok = ok && second.kind == Kind::kWatched && !(second.version == first.version);
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The child's change reached the parent's queue too.
  EXPECT_NE(Now(), before);
}

}  // namespace
}  // namespace freshet::io
