// Compaction of primary-key tables (compact/, docs/compaction.md): random writes and
// compactions compared with a model of each merge engine, conflicts with a concurrent
// compaction, and an I/O error at every file operation of a compaction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "commit/file_store_commit.h"
#include "compact/merge_tree_compactor.h"
#include "compact/table_compaction.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/core_options.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/primary_key_model.h"
#include "testing/table_files.h"
#include "testing/test_util.h"

namespace freshet::compact {
namespace {

namespace fs = std::filesystem;
using testing::LiveEntries;
using testing::UnreferencedDataFiles;
using testing::pk::EngineKinds;
using testing::pk::EngineOptions;
using testing::pk::KindColumn;
using testing::pk::MakeBatch;
using testing::pk::Model;
using testing::pk::ReadAll;
using testing::pk::Row;
using testing::pk::SchemaSpec;
using testing::pk::WriteRows;

constexpr int kMaxLevel = 5;  // num-levels defaults to num-sorted-run.compaction-trigger + 1

// Random rows over few keys in two partitions, as the model sees them.
std::vector<Row> RandomRows(std::mt19937_64& rng, const std::vector<RowKind>& kinds, Model* model) {
  return testing::pk::RandomRows(rng, kinds, 50, 60, model);
}

struct EngineFormat {
  std::string engine;
  std::string format;
};

class CompactionDifferentialTest : public ::testing::TestWithParam<EngineFormat> {};

// Random commits of writers that compact in the background (waiting for it or not), each
// followed at random by a compaction pass (strategy or full): every snapshot, COMPACT ones
// included, reads as the model says, and old snapshots still read as they did. After a full pass
// every file is at the top level without retracts; nothing a compaction wrote and nobody
// committed stays on disk.
TEST_P(CompactionDifferentialTest, EverySnapshotMatchesTheModel) {
  const EngineFormat& p = GetParam();
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  auto options = EngineOptions(p.engine);
  options["bucket"] = "2";
  options["file.format"] = p.format;
  options["write-buffer-size"] = "4 kb";
  options["target-file-size"] = "3 kb";  // several files per rewrite, some large enough to upgrade
  options["num-sorted-run.compaction-trigger"] = "3";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
  Model model(p.engine);
  std::vector<RowKind> kinds = EngineKinds(p.engine);
  std::map<int64_t, std::vector<std::string>> expected;  // by snapshot id
  // What the latest snapshot must read. A first-row table shows only what compaction lifted
  // above level 0: known when nothing is left at level 0.
  auto record = [&](int64_t id) {
    std::vector<meta::ManifestEntry> live = LiveEntries(path);
    bool all_compacted =
        std::all_of(live.begin(), live.end(), [](const auto& e) { return e.file.level > 0; });
    if (p.engine == "first-row" && !all_compacted) return;
    expected[id] = model.Rows(all_compacted);
    EXPECT_EQ(ReadAll(*table), expected[id]) << "snapshot " << id;
  };
  int passes = 0, writer_compactions = 0;
  std::unique_ptr<TableWriter> writer;
  for (int commit = 0; commit < 12; ++commit) {
    // A writer lives for a few commits: its background compactions join its later commits,
    // and may be refused when a pass compacted the same files first.
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
    // first-row tables drop retracts at Write (ignore-delete): batches of retracts alone, with
    // no compaction ready, leave nothing to commit.
    if (!id.has_value()) continue;
    ASSERT_OK_AND_ASSIGN(auto committed, table->Snapshot(*id));
    writer_compactions += committed.commit_kind == "COMPACT";
    record(*id);
    if (rng() % 3 == 0) continue;
    CompactOptions pass;
    pass.full = rng() % 3 == 0;
    ASSERT_OK_AND_ASSIGN(CompactResult result, table->Compact(pass));
    if (!result.snapshot_id) continue;
    ++passes;
    ASSERT_OK_AND_ASSIGN(auto info, table->Snapshot(*result.snapshot_id));
    EXPECT_EQ(info.commit_kind, "COMPACT");
    if (pass.full) {
      for (const auto& e : LiveEntries(path)) {
        // num-levels = trigger + 1 = 4: the top level is 3.
        EXPECT_EQ(e.file.level, 3) << e.file.file_name;
        EXPECT_EQ(e.file.delete_row_count.value_or(-1), 0) << e.file.file_name;
      }
    }
    record(*result.snapshot_id);
  }
  writer.reset();
  EXPECT_GT(passes + writer_compactions, 0);
  for (const auto& [id, rows] : expected) {
    EXPECT_EQ(ReadAll(*table, id), rows) << "snapshot " << id;
  }
  EXPECT_TRUE(UnreferencedDataFiles(path).empty());
  // A last full pass: everything readable, first-row tables included.
  ASSERT_OK(table->Compact(CompactOptions{true, {}}).status());
  EXPECT_EQ(ReadAll(*table), model.Rows(true));
}

INSTANTIATE_TEST_SUITE_P(Engines, CompactionDifferentialTest,
                         ::testing::Values(EngineFormat{"deduplicate", "parquet"},
                                           EngineFormat{"deduplicate", "orc"},
                                           EngineFormat{"deduplicate", "avro"},
                                           EngineFormat{"first-row", "parquet"},
                                           EngineFormat{"partial-update", "orc"},
                                           EngineFormat{"aggregation", "parquet"}),
                         [](const auto& info) {
                           std::string name = info.param.engine + "_" + info.param.format;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

class CompactionTest : public ::testing::Test {
 protected:
  // A deduplicate table with `commits` commits of random rows; returns the model.
  void WriteCommits(int commits, std::map<std::string, std::string> options = {}) {
    options["bucket"] = "2";
    options["write-buffer-size"] = "4 kb";
    ASSERT_OK_AND_ASSIGN(table_, Table::Create(path_, SchemaSpec(options)));
    std::mt19937_64 rng(7);
    for (int c = 0; c < commits; ++c) {
      ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
      ASSERT_OK(WriteRows(
          writer.get(),
          MakeBatch(RandomRows(rng, EngineKinds("deduplicate"), &model_), KindColumn::kInt8)));
      ASSERT_OK(writer->Commit().status());
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

// Two compactions planned on the same files: the second to commit conflicts, is refused as a
// whole, and the table keeps the first one's result.
TEST_F(CompactionTest, ASecondCompactionOfTheSameFilesConflicts) {
  WriteCommits(4);
  ASSERT_OK_AND_ASSIGN(auto schema, Schema());
  // Planned first, committed last: every live file of partition-bucket 0 into the top level.
  std::vector<meta::ManifestEntry> live = LiveEntries(path_);
  CompactJob job;
  job.partition = live[0].partition;
  job.bucket = live[0].bucket;
  job.output_level = kMaxLevel;
  job.drop_delete = true;
  for (const auto& e : live) {
    if (e.partition == job.partition && e.bucket == job.bucket) job.files.push_back(e.file);
  }
  ASSERT_OK_AND_ASSIGN(auto compactor, MergeTreeCompactor::Make(io::LocalFileIO(), path_, schema));
  ASSERT_OK_AND_ASSIGN(CompactOutcome late, compactor->Compact(job, kMaxLevel));

  ASSERT_OK_AND_ASSIGN(CompactResult first, table_->Compact(CompactOptions{true, {}}));
  ASSERT_TRUE(first.snapshot_id.has_value());
  ASSERT_OK_AND_ASSIGN(auto ids_before, table_->SnapshotIds());

  ASSERT_OK_AND_ASSIGN(auto core, meta::CoreOptions::Make(schema.options(), true));
  commit::FileStoreCommit committer(io::LocalFileIO(), path_, schema, core, "late-compactor");
  commit::CommitRequest request;
  meta::CommitMessage message;
  message.partition = job.partition;
  message.bucket = job.bucket;
  message.total_buckets = 2;
  message.compact_before = late.before;
  message.compact_after = late.after;
  request.messages = {message};
  Status conflict = committer.Commit(request).status();
  EXPECT_TRUE(conflict.IsConflict()) << conflict.ToString();
  EXPECT_NE(conflict.message().find("no longer live"), std::string::npos) << conflict.ToString();
  ASSERT_OK_AND_ASSIGN(auto ids_after, table_->SnapshotIds());
  EXPECT_EQ(ids_after, ids_before);
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

// Changelog files under `path`.
std::set<std::string> ChangelogFiles(const std::string& path) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(path)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("changelog-", 0) == 0) names.insert(name);
  }
  return names;
}

// An I/O error at each file operation of a compaction pass (reads, writes, manifest and
// snapshot files): the pass fails with that error or succeeds, the table reads as before,
// nothing it wrote stays unreferenced (changelog files of a lookup table included), and a pass
// without faults then compacts.
class CompactionFaultTest : public CompactionTest,
                            public ::testing::WithParamInterface<std::string> {};

TEST_P(CompactionFaultTest, AnIoErrorAtEveryOperationLosesNothing) {
  std::map<std::string, std::string> options;
  if (GetParam() == "lookup") {
    // Level-0 files left for the pass, which writes their lookup changelog.
    options = {{"changelog-producer", "lookup"}, {"write-only", "true"}};
  }
  WriteCommits(5, options);
  ASSERT_OK_AND_ASSIGN(auto schema, Schema());
  const std::vector<std::string> rows = model_.Rows();
  ASSERT_OK_AND_ASSIGN(auto ids_before, table_->SnapshotIds());
  const size_t snapshots_before = ids_before.size();
  const std::set<std::string> changelog_before = ChangelogFiles(path_);
  auto faults = std::make_shared<io::FaultInjectingFileIO>(io::LocalFileIO());
  // Operations of one pass, counted on a copy of the table.
  std::string copy = dir_.Sub("copy");
  freshet::testing::CopyTree(path_, copy);
  TableCompactOptions full;
  full.full = true;
  full.max_attempts = 1;
  ASSERT_OK(CompactTable(faults, copy, schema, full).status());
  if (GetParam() == "lookup") {
    EXPECT_GT(ChangelogFiles(copy).size(), changelog_before.size()) << "the pass wrote changelog";
  }
  const int64_t operations = faults->operation_count();
  ASSERT_GT(operations, 10);
  int failed_passes = 0;
  for (int64_t op = 0; op < operations; ++op) {
    SCOPED_TRACE("failing operation " + std::to_string(op));
    fs::remove_all(copy);
    freshet::testing::CopyTree(path_, copy);
    faults->Reset();
    faults->FailOperationAt(op);
    auto result = CompactTable(faults, copy, schema, full);
    faults->Reset();
    ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(copy));
    EXPECT_EQ(ReadAll(*reopened), rows);
    if (result.ok()) continue;
    ++failed_passes;
    ASSERT_OK_AND_ASSIGN(auto ids, reopened->SnapshotIds());
    EXPECT_EQ(ids.size(), snapshots_before) << result.status().ToString();
    EXPECT_TRUE(UnreferencedDataFiles(copy).empty()) << result.status().ToString();
    EXPECT_EQ(ChangelogFiles(copy), changelog_before) << result.status().ToString();
    ASSERT_OK_AND_ASSIGN(auto again, reopened->Compact(CompactOptions{true, {}}));
    EXPECT_TRUE(again.snapshot_id.has_value());
    EXPECT_EQ(ReadAll(*reopened), rows);
  }
  EXPECT_GT(failed_passes, 0);
}

INSTANTIATE_TEST_SUITE_P(Producers, CompactionFaultTest, ::testing::Values("none", "lookup"));

// A writer's full compaction (full-compaction.delta-commits) with
// compaction.force-rewrite-all-files rewrites the files of a bucket whose only run is already the
// top level, as Java's pickFullCompaction does: a commit that writes nothing still replaces them.
TEST(WriterFullCompactionTest, ForceRewriteAllFilesRewritesTheTopLevel) {
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table::Create(path, SchemaSpec({
                                               {"bucket", "1"},
                                               {"full-compaction.delta-commits", "1"},
                                               {"compaction.force-rewrite-all-files", "true"},
                                           })));
  Model model("deduplicate");
  std::mt19937_64 rng(3);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteRows(writer.get(),
                      MakeBatch(RandomRows(rng, {RowKind::kInsert}, &model), KindColumn::kInt8)));
  ASSERT_OK(writer->Commit().status());
  auto top_files = [&] {
    std::set<std::string> names;
    for (const auto& e : LiveEntries(path)) {
      EXPECT_EQ(e.file.level, kMaxLevel) << e.file.file_name;
      names.insert(e.file.file_name);
    }
    return names;
  };
  std::set<std::string> before = top_files();
  ASSERT_FALSE(before.empty());
  ASSERT_OK(writer->Commit().status());  // nothing written: only the full compaction
  std::set<std::string> after = top_files();
  EXPECT_EQ(after.size(), before.size());
  for (const std::string& name : after) EXPECT_EQ(before.count(name), 0u) << name;
  EXPECT_EQ(ReadAll(*table), model.Rows());
}

// The strategy's pass: with more sorted runs than num-sorted-run.compaction-trigger, a pass
// leaves fewer.
TEST_F(CompactionTest, StrategyPassReducesSortedRuns) {
  WriteCommits(7, {{"num-sorted-run.compaction-trigger", "3"}});
  auto level0 = [&] {
    int n = 0;
    for (const auto& e : LiveEntries(path_)) n += e.file.level == 0;
    return n;
  };
  int before = level0();
  ASSERT_GT(before, 6);
  ASSERT_OK_AND_ASSIGN(CompactResult result, table_->Compact());
  ASSERT_TRUE(result.snapshot_id.has_value());
  EXPECT_GT(result.buckets, 0);
  EXPECT_LT(level0(), before);
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

// Once no retained snapshot needs them, the files a compaction replaced are deleted by the
// expiration after a commit; the files on disk are then exactly the live ones.
TEST_F(CompactionTest, ExpirationDeletesReplacedFiles) {
  WriteCommits(4, {{"snapshot.num-retained.min", "1"},
                   {"snapshot.num-retained.max", "1"},
                   {"snapshot.time-retained", "1 ms"}});
  ASSERT_OK_AND_ASSIGN(CompactResult result, table_->Compact(CompactOptions{true, {}}));
  ASSERT_TRUE(result.snapshot_id.has_value());
  ASSERT_GT(result.files_before, result.files_after);
  // The next commit's expiration removes every snapshot but the latest.
  ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
  std::mt19937_64 rng(11);
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(RandomRows(rng, EngineKinds("deduplicate"), &model_),
                                              KindColumn::kInt8)));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK_AND_ASSIGN(auto ids, table_->SnapshotIds());
  ASSERT_EQ(ids.size(), 1u);
  std::set<std::string> live;
  for (const auto& e : LiveEntries(path_)) live.insert(e.file.file_name);
  std::set<std::string> on_disk;
  for (const auto& entry : fs::recursive_directory_iterator(path_)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("data-", 0) == 0) on_disk.insert(name);
  }
  EXPECT_EQ(on_disk, live);
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

TEST_F(CompactionTest, RefusalsAndPartitionSelection) {
  WriteCommits(3);
  // Only partition dt=a.
  CompactOptions only_a;
  only_a.full = true;
  only_a.partitions = {{{"dt", "a"}}};
  ASSERT_OK_AND_ASSIGN(CompactResult result, table_->Compact(only_a));
  ASSERT_TRUE(result.snapshot_id.has_value());
  ASSERT_OK_AND_ASSIGN(auto files, table_->DataFiles(*result.snapshot_id));
  int compacted_b = 0;
  for (const DataFileInfo& file : files) {
    ASSERT_EQ(file.partition.size(), 1u);
    if (file.partition[0].second == "a") {
      EXPECT_EQ(file.level, kMaxLevel) << file.file_name;
    } else {
      compacted_b += file.level != 0;
    }
  }
  EXPECT_EQ(compacted_b, 0);
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
  CompactOptions bad;
  bad.partitions = {{{"nope", "x"}}};
  EXPECT_TRUE(table_->Compact(bad).status().IsInvalid());

  freshet::testing::TempDir other;
  ASSERT_OK_AND_ASSIGN(auto append, Table::Create(other.Sub("a"), R"({"fields": [
      {"name": "x", "type": "INT"}]})"));
  // Append tables compact too (tests/compact/append_compaction_test.cc): nothing to do here.
  ASSERT_OK_AND_ASSIGN(CompactResult nothing, append->Compact());
  EXPECT_FALSE(nothing.snapshot_id.has_value());
  // Java refuses deletion vectors with full-compaction changelog; so does compaction (a table
  // Java did not create could still ask for it).
  std::string spec = SchemaSpec({{"bucket", "1"},
                                 {"deletion-vectors.enabled", "true"},
                                 {"changelog-producer", "full-compaction"}});
  auto dv = Table::Create(other.Sub("dv"), spec);
  if (dv.ok()) {
    EXPECT_EQ((*dv)->Compact().status().code(), StatusCode::kNotImplemented);
  } else {
    EXPECT_TRUE(dv.status().IsInvalid() || dv.status().IsNotImplemented())
        << dv.status().ToString();
  }
}

}  // namespace
}  // namespace freshet::compact
