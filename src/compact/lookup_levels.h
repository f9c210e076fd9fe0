// LookupLevels: finds the live version of a key in the files of a primary-key bucket's levels
// above level 0, as Java's LookupLevels does for lookup compactions (deletion vectors,
// `changelog-producer` = lookup, first-row).
//
// Java builds a local lookup file (a sorted key -> (position, record) store) per data file, on
// demand, cached up to `lookup.cache-max-memory-size`. freshet keeps the same per-file index in
// memory instead: a data file is read once, whole, into Arrow batches in the merge layout (its
// rows are sorted by key and unique within a file at levels >= 1, so a binary search finds a key
// and its row position). Loaded files are cached per LookupLevels (one per writer), least
// recently used ones dropped beyond the memory budget. Files are immutable, so a cached index
// never goes stale; deleted rows are told by the caller (the bucket's current deletion vectors)
// at lookup time, never baked into the index.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "mergetree/file_key_range.h"
#include "mergetree/key_value.h"
#include "mergetree/row_comparator.h"
#include "meta/manifest/manifest.h"
#include "meta/path/data_file_paths.h"
#include "read/primary_key_read.h"

namespace freshet::compact {

// Where a key was found: the file, the row's position in it, and the record (every value field
// plus _SEQUENCE_NUMBER and _VALUE_KIND, in the plan's merge layout) as row `row` of `batch`.
struct LookupHit {
  const meta::DataFileMeta* file = nullptr;  // points into the caller's `levels`
  int64_t position = 0;
  std::shared_ptr<mergetree::MergeBatch> batch;
  int64_t row = 0;
};

// Rows to skip (deleted by a deletion vector): (data file name, row position) -> deleted.
using IsDeletedFn = std::function<bool(const std::string&, int64_t)>;

class LookupLevels {
 public:
  // `plan`: every table field (compaction's plan). `max_memory_bytes`: the cache budget (the
  // last loaded file stays even when larger).
  static Result<std::unique_ptr<LookupLevels>> Make(
      std::shared_ptr<io::FileIO> file_io, const meta::DataFilePaths* paths,
      std::shared_ptr<const read::PrimaryKeyReadPlan> plan, int64_t max_memory_bytes);
  ~LookupLevels();

  // The live version of the key of row `row` of `keys` (a batch in the plan's layout) in
  // `levels`: the files of one partition-bucket, grouped by level, lowest level first (each
  // level one sorted run). The first level holding a live row of the key wins, as the newest.
  Result<std::optional<LookupHit>> Lookup(
      const std::string& partition, int32_t bucket,
      const std::vector<std::vector<meta::DataFileMeta>>& levels, const mergetree::MergeBatch& keys,
      int64_t row, const IsDeletedFn& is_deleted);

  // Drops what is cached of a file (e.g. one a compaction removed); harmless when nothing is.
  void Forget(const std::string& file_name);

  int64_t cached_bytes() const { return cached_bytes_; }
  int64_t files_loaded() const { return files_loaded_; }

 private:
  struct FileIndex;
  LookupLevels() = default;
  Result<FileIndex*> IndexOf(const std::string& partition, int32_t bucket,
                             const meta::DataFileMeta& file);
  Result<mergetree::FileKey> KeyOf(const mergetree::MergeBatch& keys, int64_t row) const;
  Result<const mergetree::FileKeyRange*> RangeOf(const meta::DataFileMeta& file);
  // The file of `level` whose key range holds `key`, or null.
  Result<const meta::DataFileMeta*> FileFor(const std::vector<meta::DataFileMeta>& level,
                                            const mergetree::FileKey& key);
  void EvictBeyondBudget();

  std::shared_ptr<io::FileIO> file_io_;
  const meta::DataFilePaths* paths_ = nullptr;
  std::shared_ptr<const read::PrimaryKeyReadPlan> plan_;
  std::optional<mergetree::RowComparator> key_order_;
  int64_t max_memory_bytes_ = 0;
  std::map<std::string, std::unique_ptr<FileIndex>> cache_;  // by data file name
  std::map<std::string, mergetree::FileKeyRange> ranges_;    // decoded key ranges, by name
  std::list<std::string> recency_;                           // most recently used first
  int64_t cached_bytes_ = 0;
  int64_t files_loaded_ = 0;
};

}  // namespace freshet::compact
