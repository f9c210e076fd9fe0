// DiffRead: the rows of an incremental diff of a primary-key table (Java's
// IncrementalDiffSplitRead, docs/streaming-reads.md "Incremental diff"). For each
// partition-bucket, the files only the start snapshot holds ("before") and those only the end
// snapshot holds ("after") are each merged by key with the table's merge engine; a key whose
// merged row is only after, or differs between the two (any column, compared as values), yields
// the after row with its merged kind. Keys only before yield nothing (a batch read drops
// deletes), nor do keys whose rows are equal.
//
// Each bucket's merged before-rows are held in memory while its after-rows are compared with
// them: a diff is meant for the changes between two tags or snapshots, not for whole tables.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "format/batch_reader.h"
#include "read/delta_read.h"
#include "scan/table_scan.h"

namespace freshet::read {

struct DiffBucket {
  scan::DataSplit before;
  scan::DataSplit after;
};

// `full`: a read of every column of the table without a predicate (the comparison is of whole
// rows, as Java's); `output`: the caller's read, whose predicate and columns the returned batches
// follow (its output columns, then the int8 kind, as KindedTableRead's batches); `keys`: the
// names of the columns that identify a row within a bucket (the trimmed primary key). Both reads
// must outlive the reader.
Result<std::unique_ptr<format::BatchReader>> CreateDiffReader(const KindedTableRead* full,
                                                              const KindedTableRead* output,
                                                              std::vector<std::string> keys,
                                                              std::vector<DiffBucket> buckets);

}  // namespace freshet::read
