// Compaction of primary-key tables with deletion vectors (merge-on-write, docs/compaction.md):
// random writes with writer compactions and compaction passes compared with a model of each
// merge engine, an I/O error at every file operation of a pass, and the conflict of two
// compactions that both rewrite a bucket's deletion vectors.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>

#include "commit/conflict_check.h"
#include "commit/file_store_commit.h"
#include "compact/merge_tree_compactor.h"
#include "compact/table_compaction.h"
#include "freshet/stream.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/core_options.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "scan/deletion_files.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::compact {
namespace {

namespace fs = std::filesystem;
using testing::pk::EngineKinds;
using testing::pk::EngineOptions;
using testing::pk::KindColumn;
using testing::pk::MakeBatch;
using testing::pk::Model;
using testing::pk::ReadAll;
using testing::pk::Row;
using testing::pk::SchemaSpec;
using testing::pk::WriteRows;

std::vector<Row> RandomRows(std::mt19937_64& rng, const std::vector<RowKind>& kinds, Model* model) {
  return testing::pk::RandomRows(rng, kinds, 40, 80, model);
}

std::optional<meta::Snapshot> Latest(const std::string& path) {
  auto latest = meta::SnapshotManager(io::LocalFileIO(), path).LatestSnapshot();
  EXPECT_TRUE(latest.ok());
  return latest.ok() ? *latest : std::nullopt;
}

std::vector<meta::ManifestEntry> LiveFiles(const std::string& path) {
  auto latest = Latest(path);
  if (!latest) return {};
  meta::ManifestFile manifests(io::LocalFileIO(), path);
  auto live = meta::ReadLiveEntries(manifests, *latest);
  EXPECT_TRUE(live.ok()) << live.status().ToString();
  return live.ok() ? *live : std::vector<meta::ManifestEntry>{};
}

std::vector<meta::IndexManifestEntry> LiveIndex(const std::string& path) {
  auto latest = Latest(path);
  if (!latest || !latest->index_manifest) return {};
  meta::ManifestFile manifests(io::LocalFileIO(), path);
  auto entries = manifests.ReadIndexManifest(*latest->index_manifest);
  EXPECT_TRUE(entries.ok());
  return entries.ok() ? *entries : std::vector<meta::IndexManifestEntry>{};
}

// Files under `dir` (data-* or index-*) that no snapshot references.
std::set<std::string> Unreferenced(const std::string& path) {
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path);
  meta::ManifestFile manifests(file_io, path);
  std::set<std::string> referenced;
  auto ids = snapshots.ListSnapshotIds();
  EXPECT_TRUE(ids.ok());
  for (int64_t id : ids.ok() ? *ids : std::vector<int64_t>{}) {
    auto snapshot = snapshots.ReadSnapshot(id);
    if (!snapshot.ok()) continue;
    auto live = meta::ReadLiveEntries(manifests, *snapshot);
    if (live.ok()) {
      for (const auto& e : *live) referenced.insert(e.file.file_name);
    }
    if (snapshot->index_manifest) {
      auto index = manifests.ReadIndexManifest(*snapshot->index_manifest);
      if (index.ok()) {
        for (const auto& e : *index) referenced.insert(e.file_name);
      }
    }
  }
  std::set<std::string> unreferenced;
  for (const auto& entry : fs::recursive_directory_iterator(path)) {
    std::string name = entry.path().filename().string();
    bool data = name.rfind("data-", 0) == 0;
    bool index = name.rfind("index-", 0) == 0 && name.rfind("index-manifest-", 0) != 0;
    if ((data || index) && !referenced.count(name)) unreferenced.insert(name);
  }
  return unreferenced;
}

// The largest number of deletion vectors any snapshot's index manifest lists.
int64_t MostVectorsOfASnapshot(const std::string& path) {
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path);
  meta::ManifestFile manifests(file_io, path);
  auto ids = snapshots.ListSnapshotIds();
  int64_t most = 0;
  for (int64_t id : ids.ok() ? *ids : std::vector<int64_t>{}) {
    auto snapshot = snapshots.ReadSnapshot(id);
    if (!snapshot.ok() || !snapshot->index_manifest) continue;
    auto index = manifests.ReadIndexManifest(*snapshot->index_manifest);
    if (!index.ok()) continue;
    int64_t vectors = 0;
    for (const auto& e : *index) vectors += e.row_count;
    most = std::max(most, vectors);
  }
  return most;
}

bool NothingAtLevel0(const std::string& path) {
  auto live = LiveFiles(path);
  return std::all_of(live.begin(), live.end(), [](const auto& e) { return e.file.level > 0; });
}

// Every bucket has at most one deletion-vector file, and it covers live files only.
void ExpectOneVectorFilePerBucket(const std::string& path) {
  std::set<std::string> live_names;
  for (const auto& e : LiveFiles(path)) live_names.insert(e.file.file_name);
  std::set<std::pair<std::string, int32_t>> buckets;
  for (const auto& e : LiveIndex(path)) {
    if (e.index_type != scan::kDeletionVectorsIndexType) continue;
    EXPECT_TRUE(buckets.insert({e.partition, e.bucket}).second) << e.file_name;
    for (const auto& range :
         e.deletion_vector_ranges.value_or(std::vector<meta::DeletionVectorRange>{})) {
      EXPECT_TRUE(live_names.count(range.data_file_name)) << range.data_file_name;
    }
  }
}

// The starting plan of a streaming read (latest-full): unlike a batch read it includes level 0,
// merged over the files above it with their deletion vectors applied.
std::vector<std::string> StreamingFullRead(const Table& table) {
  StreamOptions options;
  options.mode = ScanMode::kLatestFull;
  auto reader = table.NewStreamReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  return testing::pk::SortedTexts(testing::pk::DrainRows(**reader));
}

struct Param {
  std::string engine;
  std::string format;
  bool bitmap64 = false;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.engine << "/" << p.format << (p.bitmap64 ? "/bitmap64" : "");
}

class DeletionVectorDifferentialTest : public ::testing::TestWithParam<Param> {};

// Random commits of writers that compact in the background, each followed at random by a
// compaction pass. A batch read of a deletion-vector table skips level 0 (Java's batch scan):
// whenever nothing is left at level 0, the read is the model; every such snapshot still reads
// the same at the end; the vectors stay one file per bucket, and nothing uncommitted stays.
TEST_P(DeletionVectorDifferentialTest, EveryCompactedSnapshotMatchesTheModel) {
  const Param& p = GetParam();
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  auto options = EngineOptions(p.engine);
  options["bucket"] = "2";
  options["file.format"] = p.format;
  options["deletion-vectors.enabled"] = "true";
  if (p.bitmap64) options["deletion-vectors.bitmap64"] = "true";
  options["write-buffer-size"] = "4 kb";
  options["target-file-size"] = "3 kb";
  options["num-sorted-run.compaction-trigger"] = "3";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
  Model model(p.engine);
  std::vector<RowKind> kinds = EngineKinds(p.engine);
  std::map<int64_t, std::vector<std::string>> expected;
  int checked = 0;
  auto record = [&](int64_t id) {
    ExpectOneVectorFilePerBucket(path);
    if (!NothingAtLevel0(path)) return;
    ++checked;
    expected[id] = model.Rows(true);
    EXPECT_EQ(ReadAll(*table), expected[id]) << "snapshot " << id;
  };
  std::unique_ptr<TableWriter> writer;
  for (int commit = 0; commit < 14; ++commit) {
    if (commit % 4 == 0) {
      ASSERT_OK_AND_ASSIGN(writer, table->NewWriter());
    }
    for (int b = 0; b < 1 + static_cast<int>(rng() % 3); ++b) {
      ASSERT_OK(
          WriteRows(writer.get(), MakeBatch(RandomRows(rng, kinds, &model), KindColumn::kInt8)));
    }
    CommitOptions commit_options;
    commit_options.wait_compaction = rng() % 2 == 0;
    ASSERT_OK_AND_ASSIGN(auto id, writer->Commit(commit_options));
    // first-row drops retracts at Write: a commit of retracts alone has nothing to commit.
    ASSERT_TRUE(id.has_value() || p.engine == "first-row");
    if (id) record(*id);
    if (rng() % 3 == 0) continue;
    CompactOptions pass;
    pass.full = rng() % 4 == 0;
    ASSERT_OK_AND_ASSIGN(CompactResult result, table->Compact(pass));
    if (result.snapshot_id) record(*result.snapshot_id);
  }
  writer.reset();
  // Level 0 included: every row written, whatever was compacted.
  EXPECT_EQ(StreamingFullRead(*table), model.Rows(true));
  for (const auto& [id, rows] : expected) {
    EXPECT_EQ(ReadAll(*table, id), rows) << "snapshot " << id;
  }
  ASSERT_OK(table->Compact(CompactOptions{true, {}}).status());
  EXPECT_EQ(ReadAll(*table), model.Rows(true));
  EXPECT_GT(checked, 0);
  EXPECT_GT(MostVectorsOfASnapshot(path), 0);  // merge-on-write marked older rows
  EXPECT_TRUE(Unreferenced(path).empty());
}

INSTANTIATE_TEST_SUITE_P(Engines, DeletionVectorDifferentialTest,
                         ::testing::Values(Param{"deduplicate", "parquet", false},
                                           Param{"deduplicate", "orc", true},
                                           Param{"partial-update", "orc", false},
                                           Param{"aggregation", "parquet", false}),
                         [](const auto& info) {
                           std::string name = info.param.engine + "_" + info.param.format +
                                              (info.param.bitmap64 ? "_64" : "");
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

class DeletionVectorCompactionTest : public ::testing::Test {
 protected:
  // A deduplicate DV table: `commits` commits of random rows, each compacted by its writer.
  void WriteCommits(int commits) {
    ASSERT_OK_AND_ASSIGN(table_,
                         Table::Create(path_, SchemaSpec({{"bucket", "1"},
                                                          {"write-buffer-size", "4 kb"},
                                                          {"deletion-vectors.enabled", "true"},
                                                          // commits may leave level-0 files
                                                          {"lookup-wait", "false"}})));
    std::mt19937_64 rng(5);
    for (int c = 0; c < commits; ++c) {
      ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
      ASSERT_OK(WriteRows(
          writer.get(),
          MakeBatch(RandomRows(rng, EngineKinds("deduplicate"), &model_), KindColumn::kInt8)));
      CommitOptions wait;
      wait.wait_compaction = true;
      ASSERT_OK(writer->Commit(wait).status());
    }
  }

  Result<meta::TableSchema> Schema() const {
    meta::SchemaManager schemas(io::LocalFileIO(), path_);
    FRESHET_ASSIGN_OR_RETURN(auto latest, schemas.LatestSchema());
    if (!latest) return Status::NotFound("no schema");
    return *latest;
  }

  freshet::testing::TempDir dir_;
  std::string path_ = dir_.Sub("t");
  std::shared_ptr<Table> table_;
  Model model_{"deduplicate"};
};

// full-compaction.delta-commits in a deletion-vector writer: each commit ends with everything in
// the top level and no vector left (a full compaction merges the runs whose rows the lookup
// marked; the rewrite of a lone top run with vectors, reachable only from states another writer
// left, is the filter that WriterFullCompactionTest exercises with force-rewrite-all-files).
TEST(DeletionVectorWriterFullCompactionTest, EachFullCompactionAppliesTheVectors) {
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table::Create(path, SchemaSpec({{"bucket", "1"},
                                                       {"write-buffer-size", "4 kb"},
                                                       {"deletion-vectors.enabled", "true"},
                                                       {"full-compaction.delta-commits", "1"}})));
  Model model("deduplicate");
  std::mt19937_64 rng(11);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  for (int c = 0; c < 6; ++c) {
    SCOPED_TRACE("commit " + std::to_string(c));
    ASSERT_OK(WriteRows(
        writer.get(),
        MakeBatch(testing::pk::RandomRows(rng, EngineKinds("deduplicate"), 60, 30, &model),
                  KindColumn::kInt8)));
    ASSERT_OK(writer->Commit().status());
    int64_t vectors = 0;
    for (const auto& e : LiveIndex(path)) {
      if (e.index_type == scan::kDeletionVectorsIndexType) vectors += e.row_count;
    }
    EXPECT_EQ(vectors, 0);
    EXPECT_TRUE(NothingAtLevel0(path));
    EXPECT_EQ(ReadAll(*table), model.Rows());
  }
}

// Writer compactions mark old positions deleted: the table has a deletion-vector file, and the
// batch read (level 0 skipped) shows every committed row.
TEST_F(DeletionVectorCompactionTest, WriterCompactionsWriteDeletionVectors) {
  WriteCommits(6);
  std::vector<meta::IndexManifestEntry> index = LiveIndex(path_);
  // At most one per partition-bucket (dt = a, b).
  ASSERT_FALSE(index.empty());
  EXPECT_LE(index.size(), 2u);
  ExpectOneVectorFilePerBucket(path_);
  // Updates of keys compacted earlier were marked in some snapshot (a later compaction into the
  // top level may have rewritten every marked file since).
  EXPECT_GT(MostVectorsOfASnapshot(path_), 0);
  if (NothingAtLevel0(path_)) {
    EXPECT_EQ(ReadAll(*table_), model_.Rows());
  }
  ASSERT_OK(table_->Compact(CompactOptions{false, {}}).status());
  EXPECT_TRUE(NothingAtLevel0(path_));
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

// Two compactions that both rewrite bucket 0's deletion vectors: the one committed last
// conflicts (its vectors would drop the first one's), and the table keeps the first.
TEST_F(DeletionVectorCompactionTest, ASecondRewriteOfTheVectorsConflicts) {
  WriteCommits(3);
  // Level-0 files for the late compaction to lift.
  ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
  std::mt19937_64 rng(9);
  ASSERT_OK(WriteRows(writer.get(),
                      MakeBatch(RandomRows(rng, {RowKind::kInsert}, &model_), KindColumn::kInt8)));
  ASSERT_OK(writer->Commit().status());  // without waiting: level 0 may stay
  ASSERT_OK_AND_ASSIGN(auto schema, Schema());
  std::vector<meta::ManifestEntry> live = LiveFiles(path_);
  CompactJob job;
  job.partition = live[0].partition;
  job.bucket = live[0].bucket;
  job.output_level = 1;
  job.drop_delete = true;
  int max_level = 0;
  for (const auto& e : live) {
    if (e.partition != job.partition || e.bucket != job.bucket) continue;
    max_level = std::max(max_level, e.file.level);
    if (e.file.level <= 1) job.files.push_back(e.file);
  }
  job.upper_levels.resize(static_cast<size_t>(std::max(0, max_level - 1)));
  for (const auto& e : live) {
    if (e.partition == job.partition && e.bucket == job.bucket && e.file.level > 1) {
      job.upper_levels[static_cast<size_t>(e.file.level - 2)].push_back(e.file);
    }
  }
  ASSERT_OK_AND_ASSIGN(auto entries, LatestBucketDeletionVectorEntries(io::LocalFileIO(), path_,
                                                                       job.partition, job.bucket));
  ASSERT_OK_AND_ASSIGN(
      auto vectors, BucketDeletionVectors::Load(*io::LocalFileIO(),
                                                scan::IndexFileLocation{path_, nullptr}, entries));
  job.deletion_vectors = &vectors;
  ASSERT_OK_AND_ASSIGN(auto compactor, MergeTreeCompactor::Make(io::LocalFileIO(), path_, schema));
  ASSERT_OK_AND_ASSIGN(CompactOutcome late, compactor->Compact(job, 5));

  ASSERT_OK_AND_ASSIGN(CompactResult first, table_->Compact(CompactOptions{true, {}}));
  ASSERT_TRUE(first.snapshot_id.has_value());
  ASSERT_OK_AND_ASSIGN(auto ids_before, table_->SnapshotIds());
  ASSERT_OK_AND_ASSIGN(auto core, meta::CoreOptions::Make(schema.options(), true));
  commit::FileStoreCommit committer(io::LocalFileIO(), path_, schema, core, "late-compactor");
  commit::CommitRequest request;
  meta::CommitMessage message;
  message.partition = job.partition;
  message.bucket = job.bucket;
  message.total_buckets = 1;
  message.compact_before = late.before;
  message.compact_after = late.after;
  message.compact_index_files = late.index_files;
  request.messages = {message};
  Status conflict = committer.Commit(request).status();
  EXPECT_TRUE(conflict.IsConflict()) << conflict.ToString();
  ASSERT_OK_AND_ASSIGN(auto ids_after, table_->SnapshotIds());
  EXPECT_EQ(ids_after, ids_before);
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

// The vector check alone: a commit whose base vector file is no longer live conflicts, and so
// does one that adds a file for a bucket without replacing its live one.
TEST(DeletionVectorConflictTest, TheBaseFileMustStillBeLive) {
  auto entry = [](meta::FileKind kind, std::string name) {
    meta::IndexManifestEntry e;
    e.kind = kind;
    e.partition = "p";
    e.bucket = 0;
    e.index_type = scan::kDeletionVectorsIndexType;
    e.file_name = std::move(name);
    return e;
  };
  using meta::FileKind;
  std::vector<meta::IndexManifestEntry> live = {entry(FileKind::kAdd, "index-1")};
  EXPECT_OK(commit::CheckDeletionVectorBase(
      live, {entry(FileKind::kDelete, "index-1"), entry(FileKind::kAdd, "index-2")}));
  EXPECT_TRUE(
      commit::CheckDeletionVectorBase(live, {entry(FileKind::kAdd, "index-2")}).IsConflict());
  EXPECT_TRUE(commit::CheckDeletionVectorBase(
                  live, {entry(FileKind::kDelete, "index-0"), entry(FileKind::kAdd, "index-2")})
                  .IsConflict());
  EXPECT_OK(commit::CheckDeletionVectorBase({}, {entry(FileKind::kAdd, "index-2")}));
}

// An I/O error at each file operation of a full pass over a deletion-vector table: the table
// reads as before, nothing written stays unreferenced, and a pass without faults compacts.
TEST_F(DeletionVectorCompactionTest, AnIoErrorAtEveryOperationLosesNothing) {
  WriteCommits(4);
  ASSERT_OK_AND_ASSIGN(auto extra, table_->NewWriter());
  std::mt19937_64 rng(3);
  ASSERT_OK(WriteRows(extra.get(),
                      MakeBatch(RandomRows(rng, {RowKind::kInsert}, &model_), KindColumn::kInt8)));
  CommitOptions no_compaction;
  ASSERT_OK(extra->Commit(no_compaction).status());
  extra.reset();
  ASSERT_OK_AND_ASSIGN(auto schema, Schema());
  const std::vector<std::string> before = ReadAll(*table_);
  auto faults = std::make_shared<io::FaultInjectingFileIO>(io::LocalFileIO());
  std::string copy = dir_.Sub("copy");
  freshet::testing::CopyTree(path_, copy);
  TableCompactOptions full;
  full.full = true;
  full.max_attempts = 1;
  ASSERT_OK(CompactTable(faults, copy, schema, full).status());
  const int64_t operations = faults->operation_count();
  ASSERT_GT(operations, 10);
  int failed = 0;
  for (int64_t op = 0; op < operations; ++op) {
    SCOPED_TRACE("failing operation " + std::to_string(op));
    fs::remove_all(copy);
    freshet::testing::CopyTree(path_, copy);
    faults->Reset();
    faults->FailOperationAt(op);
    auto result = CompactTable(faults, copy, schema, full);
    faults->Reset();
    ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(copy));
    if (result.ok()) {
      EXPECT_EQ(ReadAll(*reopened), model_.Rows());
      continue;
    }
    ++failed;
    EXPECT_EQ(ReadAll(*reopened), before);
    EXPECT_TRUE(Unreferenced(copy).empty()) << result.status().ToString();
    ASSERT_OK_AND_ASSIGN(auto again, reopened->Compact(CompactOptions{true, {}}));
    EXPECT_TRUE(again.snapshot_id.has_value());
    EXPECT_EQ(ReadAll(*reopened), model_.Rows());
  }
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace freshet::compact
