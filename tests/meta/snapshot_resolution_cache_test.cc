// The latest snapshot is resolved from the files only when the snapshot directory changed
// (io::FileVersion): an unchanged table costs a query one stat, while every snapshot published
// or removed, by this process or another, is seen by the next query.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "io/file_io.h"
#include "meta/snapshot/snapshot_manager.h"
#include "snapshot_test_util.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

using freshet::testing::TempDir;

// Local files, counting the files opened for reading.
class CountingFileIO : public io::FileIO {
 public:
  explicit CountingFileIO(std::shared_ptr<io::FileIO> base) : base_(std::move(base)) {}

  Result<std::unique_ptr<io::RandomAccessFile>> OpenForRead(const std::string& path) override {
    ++opened;
    return base_->OpenForRead(path);
  }
  Result<std::unique_ptr<io::OutputStream>> OpenForWrite(const std::string& path) override {
    return base_->OpenForWrite(path);
  }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Result<io::FileInfo> GetFileInfo(const std::string& path) override {
    return base_->GetFileInfo(path);
  }
  Result<std::optional<io::FileVersion>> Version(const std::string& path) override {
    return base_->Version(path);
  }
  Result<std::vector<io::FileInfo>> ListDir(const std::string& path) override {
    ++listed;
    return base_->ListDir(path);
  }
  Status MakeDirs(const std::string& path) override { return base_->MakeDirs(path); }
  Status Delete(const std::string& path, bool recursive) override {
    return base_->Delete(path, recursive);
  }
  Result<bool> RenameNoReplace(const std::string& from, const std::string& to) override {
    return base_->RenameNoReplace(from, to);
  }
  Status RenameReplace(const std::string& from, const std::string& to) override {
    return base_->RenameReplace(from, to);
  }

  std::atomic<int64_t> opened{0};
  std::atomic<int64_t> listed{0};

 private:
  std::shared_ptr<io::FileIO> base_;
};

int64_t IdOf(const Result<std::shared_ptr<const Snapshot>>& latest) {
  EXPECT_TRUE(latest.ok()) << latest.status().ToString();
  if (!latest.ok()) return -1;
  return *latest == nullptr ? 0 : (*latest)->id;
}

// Longer than the coarse timestamp granularity SettledBefore allows for (20 ms).
void LetTimestampsSettle() { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }

// Parameter: whether the snapshot directory's versions come from change notifications (the
// local file system's default, io/directory_watch.h) or from stat alone.
class SnapshotResolutionCacheTest : public ::testing::TestWithParam<bool> {
 protected:
  bool Watched() const { return GetParam(); }

  void Publish(int64_t id) {
    ASSERT_OK_AND_ASSIGN(bool published, manager_.TryPublish(TestSnapshot(id, id)));
    ASSERT_TRUE(published);
  }

  TempDir dir_;
  std::shared_ptr<CountingFileIO> fs_ = std::make_shared<CountingFileIO>(
      Watched() ? io::LocalFileIO() : io::LocalFileIOWithStatVersions());
  SnapshotManager manager_{fs_, dir_.path()};
};

TEST_P(SnapshotResolutionCacheTest, UnchangedDirectoryIsNotReadAgain) {
  Publish(1);
  Publish(2);
  LetTimestampsSettle();
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 2);
  const int64_t opened = fs_->opened;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 2);
  EXPECT_EQ(fs_->opened, opened) << "an unchanged snapshot directory was read again";
  // Another manager of the same table (another query) finds the same resolution.
  SnapshotManager other(fs_, dir_.path());
  EXPECT_EQ(IdOf(other.LatestSnapshotShared()), 2);
  EXPECT_EQ(fs_->opened, opened);
}

// A new table has no snapshot directory: once the table directory's timestamps settled, "no
// snapshot" costs a query two stats (no hint read, no listing), and the first commit, which
// creates the directory, is seen by the next query.
TEST_P(SnapshotResolutionCacheTest, ATableWithoutSnapshotsIsNotResolvedAgain) {
  LetTimestampsSettle();
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 0);
  const int64_t opened = fs_->opened, listed = fs_->listed;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 0);
  EXPECT_EQ(fs_->opened, opened);
  EXPECT_EQ(fs_->listed, listed);
  Publish(1);
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
}

TEST_P(SnapshotResolutionCacheTest, UnsettledDirectoryIsResolvedEveryTime) {
  if (Watched()) GTEST_SKIP() << "watched versions are exact: nothing waits to settle";
  const auto began = std::chrono::steady_clock::now();
  Publish(1);
  // No pause: the directory changed within the current timestamp tick, so a later change could
  // leave the same version; every query reads the files.
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  const int64_t opened = fs_->opened;
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  // The directory's timestamp is at most one tick (10 ms) before `began`, and settles 20 ms after
  // it: within 10 ms of `began` neither query may have trusted it. A machine that stalled this
  // test for longer cannot tell.
  if (std::chrono::steady_clock::now() - began >= std::chrono::milliseconds(10)) {
    GTEST_SKIP() << "the test was stalled past the settling time";
  }
  EXPECT_GT(fs_->opened, opened);
}

// A watched snapshot directory's version changes with every change, however soon: a query right
// after a commit reads the files once, the next ones none, and the next commit is seen at once.
TEST_P(SnapshotResolutionCacheTest, AWatchedDirectoryIsTrustedAtOnce) {
  if (!Watched()) GTEST_SKIP() << "stat versions wait for timestamps to settle";
  for (int64_t id = 1; id <= 3; ++id) {
    Publish(id);
    EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), id);
    const int64_t opened = fs_->opened, listed = fs_->listed;
    for (int i = 0; i < 3; ++i) EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), id);
    EXPECT_EQ(fs_->opened, opened) << "an unchanged watched directory was read again";
    EXPECT_EQ(fs_->listed, listed);
  }
  // A snapshot file rewritten in place (no entry of the directory created or removed).
  ASSERT_OK_AND_ASSIGN(auto out, fs_->OpenForWrite(manager_.SnapshotPath(3)));
  ASSERT_OK(out->Write(TestSnapshot(3, 42).ToJson()));
  ASSERT_OK(out->Close());
  EXPECT_EQ((*manager_.LatestSnapshotShared())->time_millis, 42);
}

// A snapshot's parse is shared while its file holds the same bytes, yet a file rewritten under
// the same id by another process (a rollback, then a new commit) reads as its new bytes.
TEST_P(SnapshotResolutionCacheTest, APublishedSnapshotReadsAsItsFileSays) {
  Snapshot published = TestSnapshot(1, 1);
  published.commit_identifier = 7;
  ASSERT_OK_AND_ASSIGN(bool ok, manager_.TryPublish(published));
  ASSERT_TRUE(ok);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Snapshot> read, manager_.ReadSnapshotShared(1));
  ASSERT_OK_AND_ASSIGN(Snapshot parsed, Snapshot::FromJson(published.ToJson(), "expected"));
  EXPECT_EQ(read->ToJson(), parsed.ToJson());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Snapshot> again, manager_.ReadSnapshotShared(1));
  EXPECT_EQ(again, read);  // one parse, shared
  // Another process replaces snapshot 1 (written directly, not through this process's manager).
  ASSERT_OK(fs_->Delete(manager_.SnapshotPath(1), false));
  ASSERT_OK_AND_ASSIGN(auto out, fs_->OpenForWrite(manager_.SnapshotPath(1)));
  ASSERT_OK(out->Write(TestSnapshot(1, 99).ToJson()));
  ASSERT_OK(out->Close());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Snapshot> replaced, manager_.ReadSnapshotShared(1));
  EXPECT_EQ(replaced->time_millis, 99);
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  EXPECT_EQ((*manager_.LatestSnapshotShared())->time_millis, 99);
}

TEST_P(SnapshotResolutionCacheTest, PublishedAndRemovedSnapshotsAreSeenAtOnce) {
  Publish(1);
  LetTimestampsSettle();
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  // Another committer (its own FileIO and manager, as another process has).
  SnapshotManager other(io::LocalFileIO(), dir_.path());
  ASSERT_OK_AND_ASSIGN(bool published, other.TryPublish(TestSnapshot(2, 2)));
  ASSERT_TRUE(published);
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 2);
  LetTimestampsSettle();
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 2);
  // A rollback: the newest snapshot removed and the hint rewritten.
  ASSERT_OK(fs_->Delete(manager_.SnapshotPath(2), false));
  ASSERT_OK(fs_->PublishReplace(manager_.SnapshotDirectory() + "/LATEST", "1"));
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  LetTimestampsSettle();
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
  // The table dropped and created again under the same path: no snapshot.
  ASSERT_OK(fs_->Delete(dir_.path() + "/snapshot", true));
  ASSERT_OK(fs_->MakeDirs(dir_.path() + "/snapshot"));
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 0);
  LetTimestampsSettle();
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 0);
  Publish(1);
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), 1);
}

// Read-your-commits across threads: a query that starts after a publish returned sees that
// snapshot or a newer one, whether or not the directory's version had settled. Commits are
// spaced randomly around the settling time so that both paths are taken.
TEST_P(SnapshotResolutionCacheTest, QueriesNeverMissAPublishedSnapshot) {
  constexpr int64_t kCommits = 60;
  std::atomic<int64_t> published{0};
  std::atomic<bool> done{false};
  std::thread committer([&] {
    std::mt19937 random(7);
    SnapshotManager other(io::LocalFileIO(), dir_.path());
    for (int64_t id = 1; id <= kCommits; ++id) {
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 45));
      auto ok = other.TryPublish(TestSnapshot(id, id));
      if (!ok.ok() || !*ok) break;
      published = id;
    }
    done = true;
  });
  int64_t queries = 0, violations = 0;
  while (!done) {
    const int64_t before = published.load();
    const int64_t seen = IdOf(manager_.LatestSnapshotShared());
    if (seen < before) ++violations;
    ++queries;
  }
  committer.join();
  EXPECT_EQ(published.load(), kCommits);
  EXPECT_EQ(violations, 0) << "of " << queries << " queries";
  EXPECT_EQ(IdOf(manager_.LatestSnapshotShared()), kCommits);
}

INSTANTIATE_TEST_SUITE_P(Versions, SnapshotResolutionCacheTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Watched" : "Stat";
                         });

TEST(FileVersionTest, SettlesOneTimestampTickAfterTheLastChange) {
  constexpr int64_t kMs = 1'000'000;
  io::FileVersion version;
  version.modified_ns = 1'700'000'000'123'456'789;
  version.changed_ns = version.modified_ns - 5 * kMs;
  EXPECT_FALSE(version.SettledBefore(version.modified_ns));
  EXPECT_FALSE(version.SettledBefore(version.modified_ns + 10 * kMs));
  EXPECT_TRUE(version.SettledBefore(version.modified_ns + 21 * kMs));
  // The later of the two timestamps counts.
  version.changed_ns = version.modified_ns + 15 * kMs;
  EXPECT_FALSE(version.SettledBefore(version.modified_ns + 21 * kMs));
  // Whole seconds: a file system that keeps only seconds (or FAT's two).
  version.modified_ns = version.changed_ns = 1'700'000'000'000'000'000;
  EXPECT_FALSE(version.SettledBefore(version.modified_ns + 1'500 * kMs));
  EXPECT_TRUE(version.SettledBefore(version.modified_ns + 2'001 * kMs));
  // A version from change notifications is settled at once.
  version.exact = true;
  EXPECT_TRUE(version.SettledBefore(version.modified_ns));
}

TEST(FileVersionTest, LocalFilesChangeVersionWhenADirectoryEntryChanges) {
  TempDir dir;
  auto fs = io::LocalFileIOWithStatVersions();
  ASSERT_OK_AND_ASSIGN(auto missing, fs->Version(dir.path() + "/nothing"));
  EXPECT_FALSE(missing.has_value());
  ASSERT_OK_AND_ASSIGN(auto before, fs->Version(dir.path()));
  ASSERT_TRUE(before.has_value());
  LetTimestampsSettle();
  ASSERT_OK(fs->WriteFile(dir.path() + "/a", "x"));
  ASSERT_OK_AND_ASSIGN(auto after, fs->Version(dir.path()));
  ASSERT_TRUE(after.has_value());
  EXPECT_NE(*before, *after);
}

}  // namespace
}  // namespace freshet::meta
