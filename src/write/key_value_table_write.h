// KeyValueTableWrite: writes rows of a primary-key table as Java's TableWriteImpl +
// MergeTreeWriter do: level-0 files of sorted, merged runs, compacted in the background.
//
//  * Each row has a row kind (write/row_kinds.h); with `ignore-delete`, -U/-D rows are dropped.
//  * Rows go to their partition and bucket (write/row_keys.h; with `bucket` = -1 the bucket of a
//    key comes from the table's hash index, write/dynamic_bucket_assigner.h; -2 is refused) and
//    get the bucket's next sequence number, continuing from the highest one of its live files in
//    the latest snapshot.
//  * Each partition-bucket buffers its records (write/sort_buffer.h). All buffers share
//    `write-buffer-size`: when they hold more, the largest one spills to a local temporary file
//    (`write-buffer-spillable`, default) or is flushed to level-0 files.
//  * A flush (and PrepareCommit) sorts the buffer by key, `sequence.field` and sequence number,
//    merges the versions of each key with the table's merge engine (retract results are kept)
//    and writes level-0 files (write/key_value_file_writer.h) rolled at `target-file-size`.
//  * With `changelog-producer` = input, a flush also writes the buffer's records, unmerged, to
//    changelog files (write/changelog_files.h); compactions may produce changelog files too.
//  * Given a CompactionRunner (and without `write-only`), each bucket keeps its merge tree and
//    compacts it on the writer's compaction thread (write/compact_manager.h); results join the
//    next commit as a COMPACT snapshot.
//
// One writer per bucket: two processes writing the same bucket at the same time both continue
// from the same sequence number, so which version of a key wins between them is undefined (Java
// has the same rule); the commit itself does not conflict, since level-0 files may overlap.
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/file_io.h"
#include "mergetree/key_value.h"
#include "meta/options/core_options.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "write/changelog_files.h"
#include "write/compact_manager.h"
#include "write/dynamic_bucket_assigner.h"
#include "write/key_value_file_writer.h"
#include "write/row_keys.h"
#include "write/row_kinds.h"
#include "write/sort_buffer.h"
#include "write/table_write.h"

namespace freshet::write {

class KeyValueTableWrite : public TableWrite {
 public:
  // Errors: the table has no primary key; options freshet cannot write
  // (mergetree::CheckPrimaryKeyTable: dynamic or postponed bucket mode, a merge engine's
  // unsupported options, `rowkind.field` naming no string column, ...).
  // `compaction`: rewrites what the writer's buckets pick (write/compact_manager.h); null, or
  // `write-only`, writes level-0 files only.
  static Result<std::unique_ptr<KeyValueTableWrite>> Make(
      std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
      std::shared_ptr<CompactionRunner> compaction = nullptr);
  ~KeyValueTableWrite() override;

  // `batch` has the table's columns, plus optionally `_ROW_KIND`. Errors (nothing buffered):
  // columns that differ from the table's, a null primary key, a bad row kind.
  Status Write(const arrow::RecordBatch& batch) override;
  // Records whose sequence numbers and kinds are set already (the real-time layer assigns them
  // at its Write), in layout(): buffered, flushed and compacted as written rows are. They must
  // be newer than the bucket's live files; the writer's own sequence counter moves past them.
  Status WriteRecords(const std::string& partition, int32_t bucket,
                      std::shared_ptr<mergetree::MergeBatch> records);
  // Every table field in table order, then _SEQUENCE_NUMBER and _VALUE_KIND.
  const mergetree::MergeLayout& layout() const { return layout_; }
  Result<std::vector<meta::CommitMessage>> PrepareCommit() override;
  Result<std::vector<meta::CommitMessage>> PrepareCommit(const PrepareOptions& options) override;
  Status CompactionsRejected(const std::vector<meta::CommitMessage>& messages,
                             bool delete_files) override;
  // Also forgets the writer's view of its buckets (restored from the latest snapshot on the
  // next write): the compactions it ran are gone with it.
  Status Abort(const std::vector<meta::CommitMessage>& uncommitted = {}) override;
  // Dynamic buckets: DynamicBucketIndex::CheckCommitBase (another writer's new keys).
  Status CheckCommitBase(const std::vector<meta::CommitMessage>& messages,
                         const std::optional<meta::Snapshot>& base) override;
  const meta::TableSchema& schema() const override { return schema_; }
  // Dynamic buckets (`bucket` = -1): the hash index this writer commits, null otherwise. The
  // real-time layer assigns buckets through it at its Write and hands the rows to WriteRecords.
  const std::shared_ptr<DynamicBucketIndex>& dynamic_bucket_index() const {
    return dynamic_buckets_;
  }

  // Memory the write buffers hold now, and spill files written so far (for tests and metrics).
  int64_t buffered_bytes() const;
  int64_t spilled_runs() const { return spilled_runs_; }
  // Sorted runs of a bucket's merge tree (level-0 files plus non-empty levels above); -1 when the
  // writer does not compact or has not touched the bucket.
  int NumberOfSortedRuns(const std::string& partition, int32_t bucket) const;
  // The local directory of spill files (empty before the first spill).
  const std::string& spill_directory() const { return spill_.path(); }

 private:
  struct Bucket;

  KeyValueTableWrite(std::shared_ptr<io::FileIO> file_io, meta::TableSchema schema,
                     meta::CoreOptions options, meta::DataFilePaths paths, RowKeyExtractor keys,
                     RowKindExtractor kinds, mergetree::MergeLayout layout,
                     std::shared_ptr<CompactionRunner> compaction);
  Status Init();
  // The live files of every bucket in the latest snapshot, read once.
  Result<const BucketFiles*> LiveFiles();
  Result<Bucket*> BucketFor(const std::string& partition, int32_t bucket);
  // The rows of `group` that survive ignore-delete, as records with sequence numbers.
  Result<std::shared_ptr<mergetree::MergeBatch>> ToRecords(const arrow::RecordBatch& rows,
                                                           const std::vector<RowKind>& kinds,
                                                           const RowGroup& group, Bucket* bucket);
  // Spills or flushes the largest buffers until they fit in `write-buffer-size`.
  Status KeepWithinMemory();
  // Before a commit's flushes: spills what the buffers hold when some buffer has spilled.
  Status SpillBeforeLargeFlush();
  // Returns freed allocator memory to the system after a spill or a flush.
  static void ReturnFreedMemory();
  // Merges a bucket's buffer into level-0 files and empties it; on failure the buffer stays and
  // no file of the attempt does.
  Status Flush(Bucket* bucket);
  Status WriteMerged(Bucket* bucket);
  // `changelog-producer` = input: the buffer's records as they came, in merge order (Java's
  // write buffer hands each one to the changelog writer before merging).
  Status WriteInputChangelog(Bucket* bucket);
  // After a flush: the new files join the bucket's levels, a finished compaction's result is
  // taken (waiting when the bucket has too many sorted runs) and the next one triggered.
  Status CompactAfterFlush(Bucket* bucket, const std::vector<meta::DataFileMeta>& flushed);
  // Takes a finished compaction's result into the bucket's pending compaction lists.
  Status CollectCompaction(Bucket* bucket, bool blocking);
  // A compaction's new deletion-vector index file replaces the bucket's pending one.
  void SupersedeIndexFiles(Bucket* bucket, meta::IndexIncrement later);

  std::shared_ptr<io::FileIO> file_io_;
  meta::TableSchema schema_;
  meta::CoreOptions options_;
  meta::DataFilePaths paths_;
  RowKeyExtractor keys_;
  RowKindExtractor kinds_;
  mergetree::MergeLayout layout_;  // every table field, in table order
  std::optional<RecordOrder> order_;
  std::optional<KeyValueFileFormat> file_format_;
  ChangelogProducer changelog_producer_ = ChangelogProducer::kNone;
  std::optional<KeyValueFileFormat> changelog_format_;  // changelog-producer = input only
  bool ignore_delete_ = false;
  int64_t write_buffer_size_ = 0;
  bool spillable_ = true;
  SpillDirectory spill_;
  int64_t spilled_runs_ = 0;
  std::optional<BucketFiles> live_files_;
  std::shared_ptr<CompactionRunner> compaction_runner_;  // null: no compaction
  std::optional<mergetree::compact::CompactionOptions> compaction_options_;
  // Declared before the buckets: their compaction managers wait for it when they are destroyed.
  std::unique_ptr<CompactionThread> compaction_thread_;
  std::map<std::pair<std::string, int32_t>, std::unique_ptr<Bucket>> buckets_;
  std::shared_ptr<DynamicBucketIndex> dynamic_buckets_;  // `bucket` = -1 only
};

}  // namespace freshet::write
