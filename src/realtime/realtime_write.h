// RealtimeWrite: the write and commit path of the real-time layer.
//
// Write routes rows to their partition-bucket, assigns _OFFSETs under the slot's short lock and
// appends them to the slot's MemIndexer: they are queryable when Write returns. PrepareCommit
// seals every building segment (short lock each), then flushes the sealed segments through the
// ordinary rolling file writers with no lock that Write needs, and returns one message per
// partition-bucket with its files and offset range. Commit publishes files and progress in one
// snapshot, after checking that every range continues the committed progress exactly.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "commit/file_store_commit.h"
#include "freshet/export.h"
#include "freshet/options.h"
#include "meta/manifest/commit_message.h"
#include "realtime/context.h"
#include "write/append_table_write.h"
#include "write/key_value_table_write.h"
#include "write/row_kinds.h"

namespace freshet::realtime {

struct RealtimeCommitMessage {
  PartitionBucket pb;
  // Offsets whose rows the files hold (gaps inside are offsets never used). Empty for a
  // primary-key bucket whose message only carries a background compaction's result.
  OffsetRange range;
  // The flushes' messages (several when an earlier prepared flush was not committed), then
  // compaction results of primary-key buckets.
  std::vector<meta::CommitMessage> files;
};

// Hidden explicitly (not only by libfreshet's -fvisibility=hidden): it points at the hidden
// RealtimeContext::Impl, and code compiled with default visibility (tests) includes it too.
class FRESHET_NO_EXPORT RealtimeWrite {
 public:
  static Result<std::unique_ptr<RealtimeWrite>> Make(RealtimeContext::Impl* context);

  // Rows of `batch` (the table's Arrow schema) with framework-assigned offsets, or with the
  // application's `offsets` (one per row; strictly increasing within each partition-bucket and
  // above its last offset, or, with OffsetMode::kReplay, rows at or below it are skipped).
  // Thread-safe. All or nothing: on error no row of the batch is stored. Every query that
  // begins after it returned sees all its rows; no query or commit sees part of them.
  Result<WriteStats> Write(const std::shared_ptr<arrow::RecordBatch>& batch,
                           const int64_t* offsets = nullptr, OffsetMode mode = OffsetMode::kStrict);

  // Seals and flushes; returns every prepared-but-uncommitted range (earlier ones merged in).
  // A failed flush deletes its files and keeps the sealed rows for the next attempt.
  Result<std::vector<RealtimeCommitMessage>> PrepareCommit();
  // Publishes `messages` as one snapshot with their progress. `identifier` makes the commit
  // exactly-once: a retry of a landed (user, identifier) returns it without a second snapshot.
  Result<commit::CommitResult> Commit(const std::vector<RealtimeCommitMessage>& messages,
                                      int64_t identifier, const CommitOptions& options = {});
  // PrepareCommit + Commit with the next identifier; the snapshot id, or nullopt if nothing.
  Result<std::optional<int64_t>> PrepareAndCommit(const CommitOptions& options = {});
  // Deletes the files of prepared, uncommitted ranges; their rows stay in memory and are
  // flushed again by the next PrepareCommit.
  Status AbortPrepared();

  int64_t NextIdentifier();
  const std::string& commit_user() const { return committer_.commit_user(); }

 private:
  struct Prepared {
    OffsetRange range;
    std::vector<meta::CommitMessage> files;
  };
  struct Routed {
    PartitionBucketSlot* slot = nullptr;
    RowBatch rows;
  };
  // A written batch, checked: the table's columns and, for primary-key tables, each row's kind
  // (rows `ignore-delete` drops are gone, with their application offsets).
  struct Input {
    std::shared_ptr<arrow::RecordBatch> rows;
    std::vector<RowKind> kinds;         // primary-key tables only
    const int64_t* offsets = nullptr;   // the application's, one per row of `rows`
    std::vector<int64_t> kept_offsets;  // storage behind `offsets` when rows were dropped
  };

  RealtimeWrite(RealtimeContext::Impl* context, std::unique_ptr<write::AppendTableWrite> append,
                std::unique_ptr<write::KeyValueTableWrite> key_value,
                std::optional<write::RowKindExtractor> kinds, bool ignore_delete,
                commit::FileStoreCommit committer);
  write::TableWrite& flush() const;
  Result<Input> CheckInput(const std::shared_ptr<arrow::RecordBatch>& batch,
                           const int64_t* offsets) const;
  Result<std::vector<Routed>> Route(const Input& input);
  // The sealed rows `rows` of `slot` to the flush writer.
  Status FlushRows(const PartitionBucketSlot& slot, const RowBatch& rows);
  // Takes a commit's compaction outcome to the primary-key flush writer (it restores the
  // buckets whose compactions did not land).
  Status AfterCompactions(const std::vector<meta::CommitMessage>& messages, const Status& outcome);
  // Under the slots' locks: checks offsets (skipping taken ones in replay), sets first offsets.
  // Returns the number of rows skipped.
  Result<int64_t> PlaceRows(std::vector<Routed>& routed, OffsetMode mode);
  // Under the slots' locks: every part to its indexer and a mark per slot, or none (undone).
  Status StoreRows(std::vector<Routed>& routed, uint64_t sequence);
  // Seals every slot and sets its flush_to at one watermark cut.
  Status SealAtCut();
  // Writes each slot's sealed rows in [flushed_end, flush_to) to files; adds them to prepared_.
  Status FlushSealed();
  Result<std::map<std::string, std::string>> PropertiesFor(
      const std::vector<RealtimeCommitMessage>& messages,
      const std::optional<meta::Snapshot>& base);
  void AfterCommit(const std::vector<RealtimeCommitMessage>& messages);

  RealtimeContext::Impl* context_;
  // Dynamic-bucket primary-key tables: the flush writer's hash index (thread-safe), which gives
  // each key its bucket at Write, consistently with the committed index and the keys in memory.
  write::DynamicBucketIndex* bucket_index_ = nullptr;
  // Tables whose rows all go to one partition-bucket (RowKeyExtractor::OneGroupForEveryRow): its
  // slot, once a Write looked it up.
  std::atomic<PartitionBucketSlot*> one_group_slot_{nullptr};
  // One PrepareCommit / Commit at a time; guards everything below.
  std::mutex commit_mu_;
  // The flush writer: append tables, or primary-key tables (sorted, merged level-0 files and
  // background compaction).
  std::unique_ptr<write::AppendTableWrite> append_flush_;
  std::unique_ptr<write::KeyValueTableWrite> key_value_flush_;
  const std::optional<write::RowKindExtractor> kinds_;  // primary-key tables
  const bool ignore_delete_;
  commit::FileStoreCommit committer_;
  std::map<PartitionBucket, Prepared> prepared_;
  int64_t next_identifier_ = 1;
};

}  // namespace freshet::realtime
