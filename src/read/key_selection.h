// KeySelection: a read of a primary-key table restricted to a few keys (Table::Lookup).
//
// Each data file of a split then yields only the rows of the selected keys. A merge combines the
// versions of each key on their own, so the merged rows of the selected keys are what a full
// read would return. A file is decoded once, whole, into a process-wide cache (by path and read
// fields: data files are immutable, so an entry never goes stale), and a key's rows are found by
// binary search, since every data file is sorted by key. Deletion vectors are applied after the
// search, never baked into the cache. The cache keeps the most recently used files within the
// `lookup.cache-max-memory-size` of the last read that used it (the file just loaded stays even
// when larger), as Java's lookup cache bounds its memory.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/lru_cache.h"
#include "freshet/result.h"
#include "mergetree/row_comparator.h"
#include "read/predicate_filter.h"

namespace freshet::read {

class KeySelection {
 public:
  // `keys`: one column per trimmed primary-key column, named as the table's, in the types files
  // are read in; rows in any order, duplicates allowed, no nulls. `cache_bytes`: the decoded
  // file cache's budget for reads with this selection.
  static Result<std::shared_ptr<const KeySelection>> Make(
      const std::shared_ptr<arrow::RecordBatch>& keys, int64_t cache_bytes);

  // The rows of `file` (a whole data file holding the key columns by name, sorted by key) whose
  // key is selected, as ascending runs.
  Result<std::vector<RowRun>> RowsOf(const arrow::RecordBatch& file) const;

  int64_t cache_bytes() const { return cache_bytes_; }
  // The distinct selected keys, in key order (Java's order of each type).
  const std::shared_ptr<arrow::RecordBatch>& sorted_keys() const { return sorted_keys_; }

 private:
  KeySelection() = default;
  // <0, 0, >0: row `row` of the key columns `columns` against selected key `key` (an index
  // into keys_).
  int Compare(const std::vector<const arrow::Array*>& columns, int64_t row, int64_t key) const;

  std::shared_ptr<arrow::RecordBatch> keys_;
  std::vector<mergetree::ElementCompare> compares_;  // per key column
  std::vector<int64_t> sorted_;                      // distinct keys' rows, in key order
  std::shared_ptr<arrow::RecordBatch> sorted_keys_;
  int64_t cache_bytes_ = 0;
};

// The process-wide cache of whole decoded data files behind KeySelection.
class DecodedFileCache {
 public:
  using Loader = std::function<Result<std::shared_ptr<arrow::RecordBatch>>()>;

  static DecodedFileCache& Instance();

  // The batch cached under `key`, or `load`'s (cached, then older entries dropped until the
  // cache holds at most `budget` bytes). Thread-safe; two threads may load one file at once.
  Result<std::shared_ptr<arrow::RecordBatch>> GetOrLoad(const std::string& key, int64_t budget,
                                                        const Loader& load);

  int64_t cached_bytes() const;
  int64_t loads() const;
  void Clear();

 private:
  LruCache<std::shared_ptr<arrow::RecordBatch>> batches_;  // cost: Arrow buffer bytes
  std::atomic<int64_t> loads_{0};
};

}  // namespace freshet::read
