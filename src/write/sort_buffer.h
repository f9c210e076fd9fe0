// SortBuffer: the write buffer of one partition-bucket of a primary-key table (Java's
// SortBufferWriteBuffer).
//
// Holds records (every table field, _SEQUENCE_NUMBER, _VALUE_KIND) as written, in write order.
// A flush hands them out as sorted runs, sorted by key, then `sequence.field`, then
// _SEQUENCE_NUMBER, for a SortMergeReader to merge. When memory runs out, a spillable buffer
// writes its records as one sorted run to a local temporary file (Arrow IPC stream) instead of
// flushing a level-0 file; past kMaxSpillRuns files the spilled runs are merged into one (all
// versions kept), so that a flush never opens more files than that. A merge holds one batch of
// each spilled run in memory: spilled batches are cut at `run_batch_bytes` (of records as the
// buffer measures them), so that kMaxSpillRuns of them take at most kMaxSpillRuns times that.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "mergetree/key_value.h"
#include "mergetree/row_comparator.h"
#include "mergetree/sort_merge_reader.h"

namespace freshet::write {

// A local temporary directory for spilled runs, made on first use and removed with everything
// in it when the object dies.
class SpillDirectory {
 public:
  SpillDirectory() = default;
  ~SpillDirectory();
  SpillDirectory(const SpillDirectory&) = delete;
  SpillDirectory& operator=(const SpillDirectory&) = delete;

  // A new file path inside the directory.
  Result<std::string> NewFile();
  // The directory, empty before the first NewFile().
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t next_ = 0;
};

// The record order of a flush: key, then `sequence.field`, then _SEQUENCE_NUMBER.
class RecordOrder {
 public:
  static Result<RecordOrder> Make(const mergetree::MergeLayout& layout);
  bool Less(const mergetree::MergeBatch& a, int64_t a_row, const mergetree::MergeBatch& b,
            int64_t b_row) const;

  // For an order by one ascending 32- or 64-bit integer column (INT, DATE, TIME, BIGINT,
  // TIMESTAMP) and _SEQUENCE_NUMBER, without `sequence.field`: that column's index and width in
  // bytes, so that a sort can compare the values themselves. Width 0 otherwise.
  int integer_key_column() const { return keys_.integer_column(); }
  int integer_key_width() const { return user_sequence_.empty() ? keys_.integer_width() : 0; }

 private:
  mergetree::RowComparator keys_;
  mergetree::RowComparator user_sequence_;
};

// `batches` (records of `layout` in write order) as one run sorted by `order`, copied into
// batches of `batch_rows` records. `layout` must outlive the reader.
std::unique_ptr<mergetree::MergeBatchReader> SortedRun(
    const mergetree::MergeLayout& layout, const RecordOrder& order,
    std::vector<std::shared_ptr<mergetree::MergeBatch>> batches, int64_t batch_rows);

// The same run with only the newest version of each key, where the sort compares integer keys in
// place (RecordOrder::integer_key_width); null otherwise.
std::unique_ptr<mergetree::MergeBatchReader> SortedRunOfNewestVersions(
    const mergetree::MergeLayout& layout, const RecordOrder& order,
    std::vector<std::shared_ptr<mergetree::MergeBatch>> batches, int64_t batch_rows);

class SortBuffer {
 public:
  static constexpr int kMaxSpillRuns = 128;  // Java's local-sort.max-num-file-handles
  static constexpr int64_t kRunBatchRows = 4096;

  // `layout`, `order` and `spill` (may be null: not spillable) must outlive the buffer.
  // `run_batch_bytes`: the size of a spilled run's batches (at most kRunBatchRows records each,
  // at least one).
  SortBuffer(const mergetree::MergeLayout* layout, const RecordOrder* order, SpillDirectory* spill,
             int64_t run_batch_bytes = INT64_MAX);
  ~SortBuffer();

  // Takes records in write order (sequence numbers ascending).
  void Add(std::shared_ptr<mergetree::MergeBatch> batch);
  int64_t memory_bytes() const { return memory_bytes_; }
  int64_t num_spilled_runs() const { return static_cast<int64_t>(spilled_.size()); }
  bool empty() const { return batches_.empty() && spilled_.empty(); }
  bool spillable() const { return spill_ != nullptr; }

  // Writes the records in memory as one sorted run to a temporary file.
  Status Spill();
  // Every record as sorted runs (spilled ones, then memory); the buffer keeps the records until
  // Clear(), since the readers read them.
  Result<std::vector<std::unique_ptr<mergetree::MergeBatchReader>>> Runs() const;
  // With nothing spilled, the records as one sorted run holding each key's newest version
  // (SortedRunOfNewestVersions): what a deduplicate merge of Runs() gives. Null when the buffer
  // spilled or its keys are not sorted in place.
  std::unique_ptr<mergetree::MergeBatchReader> NewestVersionsRun() const;
  // Drops every record and deletes the spilled files.
  void Clear();

 private:
  // The memory records, sorted, as one run in batches of `batch_rows` records.
  std::unique_ptr<mergetree::MergeBatchReader> MemoryRun(int64_t batch_rows = kRunBatchRows) const;
  Status WriteRun(mergetree::MergeBatchReader* run, const std::string& path) const;
  Status MergeSpilledRuns();

  const mergetree::MergeLayout* layout_;
  const RecordOrder* order_;
  SpillDirectory* spill_;
  int64_t run_batch_bytes_;
  int64_t spill_batch_rows_ = kRunBatchRows;  // of the latest spill
  std::vector<std::shared_ptr<mergetree::MergeBatch>> batches_;
  int64_t memory_bytes_ = 0;
  std::vector<std::string> spilled_;  // paths of sorted runs
};

}  // namespace freshet::write
