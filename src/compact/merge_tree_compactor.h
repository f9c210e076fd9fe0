// MergeTreeCompactor: runs one compaction of a primary-key partition-bucket, as Java's
// MergeTreeCompactTask with the MergeTreeCompactRewriter does (docs/compaction.md).
//
// The picked files are grouped into sections of overlapping key ranges. Sections of several
// runs, and small files (below the compaction file size, 70% of `target-file-size`), are
// rewritten: merged by key through the table's merge engine into new files of the output level,
// retract records dropped when the output holds the oldest data of the bucket. A large file that
// overlaps nothing is upgraded instead: the same file, listed again at the output level (except
// a file with retracts going to the highest level, which must be rewritten to drop them).
// With `changelog-producer` = full-compaction, a compaction into the highest level also writes
// its changelog (compact/full_changelog.h), an upgraded file's too.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compact/bucket_deletion_vectors.h"
#include "compact/full_changelog.h"
#include "compact/lookup_levels.h"
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
  // Deletion-vector tables only (required there): the bucket's vectors, updated in place when
  // the compaction succeeds.
  BucketDeletionVectors* deletion_vectors = nullptr;
  // Lookup tables (deletion vectors, changelog-producer lookup, first-row, force-lookup): the
  // files of the levels above the output level, lowest level first, where the older versions
  // of level-0 keys are looked up.
  std::vector<std::vector<meta::DataFileMeta>> upper_levels = {};
};

// Files replaced (`before`) and their replacements (`after`): the commit's DELETE and ADD
// entries. `written` are the paths of new files, to delete if the result is not committed.
struct CompactOutcome {
  std::vector<meta::DataFileMeta> before;
  std::vector<meta::DataFileMeta> after;
  std::vector<std::string> written;
  // Changelog files (`changelog-producer` full-compaction or lookup); paths in `written` too.
  std::vector<meta::DataFileMeta> changelog = {};
  // Deletion-vector tables: the bucket's new index file (path in `written` too) and the one it
  // replaces.
  meta::IndexIncrement index_files = {};

  void Merge(CompactOutcome other);
};

class MergeTreeCompactor {
 public:
  // Refuses (NotImplemented) deletion-vector tables Java refuses (first-row, full-compaction
  // changelog).
  static Result<std::unique_ptr<MergeTreeCompactor>> Make(std::shared_ptr<io::FileIO> file_io,
                                                          std::string table_path,
                                                          meta::TableSchema schema);
  ~MergeTreeCompactor();

  // deletion-vectors.enabled: jobs must carry the bucket's deletion vectors.
  bool deletion_vectors() const { return deletion_vectors_; }

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
  // Runs `task` on a copy of the job's deletion vectors, which replaces them (with the new index
  // file written) only when the task succeeded.
  Result<CompactOutcome> WithDeletionVectors(const CompactJob& job, int32_t max_level,
                                             bool rewrite_all);
  Status InitDeletionVectors();
  class Task;

  std::shared_ptr<io::FileIO> file_io_;
  std::optional<meta::TableSchema> schema_;
  std::optional<meta::DataFilePaths> paths_;
  std::shared_ptr<const read::PrimaryKeyReadPlan> plan_;  // every field, in table order
  std::optional<write::KeyValueFileFormat> format_;
  // changelog-producer = full-compaction: compactions into the highest level write changelog.
  std::optional<FullChangelogRules> full_changelog_;
  // changelog-producer = lookup: compactions pushing level-0 records up write changelog
  // (compact/lookup_changelog.h).
  std::optional<FullChangelogRules> lookup_changelog_;
  std::optional<write::KeyValueFileFormat> changelog_format_;
  // Lookup tables merging each key with its older version (LookupKeyMerger): all but
  // deletion-vector tables without lookup changelog.
  bool lookup_keys_ = false;
  bool first_row_ = false;
  int64_t min_file_size_ = 0;      // Java's compactionFileSize: target-file-size / 10 * 7
  bool deletion_vectors_ = false;  // deletion-vectors.enabled
  bool deduplicate_without_sequence_field_ = false;
  std::unique_ptr<LookupLevels> lookup_;                         // lookup tables only
  std::unique_ptr<format::DeletionVectorFileWriter> dv_writer_;  // deletion vectors only
};

// The rewrite a primary-key writer's compaction thread runs (write/compact_manager.h). Null for
// tables whose compaction freshet cannot keep correct yet (deletion vectors): their writers
// write level-0 files only.
Result<std::shared_ptr<write::CompactionRunner>> MakeCompactionRunner(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema);

}  // namespace freshet::compact
