#include "scan/table_scan.h"

#include <string_view>
#include <unordered_map>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstring>
#include <map>

#include "common/background_release.h"
#include "common/lru_cache.h"
#include "meta/manifest/live_files_cache.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/option_registry.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "scan/bucket_pruning.h"
#include "scan/file_index_filter.h"
#include "scan/live_keys.h"
#include "scan/stats_columns.h"

namespace freshet::scan {

int64_t DataSplit::RowCount() const {
  int64_t rows = 0;
  for (const auto& f : files) rows += f.row_count;
  return rows;
}

namespace {

// Java's batchScanSkipLevel0: tables with deletion vectors, and first-row tables, read only
// compacted files in batch scans (their level-0 rows become visible with the next compaction).
Result<bool> SkipsLevel0(const meta::TableSchema& schema) {
  if (schema.primary_keys().empty()) return false;
  FRESHET_ASSIGN_OR_RETURN(bool deletion_vectors,
                           meta::GetBoolOption(schema.options(), "deletion-vectors.enabled"));
  FRESHET_ASSIGN_OR_RETURN(std::string engine,
                           meta::GetStringOption(schema.options(), "merge-engine"));
  return deletion_vectors || engine == "first-row";
}

void AttachDeletionFiles(const DeletionFileMap& deletion_files, DataSplit* split) {
  if (deletion_files.empty()) return;
  split->deletion_files.assign(split->files.size(), std::nullopt);
  bool any = false;
  for (size_t i = 0; i < split->files.size(); ++i) {
    auto found = deletion_files.find(
        DeletionFileKey{split->partition, split->bucket, split->files[i].file_name});
    if (found == deletion_files.end()) continue;
    split->deletion_files[i] = found->second;
    any = true;
  }
  if (!any) split->deletion_files.clear();
}

}  // namespace

// Plans kept for queries of an unchanged table (same parsed snapshot, same live set): by table
// path and everything in ScanOptions that shapes a plan. Only plans of at most
// kMaxCachedPlanFiles files are kept (a larger plan costs little next to reading its files).
struct CachedPlan {
  std::shared_ptr<const meta::Snapshot> snapshot;
  meta::LiveEntries live;
  std::vector<uint8_t> verdicts;  // TableScan::Verdict of each entry of `live`
  ScanPlan plan;
};
constexpr int64_t kMaxCachedPlanFiles = 4096;
constexpr int64_t kCachedPlanBudget = 16384;  // files over all cached plans, plus 1 per plan

// A plan dropped from the cache (superseded after a commit, or evicted) that holds the last
// reference to a live set of this many entries or more is freed on another thread: freeing one
// of 10,000 entry references was a quarter of the first query after a commit. Smaller ones are
// freed in place, where that costs less than waking the other thread.
constexpr size_t kReleaseInBackgroundEntries = 1024;

bool FreesALargeLiveSet(const std::vector<std::shared_ptr<const CachedPlan>>& dropped) {
  for (const auto& plan : dropped) {
    if (plan.use_count() == 1 && plan->live.use_count() == 1 &&
        plan->live->size() >= kReleaseInBackgroundEntries) {
      return true;
    }
  }
  return false;
}

std::atomic<int64_t> cached_plan_hits{0};
std::atomic<int64_t> reused_verdicts{0};

LruCache<std::shared_ptr<const CachedPlan>>& CachedPlans() {
  static LruCache<std::shared_ptr<const CachedPlan>> plans;
  return plans;
}

// What the cache key holds besides the table path, appended to `key`; callers with a
// bucket_filter (a function) are not cached. Built in place: every query makes one.
void AppendOptionsKey(const ScanOptions& options, std::string* key) {
  for (const std::optional<int64_t>& number :
       {options.snapshot_id, options.timestamp_millis, options.split_target_size,
        options.split_open_file_cost}) {
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof(digits), number.value_or(-1)).ptr;
    key->append(digits, end);
    key->push_back(',');
  }
  key->push_back(options.read_level0 ? '1' : '0');
  key->push_back(',');
  if (options.predicate) options.predicate->AppendKey(key);
}

// What one Plan() prunes with.
struct TableScan::Pruning {
  std::map<int64_t, std::shared_ptr<const meta::TableSchema>>
      schemas;  // by id, for the files' statistics layout
  bool primary_key = false;
  bool only_key_columns = false;
  // File indexes are read when the predicate asks for values and `file-index.read.enabled`.
  bool use_file_index = false;
  std::optional<meta::DataFilePaths> paths;
  // The buckets the predicate pins (fixed buckets), for files written with the same bucket keys.
  std::optional<BucketSelection> buckets;
  std::map<int64_t, bool> same_bucket_keys;  // by schema id
  // The partition predicate's outcome per partition (serialized; views of live entries' bytes):
  // a table has far fewer partitions than files.
  std::unordered_map<std::string_view, Outcomes> by_partition;
  // The predicate's statistics tests over the live set, when planning tests most of its files.
  std::optional<StatsColumns> stats_columns;
};

namespace {

// How many entries got each TableScan::Verdict (indexed by its value).
using VerdictCounts = std::array<int64_t, 8>;

// Counted 16 verdicts at a time with the compiler's vector extensions (SSE2 or NEON compares): a
// byte counter per lane and verdict, added up every 255 rounds, before it could wrap. A plan that
// decides a few files of 10,000 otherwise spent more time counting than deciding.
VerdictCounts CountVerdicts(const std::vector<uint8_t>& verdicts) {
  using Bytes = uint8_t __attribute__((vector_size(16)));
  constexpr size_t kVerdicts = 6;  // values of TableScan::Verdict
  VerdictCounts total{};
  const uint8_t* v = verdicts.data();
  const size_t n = verdicts.size();
  size_t i = 0;
  while (n - i >= sizeof(Bytes)) {
    Bytes counters[kVerdicts] = {};
    const size_t rounds = std::min<size_t>((n - i) / sizeof(Bytes), 255);
    for (size_t r = 0; r < rounds; ++r, i += sizeof(Bytes)) {
      Bytes bytes;
      std::memcpy(&bytes, v + i, sizeof(bytes));
      for (size_t verdict = 0; verdict < kVerdicts; ++verdict) {
        counters[verdict] -= (Bytes)(bytes == static_cast<uint8_t>(verdict));  // -1 where equal
      }
    }
    for (size_t verdict = 0; verdict < kVerdicts; ++verdict) {
      for (size_t lane = 0; lane < sizeof(Bytes); ++lane) total[verdict] += counters[verdict][lane];
    }
  }
  for (; i < n; ++i) ++total[v[i] & 7];
  return total;
}

// The verdict of every live entry: taken from the previous plan of the same question where the
// entry was live then too, `decide`d otherwise.
template <typename Decide>
Status DecideEach(const meta::LiveEntries& live, const meta::LiveEntries* previous_live,
                  const std::vector<uint8_t>* previous_verdicts, Decide& decide,
                  std::vector<uint8_t>* verdicts) {
  verdicts->assign(live->size(), 0);
  int64_t reused = 0;
  Status status;
  PairWithPrevious(
      live, previous_live,
      [&](size_t i, size_t previous_at) {
        (*verdicts)[i] = (*previous_verdicts)[previous_at];
        ++reused;
      },
      [&](size_t i) {
        if (!status.ok()) return;
        auto verdict = decide(i);
        if (verdict.ok()) {
          (*verdicts)[i] = static_cast<uint8_t>(*verdict);
        } else {
          status = verdict.status();
        }
      });
  reused_verdicts.fetch_add(reused, std::memory_order_relaxed);
  return status;
}

}  // namespace

int64_t TableScan::CachedPlanHits() { return cached_plan_hits.load(std::memory_order_relaxed); }
int64_t TableScan::ReusedVerdicts() { return reused_verdicts.load(std::memory_order_relaxed); }

std::string TableScan::PlanKey(const ScanOptions& options) const {
  std::string key;
  key.reserve(table_path_.size() + 96);
  key += table_path_;
  key += '\n';
  AppendOptionsKey(options, &key);
  return key;
}

TableScan::TableScan(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)) {}

Result<std::shared_ptr<const meta::Snapshot>> TableScan::ResolveSnapshotShared(
    const ScanOptions& options) const {
  if (options.snapshot) return options.snapshot;
  meta::SnapshotManager snapshots(file_io_, table_path_);
  if (options.snapshot_id) return snapshots.ReadSnapshotShared(*options.snapshot_id);
  if (options.timestamp_millis) {
    FRESHET_ASSIGN_OR_RETURN(auto s, snapshots.SnapshotAtOrBefore(*options.timestamp_millis));
    if (!s) {
      return Status::NotFound("table '", table_path_, "' has no snapshot at or before ",
                              *options.timestamp_millis, " ms");
    }
    return std::make_shared<const meta::Snapshot>(std::move(*s));
  }
  return snapshots.LatestSnapshotShared();
}

Result<std::optional<meta::Snapshot>> TableScan::ResolveSnapshot(const ScanOptions& options) const {
  FRESHET_ASSIGN_OR_RETURN(auto snapshot, ResolveSnapshotShared(options));
  if (!snapshot) return std::optional<meta::Snapshot>();
  return std::optional<meta::Snapshot>(*snapshot);
}

// The schema a snapshot was written with, kept with the parsed snapshot it was read for: while a
// plan resolves the very same parse (the snapshot file's bytes unchanged, so the same table), its
// schema file is not read again, nor its split sizes parsed (which showed in profiles of point
// queries).
Result<TableScan::SnapshotSchema> TableScan::SchemaOfSnapshot(
    const std::shared_ptr<const meta::Snapshot>& snapshot) const {
  using Known = std::pair<std::shared_ptr<const meta::Snapshot>, SnapshotSchema>;
  static LruCache<Known> known;
  const std::string key = table_path_ + '\n' + std::to_string(snapshot->id);
  if (auto hit = known.Get(key); hit && hit->first == snapshot) return hit->second;
  SnapshotSchema parsed;
  FRESHET_ASSIGN_OR_RETURN(
      parsed.schema,
      meta::SchemaManager(file_io_, table_path_).ReadSchemaShared(snapshot->schema_id));
  const auto& table_options = parsed.schema->options();
  auto target = meta::GetMemorySizeOption(table_options, "source.split.target-size");
  auto open_cost = meta::GetMemorySizeOption(table_options, "source.split.open-file-cost");
  parsed.split_sizes_status = target.ok() ? open_cost.status() : target.status();
  if (parsed.split_sizes_status.ok()) {
    parsed.split_target_size = *target;
    parsed.split_open_file_cost = *open_cost;
  }
  known.Put(key, Known{snapshot, parsed}, 1, 256);
  return parsed;
}

Result<TableScan::Verdict> TableScan::MayMatchFile(const ScanOptions& options,
                                                   const meta::ManifestEntry& entry,
                                                   size_t live_index, Pruning* pruning) const {
  // A file of a primary-key table may hold the older version of a key whose newest version
  // matches (or the reverse): its value statistics cannot drop it before the merge, unless the
  // predicate reads only key columns, which every version of a key shares.
  if (pruning->primary_key && !pruning->only_key_columns) return Verdict::kKept;
  Outcomes by_stats =
      pruning->stats_columns ? pruning->stats_columns->Evaluate(live_index) : Outcomes{0};
  const meta::TableSchema* schema = nullptr;
  if (by_stats == 0) {  // no columns, or this file's statistics need a closer look
    FRESHET_ASSIGN_OR_RETURN(schema, SchemaById(entry.file.schema_id, &pruning->schemas));
    FRESHET_ASSIGN_OR_RETURN(by_stats, EvaluateFileStats(*options.predicate, entry.file, *schema));
  }
  if (!(by_stats & kTrue)) return Verdict::kByStats;
  if (!pruning->use_file_index) return Verdict::kKept;
  FRESHET_ASSIGN_OR_RETURN(auto index, LoadFileIndex(file_io_.get(), *pruning->paths, entry));
  if (!index) return Verdict::kKept;
  if (!schema) {
    FRESHET_ASSIGN_OR_RETURN(schema, SchemaById(entry.file.schema_id, &pruning->schemas));
  }
  FRESHET_ASSIGN_OR_RETURN(bool by_index, FileIndexMayMatch(*options.predicate, *index, *schema));
  return by_index ? Verdict::kKept : Verdict::kByIndex;
}

Status TableScan::UseStatsColumns(const ScanOptions& options, const meta::LiveEntries& live,
                                  Pruning* pruning) const {
  if (!options.predicate || (pruning->primary_key && !pruning->only_key_columns)) {
    return Status::OK();
  }
  auto schema_of = [this, pruning](int64_t id) { return SchemaById(id, &pruning->schemas); };
  FRESHET_ASSIGN_OR_RETURN(pruning->stats_columns,
                           StatsColumns::Make(table_path_, *options.predicate, live, schema_of));
  return Status::OK();
}

void TableScan::EvaluateStatsForAll(Pruning* pruning) const {
  // Unless buckets narrow it first, every entry of the open partitions is tested, and all of them
  // at once cost less than one by one (a new literal at 10,000 files: the committed-only query
  // 213 -> 167 us p50). A pinned bucket tests a fifth of them or fewer, one by one.
  if (pruning->stats_columns && !pruning->buckets) pruning->stats_columns->EvaluateAll();
}

Result<bool> TableScan::SameBucketKeys(int64_t schema_id, const meta::TableSchema& current,
                                       Pruning* pruning) const {
  auto known = pruning->same_bucket_keys.find(schema_id);
  if (known != pruning->same_bucket_keys.end()) return known->second;
  FRESHET_ASSIGN_OR_RETURN(const meta::TableSchema* schema,
                           SchemaById(schema_id, &pruning->schemas));
  // The file's rows were routed by its schema's bucket keys: the same columns of the same types.
  bool same = schema->BucketKeys() == current.BucketKeys();
  for (const std::string& key : current.BucketKeys()) {
    int a = schema->FieldIndex(key), b = current.FieldIndex(key);
    same = same && a >= 0 && b >= 0 &&
           schema->fields()[static_cast<size_t>(a)].id ==
               current.fields()[static_cast<size_t>(b)].id &&
           schema->fields()[static_cast<size_t>(a)].type->Equals(
               *current.fields()[static_cast<size_t>(b)].type);
  }
  pruning->same_bucket_keys[schema_id] = same;
  return same;
}

Result<const meta::TableSchema*> TableScan::SchemaById(
    int64_t id, std::map<int64_t, std::shared_ptr<const meta::TableSchema>>* schemas) const {
  auto it = schemas->find(id);
  if (it == schemas->end()) {
    meta::SchemaManager manager(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(auto schema, manager.ReadSchemaShared(id));
    it = schemas->emplace(id, std::move(schema)).first;
  }
  return it->second.get();
}

Status TableScan::WarmAfterCommit(const meta::Snapshot& snapshot) const {
  meta::ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(meta::LiveEntries live,
                           meta::LiveFilesCache::Global().AdvanceIfCached(
                               manifests, meta::SnapshotManager(file_io_, table_path_), snapshot));
  if (!live) return Status::OK();  // no query read the table
  // The snapshot parsed and its schema read here, so that the next query finds both cached.
  auto parsed = meta::SnapshotManager(file_io_, table_path_).ReadSnapshotShared(snapshot.id);
  if (parsed.ok()) (void)SchemaOfSnapshot(*parsed);
  if (live->size() >= LiveKeys::kMinEntries && live->size() < LiveKeys::kMaxEntries) {
    LiveKeys::Of(live);
  }
  std::map<int64_t, std::shared_ptr<const meta::TableSchema>> schemas;
  return StatsColumns::CarryCached(table_path_, live,
                                   [&](int64_t id) { return SchemaById(id, &schemas); });
}

std::function<void(const meta::Snapshot&)> WarmAfterCommits(std::shared_ptr<io::FileIO> file_io,
                                                            std::string table_path) {
  return [file_io = std::move(file_io), path = std::move(table_path)](const meta::Snapshot& s) {
    (void)TableScan(file_io, path).WarmAfterCommit(s);
  };
}

Result<ScanPlan> TableScan::Plan(const ScanOptions& options) const {
  ScanPlan plan;
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<const meta::Snapshot> snapshot,
                           ResolveSnapshotShared(options));
  if (!snapshot) return plan;
  meta::ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(meta::LiveEntries live,
                           meta::LiveFilesCache::Global().Read(
                               manifests, meta::SnapshotManager(file_io_, table_path_), *snapshot));

  // An unchanged table asked the same question again: the plan made last time. After commits,
  // the verdicts of the files that were already live are taken from it (same schema).
  const std::string plan_key =
      options.bucket_filter || options.snapshot ? std::string() : PlanKey(options);
  std::shared_ptr<const CachedPlan> previous;
  if (!plan_key.empty()) {
    if (auto cached = CachedPlans().Get(plan_key)) {
      if ((*cached)->snapshot == snapshot && (*cached)->live == live) {
        cached_plan_hits.fetch_add(1, std::memory_order_relaxed);
        return (*cached)->plan;
      }
      if ((*cached)->snapshot->schema_id == snapshot->schema_id) previous = *cached;
    }
  }
  std::vector<uint8_t> verdicts;
  FRESHET_ASSIGN_OR_RETURN(plan,
                           PlanFiles(options, snapshot, live, previous ? &previous->live : nullptr,
                                     previous ? &previous->verdicts : nullptr, &verdicts));
  if (!plan_key.empty()) {
    int64_t files = 0;
    for (const DataSplit& split : plan.splits) files += static_cast<int64_t>(split.files.size());
    if (files <= kMaxCachedPlanFiles) {
      const int64_t cost = 1 + files + static_cast<int64_t>(verdicts.size() / 256);
      previous.reset();  // the cache's copy is dropped by the Put below
      std::vector<std::shared_ptr<const CachedPlan>> dropped;
      CachedPlans().Put(
          plan_key,
          std::make_shared<const CachedPlan>(CachedPlan{snapshot, live, std::move(verdicts), plan}),
          cost, kCachedPlanBudget, &dropped);
      if (FreesALargeLiveSet(dropped)) ReleaseInBackground(std::move(dropped));
    }
  }
  return plan;
}

Result<ScanPlan> TableScan::PlanFiles(const ScanOptions& options,
                                      const std::shared_ptr<const meta::Snapshot>& snapshot,
                                      const meta::LiveEntries& live,
                                      const meta::LiveEntries* previous_live,
                                      const std::vector<uint8_t>* previous_verdicts,
                                      std::vector<uint8_t>* verdicts) const {
  ScanPlan plan;
  plan.snapshot = snapshot;
  Pruning pruning;
  std::map<int64_t, std::shared_ptr<const meta::TableSchema>>& schemas = pruning.schemas;
  FRESHET_ASSIGN_OR_RETURN(const SnapshotSchema written_with, SchemaOfSnapshot(snapshot));
  schemas[snapshot->schema_id] = written_with.schema;
  FRESHET_ASSIGN_OR_RETURN(const meta::TableSchema* snapshot_schema,
                           SchemaById(plan.snapshot->schema_id, &schemas));
  pruning.primary_key = !snapshot_schema->primary_keys().empty();
  pruning.only_key_columns = pruning.primary_key && options.predicate &&
                             ReadsOnlyKeyColumns(*options.predicate, *snapshot_schema);
  const bool primary_key = pruning.primary_key;
  if (options.predicate && AsksForValues(*options.predicate)) {
    FRESHET_ASSIGN_OR_RETURN(
        pruning.use_file_index,
        meta::GetBoolOption(snapshot_schema->options(), "file-index.read.enabled"));
    if (pruning.use_file_index) {
      FRESHET_ASSIGN_OR_RETURN(pruning.paths,
                               meta::DataFilePaths::Make(table_path_, *snapshot_schema));
    }
  }
  if (options.predicate)
    pruning.buckets = BucketSelection::Make(*options.predicate, *snapshot_schema);
  FRESHET_ASSIGN_OR_RETURN(bool skip_level0, SkipsLevel0(*snapshot_schema));
  skip_level0 = skip_level0 && !options.read_level0;

  // The verdict of every live entry: taken from the previous plan of the same question where the
  // entry was live then too (an advanced live set keeps the survivors of the previous one in
  // order and appends the added entries, so one walk pairs them), computed otherwise.
  // An entry's level, bucket and partition are tested first, from LiveKeys when the live set is
  // large and no verdicts are reused (so that the entry itself is only read for its statistics);
  // the partition predicate is evaluated once per partition.
  std::shared_ptr<const LiveKeys> keys;
  if (!previous_live && live->size() >= LiveKeys::kMinEntries &&
      live->size() < LiveKeys::kMaxEntries) {
    keys = LiveKeys::Of(live);
  }
  // The last partition asked, by address: the keys' walk asks for each partition's string once,
  // then again for each of its files, which need no map lookup.
  const std::string* last_partition = nullptr;
  Outcomes last_outcomes = kFalse;
  auto partition_outcome = [&](const std::string& partition) -> Result<Outcomes> {
    if (&partition == last_partition) return last_outcomes;
    auto known = pruning.by_partition.find(partition);
    if (known == pruning.by_partition.end()) {
      FRESHET_ASSIGN_OR_RETURN(Outcomes outcomes, EvaluatePartition(*options.predicate, partition));
      known = pruning.by_partition.emplace(partition, outcomes).first;
    }
    last_partition = &partition;
    last_outcomes = known->second;
    return last_outcomes;
  };
  int64_t last_schema_id = -1;  // SameBucketKeys of the last schema asked (files share a few)
  bool same_bucket_keys = false;
  // The tests between the partition's and the statistics': the level, the caller's bucket
  // filter, the pinned buckets; kKept when they all pass.
  auto before_stats = [&](size_t i) -> Result<Verdict> {
    // The entry itself is read only when its keys are not enough.
    const LiveKeys::Key* key = keys ? &keys->keys[i] : nullptr;
    const meta::ManifestEntry* entry = key ? nullptr : (*live)[i].get();
    const int32_t level = key ? key->level : entry->file.level;
    if (skip_level0 && level == 0) return Verdict::kSkipped;
    const int32_t bucket = key ? key->bucket : entry->bucket;
    if (options.bucket_filter &&
        !options.bucket_filter(key ? keys->partitions[key->partition] : entry->partition, bucket)) {
      return Verdict::kSkipped;
    }
    if (pruning.buckets) {
      const int64_t schema_id = key ? key->schema_id : entry->file.schema_id;
      if (schema_id != last_schema_id) {
        FRESHET_ASSIGN_OR_RETURN(same_bucket_keys,
                                 SameBucketKeys(schema_id, *snapshot_schema, &pruning));
        last_schema_id = schema_id;
      }
      const int32_t total = key ? key->total_buckets : entry->total_buckets;
      if (same_bucket_keys && !pruning.buckets->Selects(bucket, total)) return Verdict::kByBucket;
    }
    return Verdict::kKept;
  };
  // Partitions first, as the walk by LiveKeys below takes them: a file of a partition the
  // predicate rules out counts as pruned by partition, whatever else would prune it.
  auto decide = [&](size_t i) -> Result<Verdict> {
    if (options.predicate) {
      const std::string& partition =
          keys ? keys->partitions[keys->keys[i].partition] : (*live)[i]->partition;
      FRESHET_ASSIGN_OR_RETURN(Outcomes by_partition, partition_outcome(partition));
      if (!(by_partition & kTrue)) return Verdict::kByPartition;
    }
    FRESHET_ASSIGN_OR_RETURN(Verdict verdict, before_stats(i));
    if (verdict != Verdict::kKept || !options.predicate) return verdict;
    return MayMatchFile(options, *(*live)[i], i, &pruning);
  };
  if (keys && options.predicate) {
    // Partitions first: the files of a partition the predicate rules out are all pruned by
    // partition (whatever else would have pruned them), so only the files of the others are
    // visited, through the keys' partition index.
    verdicts->assign(live->size(), static_cast<uint8_t>(Verdict::kByPartition));
    std::vector<uint32_t> open;  // partitions whose files may match
    size_t open_files = 0;
    for (uint32_t p = 0; p < keys->partitions.size(); ++p) {
      FRESHET_ASSIGN_OR_RETURN(Outcomes outcomes, partition_outcome(keys->partitions[p]));
      if (!(outcomes & kTrue)) continue;
      open.push_back(p);
      open_files += keys->partition_begin[p + 1] - keys->partition_begin[p];
    }
    // Statistics columns cover the whole live set: worth it when most files are tested.
    if (open_files * 4 >= live->size()) {
      FRESHET_RETURN_NOT_OK(UseStatsColumns(options, live, &pruning));
    }
    // Nothing skipped or narrowed before the statistics: they come first.
    const bool stats_first =
        !skip_level0 && !options.bucket_filter && !pruning.buckets && pruning.stats_columns;
    std::optional<StatsColumns::EntryRanges> candidates;
    if (pruning.stats_columns) candidates = pruning.stats_columns->CandidateRanges();
    // (Arrays through local pointers: the byte stores could alias any member.)
    const uint32_t* by_partition = keys->by_partition.data();
    uint8_t* out = verdicts->data();
    if (candidates) {
      // A comparison with a literal: the files of the open partitions outside the candidate
      // ranges are pruned by statistics without a test (block summaries) unless a test before
      // the statistics' prunes them (a pinned bucket: a few loads and compares per file); those
      // inside are decided.
      if (stats_first && open.size() == keys->partitions.size()) {
        std::memset(out, static_cast<int>(Verdict::kByStats), live->size());
      } else {
        for (uint32_t p : open) {
          const uint32_t end = keys->partition_begin[p + 1];
          for (uint32_t k = keys->partition_begin[p]; k < end; ++k) {
            const uint32_t i = by_partition[k];
            Verdict verdict = Verdict::kKept;
            if (!stats_first) {
              FRESHET_ASSIGN_OR_RETURN(verdict, before_stats(i));
            }
            out[i] = static_cast<uint8_t>(verdict == Verdict::kKept ? Verdict::kByStats : verdict);
          }
        }
      }
      for (const auto& [begin, end] : *candidates) {
        for (uint32_t i = begin; i < end; ++i) {
          if (out[i] == static_cast<uint8_t>(Verdict::kByPartition)) continue;
          FRESHET_ASSIGN_OR_RETURN(Verdict verdict, decide(i));
          out[i] = static_cast<uint8_t>(verdict);
        }
      }
      open.clear();  // decided
    } else if (open_files * 4 >= live->size()) {
      EvaluateStatsForAll(&pruning);
    }
    // Otherwise, with no file index after them either, the outcomes evaluated for the whole live
    // set decide an open partition's files alone: a load and a store per file instead of
    // decide()'s tests (a new literal at 10,000 files spent 60% of its plan in them); decide()
    // takes the files whose statistics need a closer look.
    const std::vector<Outcomes>* all =
        stats_first && !pruning.use_file_index ? pruning.stats_columns->AllOutcomes() : nullptr;
    const Outcomes* outcomes = all ? all->data() : nullptr;
    for (uint32_t p : open) {
      const uint32_t end = keys->partition_begin[p + 1];
      for (uint32_t k = keys->partition_begin[p]; k < end; ++k) {
        const uint32_t i = by_partition[k];
        if (outcomes && outcomes[i] != 0) {
          out[i] = static_cast<uint8_t>((outcomes[i] & kTrue) ? Verdict::kKept : Verdict::kByStats);
          continue;
        }
        FRESHET_ASSIGN_OR_RETURN(Verdict verdict, decide(i));
        out[i] = static_cast<uint8_t>(verdict);
      }
    }
  } else {
    // Without verdicts to reuse every file is tested.
    if (!previous_live) {
      FRESHET_RETURN_NOT_OK(UseStatsColumns(options, live, &pruning));
      EvaluateStatsForAll(&pruning);
    }
    FRESHET_RETURN_NOT_OK(DecideEach(live, previous_live, previous_verdicts, decide, verdicts));
  }

  const VerdictCounts counts = CountVerdicts(*verdicts);
  plan.files_pruned_by_bucket = counts[static_cast<size_t>(Verdict::kByBucket)];
  plan.files_pruned_by_partition = counts[static_cast<size_t>(Verdict::kByPartition)];
  plan.files_pruned_by_stats = counts[static_cast<size_t>(Verdict::kByStats)];
  plan.files_pruned_by_index = counts[static_cast<size_t>(Verdict::kByIndex)];
  // Group by partition-bucket; keep a stable order (first appearance) for reproducible reads.
  // The kept files are found by memchr: a selective plan keeps a few of many.
  static_assert(static_cast<int>(Verdict::kKept) == 0);
  std::map<std::pair<std::string, int32_t>, size_t> index;
  std::vector<DataSplit> groups;
  const uint8_t* const first = verdicts->data();
  const uint8_t* const end = first + verdicts->size();
  for (const uint8_t* kept = first;
       counts[0] > 0 && (kept = static_cast<const uint8_t*>(std::memchr(kept, 0, end - kept)));
       ++kept) {
    const meta::ManifestEntry& entry = *(*live)[static_cast<size_t>(kept - first)];
    auto key = std::make_pair(entry.partition, entry.bucket);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) {
      groups.push_back(
          DataSplit{plan.snapshot->id, entry.partition, entry.bucket, entry.total_buckets, {}, {}});
    }
    groups[it->second].files.push_back(entry.file);
  }
  // Split sizes: the table's options unless the caller gave them. Java reads them from the
  // table's current schema; freshet never changes a table's options (no ALTER), so the schema
  // the snapshot was written with holds the same.
  int64_t target_size = options.split_target_size.value_or(0);
  int64_t open_file_cost = options.split_open_file_cost.value_or(0);
  if (!options.split_target_size || !options.split_open_file_cost) {
    FRESHET_RETURN_NOT_OK(written_with.split_sizes_status);
    target_size = options.split_target_size.value_or(written_with.split_target_size);
    open_file_cost = options.split_open_file_cost.value_or(written_with.split_open_file_cost);
  }
  FRESHET_ASSIGN_OR_RETURN(
      DeletionFileMap deletion_files,
      ReadDeletionFiles(file_io_, *plan.snapshot, IndexFileLocation{table_path_, nullptr}));
  for (auto& group : groups) {
    if (primary_key) {
      // One split per partition-bucket: its files are merged by key (read/primary_key_read.h).
      AttachDeletionFiles(deletion_files, &group);
      plan.splits.push_back(std::move(group));
      continue;
    }
    std::stable_sort(group.files.begin(), group.files.end(),
                     [](const meta::DataFileMeta& a, const meta::DataFileMeta& b) {
                       return a.min_sequence_number < b.min_sequence_number;
                     });
    // Java's ordered bin packing: files in sequence order, each weighing its size but at least
    // the open-file cost; a split is closed when the next file would take it past the target.
    DataSplit current{
        group.snapshot_id, group.partition, group.bucket, group.total_buckets, {}, {}};
    int64_t weight = 0;
    for (auto& file : group.files) {
      int64_t file_weight = std::max(file.file_size, open_file_cost);
      if (!current.files.empty() && weight + file_weight > target_size) {
        AttachDeletionFiles(deletion_files, &current);
        plan.splits.push_back(current);
        current.files.clear();
        weight = 0;
      }
      weight += file_weight;
      current.files.push_back(std::move(file));
    }
    if (!current.files.empty()) {
      AttachDeletionFiles(deletion_files, &current);
      plan.splits.push_back(std::move(current));
    }
  }
  return plan;
}

}  // namespace freshet::scan
