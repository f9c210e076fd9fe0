#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "commit/file_store_commit.h"
#include "commit/index_manifest_update.h"
#include "commit/test_data_files.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "scan/table_scan.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/test_util.h"

namespace freshet::commit {
namespace {

using freshet::testing::TempDir;
using meta::CommitMessage;
using meta::DataFileMeta;

struct TestTable {
  TempDir dir;
  std::shared_ptr<io::FileIO> file_io = io::LocalFileIO();
  meta::TableSchema schema = Create();

  meta::TableSchema Create() {
    meta::SchemaSpec spec;
    spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
    spec.fields.push_back({0, "dt", meta::DataType::Int(), std::nullopt, std::nullopt});
    spec.partition_keys = {"dt"};
    spec.options = {{"bucket", "2"}, {"bucket-key", "id"}};
    meta::SchemaManager schemas(io::LocalFileIO(), dir.path());
    return *schemas.CreateTable(spec, 0);
  }

  FileStoreCommit Committer(std::shared_ptr<io::FileIO> io = nullptr, std::string user = "user-1") {
    auto options = *meta::CoreOptions::Make(schema.options(), false);
    return FileStoreCommit(io ? io : file_io, dir.path(), schema, options, std::move(user));
  }
};

std::string Partition(int32_t dt) {
  auto row = meta::BuildBinaryRow(std::vector<meta::DataTypePtr>{meta::DataType::Int()},
                                  {meta::Value::Int(dt)});
  return meta::SerializeBinaryRow(*row);
}

CommitMessage Message(int32_t dt, int32_t bucket, const std::string& name, int64_t rows) {
  DataFileMeta f = TestDataFile(name, rows);
  CommitMessage m;
  m.partition = Partition(dt);
  m.bucket = bucket;
  m.total_buckets = 2;
  m.new_files.push_back(f);
  return m;
}

std::multiset<std::string> LiveFiles(TestTable& t, std::optional<int64_t> snapshot = {}) {
  scan::TableScan scan(t.file_io, t.dir.path());
  scan::ScanOptions options;
  options.snapshot_id = snapshot;
  auto plan = scan.Plan(options);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  std::multiset<std::string> names;
  for (const auto& split : plan->splits) {
    for (const auto& f : split.files) names.insert(f.file_name);
  }
  return names;
}

TEST(FileStoreCommitTest, AppendsBuildSnapshotsWithBaseAndDelta) {
  TestTable t;
  auto committer = t.Committer();
  CommitRequest first;
  first.messages = {Message(1, 0, "a", 10), Message(2, 1, "b", 5)};
  ASSERT_OK_AND_ASSIGN(CommitResult r1, committer.Commit(first));
  EXPECT_EQ(r1.snapshot_id.value_or(-1), 1);
  CommitRequest second;
  second.messages = {Message(1, 0, "c", 7)};
  second.properties = {{"k", "v"}};
  ASSERT_OK_AND_ASSIGN(CommitResult r2, committer.Commit(second));
  EXPECT_EQ(r2.snapshot_id.value_or(-1), 2);

  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  ASSERT_OK_AND_ASSIGN(meta::Snapshot s2, snapshots.ReadSnapshot(2));
  EXPECT_EQ(s2.total_record_count.value_or(-1), 22);
  EXPECT_EQ(s2.delta_record_count.value_or(-1), 7);
  EXPECT_EQ(s2.commit_kind, meta::CommitKind::kAppend);
  EXPECT_EQ(s2.properties.at("k"), "v");
  EXPECT_EQ(LiveFiles(t), (std::multiset<std::string>{"a", "b", "c"}));
  EXPECT_EQ(LiveFiles(t, 1), (std::multiset<std::string>{"a", "b"}));

  // The delta manifest's partition stats cover exactly the committed partitions.
  meta::ManifestFile manifests(t.file_io, t.dir.path());
  ASSERT_OK_AND_ASSIGN(auto metas, manifests.ReadManifestList(s2.delta_manifest_list));
  ASSERT_EQ(metas.size(), 1u);
  ASSERT_OK_AND_ASSIGN(meta::BinaryRow min,
                       meta::DeserializeBinaryRow(metas[0].partition_stats.min_values));
  EXPECT_EQ(*min.GetInt(0), 1);
}

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    files.insert(entry.path().string());
  }
  return files;
}

TEST(FileStoreCommitTest, RefusesTablesWithOrcManifestsBeforeWritingAnyFile) {
  TempDir dir;
  meta::SchemaSpec spec;
  spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
  spec.fields.push_back({0, "dt", meta::DataType::Int(), std::nullopt, std::nullopt});
  spec.partition_keys = {"dt"};
  spec.options = {{"bucket", "2"}, {"bucket-key", "id"}, {"manifest.format", "ORC"}};
  meta::SchemaManager schemas(io::LocalFileIO(), dir.path());
  ASSERT_OK_AND_ASSIGN(meta::TableSchema schema, schemas.CreateTable(spec, 0));
  ASSERT_OK_AND_ASSIGN(auto options, meta::CoreOptions::Make(schema.options(), false));
  FileStoreCommit committer(io::LocalFileIO(), dir.path(), schema, options, "user-1");
  std::set<std::string> before = FilesUnder(dir.path());

  CommitRequest request;
  request.messages = {Message(1, 0, "data-a.parquet", 10)};
  for (bool overwrite : {false, true}) {
    request.overwrite = overwrite;
    auto result = committer.Commit(request);
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(result.status().IsNotImplemented()) << result.status().ToString();
    EXPECT_EQ(result.status().message().rfind(
                  "table option manifest.format=orc: freshet writes Avro manifests only", 0),
              0u)
        << result.status().ToString();
  }
  EXPECT_EQ(FilesUnder(dir.path()), before);
  EXPECT_TRUE(FileStoreCommit::CheckCommitSupported(
                  *meta::CoreOptions::Make({{"manifest.format", "avro"}}, false))
                  .ok());
}

TEST(FileStoreCommitTest, EmptyBatchCommitMakesNoSnapshot) {
  TestTable t;
  auto committer = t.Committer();
  ASSERT_OK_AND_ASSIGN(CommitResult r, committer.Commit(CommitRequest{}));
  EXPECT_FALSE(r.snapshot_id.has_value());
}

TEST(FileStoreCommitTest, OverwriteReplacesOnlyWrittenPartitions) {
  TestTable t;
  auto committer = t.Committer();
  CommitRequest first;
  first.messages = {Message(1, 0, "a", 10), Message(2, 0, "b", 5)};
  ASSERT_OK(committer.Commit(first).status());
  CommitRequest overwrite;
  overwrite.overwrite = true;
  overwrite.messages = {Message(1, 1, "a2", 3)};
  ASSERT_OK_AND_ASSIGN(CommitResult r, committer.Commit(overwrite));
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  ASSERT_OK_AND_ASSIGN(meta::Snapshot s, snapshots.ReadSnapshot(*r.snapshot_id));
  EXPECT_EQ(s.commit_kind, meta::CommitKind::kOverwrite);
  EXPECT_EQ(s.total_record_count.value_or(-1), 8);
  EXPECT_EQ(LiveFiles(t), (std::multiset<std::string>{"a2", "b"}));
  CommitRequest all;
  all.overwrite = true;
  all.overwrite_all = true;
  all.messages = {Message(3, 0, "z", 1)};
  ASSERT_OK(committer.Commit(all).status());
  EXPECT_EQ(LiveFiles(t), (std::multiset<std::string>{"z"}));
}

TEST(FileStoreCommitTest, StreamingIdentifierLandsExactlyOnce) {
  TestTable t;
  auto committer = t.Committer();
  CommitRequest request;
  request.identifier = 7;
  request.messages = {Message(1, 0, "a", 10)};
  ASSERT_OK_AND_ASSIGN(CommitResult first, committer.Commit(request));
  ASSERT_OK_AND_ASSIGN(CommitResult retry, t.Committer().Commit(request));
  EXPECT_TRUE(retry.already_committed);
  EXPECT_EQ(retry.snapshot_id, first.snapshot_id);
  EXPECT_EQ(LiveFiles(t).size(), 1u);
  // Another user with the same identifier is a different commit.
  ASSERT_OK_AND_ASSIGN(CommitResult other, t.Committer(nullptr, "user-2").Commit(request));
  EXPECT_FALSE(other.already_committed);
}

// A retried identifier is found by walking the snapshots back from the newest, and the
// expiration after a commit finds the earliest snapshot without a hint: neither lists the
// snapshot directory (a stat of every snapshot, ~20 ms per commit at 10,000 of them).
TEST(FileStoreCommitTest, CommitsDoNotListTheSnapshotDirectory) {
  TestTable t;
  std::vector<int64_t> snapshot_of(6, -1);  // by identifier
  for (int64_t identifier = 1; identifier <= 5; ++identifier) {
    CommitRequest request;
    request.identifier = identifier;
    request.messages = {Message(1, 0, "a" + std::to_string(identifier), 1)};
    ASSERT_OK_AND_ASSIGN(CommitResult r, t.Committer().Commit(request));
    snapshot_of[identifier] = *r.snapshot_id;
    CommitRequest other;  // another user's commit in between
    other.identifier = identifier;
    other.messages = {Message(2, 0, "b" + std::to_string(identifier), 1)};
    ASSERT_OK(t.Committer(nullptr, "user-2").Commit(other).status());
  }
  auto io = std::make_shared<io::FaultInjectingFileIO>(t.file_io);
  io->FailWhen([](io::FileOp op, const std::string&) { return op == io::FileOp::kListDir; });
  CommitRequest retry;
  retry.identifier = 5;
  retry.messages = {Message(1, 0, "a5", 1)};
  ASSERT_OK_AND_ASSIGN(CommitResult again, t.Committer(io).Commit(retry));
  EXPECT_TRUE(again.already_committed);
  EXPECT_EQ(again.snapshot_id, snapshot_of[5]);
  CommitRequest next;
  next.identifier = 6;
  next.messages = {Message(1, 0, "a6", 1)};
  ASSERT_OK_AND_ASSIGN(CommitResult committed, t.Committer(io).Commit(next));
  EXPECT_FALSE(committed.already_committed);
  EXPECT_EQ(committed.snapshot_id, std::optional<int64_t>(11));
  EXPECT_EQ(io->injected_failures(), 0);
  EXPECT_EQ(LiveFiles(t).size(), 11u);
  // A snapshot lost between retained ones may be the one that holds a retried commit: an error,
  // not a second commit of the same files.
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  ASSERT_OK(t.file_io->Delete(snapshots.SnapshotPath(snapshot_of[5]), false));
  auto lost = t.Committer().Commit(retry);
  EXPECT_FALSE(lost.ok());
  EXPECT_TRUE(lost.status().IsNotFound()) << lost.status().ToString();
}

TEST(FileStoreCommitTest, ConcurrentCommittersAllLandWithoutLosingFiles) {
  TestTable t;
  constexpr int kThreads = 4;
  constexpr int kCommitsEach = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int w = 0; w < kThreads; ++w) {
    threads.emplace_back([&, w] {
      auto committer = t.Committer(nullptr, "writer-" + std::to_string(w));
      for (int i = 0; i < kCommitsEach; ++i) {
        CommitRequest r;
        r.messages = {Message(w, i % 2, "f-" + std::to_string(w) + "-" + std::to_string(i), 1)};
        if (!committer.Commit(r).ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(LiveFiles(t).size(), static_cast<size_t>(kThreads * kCommitsEach));
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  ASSERT_OK_AND_ASSIGN(auto latest, snapshots.LatestSnapshot());
  EXPECT_EQ(latest->id, kThreads * kCommitsEach);
  EXPECT_EQ(latest->total_record_count.value_or(-1), kThreads * kCommitsEach);
}

TEST(FileStoreCommitTest, FaultAtAnyFileOperationLeavesLastGoodSnapshotAndRetrySucceeds) {
  TestTable t;
  auto base = t.Committer();
  CommitRequest first;
  first.messages = {Message(1, 0, "a", 10)};
  ASSERT_OK(base.Commit(first).status());

  auto faulty = std::make_shared<io::FaultInjectingFileIO>(t.file_io);
  CommitRequest next;
  next.messages = {Message(2, 1, "b", 5)};
  // Count the operations of one clean commit on a throwaway copy of the table.
  int64_t ops = 0;
  {
    TestTable probe;
    auto probe_faulty = std::make_shared<io::FaultInjectingFileIO>(probe.file_io);
    ASSERT_OK(probe.Committer().Commit(first).status());
    probe_faulty->Reset();
    ASSERT_OK(probe.Committer(probe_faulty).Commit(next).status());
    ops = probe_faulty->operation_count();
  }
  ASSERT_GT(ops, 5);
  int64_t snapshot_before = 1;
  for (int64_t i = 0; i < ops; ++i) {
    std::string name = "b-" + std::to_string(i);
    CommitRequest request;
    request.messages = {Message(2, 1, name, 5)};
    faulty->Reset();
    faulty->FailOperationAt(i);
    auto result = t.Committer(faulty).Commit(request);
    meta::SnapshotManager snapshots(t.file_io, t.dir.path());
    ASSERT_OK_AND_ASSIGN(auto latest, snapshots.LatestSnapshotId());
    if (result.ok()) {
      // The fault hit a step whose failure is harmless (e.g. the LATEST hint).
      EXPECT_EQ(*latest, snapshot_before + 1) << "operation " << i;
    } else {
      EXPECT_NE(result.status().message().find("injected fault"), std::string::npos);
      // Either nothing landed, or the snapshot landed and the error came after the publish.
      EXPECT_TRUE(*latest == snapshot_before || *latest == snapshot_before + 1) << i;
      if (*latest == snapshot_before) {
        // The table reads at its last good snapshot, and a clean retry succeeds.
        EXPECT_EQ(LiveFiles(t).count(name), 0u);
        ASSERT_OK(t.Committer().Commit(request).status());
      }
    }
    ASSERT_OK_AND_ASSIGN(latest, snapshots.LatestSnapshotId());
    snapshot_before = *latest;
    EXPECT_EQ(LiveFiles(t).count(name), 1u) << "operation " << i;
    EXPECT_EQ(LiveFiles(t).count("a"), 1u);
  }
}

}  // namespace
}  // namespace freshet::commit

namespace freshet::commit {
namespace {

// Many small commits, with overwrites among them: small manifests are merged (Java's minor
// manifest compaction), and every snapshot still lists exactly its live files.
TEST(FileStoreCommitTest, SmallManifestsAreMergedAndEverySnapshotKeepsItsFiles) {
  TestTable t;
  auto committer = t.Committer();
  std::multiset<std::string> live;
  std::vector<std::multiset<std::string>> expected;
  for (int i = 0; i < 75; ++i) {
    CommitRequest request;
    std::string name = "f" + std::to_string(i);
    int32_t dt = i % 3;
    request.messages = {Message(dt, i % 2, name, 1 + i)};
    if (i % 20 == 19) {  // overwrite partition dt: DELETE entries for its live files
      request.overwrite = true;
      std::erase_if(live, [&](const std::string& f) { return std::stoi(f.substr(1)) % 3 == dt; });
    }
    live.insert(name);
    ASSERT_OK(committer.Commit(request).status());
    expected.push_back(live);
  }
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  meta::ManifestFile manifests(t.file_io, t.dir.path());
  ASSERT_OK_AND_ASSIGN(auto latest, snapshots.LatestSnapshot());
  ASSERT_OK_AND_ASSIGN(auto base, manifests.ReadManifestList(latest->base_manifest_list));
  EXPECT_LT(base.size(), 30u) << "small manifests were not merged";
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(LiveFiles(t, static_cast<int64_t>(i + 1)), expected[i]) << "snapshot " << i + 1;
  }
}

}  // namespace
}  // namespace freshet::commit

namespace freshet::commit {
namespace {

meta::IndexManifestEntry IndexFile(const std::string& type, const std::string& name,
                                   std::vector<std::string> covered = {}) {
  meta::IndexManifestEntry e;
  e.index_type = type;
  e.file_name = name;
  e.file_size = 10;
  e.row_count = static_cast<int64_t>(covered.size());
  if (!covered.empty()) {
    e.deletion_vector_ranges.emplace();
    for (auto& f : covered) e.deletion_vector_ranges->push_back({f, 1, 4, 1});
  }
  return e;
}

std::vector<std::string> IndexFileNames(TestTable& t, const meta::Snapshot& s) {
  std::vector<std::string> names;
  if (!s.index_manifest) return names;
  meta::ManifestFile manifests(t.file_io, t.dir.path());
  auto entries = manifests.ReadIndexManifest(*s.index_manifest);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  for (const auto& e : *entries) names.push_back(e.file_name);
  std::sort(names.begin(), names.end());
  return names;
}

// Changelog files land in the snapshot's changelog manifest list only, with their row count;
// the table's files and record counts are the data files'.
TEST(FileStoreCommitTest, ChangelogFilesGoToTheChangelogManifestListOfTheirSnapshot) {
  TestTable t;
  auto committer = t.Committer();
  CommitRequest request;
  CommitMessage m = Message(1, 0, "data-a", 10);
  m.changelog_files = {Message(1, 0, "changelog-a", 12).new_files[0]};
  m.compact_before = m.new_files;
  m.compact_after = {Message(1, 0, "data-b", 10).new_files[0]};
  m.compact_changelog_files = {Message(1, 0, "changelog-b", 3).new_files[0]};
  request.messages = {m};
  ASSERT_OK_AND_ASSIGN(CommitResult r, committer.Commit(request));
  ASSERT_EQ(r.snapshot_id.value_or(-1), 2);
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  meta::ManifestFile manifests(t.file_io, t.dir.path());
  for (auto [id, name, rows] : {std::tuple{1, "changelog-a", 12}, {2, "changelog-b", 3}}) {
    ASSERT_OK_AND_ASSIGN(meta::Snapshot s, snapshots.ReadSnapshot(id));
    ASSERT_TRUE(s.changelog_manifest_list.has_value());
    EXPECT_EQ(s.changelog_record_count.value_or(-1), rows);
    ASSERT_OK_AND_ASSIGN(auto entries,
                         meta::ReadEntriesOfLists(manifests, {*s.changelog_manifest_list}));
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].file.file_name, name);
    EXPECT_EQ(entries[0].kind, meta::FileKind::kAdd);
  }
  EXPECT_EQ(LiveFiles(t), (std::multiset<std::string>{"data-b"}));
  ASSERT_OK_AND_ASSIGN(meta::Snapshot s2, snapshots.ReadSnapshot(2));
  EXPECT_EQ(s2.total_record_count.value_or(-1), 10);

  // No changelog: no changelog manifest list (Java writes null).
  CommitRequest plain;
  plain.messages = {Message(1, 0, "data-c", 1)};
  ASSERT_OK_AND_ASSIGN(CommitResult r3, committer.Commit(plain));
  ASSERT_OK_AND_ASSIGN(meta::Snapshot s3, snapshots.ReadSnapshot(*r3.snapshot_id));
  EXPECT_FALSE(s3.changelog_manifest_list.has_value());
  EXPECT_FALSE(s3.changelog_record_count.has_value());
}

// The index manifest lists every live index file: a bucket's new file replaces its previous one,
// snapshots without index changes keep the manifest, and an overwrite drops the index files of
// the partitions it replaces.
TEST(FileStoreCommitTest, IndexFilesReplacePerBucketAndOverwriteDropsThem) {
  TestTable t;
  auto committer = t.Committer();
  meta::SnapshotManager snapshots(t.file_io, t.dir.path());
  auto commit = [&](CommitRequest request) {
    auto r = committer.Commit(request);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *snapshots.ReadSnapshot(*r->snapshot_id);
  };
  CommitRequest first;
  first.messages = {Message(1, 0, "a", 1), Message(1, 1, "b", 1), Message(2, 0, "c", 1)};
  first.messages[0].index_files.added = {IndexFile("HASH", "index-1")};
  first.messages[1].index_files.added = {IndexFile("HASH", "index-2")};
  first.messages[2].index_files.added = {IndexFile("HASH", "index-3")};
  meta::Snapshot s1 = commit(first);
  EXPECT_EQ(IndexFileNames(t, s1), (std::vector<std::string>{"index-1", "index-2", "index-3"}));

  CommitRequest second;  // bucket 0 of dt=1 gets a new hash index and a deletion vector
  second.messages = {Message(1, 0, "d", 1)};
  second.messages[0].index_files.added = {IndexFile("HASH", "index-4")};
  second.messages[0].compact_index_files.added = {IndexFile("DELETION_VECTORS", "index-5", {"a"})};
  second.messages[0].compact_after = {Message(1, 0, "e", 1).new_files[0]};
  meta::Snapshot s3 = commit(second);
  EXPECT_EQ(IndexFileNames(t, s3),
            (std::vector<std::string>{"index-2", "index-3", "index-4", "index-5"}));
  ASSERT_OK_AND_ASSIGN(meta::Snapshot s2, snapshots.ReadSnapshot(s3.id - 1));
  EXPECT_EQ(IndexFileNames(t, s2), (std::vector<std::string>{"index-2", "index-3", "index-4"}));

  CommitRequest plain;
  plain.messages = {Message(2, 1, "f", 1)};
  meta::Snapshot s4 = commit(plain);
  EXPECT_EQ(s4.index_manifest, s3.index_manifest);

  CommitRequest deletion;  // the deletion vector goes away
  deletion.messages = {Message(1, 0, "g", 1)};
  deletion.messages[0].new_files.clear();
  deletion.messages[0].compact_index_files.deleted = {IndexFile("DELETION_VECTORS", "index-5")};
  meta::Snapshot s5 = commit(deletion);
  EXPECT_EQ(s5.commit_kind, meta::CommitKind::kCompact);
  EXPECT_EQ(IndexFileNames(t, s5), (std::vector<std::string>{"index-2", "index-3", "index-4"}));

  CommitRequest overwrite;
  overwrite.overwrite = true;
  overwrite.messages = {Message(1, 0, "h", 1)};
  meta::Snapshot s6 = commit(overwrite);
  EXPECT_EQ(IndexFileNames(t, s6), (std::vector<std::string>{"index-3"}));
}

TEST(ApplyIndexChangesTest, UnawareBucketDeletionVectorsCombineByFileName) {
  auto add = [](meta::IndexManifestEntry e) { return e; };
  auto del = [](meta::IndexManifestEntry e) {
    e.kind = meta::FileKind::kDelete;
    return e;
  };
  std::vector<meta::IndexManifestEntry> previous = {
      IndexFile("DELETION_VECTORS", "dv-1", {"f1", "f2"})};
  // Two files of one (unaware) bucket live side by side.
  ASSERT_OK_AND_ASSIGN(
      auto live, ApplyIndexChanges(previous, {add(IndexFile("DELETION_VECTORS", "dv-2", {"f3"}))},
                                   /*unaware_bucket=*/true));
  EXPECT_EQ(live.size(), 2u);
  // A data file covered twice, a file added twice, a missing file deleted: refused.
  EXPECT_FALSE(
      ApplyIndexChanges(live, {add(IndexFile("DELETION_VECTORS", "dv-3", {"f1"}))}, true).ok());
  EXPECT_FALSE(
      ApplyIndexChanges(live, {add(IndexFile("DELETION_VECTORS", "dv-2", {"f9"}))}, true).ok());
  EXPECT_FALSE(ApplyIndexChanges(live, {del(IndexFile("DELETION_VECTORS", "dv-9"))}, true).ok());
  // Replacing dv-1 by a file covering the same data files is one delete + one add.
  ASSERT_OK_AND_ASSIGN(auto replaced,
                       ApplyIndexChanges(live,
                                         {del(IndexFile("DELETION_VECTORS", "dv-1", {"f1", "f2"})),
                                          add(IndexFile("DELETION_VECTORS", "dv-4", {"f1", "f2"}))},
                                         true));
  std::set<std::string> names;
  for (const auto& e : replaced) names.insert(e.file_name);
  EXPECT_EQ(names, (std::set<std::string>{"dv-2", "dv-4"}));
  // In a bucketed table the same change replaces the bucket's one file.
  ASSERT_OK_AND_ASSIGN(
      auto bucketed,
      ApplyIndexChanges(previous, {add(IndexFile("DELETION_VECTORS", "dv-2", {"f3"}))},
                        /*unaware_bucket=*/false));
  ASSERT_EQ(bucketed.size(), 1u);
  EXPECT_EQ(bucketed[0].file_name, "dv-2");
}

}  // namespace
}  // namespace freshet::commit
