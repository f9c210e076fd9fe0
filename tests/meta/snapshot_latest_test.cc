// Which snapshot is the latest when snapshot files are missing: a lost newest snapshot is a
// Corruption error naming its file (as Java Paimon fails to read the snapshot its LATEST hint
// names), while the states expiration and concurrent committers leave behind are not errors.
#include <gtest/gtest.h>

#include "io/file_io.h"
#include "meta/snapshot/snapshot_manager.h"
#include "snapshot_test_util.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

using freshet::testing::TempDir;

class SnapshotLatestTest : public ::testing::Test {
 protected:
  // Publishes snapshots 1..`count`, each updating the LATEST hint, as commits do.
  void Publish(int64_t count) {
    for (int64_t id = 1; id <= count; ++id) {
      ASSERT_OK_AND_ASSIGN(bool published, manager_.TryPublish(TestSnapshot(id, id)));
      ASSERT_TRUE(published);
    }
  }
  void Delete(std::initializer_list<int64_t> ids) {
    for (int64_t id : ids) ASSERT_OK(fs_->Delete(manager_.SnapshotPath(id), false));
  }
  void WriteHint(const char* name, int64_t id) {
    ASSERT_OK(fs_->PublishReplace(manager_.SnapshotDirectory() + "/" + name, std::to_string(id)));
  }
  int64_t Latest() {
    Result<std::optional<int64_t>> latest = manager_.LatestSnapshotId();
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    return latest.ok() ? latest->value_or(0) : -1;
  }
  Status LatestError() {
    Result<std::optional<int64_t>> latest = manager_.LatestSnapshotId();
    EXPECT_FALSE(latest.ok()) << "latest is " << latest->value_or(0);
    EXPECT_FALSE(manager_.LatestSnapshot().ok());
    return latest.status();
  }

  TempDir dir_;
  std::shared_ptr<io::FileIO> fs_ = io::LocalFileIO();
  SnapshotManager manager_{fs_, dir_.path()};
};

TEST_F(SnapshotLatestTest, LostNewestSnapshotIsCorruption) {
  Publish(3);
  Delete({3});  // LATEST still says 3
  Status error = LatestError();
  EXPECT_TRUE(error.IsCorruption()) << error.ToString();
  EXPECT_EQ(error.message(), "the newest snapshot of table '" + dir_.path() +
                                 "' is missing: the LATEST hint names '" +
                                 manager_.SnapshotPath(3) + "', and no newer snapshot exists");
  Delete({1, 2});
  EXPECT_TRUE(LatestError().IsCorruption());
}

TEST_F(SnapshotLatestTest, MissingSnapshotBetweenRetainedOnesIsCorruption) {
  // Ids 1, 2 and 4 exist; LATEST says 3 (committing 4 could not update it).
  Publish(4);
  WriteHint("LATEST", 3);
  Delete({3});
  Status error = LatestError();
  EXPECT_TRUE(error.IsCorruption()) << error.ToString();
  EXPECT_EQ(error.message(), "snapshot 3 of table '" + dir_.path() + "' is missing ('" +
                                 manager_.SnapshotPath(3) +
                                 "'), but the older snapshot 2 is still there: snapshots expire "
                                 "oldest first, so it did not expire");
}

TEST_F(SnapshotLatestTest, ExpiredHintedSnapshotIsNotAnError) {
  // A stale LATEST hint whose snapshot has since expired; EARLIEST moved past it.
  Publish(6);
  WriteHint("LATEST", 2);
  Delete({1, 2});
  ASSERT_OK(manager_.WriteEarliestHint(3));
  EXPECT_EQ(Latest(), 6);
  // An expiration that stopped before writing EARLIEST.
  ASSERT_OK(fs_->Delete(manager_.SnapshotDirectory() + "/EARLIEST", false));
  EXPECT_EQ(Latest(), 6);
  // Java's expiration deletes quietly: a snapshot it failed to delete stays below EARLIEST.
  ASSERT_OK(fs_->WriteFile(manager_.SnapshotPath(1), "{}"));
  ASSERT_OK(manager_.WriteEarliestHint(3));
  EXPECT_EQ(Latest(), 6);
}

TEST_F(SnapshotLatestTest, StaleOrMissingHintsAreNotErrors) {
  Publish(3);
  WriteHint("LATEST", 2);  // a committer published 3 but has not updated the hint yet
  EXPECT_EQ(Latest(), 3);
  ASSERT_OK(fs_->Delete(manager_.SnapshotDirectory() + "/LATEST", false));
  EXPECT_EQ(Latest(), 3);
  WriteHint("LATEST", 0);
  EXPECT_EQ(Latest(), 3);
  // A hole below the hinted newest snapshot does not change which one is the newest, and the
  // hint's fast path (Java's) does not list the directory to look for holes.
  WriteHint("LATEST", 3);
  Delete({2});
  EXPECT_EQ(Latest(), 3);
}

// A query that lands between a commit's publish and its hint update (or after commits that could
// not write the hint) finds the newest snapshot by probing the ids after the hint, without
// listing a directory that may hold thousands of snapshots; a hint far behind is still listed.
TEST_F(SnapshotLatestTest, AStaleHintIsFollowedForwardWithoutListing) {
  Publish(20);
  auto io = std::make_shared<io::FaultInjectingFileIO>(fs_);
  io->FailWhen([](io::FileOp op, const std::string&) { return op == io::FileOp::kListDir; });
  SnapshotManager probing(io, dir_.path());
  for (int64_t behind : {1, 2, 16}) {
    WriteHint("LATEST", 20 - behind);
    Result<std::optional<int64_t>> latest = probing.LatestSnapshotId();
    ASSERT_TRUE(latest.ok()) << behind << ": " << latest.status().ToString();
    EXPECT_EQ(latest->value_or(0), 20) << behind;
    auto snapshot = probing.LatestSnapshot();
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_EQ((*snapshot)->id, 20);
  }
  EXPECT_EQ(io->injected_failures(), 0);
  // Seventeen behind: the listing decides (here it fails, as injected; unfailed, it is right).
  WriteHint("LATEST", 3);
  EXPECT_FALSE(probing.LatestSnapshotId().ok());
  EXPECT_EQ(io->injected_failures(), 1);
  EXPECT_EQ(Latest(), 20);
}

}  // namespace
}  // namespace freshet::meta
