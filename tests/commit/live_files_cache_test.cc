// LiveFilesCache (meta/manifest/live_files_cache.h) against the full read it replaces: random
// appends, compactions (delete + add), overwrites, manifest merges and expired snapshots; after
// every commit the cached plan of every retained snapshot must hold exactly the files a full
// decode of its manifests holds, and a table recreated at the same path must not see the old one.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "commit/file_store_commit.h"
#include "commit/test_data_files.h"
#include "meta/bucket/bucket_function.h"
#include "meta/manifest/live_files_cache.h"
#include "meta/manifest/manifest_file.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "scan/live_keys.h"
#include "scan/stats_columns.h"
#include "scan/table_scan.h"
#include "testing/test_util.h"

namespace freshet::commit {
namespace {

using freshet::testing::TempDir;
namespace fs = std::filesystem;

meta::TableSchema CreateTable(const std::string& path) {
  meta::SchemaSpec spec;
  spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
  spec.fields.push_back({0, "dt", meta::DataType::Int(), std::nullopt, std::nullopt});
  spec.partition_keys = {"dt"};
  // Small merge thresholds: base manifest lists are rewritten (merged) every few commits.
  spec.options = {{"bucket", "2"},
                  {"bucket-key", "id"},
                  {"manifest.merge-min-count", "3"},
                  {"snapshot.num-retained.min", "1000"},
                  {"snapshot.num-retained.max", "1000"}};
  return *meta::SchemaManager(io::LocalFileIO(), path).CreateTable(spec, 0);
}

std::string Partition(int32_t dt) {
  auto row = meta::BuildBinaryRow(std::vector<meta::DataTypePtr>{meta::DataType::Int()},
                                  {meta::Value::Int(dt)});
  return meta::SerializeBinaryRow(*row);
}

// A commit of one new file of 4 rows in bucket 0 of partition `dt`.
CommitRequest AddFile(const std::string& file, int32_t dt) {
  CommitRequest request;
  meta::CommitMessage m;
  m.partition = Partition(dt);
  m.bucket = 0;
  m.total_buckets = 2;
  m.new_files.push_back(TestDataFile(file, 4));
  request.messages.push_back(m);
  return request;
}

// (partition, bucket, name) of each entry: what a plan is made of.
using FileSet = std::multiset<std::tuple<std::string, int32_t, std::string, int64_t>>;

FileSet SetOf(const std::vector<meta::ManifestEntry>& entries) {
  FileSet out;
  for (const auto& e : entries) out.emplace(e.partition, e.bucket, e.file.file_name, e.file.level);
  return out;
}

FileSet SetOf(const std::vector<std::shared_ptr<const meta::ManifestEntry>>& entries) {
  FileSet out;
  for (const auto& e : entries) {
    out.emplace(e->partition, e->bucket, e->file.file_name, e->file.level);
  }
  return out;
}

class LiveFilesCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { meta::LiveFilesCache::Global().Clear(); }

  FileSet FullRead(const std::string& path, const meta::Snapshot& snapshot) {
    auto live = meta::ReadLiveEntries(meta::ManifestFile(io_, path), snapshot);
    EXPECT_TRUE(live.ok()) << live.status().ToString();
    return live.ok() ? SetOf(*live) : FileSet{};
  }

  FileSet CachedRead(const std::string& path, const meta::Snapshot& snapshot) {
    auto live = meta::LiveFilesCache::Global().Read(meta::ManifestFile(io_, path),
                                                    meta::SnapshotManager(io_, path), snapshot);
    EXPECT_TRUE(live.ok()) << live.status().ToString();
    return live.ok() ? SetOf(**live) : FileSet{};
  }

  std::shared_ptr<io::FileIO> io_ = io::LocalFileIO();
};

TEST_F(LiveFilesCacheTest, EverySnapshotPlansAsAFullRead) {
  TempDir dir;
  const std::string path = dir.path();
  meta::TableSchema schema = CreateTable(path);
  auto options = *meta::CoreOptions::Make(schema.options(), false);
  std::mt19937 random(20261203);
  // The live files per (dt, bucket), to build compactions from.
  std::map<std::pair<int32_t, int32_t>, std::vector<meta::DataFileMeta>> live;
  int next_file = 0;
  meta::SnapshotManager snapshots(io_, path);
  for (int commit = 0; commit < 60; ++commit) {
    FileStoreCommit committer(io_, path, schema, options, "user");
    CommitRequest request;
    const int action = static_cast<int>(random() % 10);
    const int32_t dt = static_cast<int32_t>(random() % 3);
    const int32_t bucket = static_cast<int32_t>(random() % 2);
    meta::CommitMessage m;
    m.partition = Partition(dt);
    m.bucket = bucket;
    m.total_buckets = 2;
    auto& files = live[{dt, bucket}];
    if (action < 6 || files.size() < 2) {  // append one or two files
      for (int i = 0; i <= static_cast<int>(random() % 2); ++i) {
        m.new_files.push_back(TestDataFile("f-" + std::to_string(next_file++), 1 + random() % 50));
      }
      files.insert(files.end(), m.new_files.begin(), m.new_files.end());
    } else if (action < 9) {  // compaction: two files into one
      int64_t rows = 0;
      for (int i = 0; i < 2; ++i) {
        m.compact_before.push_back(files.back());
        rows += files.back().row_count;
        files.pop_back();
      }
      m.compact_after.push_back(TestDataFile("c-" + std::to_string(next_file++), rows));
      m.compact_after.back().level = 1;
      files.push_back(m.compact_after.back());
    } else {  // overwrite of the partition
      m.new_files.push_back(TestDataFile("o-" + std::to_string(next_file++), 7));
      request.overwrite = true;
      for (int32_t b = 0; b < 2; ++b) live[{dt, b}].clear();
      files.push_back(m.new_files.back());
    }
    request.messages.push_back(m);
    auto result = committer.Commit(request);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    // Sometimes a reader skips commits (advances over several deltas), sometimes it reads the
    // same snapshot twice (a hit), sometimes it travels back in time.
    if (random() % 3 == 0) continue;
    auto latest = snapshots.LatestSnapshot();
    ASSERT_TRUE(latest.ok() && latest->has_value());
    ASSERT_EQ(CachedRead(path, **latest), FullRead(path, **latest)) << "commit " << commit;
    ASSERT_EQ(CachedRead(path, **latest), FullRead(path, **latest)) << "commit " << commit;
    // Plans of the same questions after every commit: cached, or made from the previous plan's
    // verdicts for the files still live (TableScan's plan cache), they equal the model.
    for (const auto& [filter, dts] : std::vector<std::pair<std::string, std::set<int32_t>>>{
             {"dt = 0", {0}}, {"dt <> 1", {0, 2}}, {"dt IN (1, 2)", {1, 2}}}) {
      FileSet expected;
      for (const auto& entry : FullRead(path, **latest)) {
        for (int32_t dt : dts) {
          if (std::get<0>(entry) == Partition(dt)) expected.insert(entry);
        }
      }
      scan::ScanOptions scan_options;
      scan_options.predicate =
          std::make_shared<const scan::Predicate>(*scan::MakePredicate(filter, schema));
      auto plan = scan::TableScan(io_, path).Plan(scan_options);
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      FileSet planned;
      for (const auto& split : plan->splits) {
        for (const auto& f : split.files) {
          planned.emplace(split.partition, split.bucket, f.file_name, f.level);
        }
      }
      ASSERT_EQ(planned, expected) << filter << ", commit " << commit;
    }
    if (random() % 4 == 0 && (*latest)->id > 1) {
      auto older = snapshots.ReadSnapshot(1 + random() % ((*latest)->id - 1));
      ASSERT_TRUE(older.ok());
      ASSERT_EQ(CachedRead(path, *older), FullRead(path, *older));
    }
  }
  auto counters = meta::LiveFilesCache::Global().counters();
  EXPECT_GT(counters.hits, 10);
  EXPECT_GT(counters.advanced, 10);
  EXPECT_GT(scan::TableScan::ReusedVerdicts(), 100);
}

// A live set large enough for planning to walk LiveKeys (scan/live_keys.h) instead of the entries:
// plans of partition, bucket and statistics questions, and of a caller's bucket filter, equal the
// entry-by-entry model, both when no verdict can be reused and after a commit.
TEST_F(LiveFilesCacheTest, LargeLiveSetsPlanAsTheEntryByEntryModel) {
  TempDir dir;
  const std::string path = dir.path();
  meta::TableSchema schema = CreateTable(path);
  auto options = *meta::CoreOptions::Make(schema.options(), false);
  const std::vector<meta::DataTypePtr> types{meta::DataType::BigInt(), meta::DataType::Int()};
  auto row = [&](int64_t id, int32_t dt) {
    return meta::SerializeBinaryRow(
        *meta::BuildBinaryRow(types, {meta::Value::BigInt(id), meta::Value::Int(dt)}));
  };
  // File f: partition dt = f % 25, bucket f % 2 (or 3 buckets for every seventh file, as after a
  // rescale), ids [10 f, 10 f + 9].
  struct Model {
    int32_t dt, bucket, total;
    int64_t first_id;
  };
  std::map<std::string, Model> model;  // by file name, the live files
  int next_file = 0;
  auto commit = [&](int files, int compact_first) {
    CommitRequest request;
    std::map<std::pair<int32_t, int32_t>, meta::CommitMessage> messages;
    for (int i = 0; i < files; ++i) {
      const int f = next_file++;
      Model m{f % 25, f % 2, f % 7 == 0 ? 3 : 2, int64_t{10} * f};
      meta::DataFileMeta file = TestDataFile("f-" + std::to_string(f), 10);
      file.value_stats.min_values = row(m.first_id, m.dt);
      file.value_stats.max_values = row(m.first_id + 9, m.dt);
      file.value_stats.null_counts = std::vector<std::optional<int64_t>>{0, 0};
      meta::CommitMessage& message = messages[{m.dt, m.bucket * 10 + m.total}];
      message.partition = Partition(m.dt);
      message.bucket = m.bucket;
      message.total_buckets = m.total;
      message.new_files.push_back(file);
      model[file.file_name] = m;
    }
    for (int f = compact_first; f < compact_first + 40; ++f) {  // files dropped by a compaction
      const std::string name = "f-" + std::to_string(f);
      const Model m = model.at(name);
      meta::CommitMessage& message = messages[{m.dt, m.bucket * 10 + m.total}];
      message.partition = Partition(m.dt);
      message.bucket = m.bucket;
      message.total_buckets = m.total;
      message.compact_before.push_back(TestDataFile(name, 10));
      model.erase(name);
    }
    for (auto& [key, message] : messages) request.messages.push_back(std::move(message));
    ASSERT_TRUE(FileStoreCommit(io_, path, schema, options, "u").Commit(request).ok());
  };
  auto bucket_of = [&](int64_t id, int32_t total) {
    auto key = meta::BuildBinaryRow(std::vector<meta::DataTypePtr>{meta::DataType::BigInt()},
                                    {meta::Value::BigInt(id)});
    return meta::BucketFromHash(meta::HashBinaryRow(*key), total);
  };
  // `partition_open`, when given: the files of the partitions it rules out must be counted as
  // pruned by partition, the other files outside `bucket_open` (all when not given) as pruned by
  // bucket, and every other file not planned as pruned by statistics.
  auto check = [&](const std::string& filter, const std::function<bool(const Model&)>& keeps,
                   std::function<bool(const std::string&, int32_t)> bucket_filter = nullptr,
                   std::function<bool(const Model&)> partition_open = nullptr,
                   std::function<bool(const Model&)> bucket_open = nullptr) {
    scan::ScanOptions scan_options;
    if (!filter.empty()) {
      scan_options.predicate =
          std::make_shared<const scan::Predicate>(*scan::MakePredicate(filter, schema));
    }
    scan_options.bucket_filter = bucket_filter;
    auto plan = scan::TableScan(io_, path).Plan(scan_options);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    std::set<std::string> planned, expected;
    for (const auto& split : plan->splits) {
      for (const auto& f : split.files) planned.insert(f.file_name);
    }
    int64_t closed = 0, other_buckets = 0;
    for (const auto& [name, m] : model) {
      if (keeps(m)) expected.insert(name);
      if (partition_open && !partition_open(m)) {
        ++closed;
      } else if (bucket_open && !bucket_open(m)) {
        ++other_buckets;
      }
    }
    ASSERT_EQ(planned, expected) << filter;
    if (partition_open) {
      EXPECT_EQ(plan->files_pruned_by_partition, closed) << filter;
      EXPECT_EQ(plan->files_pruned_by_bucket, other_buckets) << filter;
      EXPECT_EQ(plan->files_pruned_by_stats,
                static_cast<int64_t>(model.size() - planned.size()) - closed - other_buckets)
          << filter;
      EXPECT_EQ(plan->files_pruned_by_index, 0) << filter;
    }
  };
  auto questions = [&](int round) {
    const int64_t id = 10 * (37 + round) + 4;
    check("", [](const Model&) { return true; });
    check("dt = 3", [](const Model& m) { return m.dt == 3; });
    check("dt IN (4, 9) OR dt > 23",
          [](const Model& m) { return m.dt == 4 || m.dt == 9 || m.dt > 23; });
    const auto all_open = [](const Model&) { return true; };
    const auto bucket_of_id = [&](const Model& m) { return m.bucket == bucket_of(id, m.total); };
    check(
        "id = " + std::to_string(id),
        [&](const Model& m) { return m.first_id <= id && id <= m.first_id + 9 && bucket_of_id(m); },
        nullptr, all_open, bucket_of_id);
    check(
        "dt < 20 AND id = " + std::to_string(id + 7000),
        [&](const Model& m) {
          return m.dt < 20 && m.first_id <= id + 7000 && id + 7000 <= m.first_id + 9 &&
                 m.bucket == bucket_of(id + 7000, m.total);
        },
        nullptr, [](const Model& m) { return m.dt < 20; },
        [&](const Model& m) { return m.bucket == bucket_of(id + 7000, m.total); });
    check("dt = 12 AND id >= 30000",
          [](const Model& m) { return m.dt == 12 && m.first_id + 9 >= 30000; });
    // Most files tested (statistics evaluated for the whole live set at once), with a new
    // literal each round, and partitions closed or open.
    check(
        "id >= " + std::to_string(id), [&](const Model& m) { return m.first_id + 9 >= id; },
        nullptr, all_open);
    check(
        "dt > 3 AND id < " + std::to_string(id),
        [&](const Model& m) { return m.dt > 3 && m.first_id < id; }, nullptr,
        [](const Model& m) { return m.dt > 3; });
    check(
        "id < " + std::to_string(id) + " OR dt = 7",
        [&](const Model& m) { return m.first_id < id || m.dt == 7; }, nullptr, all_open);
    check(
        "id >= " + std::to_string(id) + " AND id <= " + std::to_string(id + 5000),
        [&](const Model& m) { return m.first_id + 9 >= id && m.first_id <= id + 5000; }, nullptr,
        all_open);
    check(
        "", [](const Model& m) { return m.dt == 5 && m.bucket == 1; },
        [&](const std::string& partition, int32_t bucket) {
          return partition == Partition(5) && bucket == 1;
        });
  };
  // Over kParallelDecodeEntries: a cold read decodes the manifests on several threads.
  commit(12000, 0);
  commit(9000, 100);
  ASSERT_GE(model.size(), scan::LiveKeys::kMinEntries);
  ASSERT_GE(static_cast<int64_t>(model.size()), meta::kParallelDecodeEntries);
  meta::LiveFilesCache::Global().Clear();
  questions(0);
  questions(0);  // the cached plans
  commit(500, 12000);
  questions(1);  // new questions of a new live set
  questions(0);  // the same questions: their verdicts reused for the files still live
}

TEST_F(LiveFilesCacheTest, ExpiredSnapshotsAndRecreatedTablesFallBackToFullReads) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  for (int round = 0; round < 2; ++round) {
    // The second round recreates the table at the same path: same snapshot ids, other files.
    fs::remove_all(path);
    meta::TableSchema schema = CreateTable(path);
    auto options = *meta::CoreOptions::Make(schema.options(), false);
    meta::SnapshotManager snapshots(io_, path);
    for (int commit = 0; commit < 4 + round; ++commit) {
      CommitRequest request;
      meta::CommitMessage m;
      m.partition = Partition(0);
      m.bucket = 0;
      m.total_buckets = 2;
      m.new_files.push_back(
          TestDataFile("r" + std::to_string(round) + "-" + std::to_string(commit), 3));
      request.messages.push_back(m);
      ASSERT_TRUE(FileStoreCommit(io_, path, schema, options, "u").Commit(request).ok());
      auto latest = snapshots.LatestSnapshot();
      ASSERT_EQ(CachedRead(path, **latest), FullRead(path, **latest));
    }
  }
  // A snapshot between the cached one and the latest is gone (expired): a full read, not an
  // advance over the gap.
  meta::SnapshotManager snapshots(io_, path);
  int64_t cached_id = **snapshots.LatestSnapshotId();
  meta::TableSchema schema = *meta::SchemaManager(io_, path).ReadSchema(0);
  auto options = *meta::CoreOptions::Make(schema.options(), false);
  for (int commit = 0; commit < 2; ++commit) {
    CommitRequest request;
    meta::CommitMessage m;
    m.partition = Partition(1);
    m.bucket = 1;
    m.total_buckets = 2;
    m.new_files.push_back(TestDataFile("late-" + std::to_string(commit), 2));
    request.messages.push_back(m);
    ASSERT_TRUE(FileStoreCommit(io_, path, schema, options, "u").Commit(request).ok());
  }
  fs::remove(snapshots.SnapshotPath(cached_id + 1));
  auto before = meta::LiveFilesCache::Global().counters();
  auto latest = snapshots.LatestSnapshot();
  ASSERT_EQ(CachedRead(path, **latest), FullRead(path, **latest));
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().full_reads, before.full_reads + 1);
}

// A query resolves the latest snapshot, then a commit of this process advances the cache to the
// next one before the query reads its live set: the query still finds its snapshot's live set
// cached (the one kept before the newest), not a full decode of every manifest.
TEST_F(LiveFilesCacheTest, TheSnapshotBeforeTheNewestIsStillCached) {
  TempDir dir;
  const std::string path = dir.path();
  meta::TableSchema schema = CreateTable(path);
  auto options = *meta::CoreOptions::Make(schema.options(), false);
  meta::SnapshotManager snapshots(io_, path);
  std::vector<meta::Snapshot> taken;
  for (int commit = 0; commit < 4; ++commit) {
    ASSERT_TRUE(FileStoreCommit(io_, path, schema, options, "u")
                    .Commit(AddFile("f" + std::to_string(commit), commit % 2))
                    .ok());
    taken.push_back(**snapshots.LatestSnapshot());
    // The committer's advance (FileStoreCommit's listener does this after each commit).
    if (commit == 0) {
      ASSERT_EQ(CachedRead(path, taken.back()), FullRead(path, taken.back()));
    } else {
      auto advanced = meta::LiveFilesCache::Global().AdvanceIfCached(meta::ManifestFile(io_, path),
                                                                     snapshots, taken.back());
      ASSERT_TRUE(advanced.ok() && *advanced) << advanced.status().ToString();
    }
  }
  auto before = meta::LiveFilesCache::Global().counters();
  // The one before the newest, and the newest: from the cache.
  EXPECT_EQ(CachedRead(path, taken[2]), FullRead(path, taken[2]));
  EXPECT_EQ(CachedRead(path, taken[3]), FullRead(path, taken[3]));
  auto after = meta::LiveFilesCache::Global().counters();
  EXPECT_EQ(after.full_reads, before.full_reads);
  EXPECT_EQ(after.hits, before.hits + 2);
  // Two back is not kept: a full read, which leaves the newest cached.
  EXPECT_EQ(CachedRead(path, taken[1]), FullRead(path, taken[1]));
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().full_reads, after.full_reads + 1);
  EXPECT_EQ(CachedRead(path, taken[3]), FullRead(path, taken[3]));
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().full_reads, after.full_reads + 1);
}

TEST_F(LiveFilesCacheTest, AnUnchangedTableIsPlannedFromTheCache) {
  TempDir dir;
  meta::TableSchema schema = CreateTable(dir.path());
  auto options = *meta::CoreOptions::Make(schema.options(), false);
  CommitRequest request;
  meta::CommitMessage m;
  m.partition = Partition(0);
  m.bucket = 0;
  m.total_buckets = 2;
  m.new_files.push_back(TestDataFile("only", 5));
  request.messages.push_back(m);
  ASSERT_TRUE(FileStoreCommit(io_, dir.path(), schema, options, "u").Commit(request).ok());
  scan::TableScan scan(io_, dir.path());
  ASSERT_TRUE(scan.Plan({}).ok());
  // The manifests are gone from the disk, the plan is not: no manifest is read again.
  auto before = meta::LiveFilesCache::Global().counters();
  fs::remove_all(dir.Sub("manifest"));
  auto plan = scan.Plan({});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->splits.size(), 1u);
  EXPECT_EQ(plan->splits[0].files[0].file_name, "only");
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().hits, before.hits + 1);
}

// The plan cache above the live files (scan/table_scan.h, CachedPlanHits): the same question of
// an unchanged table is answered with the plan made last time, and only then.
TEST_F(LiveFilesCacheTest, TheSameQueryOfAnUnchangedTableReusesItsPlan) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  meta::TableSchema schema = CreateTable(path);
  auto commit = [&](const std::string& file, int32_t dt) {
    auto options = *meta::CoreOptions::Make(schema.options(), false);
    ASSERT_TRUE(FileStoreCommit(io_, path, schema, options, "u").Commit(AddFile(file, dt)).ok());
  };
  auto plan_files = [&](const std::string& filter, std::optional<int64_t> target = {}) {
    scan::ScanOptions options;
    options.predicate =
        std::make_shared<const scan::Predicate>(*scan::MakePredicate(filter, schema));
    options.split_target_size = target;
    auto plan = scan::TableScan(io_, path).Plan(options);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    std::set<std::string> files;
    for (const auto& split : plan->splits) {
      for (const auto& f : split.files) files.insert(f.file_name);
    }
    return files;
  };
  commit("a", 0);
  commit("b", 1);
  EXPECT_EQ(plan_files("dt = 0"), std::set<std::string>{"a"});
  int64_t hits = scan::TableScan::CachedPlanHits();
  EXPECT_EQ(plan_files("dt = 0"), std::set<std::string>{"a"});  // bound again: an equal key
  EXPECT_EQ(scan::TableScan::CachedPlanHits(), hits + 1);
  EXPECT_EQ(plan_files("dt = 1"), std::set<std::string>{"b"});     // another literal
  EXPECT_EQ(plan_files("dt = 0", 1), std::set<std::string>{"a"});  // other split options
  EXPECT_EQ(scan::TableScan::CachedPlanHits(), hits + 1);
  commit("c", 0);  // a new snapshot: planned again
  EXPECT_EQ(plan_files("dt = 0"), (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(scan::TableScan::CachedPlanHits(), hits + 1);
  // The table recreated at the same path, up to the same snapshot id: never the old plan.
  fs::remove_all(path);
  schema = CreateTable(path);
  commit("x", 1);
  commit("y", 1);
  commit("z", 0);
  EXPECT_EQ(plan_files("dt = 0"), std::set<std::string>{"z"});
}

// A committer whose listener is scan::WarmAfterCommits advances the caches a query left: the
// next query finds the live set of the new snapshot and its statistics columns ready (decoding
// nothing), where after a commit without the listener the query advances and decodes itself.
TEST_F(LiveFilesCacheTest, ACommitWithTheListenerWarmsTheNextQuerysCaches) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  meta::TableSchema schema = CreateTable(path);
  auto options = *meta::CoreOptions::Make(schema.options(), false);
  FileStoreCommit warming(io_, path, schema, options, "u");
  warming.OnPublished(scan::WarmAfterCommits(io_, path));
  FileStoreCommit plain(io_, path, schema, options, "u");
  auto commit = [&](FileStoreCommit& committer, const std::string& file, int32_t dt) {
    ASSERT_TRUE(committer.Commit(AddFile(file, dt)).ok());
  };
  int64_t next_literal = 0;
  auto query = [&]() {  // a literal never asked before: no plan to reuse, statistics tested
    scan::ScanOptions scan_options;
    scan_options.predicate = std::make_shared<const scan::Predicate>(
        *scan::MakePredicate("id >= -" + std::to_string(++next_literal), schema));
    auto plan = scan::TableScan(io_, path).Plan(scan_options);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    size_t files = 0;
    for (const auto& split : plan->splits) files += split.files.size();
    return files;
  };
  commit(warming, "a", 0);  // nothing cached yet: the listener has nothing to advance
  commit(warming, "b", 1);
  EXPECT_EQ(query(), 2u);

  auto before = meta::LiveFilesCache::Global().counters();
  int64_t decoded = scan::StatsColumn::DecodedEntries();
  commit(warming, "c", 0);
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().advanced, before.advanced + 1);
  EXPECT_EQ(scan::StatsColumn::DecodedEntries(), decoded + 1);  // the new file, at the commit
  EXPECT_EQ(query(), 3u);
  auto after = meta::LiveFilesCache::Global().counters();
  EXPECT_EQ(after.advanced, before.advanced + 1);
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(scan::StatsColumn::DecodedEntries(), decoded + 1);

  commit(plain, "d", 1);  // no listener: the query does the work
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().advanced, after.advanced);
  EXPECT_EQ(query(), 4u);
  EXPECT_EQ(meta::LiveFilesCache::Global().counters().advanced, after.advanced + 1);
  EXPECT_EQ(scan::StatsColumn::DecodedEntries(), decoded + 2);
}

}  // namespace
}  // namespace freshet::commit
