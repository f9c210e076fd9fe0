// TableWrite: rows of one table → data files → CommitMessages. AppendTableWrite writes tables
// without a primary key, KeyValueTableWrite primary-key tables; MakeTableWrite picks by schema.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/commit_message.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::write {

struct PrepareOptions {
  // Wait for running compactions, so that their results join this commit (Java's batch
  // writes); otherwise a result joins the first commit after it finished.
  bool wait_compaction = false;
  // The commit's identifier: `full-compaction.delta-commits` decides by it.
  int64_t commit_identifier = meta::kBatchCommitIdentifier;
};

class TableWrite {
 public:
  virtual ~TableWrite() = default;

  // Writes a batch in the table's Arrow schema (primary-key tables also take a `_ROW_KIND`
  // column; see KeyValueTableWrite). A batch that fails validation changes nothing.
  virtual Status Write(const arrow::RecordBatch& batch) = 0;
  // Writes out everything written so far; the messages list the new files per partition-bucket.
  virtual Result<std::vector<meta::CommitMessage>> PrepareCommit() = 0;
  // The same, for writers that compact (primary-key tables): see PrepareOptions.
  virtual Result<std::vector<meta::CommitMessage>> PrepareCommit(const PrepareOptions& options) {
    (void)options;
    return PrepareCommit();
  }
  // The compactions of `messages` were not committed while their new files were: the
  // writer's view of those buckets is restored from the latest snapshot, and the compactions'
  // new files deleted when `delete_files` (the commit refused them before publishing).
  virtual Status CompactionsRejected(const std::vector<meta::CommitMessage>& messages,
                                     bool delete_files) {
    (void)messages;
    (void)delete_files;
    return Status::OK();
  }
  // Called by the committer before each attempt to commit `messages` on top of `base`: an error
  // fails the commit (dynamic-bucket tables refuse a base another writer changed the hash
  // index of, write/dynamic_bucket_assigner.h).
  virtual Status CheckCommitBase(const std::vector<meta::CommitMessage>& messages,
                                 const std::optional<meta::Snapshot>& base) {
    (void)messages;
    (void)base;
    return Status::OK();
  }
  // Deletes every file written since the last PrepareCommit (and those it returned, when the
  // caller decides not to commit them): nothing of an aborted write stays behind.
  virtual Status Abort(const std::vector<meta::CommitMessage>& uncommitted = {}) = 0;

  virtual const meta::TableSchema& schema() const = 0;
};

class CompactionRunner;

// The write of `schema`'s kind of table; `compaction` rewrites what a primary-key writer's
// buckets pick (null: level-0 files only).
Result<std::unique_ptr<TableWrite>> MakeTableWrite(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
    std::shared_ptr<CompactionRunner> compaction = nullptr);

// (serialized partition, bucket) -> its live files in the latest snapshot.
using BucketFiles = std::map<std::pair<std::string, int32_t>, std::vector<meta::DataFileMeta>>;
Result<BucketFiles> LoadBucketFiles(const std::shared_ptr<io::FileIO>& file_io,
                                    const std::string& table_path);

// (serialized partition, bucket) -> the highest _MAX_SEQUENCE_NUMBER of its live files in the
// latest snapshot: writers continue from it + 1, as Java's writers restore.
using MaxSequenceNumbers = std::map<std::pair<std::string, int32_t>, int64_t>;
Result<MaxSequenceNumbers> LoadMaxSequenceNumbers(const std::shared_ptr<io::FileIO>& file_io,
                                                  const std::string& table_path);
// The first sequence number of a new writer of (partition, bucket).
int64_t NextSequenceNumber(const MaxSequenceNumbers& max, const std::string& partition,
                           int32_t bucket);

// The files of `message`'s compactions that are new (not an upgrade of a replaced file): what
// must go when the compaction is not committed.
std::vector<meta::DataFileMeta> NewCompactedFiles(const meta::CommitMessage& message);

// Abort's cleanup: deletes `pending` (files written since the last PrepareCommit) and the new
// files of `uncommitted` messages, their compactions' included. Every file is tried; the first
// error is returned.
Status DeleteUncommittedFiles(io::FileIO& file_io, const meta::DataFilePaths& paths,
                              const std::vector<std::string>& pending,
                              const std::vector<meta::CommitMessage>& uncommitted);

}  // namespace freshet::write
