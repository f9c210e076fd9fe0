// Merge-on-read of primary-key tables (docs/primary-key-tables.md).
//
// Per split (one partition-bucket): the files are grouped into sections of overlapping key
// ranges (mergetree/interval_partition.h). A section of one sorted run is read straight; the runs
// of any other section are merged by key through the table's merge engine. Sections follow one
// another in key order. Records whose merged kind retracts (-U, -D) are dropped, as Java's
// DropDeleteReader does, and the batches are cut down to the read fields.
#pragma once

#include <memory>
#include <vector>

#include "format/batch_reader.h"
#include "mergetree/interval_partition.h"
#include "mergetree/key_value.h"
#include "mergetree/sort_merge_reader.h"
#include "meta/schema/table_schema.h"
#include "read/data_file_reader.h"
#include "scan/table_scan.h"

namespace freshet::read {

struct PrimaryKeyReadPlan {
  meta::TableSchema schema;  // the schema read with (merge engine and its options)
  // Value fields: the read fields first, then what the merge needs besides them.
  mergetree::MergeLayout layout;
  std::vector<meta::DataTypePtr> key_types;  // of the trimmed primary key
  int num_read_fields = 0;                   // the leading value fields returned
  // Merges follow Java's LookupMergeFunction (mergetree::PickLookupVersions): tables whose
  // compaction looks keys up, but first-row.
  bool lookup_levels = false;

  // Checks that the merge engine can be applied (Invalid / NotImplemented otherwise).
  static Result<std::shared_ptr<const PrimaryKeyReadPlan>> Make(
      const meta::TableSchema& schema, const std::vector<meta::DataField>& read_fields);
};

// The records of one section of `split` (its files, grouped into sorted runs), merged by key
// through the merge engine when the section has more than one run, in the plan's layout with
// sequence numbers and row kinds (retracts kept): what compaction rewrites. With `key_merger`,
// it merges every key instead (one run too). `split`, `plan`, `files` and `key_merger` must
// outlive the reader.
Result<std::unique_ptr<mergetree::MergeBatchReader>> ReadSection(
    const PrimaryKeyReadPlan& plan, DataFileOpener* files, const scan::DataSplit& split,
    const mergetree::Section& section, int64_t batch_size,
    mergetree::KeyMerger* key_merger = nullptr);

// `batch` without its retract records (-U, -D; kinds in column `kind_column`), as Java's
// DropDeleteReader.
Result<std::shared_ptr<arrow::RecordBatch>> WithoutRetracts(
    const std::shared_ptr<arrow::RecordBatch>& batch, int kind_column);

// The level `newer_runs` are merged at: below every file (level 0), as Java merges its write
// buffer (PickLookupVersions treats it as new data).
inline constexpr int32_t kNewerRunLevel = -1;
// The level the merged files of a split count as when `newer_runs` join them: above level 0,
// since each of those records already holds the merge of every committed version of its key.
inline constexpr int32_t kMergedFilesLevel = 1;

// The merged, live rows of `split`, in read fields. `plan` and `files` must outlive the reader.
//
// `newer_runs`: records newer than every file of the split (the real-time layer's uncommitted
// rows of its partition-bucket), each run sorted by key, `sequence.field` and sequence number,
// in `plan.layout`. They are merged with the split's merged records through the merge engine,
// which gives what a read would return had they been committed as a level-0 file (merge
// functions combine merged records with newer versions exactly as compaction relies on).
Result<std::unique_ptr<format::BatchReader>> ReadPrimaryKeySplit(
    const PrimaryKeyReadPlan& plan, DataFileOpener* files, scan::DataSplit split,
    int64_t batch_size, std::vector<std::unique_ptr<mergetree::MergeBatchReader>> newer_runs = {});

}  // namespace freshet::read
