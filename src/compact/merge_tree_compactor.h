// MergeTreeCompactor: runs one compaction of a primary-key partition-bucket, as Java's
// MergeTreeCompactTask with the MergeTreeCompactRewriter does (docs/compaction.md).
//
// The picked files are grouped into sections of overlapping key ranges. Sections of several
// runs, and small files (below the compaction file size, 70% of `target-file-size`), are
// rewritten: merged by key through the table's merge engine into new files of the output level,
// retract records dropped when the output holds the oldest data of the bucket. A large file that
// overlaps nothing is upgraded instead: the same file, listed again at the output level (except
// a file with retracts going to the highest level, which must be rewritten to drop them).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "read/primary_key_read.h"
#include "write/compact_manager.h"
#include "write/key_value_file_writer.h"

namespace freshet::compact {

// What to compact: files of one partition-bucket and the level their output goes to.
struct CompactJob {
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t output_level = 0;
  std::vector<meta::DataFileMeta> files;
  // Retract records (-U, -D) are dropped from the output: true when no older data of the
  // bucket lies below the output level (Java's dropDelete).
  bool drop_delete = false;
};

// Files replaced (`before`) and their replacements (`after`): the commit's DELETE and ADD
// entries. `written` are the paths of new files, to delete if the result is not committed.
struct CompactOutcome {
  std::vector<meta::DataFileMeta> before;
  std::vector<meta::DataFileMeta> after;
  std::vector<std::string> written;

  void Merge(CompactOutcome other);
};

class MergeTreeCompactor {
 public:
  // Refuses (NotImplemented) what compaction cannot keep correct yet: deletion-vector tables.
  static Result<std::unique_ptr<MergeTreeCompactor>> Make(std::shared_ptr<io::FileIO> file_io,
                                                          std::string table_path,
                                                          meta::TableSchema schema);
  ~MergeTreeCompactor();

  // `max_level`: the highest level of the bucket (num-levels - 1). On failure, the files this
  // call wrote are deleted.
  Result<CompactOutcome> Compact(const CompactJob& job, int32_t max_level);
  // Rewrites the job's files, each a sorted run of its own, into new files of the output level
  // (no upgrade): Java's file rewrite of top-level files.
  Result<CompactOutcome> Rewrite(const CompactJob& job);

 private:
  MergeTreeCompactor() = default;
  Status Init();
  void DeleteWritten(const CompactOutcome& outcome) const;
  class Task;

  std::shared_ptr<io::FileIO> file_io_;
  std::optional<meta::TableSchema> schema_;
  std::optional<meta::DataFilePaths> paths_;
  std::shared_ptr<const read::PrimaryKeyReadPlan> plan_;  // every field, in table order
  std::optional<write::KeyValueFileFormat> format_;
  int64_t min_file_size_ = 0;  // Java's compactionFileSize: target-file-size / 10 * 7
};

// The rewrite a primary-key writer's compaction thread runs (write/compact_manager.h). Null for
// tables whose compaction freshet cannot keep correct yet (deletion vectors): their writers
// write level-0 files only.
Result<std::shared_ptr<write::CompactionRunner>> MakeCompactionRunner(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema);

}  // namespace freshet::compact
