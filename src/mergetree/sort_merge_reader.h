// SortMergeReader: merges sorted runs of key-value records by key and applies the merge function
// to each key's versions (docs/paimon-format.md §7.5 step 4).
//
// Inputs are MergeBatch streams in one MergeLayout, each sorted by key then sequence (a data
// file, a run of files, a sorted write buffer, the memory rows of the real-time layer); a run may
// hold several versions of a key. Records are ordered by key, then the `sequence.field` columns,
// then _SEQUENCE_NUMBER, and the versions of a key go to the merge function oldest first. The
// output keeps retract records (readers drop them, writers keep them).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "format/batch_reader.h"
#include "mergetree/key_value.h"
#include "mergetree/merge_function.h"
#include "mergetree/row_comparator.h"

namespace freshet::mergetree {

// A stream of MergeBatches; Next() returns null at the end.
class MergeBatchReader {
 public:
  virtual ~MergeBatchReader() = default;
  virtual Result<std::shared_ptr<MergeBatch>> Next() = 0;
};

// Wraps Arrow batches of `layout`'s schema (e.g. a data file read with layout.AllFields()).
std::unique_ptr<MergeBatchReader> AsMergeBatches(std::unique_ptr<format::BatchReader> batches,
                                                 const MergeLayout& layout);
// The other way round: MergeBatches as Arrow batches.
std::unique_ptr<format::BatchReader> AsArrowBatches(std::unique_ptr<MergeBatchReader> batches);

// Collects merged records into MergeBatches of the layout.
class MergeBatchBuilder : public MergedRowSink {
 public:
  explicit MergeBatchBuilder(const MergeLayout& layout);
  ~MergeBatchBuilder() override;

  Status AppendRow(const KeyValueRef& source, RowKind kind) override;
  Status AppendFields(const std::vector<FieldValue>& fields, int64_t sequence,
                      RowKind kind) override;
  int64_t num_rows() const;
  // The records appended since the last Finish (null when there are none).
  Result<std::shared_ptr<MergeBatch>> Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Merges the versions of one key in place of the reader's merge function (a compaction that
// looks older versions up in other levels and writes changelog: compact/lookup_changelog.h).
class KeyMerger {
 public:
  virtual ~KeyMerger() = default;
  // `versions`: the key's versions in merge order; `levels[i]`: the level of versions[i]'s run.
  // Appends the merged record, if any, to `out`.
  virtual Status Merge(const std::vector<KeyValueRef>& versions, const std::vector<int32_t>& levels,
                       MergeBatchBuilder* out) = 0;
};

// Java's LookupMergeFunction, used by tables that look keys up at compaction (every engine but
// first-row): a record above level 0 already holds the merge of everything older, so of a key's
// versions only those of level 0 (or below: memory) and the first one of the lowest level above
// 0 are merged. Puts them into `picked`, in merge order; returns the index in `versions` of that
// higher-level one, -1 when there is none.
int PickLookupVersions(const std::vector<KeyValueRef>& versions, const std::vector<int32_t>& levels,
                       std::vector<KeyValueRef>* picked);

struct SortMergeOptions {
  int64_t batch_size = 4096;
  // The level of each run, in the order of the runs (empty: all level 0).
  std::vector<int32_t> run_levels = {};
  // Merge with Java's LookupMergeFunction rule (PickLookupVersions); needs run_levels.
  bool lookup_levels = false;
  // When set, merges every key (lookup_levels and the merge function are not used). Must
  // outlive the reader.
  KeyMerger* key_merger = nullptr;
};

class SortMergeReader : public MergeBatchReader {
 public:
  // `merge` may be null: then every version of every key is passed on, in merge order (one
  // sorted run out of many, e.g. a writer combining its spilled runs).
  static Result<std::unique_ptr<SortMergeReader>> Make(
      const MergeLayout& layout, std::vector<std::unique_ptr<MergeBatchReader>> runs,
      std::unique_ptr<MergeFunction> merge, int64_t batch_size = 4096);
  static Result<std::unique_ptr<SortMergeReader>> Make(
      const MergeLayout& layout, std::vector<std::unique_ptr<MergeBatchReader>> runs,
      std::unique_ptr<MergeFunction> merge, SortMergeOptions options);
  ~SortMergeReader() override;

  // Up to batch_size merged records (retracts included); null at the end.
  Result<std::shared_ptr<MergeBatch>> Next() override;

 private:
  class Impl;
  explicit SortMergeReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace freshet::mergetree
