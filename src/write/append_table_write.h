// AppendTableWrite: writes rows of an append (no primary key) table into data files.
//
// Rows are routed to their partition-bucket with Java's bucket function; each partition-bucket has
// a rolling writer that starts a new file at `target-file-size`. Sequence numbers continue from
// the highest one the bucket already has on disk, one per row, as Java assigns them.
// PrepareCommit() closes the open files and returns one CommitMessage per partition-bucket.
//
// Given an AppendRewriter (and without `write-only`), the writer compacts small files in the
// background as Java's writers do (write/append_compact_manager.h; docs/compaction.md):
//  * fixed buckets: each bucket's files queue in sequence order; at every PrepareCommit the new
//    files join the queue, a finished compaction is taken and Java's best-effort pick starts the
//    next one on the writer's compaction thread;
//  * unaware buckets (-1): the first write after a commit plans, on the compaction thread,
//    Java's coordinator tasks over the latest snapshot and runs them.
// Results join the next commit as a COMPACT snapshot; PrepareOptions::wait_compaction (or
// `commit.force-compact`) waits for the running compaction first.
#pragma once

#include <arrow/type_fwd.h>

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/format_writer.h"
#include "io/file_io.h"
#include "meta/manifest/commit_message.h"
#include "meta/options/core_options.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "write/append_compact_manager.h"
#include "write/rolling_file_writer.h"
#include "write/row_keys.h"
#include "write/table_write.h"

namespace freshet::write {

// The settings of an append table's data files (format, stats, rolling size, prefix).
Result<DataFileSettings> AppendFileSettings(std::shared_ptr<io::FileIO> file_io,
                                            const meta::TableSchema& schema,
                                            const meta::CoreOptions& options);

// The data files of one partition-bucket of an append table and their metadata: rows get
// consecutive sequence numbers from `next_sequence_number`; files carry `source`.
class AppendFileWriter {
 public:
  AppendFileWriter(const DataFileSettings* settings, std::string directory, std::string partition,
                   int32_t bucket, int32_t total_buckets, int64_t next_sequence_number,
                   const meta::TableSchema* schema, meta::FileSource source);

  Status Write(const arrow::RecordBatch& batch);
  // Finishes the open file, if any; on failure everything written stays pending.
  Status CloseOpenFile();
  // The closed files not handed out yet.
  const std::vector<meta::DataFileMeta>& new_files() const { return message_.new_files; }
  // Hands out the closed files (after CloseOpenFile succeeded).
  meta::CommitMessage TakeMessage();
  // Paths of files written but not yet handed out (the open one included).
  std::vector<std::string> PendingPaths() const;
  void DropPending();

 private:
  void AddFile(ClosedFile closed);

  RollingFileWriter files_;
  const meta::TableSchema* schema_;
  int64_t next_sequence_number_;
  meta::FileSource source_;
  meta::CommitMessage message_;
};

class AppendTableWrite : public TableWrite {
 public:
  // NotImplemented for a primary-key table (KeyValueTableWrite writes those). `compaction`:
  // rewrites what the writer compacts; null (or `write-only`) writes new files only.
  static Result<std::unique_ptr<AppendTableWrite>> Make(
      std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
      std::shared_ptr<AppendRewriter> compaction = nullptr);
  ~AppendTableWrite() override;

  // Writes a batch in the table's Arrow schema, routing every row.
  Status Write(const arrow::RecordBatch& batch) override;
  // Writes a batch whose rows all belong to one partition-bucket the caller computed.
  Status WriteBucket(const std::string& serialized_partition, int32_t bucket,
                     const arrow::RecordBatch& batch);

  // Closes every open file; the messages list the new files per partition-bucket, and the
  // compactions finished since the last call.
  Result<std::vector<meta::CommitMessage>> PrepareCommit() override;
  Result<std::vector<meta::CommitMessage>> PrepareCommit(const PrepareOptions& options) override;
  Status CompactionsRejected(const std::vector<meta::CommitMessage>& messages,
                             bool delete_files) override;
  // Also forgets the writer's compaction state (restored from the latest snapshot on the next
  // write); a running compaction is waited for and its files deleted.
  Status Abort(const std::vector<meta::CommitMessage>& uncommitted = {}) override;

  const meta::TableSchema& schema() const override { return schema_; }

  // Whether this writer compacts (a rewriter was given, the table is not write-only).
  bool compacts() const { return rewriter_ != nullptr; }
  // The files a fixed bucket's compaction queue holds, oldest first (tests); empty when the
  // writer has not touched the bucket or does not compact.
  std::vector<meta::DataFileMeta> CompactionQueue(const std::string& partition,
                                                  int32_t bucket) const;

 private:
  struct Bucket;
  using UnawareResults = std::vector<std::pair<std::string, CompactionResult>>;

  AppendTableWrite(meta::TableSchema schema, meta::CoreOptions options, meta::DataFilePaths paths,
                   write::RowKeyExtractor keys, DataFileSettings files);
  Result<Bucket*> WriterFor(const std::string& partition, int32_t bucket);
  Result<const BucketFiles*> LiveFiles();
  // Unaware buckets: starts planning and running the coordinator's tasks on the latest snapshot
  // after a commit, unless they already run.
  void StartUnawareCompaction();
  // Takes finished compaction results into the buckets' pending lists (waiting when `blocking`).
  Status CollectCompactions(bool blocking);
  void DiscardUnawareCompaction();
  bool unaware() const { return options_.bucket() == -1; }

  meta::TableSchema schema_;
  meta::CoreOptions options_;
  meta::DataFilePaths paths_;
  write::RowKeyExtractor keys_;
  DataFileSettings files_;
  std::shared_ptr<AppendRewriter> rewriter_;  // null: no compaction
  AppendCompactOptions compact_options_;
  // Live files per partition-bucket in the latest snapshot (read once; again after a refusal).
  std::optional<BucketFiles> live_files_;
  // Declared before what runs on it: those wait for their tasks when destroyed.
  std::unique_ptr<CompactionThread> compaction_thread_;
  std::map<std::pair<std::string, int32_t>, std::unique_ptr<Bucket>> writers_;
  std::optional<AppendCompactCoordinator> coordinator_;  // unaware buckets
  std::future<Result<UnawareResults>> unaware_task_;
  bool plan_due_ = false;  // a commit was prepared since the last plan
  // Unaware compactions taken but not handed out, per partition.
  std::map<std::string, PendingCompaction> unaware_pending_;
};

}  // namespace freshet::write
