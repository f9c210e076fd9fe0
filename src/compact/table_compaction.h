// CompactTable: one compaction pass over the partition-buckets of a primary-key table, committed
// as one COMPACT snapshot (`freshet compact`, Table::Compact; docs/compaction.md).
//
// Per bucket, the live files of the latest snapshot are the levels of its LSM tree; the pass
// picks what Java's writer would compact (the universal strategy) or, with `full`, every file
// into the highest level, rewrites it (compact/merge_tree_compactor.h) and commits every
// bucket's result at once. When another commit changed a compacted bucket in the meantime the
// commit is refused as a conflict (commit/conflict_check.h): the new files are deleted and the
// pass is planned again on the new snapshot, a few times at most.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/schema/table_schema.h"

namespace freshet::compact {

struct TableCompactOptions {
  bool full = false;
  // Partitions to compact, each as (key, value) pairs in the text of partition paths; a
  // partition is compacted when it matches every pair of one of them (a spec may name some
  // partition keys only). Empty: every partition.
  std::vector<std::map<std::string, std::string>> partitions;
  std::string commit_user;  // empty: a new one
  int max_attempts = 3;     // plans tried when commits conflict
};

struct TableCompactResult {
  std::optional<int64_t> snapshot_id;  // nullopt: nothing needed compacting
  int64_t buckets = 0;                 // partition-buckets compacted
  int64_t files_before = 0;            // files replaced
  int64_t files_after = 0;             // files that replaced them
  int conflicts = 0;                   // plans given up because another commit came first
};

Result<TableCompactResult> CompactTable(std::shared_ptr<io::FileIO> file_io,
                                        const std::string& table_path,
                                        const meta::TableSchema& schema,
                                        const TableCompactOptions& options);

}  // namespace freshet::compact
