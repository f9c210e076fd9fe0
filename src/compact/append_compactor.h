// Compaction of append tables (docs/compaction.md, "Append tables"): the rewrite Java's
// BaseAppendFileStoreWrite.compactRewrite does, and one pass's pick per partition-bucket.
//
// A rewrite reads the files in the order given (append readers concatenate files by min
// sequence number; callers pass them in that order) through the read path, in the table's
// current schema, and writes the rows into new files rolled at `target-file-size`, file source
// COMPACT, sequence numbers from the first file's min sequence number, one per row.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compact/merge_tree_compactor.h"
#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/schema/table_schema.h"
#include "write/append_compact_manager.h"

namespace freshet::compact {

// NotImplemented, naming the option, for append tables whose compaction freshet cannot keep
// correct: `deletion-vectors.enabled` (the vectors would have to move to the new files),
// `row-tracking.enabled` and `data-evolution.enabled` (the new files would need the first row
// ids of the old ones), `clustering.columns` (Java clusters those tables' buckets instead).
Status CheckAppendCompaction(const meta::TableSchema& schema);

class AppendCompactor : public write::AppendRewriter {
 public:
  static Result<std::unique_ptr<AppendCompactor>> Make(std::shared_ptr<io::FileIO> file_io,
                                                       std::string table_path,
                                                       meta::TableSchema schema);
  ~AppendCompactor() override;

  Result<write::CompactionResult> Rewrite(const std::string& partition, int32_t bucket,
                                          const std::vector<meta::DataFileMeta>& files) override;

  // One pass's compaction of a partition-bucket's live `files`: Java's best-effort pick (or
  // full compaction) for fixed buckets, the coordinator's tasks for unaware buckets. Nothing to
  // do: empty outcome.
  Result<CompactOutcome> CompactBucket(const std::string& partition, int32_t bucket,
                                       std::vector<meta::DataFileMeta> files, bool full);

 private:
  struct State;
  explicit AppendCompactor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The rewrite an append writer's compaction thread runs; null for tables CheckAppendCompaction
// refuses (their writers write new files only).
Result<std::shared_ptr<write::AppendRewriter>> MakeAppendRewriter(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema);

}  // namespace freshet::compact
