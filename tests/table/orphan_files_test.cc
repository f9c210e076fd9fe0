// Table::RemoveOrphanFiles (src/commit/orphan_files.cc, docs/expiration.md "Orphan files"): on a
// primary-key table with expired snapshots, a compaction and a tag, planted unreferenced files
// older than the cut-off go, and nothing any snapshot or tag references, nothing younger than the
// cut-off and nothing outside the data and manifest directories is touched.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "freshet/table.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using testing::pk::KindColumn;
using testing::pk::MakeBatch;
using testing::pk::ReadAll;
using testing::pk::Row;
using testing::pk::SchemaSpec;
using testing::pk::WriteRows;

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Plant(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "not referenced by anything";
}

// Sets the modification time of every file under `root` `age` into the past.
void AgeAll(const fs::path& root, std::chrono::hours age) {
  auto when = fs::file_time_type::clock::now() - age;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) fs::last_write_time(entry.path(), when);
  }
}

std::string FileOf(const DataFileInfo& f) {
  return (f.partition_path.empty() ? "" : f.partition_path + "/") + "bucket-" +
         std::to_string(f.bucket) + "/" + f.file_name;
}

class OrphanFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.Sub("t");
    std::map<std::string, std::string> options = {{"bucket", "1"},
                                                  {"snapshot.num-retained.min", "1"},
                                                  {"snapshot.num-retained.max", "3"},
                                                  {"snapshot.time-retained", "1 ms"}};
    ASSERT_OK_AND_ASSIGN(table_, Table::Create(path_, SchemaSpec(options)));
    for (int commit = 0; commit < 6; ++commit) {
      ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
      std::vector<Row> rows;
      for (int64_t id = 0; id < 5; ++id) {
        rows.push_back({commit % 2 == 0 ? "a" : "b", id + commit, "n" + std::to_string(commit),
                        commit, RowKind::kInsert});
      }
      ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
      ASSERT_OK_AND_ASSIGN(auto id, writer->Commit());
      ASSERT_TRUE(id.has_value());
      if (*id == 1) {
        // A tag of snapshot 1: its files stay after snapshot 1 expires.
        fs::create_directories(path_ + "/tag");
        fs::copy_file(path_ + "/snapshot/snapshot-1", path_ + "/tag/tag-first");
        ASSERT_OK_AND_ASSIGN(tagged_files_, table_->DataFiles(1));
      }
    }
    ASSERT_OK_AND_ASSIGN(CompactResult compacted, table_->Compact(CompactOptions{true, {}}));
    ASSERT_TRUE(compacted.snapshot_id.has_value());
    ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
    ASSERT_OK(WriteRows(writer.get(),
                        MakeBatch({{"a", 100, "late", 7, RowKind::kInsert}}, KindColumn::kNone)));
    ASSERT_OK(writer->Commit().status());

    ASSERT_OK_AND_ASSIGN(ids_, table_->SnapshotIds());
    ASSERT_GT(ids_.front(), 1) << "snapshots expired";
    for (int64_t id : ids_) rows_[id] = ReadAll(*table_, id);

    // Orphans as a crashed writer, a failed commit and an interrupted expiration leave them.
    planted_ = {"dt=a/bucket-0/data-00000000-orphan-0.parquet", "manifest/manifest-orphan-0",
                "manifest/manifest-list-orphan-1", "index/index-orphan-0"};
    for (const auto& p : planted_) Plant(path_ + "/" + p);
    // Never candidates: other directories, names that are not Paimon's, hidden files.
    kept_ = {"snapshot/README",
             "schema/README",
             "consumer/consumer-x",
             "README",
             "manifest/notes.txt",
             "dt=a/bucket-0/.data-tmp",
             "dt=a/not-a-bucket/data-x.parquet"};
    for (const auto& p : kept_) Plant(path_ + "/" + p);
    AgeAll(path_, std::chrono::hours(2));
    // Younger than the cut-off: a writer may be about to commit it.
    fresh_ = "dt=b/bucket-0/data-00000000-fresh-0.parquet";
    Plant(path_ + "/" + fresh_);
  }

  std::set<std::string> Paths(const OrphanFilesResult& result) {
    std::set<std::string> paths;
    for (const auto& f : result.files) paths.insert(f.path);
    return paths;
  }

  void ExpectEverySnapshotReads() {
    ASSERT_OK_AND_ASSIGN(auto ids, table_->SnapshotIds());
    EXPECT_EQ(ids, ids_);
    for (int64_t id : ids_) {
      EXPECT_EQ(ReadAll(*table_, id), rows_[id]) << "snapshot " << id;
      ASSERT_OK_AND_ASSIGN(auto files, table_->DataFiles(id));
      for (const auto& f : files) EXPECT_TRUE(fs::exists(path_ + "/" + FileOf(f))) << FileOf(f);
    }
    for (const auto& f : tagged_files_) {
      EXPECT_TRUE(fs::exists(path_ + "/" + FileOf(f))) << "tagged " << FileOf(f);
    }
  }

  testing::TempDir dir_;
  std::string path_;
  std::shared_ptr<Table> table_;
  std::vector<int64_t> ids_;
  std::map<int64_t, std::vector<std::string>> rows_;
  std::vector<DataFileInfo> tagged_files_;
  std::set<std::string> planted_;
  std::vector<std::string> kept_;
  std::string fresh_;
};

TEST_F(OrphanFilesTest, RemovesExactlyTheOldUnreferencedFiles) {
  RemoveOrphanFilesOptions options;
  options.older_than_millis = NowMillis() - 3600 * 1000;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(OrphanFilesResult listed, table_->RemoveOrphanFiles(options));
  EXPECT_EQ(Paths(listed), planted_);
  int64_t bytes = 0;
  for (const auto& p : planted_) {
    EXPECT_TRUE(fs::exists(path_ + "/" + p)) << "a dry run removed " << p;
    bytes += static_cast<int64_t>(fs::file_size(path_ + "/" + p));
  }
  EXPECT_EQ(listed.total_bytes, bytes);

  options.dry_run = false;
  ASSERT_OK_AND_ASSIGN(OrphanFilesResult removed, table_->RemoveOrphanFiles(options));
  EXPECT_EQ(Paths(removed), planted_);
  EXPECT_EQ(removed.total_bytes, bytes);
  for (const auto& p : planted_) EXPECT_FALSE(fs::exists(path_ + "/" + p)) << p;
  for (const auto& p : kept_) EXPECT_TRUE(fs::exists(path_ + "/" + p)) << p;
  EXPECT_TRUE(fs::exists(path_ + "/" + fresh_));
  EXPECT_TRUE(fs::exists(path_ + "/tag/tag-first"));
  ExpectEverySnapshotReads();

  // Nothing left to do; the table still takes commits.
  ASSERT_OK_AND_ASSIGN(OrphanFilesResult again, table_->RemoveOrphanFiles(options));
  EXPECT_TRUE(again.files.empty());
  ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
  ASSERT_OK(WriteRows(writer.get(),
                      MakeBatch({{"b", 200, "x", 1, RowKind::kInsert}}, KindColumn::kNone)));
  ASSERT_OK(writer->Commit().status());
}

TEST_F(OrphanFilesTest, DefaultCutOffIsOneDay) {
  ASSERT_OK_AND_ASSIGN(OrphanFilesResult result, table_->RemoveOrphanFiles());
  EXPECT_TRUE(result.files.empty());
  for (const auto& p : planted_) EXPECT_TRUE(fs::exists(path_ + "/" + p)) << p;
}

TEST_F(OrphanFilesTest, CutOffMustBeInThePast) {
  RemoveOrphanFilesOptions options;
  options.older_than_millis = NowMillis() + 1000;
  auto result = table_->RemoveOrphanFiles(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalid);
}

// An unreadable manifest of the latest snapshot aborts the run before anything is deleted: the
// files it names cannot be told from orphans.
TEST_F(OrphanFilesTest, MissingManifestOfLatestSnapshotAborts) {
  std::string snapshot_text;
  {
    std::ifstream in(path_ + "/snapshot/snapshot-" + std::to_string(ids_.back()));
    snapshot_text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto key = snapshot_text.find("\"deltaManifestList\"");
  ASSERT_NE(key, std::string::npos);
  auto start = snapshot_text.find('"', snapshot_text.find(':', key)) + 1;
  std::string list = snapshot_text.substr(start, snapshot_text.find('"', start) - start);
  fs::remove(path_ + "/manifest/" + list);

  RemoveOrphanFilesOptions options;
  options.older_than_millis = NowMillis() - 3600 * 1000;
  auto result = table_->RemoveOrphanFiles(options);
  ASSERT_FALSE(result.ok());
  for (const auto& p : planted_) EXPECT_TRUE(fs::exists(path_ + "/" + p)) << p;
}

TEST_F(OrphanFilesTest, TablesWithBranchesAreRefused) {
  fs::create_directories(path_ + "/branch/branch-dev/snapshot");
  RemoveOrphanFilesOptions options;
  options.older_than_millis = NowMillis() - 3600 * 1000;
  auto result = table_->RemoveOrphanFiles(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotImplemented);
  for (const auto& p : planted_) EXPECT_TRUE(fs::exists(path_ + "/" + p)) << p;
}

}  // namespace
}  // namespace freshet
