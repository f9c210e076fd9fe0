// TableScan: plans what a read of one snapshot must open: data splits per partition-bucket.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/manifest/live_files_cache.h"
#include "meta/manifest/manifest.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot.h"
#include "scan/deletion_files.h"
#include "scan/predicate.h"

namespace freshet::scan {

// The files of one partition-bucket that one reader consumes, in sequence-number order.
struct DataSplit {
  int64_t snapshot_id = 0;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = -1;
  std::vector<meta::DataFileMeta> files;
  // Per file (same order), its deletion vector; empty when no file of the split has one.
  std::vector<std::optional<DeletionFile>> deletion_files;

  int64_t RowCount() const;
  // The deletion file of files[i], or null.
  const DeletionFile* DeletionFileOf(size_t i) const {
    return i < deletion_files.size() && deletion_files[i] ? &*deletion_files[i] : nullptr;
  }
};

struct ScanOptions {
  std::optional<int64_t> snapshot_id;       // default: the latest snapshot
  std::optional<int64_t> timestamp_millis;  // the newest snapshot committed at or before
  // Or exactly this snapshot, read from elsewhere than snapshot/ (a tag's); its plans are not
  // cached.
  std::shared_ptr<const meta::Snapshot> snapshot;
  // Drops partitions and files that cannot hold a row for which this is TRUE (partition values,
  // then each file's value statistics). Bound to the schema being read. Pruning is conservative;
  // the read still filters rows exactly.
  std::shared_ptr<const Predicate> predicate;
  // Java's append split generation: a partition-bucket's files, in sequence order, are packed
  // into splits of at most this many bytes (source.split.target-size), each file weighing at
  // least split_open_file_cost (source.split.open-file-cost); a larger file is a split of its
  // own. Unset: the options of the schema the snapshot was written with.
  std::optional<int64_t> split_target_size;
  std::optional<int64_t> split_open_file_cost;
  // Level-0 files are read even where a batch scan skips them (deletion-vector and first-row
  // tables): the full starting plan of a streaming read (Java's streaming ScanMode.ALL,
  // scan/stream_scan.h), and real-time reads, which merge every committed row.
  bool read_level0 = false;
  // Plans only the partition-buckets (serialized partition, bucket) this accepts (point lookups).
  std::function<bool(const std::string& partition, int32_t bucket)> bucket_filter;
};

struct ScanPlan {
  // Null when the table has no snapshot yet; shared with the snapshot caches (not copied per plan).
  std::shared_ptr<const meta::Snapshot> snapshot;
  std::vector<DataSplit> splits;
  // Live files left out by `predicate`: by partition value, and by statistics.
  int64_t files_pruned_by_partition = 0;
  int64_t files_pruned_by_stats = 0;
  int64_t files_pruned_by_index = 0;   // by their file index (scan/file_index_filter.h)
  int64_t files_pruned_by_bucket = 0;  // in buckets the predicate rules out (scan/bucket_pruning.h)
};

// A committer's listener (commit::FileStoreCommit::OnPublished) calling WarmAfterCommit for the
// table; its errors are dropped: the next query builds whatever is missing.
std::function<void(const meta::Snapshot&)> WarmAfterCommits(std::shared_ptr<io::FileIO> file_io,
                                                            std::string table_path);

class TableScan {
 public:
  TableScan(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  Result<ScanPlan> Plan(const ScanOptions& options) const;
  // The snapshot Plan() reads (latest, by id or by time); nullopt when the table has none.
  Result<std::optional<meta::Snapshot>> ResolveSnapshot(const ScanOptions& options) const;
  // Plans served from the process-wide plan cache so far: a query of a table whose snapshot and
  // live files are unchanged, with the same predicate and options, gets the plan made last time.
  static int64_t CachedPlanHits();
  // Live entries whose pruning verdict a plan took from the previous plan of the same question
  // (the files that were already live before the commits since).
  static int64_t ReusedVerdicts();
  // The same, shared (null when the table has no snapshot yet).
  Result<std::shared_ptr<const meta::Snapshot>> ResolveSnapshotShared(
      const ScanOptions& options) const;

  // After this process committed `snapshot`: what the next query would build for the new live
  // set, built now from what earlier queries left cached (the live set advanced, its LiveKeys,
  // the statistics columns of the columns queried), so that the query after a commit plans like
  // any other. Nothing for a table whose live files no query read.
  Status WarmAfterCommit(const meta::Snapshot& snapshot) const;

 private:
  struct Pruning;
  // What planning decided about one live entry.
  enum class Verdict : uint8_t {
    kKept,
    kSkipped,  // level 0 where a batch scan skips it, or outside the caller's bucket_filter
    kByBucket,
    kByPartition,
    kByStats,
    kByIndex,
  };
  // The plan cache's key of `options` for this table ("" when they cannot be cached).
  std::string PlanKey(const ScanOptions& options) const;
  // Plan() of `snapshot` once its live entries are known: pruning and splits. `verdicts` gets
  // the verdict of each entry of `live`; those of entries also in `previous_live` (the live set
  // of an earlier plan of the same question, same schema) are taken from `previous_verdicts`.
  Result<ScanPlan> PlanFiles(const ScanOptions& options,
                             const std::shared_ptr<const meta::Snapshot>& snapshot,
                             const meta::LiveEntries& live, const meta::LiveEntries* previous_live,
                             const std::vector<uint8_t>* previous_verdicts,
                             std::vector<uint8_t>* verdicts) const;
  // Whether the predicate may be TRUE for some row of `entry`, a file of a partition it may
  // match: by its statistics, then its file index. Files of primary-key tables are pruned so only
  // for predicates on key columns alone (value statistics cannot see which version of a key
  // wins).
  Result<Verdict> MayMatchFile(const ScanOptions& options, const meta::ManifestEntry& entry,
                               size_t live_index, Pruning* pruning) const;
  // Tests files' statistics from StatsColumns over `live` from now on (where they apply).
  Status UseStatsColumns(const ScanOptions& options, const meta::LiveEntries& live,
                         Pruning* pruning) const;
  // Evaluates those statistics for every live entry at once, where most entries are tested.
  void EvaluateStatsForAll(Pruning* pruning) const;
  // Whether files of schema `schema_id` were bucketed as `current` buckets (same key columns).
  Result<bool> SameBucketKeys(int64_t schema_id, const meta::TableSchema& current,
                              Pruning* pruning) const;
  // The schema a snapshot was written with, and its split-size options parsed once with it.
  struct SnapshotSchema {
    std::shared_ptr<const meta::TableSchema> schema;
    int64_t split_target_size = 0;
    int64_t split_open_file_cost = 0;
    Status split_sizes_status;  // why the two sizes could not be parsed, if so
  };
  // The schema `snapshot` was written with (not read again while the snapshot's parse is the same).
  Result<SnapshotSchema> SchemaOfSnapshot(
      const std::shared_ptr<const meta::Snapshot>& snapshot) const;
  // Schema `id`, read once into `schemas`.
  Result<const meta::TableSchema*> SchemaById(
      int64_t id, std::map<int64_t, std::shared_ptr<const meta::TableSchema>>* schemas) const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
};

}  // namespace freshet::scan
