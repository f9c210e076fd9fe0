// Snapshot expiration: random commit/overwrite sequences with tiny retention keep every retained
// snapshot whole and leave no file only expired snapshots referenced; a fault at any file
// operation of an expiration never harms a retained snapshot, and a later run finishes the job.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>

#include "commit/file_store_commit.h"
#include "commit/snapshot_expiration.h"
#include "meta/path/data_file_paths.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/test_util.h"

namespace freshet::commit {
namespace {

using freshet::testing::TempDir;
namespace fs = std::filesystem;

struct Table {
  TempDir dir;
  std::shared_ptr<io::FileIO> file_io = io::LocalFileIO();
  meta::TableSchema schema;

  explicit Table(const meta::Options& retention) : schema(Create(retention)) {}

  meta::TableSchema Create(const meta::Options& retention) const {
    meta::SchemaSpec spec;
    spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
    spec.fields.push_back({0, "dt", meta::DataType::Int(), std::nullopt, std::nullopt});
    spec.partition_keys = {"dt"};
    spec.options = {{"bucket", "2"}, {"bucket-key", "id"}};
    spec.options.insert(spec.options.end(), retention.begin(), retention.end());
    return *meta::SchemaManager(file_io, dir.path()).CreateTable(spec, 0);
  }
  meta::CoreOptions Options() const { return *meta::CoreOptions::Make(schema.options(), false); }
  FileStoreCommit Committer(std::shared_ptr<io::FileIO> io = nullptr) const {
    return FileStoreCommit(io ? io : file_io, dir.path(), schema, Options(), "user");
  }
  meta::DataFilePaths Paths() const { return *meta::DataFilePaths::Make(dir.path(), schema); }
};

// A commit message for one real (tiny) data file, created on disk so existence can be checked.
meta::CommitMessage WriteFile(const Table& t, int32_t dt, int32_t bucket, const std::string& name) {
  meta::DataFileMeta f;
  f.file_name = name;
  f.file_size = 1;
  f.row_count = 1;
  f.min_key = f.max_key = meta::EmptySerializedRow();
  f.key_stats = f.value_stats = meta::SimpleStats::Empty();
  f.file_source = 0;
  meta::CommitMessage m;
  auto row = meta::BuildBinaryRow(std::vector<meta::DataTypePtr>{meta::DataType::Int()},
                                  {meta::Value::Int(dt)});
  m.partition = meta::SerializeBinaryRow(*row);
  m.bucket = bucket;
  m.total_buckets = 2;
  m.new_files.push_back(f);
  EXPECT_OK(t.file_io->WriteFile(*t.Paths().FilePath(m.partition, bucket, f), "x"));
  return m;
}

// Files under the table directory outside schema/ and snapshot/, by full path.
std::set<std::string> FilesOnDisk(const Table& t) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(t.dir.path())) {
    std::string rel = fs::relative(e.path(), t.dir.path()).string();
    if (!e.is_regular_file() || rel.rfind("schema/", 0) == 0 || rel.rfind("snapshot/", 0) == 0) {
      continue;
    }
    out.insert(e.path().string());
  }
  return out;
}

// Checks every present snapshot reads completely and returns the files they reference.
std::set<std::string> ReferencedFiles(const Table& t) {
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  meta::ManifestFile manifests(t.file_io, t.dir.path());
  std::set<std::string> out;
  auto ids = *snapshots.ListSnapshotIds();
  for (int64_t id : ids) {
    auto s = snapshots.ReadSnapshot(id);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) continue;
    auto live = meta::ReadLiveEntries(manifests, *s);
    EXPECT_TRUE(live.ok()) << "snapshot " << id << ": " << live.status().ToString();
    if (!live.ok()) continue;
    int64_t rows = 0;
    for (const auto& e : *live) {
      std::string path = *t.Paths().FilePath(e.partition, e.bucket, e.file);
      EXPECT_TRUE(fs::exists(path)) << "snapshot " << id << " lost " << path;
      out.insert(path);
      rows += e.file.row_count;
    }
    EXPECT_EQ(rows, s->total_record_count.value_or(-1)) << "snapshot " << id;
    for (const auto& list : {s->base_manifest_list, s->delta_manifest_list}) {
      out.insert(manifests.PathOf(list));
      auto metas = manifests.ReadManifestList(list);
      EXPECT_TRUE(metas.ok()) << "snapshot " << id;
      if (!metas.ok()) continue;
      for (const auto& m : *metas) out.insert(manifests.PathOf(m.file_name));
    }
  }
  return out;
}

void ExpectNoLeak(const Table& t, const std::string& context) {
  EXPECT_EQ(FilesOnDisk(t), ReferencedFiles(t)) << context;
}

TEST(SnapshotExpirationTest, RandomCommitsWithTinyRetentionKeepRetainedSnapshotsWhole) {
  std::mt19937 rng(20261130);
  for (int round = 0; round < 6; ++round) {
    int retain_min = 1 + static_cast<int>(rng() % 3);
    int retain_max = retain_min + static_cast<int>(rng() % 3);
    int limit = 1 + static_cast<int>(rng() % 3);
    Table t(meta::Options{{"snapshot.num-retained.min", std::to_string(retain_min)},
                          {"snapshot.num-retained.max", std::to_string(retain_max)},
                          {"snapshot.time-retained", "0 ms"},
                          {"snapshot.expire.limit", std::to_string(limit)}});
    auto committer = t.Committer();
    for (int i = 0; i < 25; ++i) {
      CommitRequest request;
      int files = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < files; ++f) {
        request.messages.push_back(
            WriteFile(t, static_cast<int32_t>(rng() % 3), static_cast<int32_t>(rng() % 2),
                      "data-" + std::to_string(i) + "-" + std::to_string(f)));
      }
      request.overwrite = rng() % 4 == 0;
      request.overwrite_all = request.overwrite && rng() % 2 == 0;
      ASSERT_OK_AND_ASSIGN(CommitResult result, committer.Commit(request));
      ASSERT_OK(result.expiration);
      std::string context = "round " + std::to_string(round) + " commit " + std::to_string(i);
      meta::SnapshotManager snapshots(t.file_io, t.dir.path());
      ASSERT_OK_AND_ASSIGN(auto ids, snapshots.ListSnapshotIds());
      // Time retention is 0, so only the count rules (and the per-run limit) keep snapshots.
      EXPECT_GE(static_cast<int>(ids.size()), std::min(retain_min, i + 1)) << context;
      EXPECT_EQ(ids.back(), i + 1) << context;
      if (result.expired_snapshots > 0) {
        EXPECT_EQ(freshet::testing::ReadWholeFile(snapshots.SnapshotDirectory() + "/EARLIEST"),
                  std::to_string(ids.front()))
            << context;
      }
      ExpectNoLeak(t, context);
    }
    meta::SnapshotManager snapshots(t.file_io, t.dir.path());
    EXPECT_EQ(snapshots.ListSnapshotIds()->size(), static_cast<size_t>(retain_min))
        << "round " << round << ": the limit lets expiration catch up by the end";
  }
}

TEST(SnapshotExpirationTest, TimeRetentionKeepsYoungSnapshotsAndWriteOnlyDisables) {
  Table t(meta::Options{{"snapshot.num-retained.min", "1"}});  // time-retained: 1 h (default)
  auto committer = t.Committer();
  for (int i = 0; i < 5; ++i) {
    CommitRequest request;
    request.messages = {WriteFile(t, 1, 0, "d-" + std::to_string(i))};
    ASSERT_OK_AND_ASSIGN(CommitResult r, committer.Commit(request));
    EXPECT_EQ(r.expired_snapshots, 0);
  }
  SnapshotExpiration expiration(t.file_io, t.dir.path(), t.schema,
                                ExpireConfig::FromOptions(t.Options()));
  ASSERT_OK_AND_ASSIGN(ExpireResult now, expiration.Expire(0));
  EXPECT_EQ(now.expired_snapshots, 0);
  int64_t later = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count() +
                  2 * 3600 * 1000;
  ASSERT_OK_AND_ASSIGN(ExpireResult expired, expiration.Expire(later));
  EXPECT_EQ(expired.expired_snapshots, 4);
  EXPECT_EQ(expired.earliest.value_or(-1), 5);
  ExpectNoLeak(t, "after time expiration");

  Table w(meta::Options{{"snapshot.num-retained.min", "1"},
                        {"snapshot.time-retained", "0 ms"},
                        {"write-only", "true"}});
  for (int i = 0; i < 3; ++i) {
    CommitRequest request;
    request.messages = {WriteFile(w, 1, 0, "d-" + std::to_string(i))};
    ASSERT_OK(w.Committer().Commit(request).status());
  }
  EXPECT_EQ(meta::SnapshotManager(w.file_io, w.dir.path()).ListSnapshotIds()->size(), 3u);
}

TEST(SnapshotExpirationTest, InvalidRetentionIsRejected) {
  meta::Options bad = {{"snapshot.num-retained.min", "0"}};
  EXPECT_FALSE(meta::CoreOptions::Make(bad, false).ok());
  bad = {{"snapshot.num-retained.min", "5"}, {"snapshot.num-retained.max", "4"}};
  EXPECT_FALSE(meta::CoreOptions::Make(bad, false).ok());
}

// Builds 8 snapshots (with an overwrite in the middle) and no expiration yet.
void BuildHistory(const Table& t) {
  FileStoreCommit committer(t.file_io, t.dir.path(), t.schema,
                            *meta::CoreOptions::Make({{"write-only", "true"}}, false), "user");
  for (int i = 0; i < 8; ++i) {
    CommitRequest request;
    request.messages = {WriteFile(t, i % 2, i % 2, "d-" + std::to_string(i))};
    request.overwrite = i == 4;
    ASSERT_OK(committer.Commit(request).status());
  }
}

TEST(SnapshotExpirationTest, FaultAtAnyOperationNeverHarmsRetainedSnapshots) {
  ExpireConfig config{.retain_min = 3, .retain_max = 3, .time_retained_ms = 0, .max_deletes = 50};
  int64_t ops = 0;
  {
    Table probe(meta::Options{});
    BuildHistory(probe);
    auto faulty = std::make_shared<io::FaultInjectingFileIO>(probe.file_io);
    ASSERT_OK(
        SnapshotExpiration(faulty, probe.dir.path(), probe.schema, config).Expire(0).status());
    ops = faulty->operation_count();
  }
  ASSERT_GT(ops, 10);
  for (int64_t i = 0; i < ops; ++i) {
    Table t(meta::Options{});
    BuildHistory(t);
    auto faulty = std::make_shared<io::FaultInjectingFileIO>(t.file_io);
    faulty->FailOperationAt(i);
    auto failed = SnapshotExpiration(faulty, t.dir.path(), t.schema, config).Expire(0);
    std::string context = "fault at operation " + std::to_string(i);
    if (!failed.ok()) {
      EXPECT_NE(failed.status().message().find("injected fault"), std::string::npos) << context;
    }
    // Snapshots 6..8 are retained whatever happened; they read completely.
    meta::SnapshotManager snapshots(t.file_io, t.dir.path());
    for (int64_t id = 6; id <= 8; ++id) {
      auto s = snapshots.ReadSnapshot(id);
      ASSERT_TRUE(s.ok()) << context;
      meta::ManifestFile manifests(t.file_io, t.dir.path());
      auto live = meta::ReadLiveEntries(manifests, *s);
      ASSERT_TRUE(live.ok()) << context << ": " << live.status().ToString();
      for (const auto& e : *live) {
        EXPECT_TRUE(fs::exists(*t.Paths().FilePath(e.partition, e.bucket, e.file))) << context;
      }
    }
    // A clean run afterwards finishes the job: exactly the retained snapshots, nothing leaked.
    ASSERT_OK(SnapshotExpiration(t.file_io, t.dir.path(), t.schema, config).Expire(0).status());
    EXPECT_EQ(*snapshots.ListSnapshotIds(), (std::vector<int64_t>{6, 7, 8})) << context;
    ExpectNoLeak(t, context);
  }
}

}  // namespace
}  // namespace freshet::commit
