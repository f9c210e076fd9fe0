// The internals of RealtimeContext: partition-bucket slots, committed progress, memory budget.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "freshet/realtime/mem_indexer.h"
#include "freshet/realtime/realtime_context.h"
#include "io/file_io.h"
#include "meta/schema/table_schema.h"
#include "realtime/progress.h"
#include "realtime/write_sequencer.h"
#include "write/row_keys.h"

namespace freshet::realtime {

class RealtimeWrite;

// Table options of the real-time layer (docs/realtime.md).
struct RealtimeOptions {
  bool enabled = false;
  std::string mem_indexer = "columnar";
  int64_t soft_limit_bytes = 256LL << 20;
  int64_t hard_limit_bytes = 1LL << 30;

  static Result<RealtimeOptions> FromTableOptions(const meta::Options& options);
};

// One partition-bucket being written.
struct PartitionBucketSlot {
  // A Write that stored rows here: its sequence number and one past its last row's offset.
  struct WriteMark {
    uint64_t sequence = 0;
    int64_t end_offset = 0;
  };

  PartitionBucket pb;
  std::unique_ptr<MemIndexer> indexer;
  // Held around indexer->Write / SealForCommit and offset assignment; never during file I/O.
  std::mutex write_mu;
  // Guarded by write_mu:
  int64_t next_offset = 0;      // one past the highest offset written or committed
  std::deque<WriteMark> marks;  // Writes whose rows are not all committed, oldest first
  int64_t trimmed_end = 0;      // end_offset of the newest mark dropped (or the start)
  // Primary-key tables: the Paimon sequence number of the next row, continuing from the
  // bucket's live files when the slot was made (so that memory rows order after disk rows).
  int64_t next_sequence = 0;
  Status broken;  // set when a failed Write's rows could not be removed

  // One past the last row of the Writes numbered <= `sequence` (a cut at a watermark). Call
  // with write_mu held. Marks that were dropped are committed, so a cut that would need one is
  // at or below trimmed_end and the committed progress covers it.
  int64_t EndAt(uint64_t sequence) const;
  // Forgets marks of rows below `committed_end`. Call with write_mu held.
  void TrimMarks(int64_t committed_end);

  // Owned by the commit path (RealtimeWrite::commit_mu_):
  // sealed segments holding rows not yet committed, oldest first
  std::vector<std::shared_ptr<SealedSegment>> sealed;
  int64_t flushed_end = 0;  // rows below are in committed or prepared files
  int64_t flush_to = 0;     // the cut of the current PrepareCommit
};

// The implementation behind a public RealtimeContext (for the library's own layers).
RealtimeContext::Impl& InternalImpl(RealtimeContext& context);

class RealtimeContext::Impl {
 public:
  // The context of the table at `path` in this process (made on first use, shared after).
  static Result<std::shared_ptr<RealtimeContext>> ForTable(std::shared_ptr<io::FileIO> file_io,
                                                           const std::string& path,
                                                           const meta::TableSchema& schema);
  ~Impl();

  const meta::TableSchema& schema() const { return schema_; }
  const std::shared_ptr<arrow::Schema>& arrow_schema() const { return arrow_schema_; }
  const RealtimeOptions& options() const { return options_; }
  const write::RowKeyExtractor& keys() const { return keys_; }
  const std::shared_ptr<io::FileIO>& file_io() const { return file_io_; }
  const std::string& path() const { return path_; }
  ProgressResolver& progress_resolver() { return resolver_; }
  RealtimeWrite& write() { return *write_; }
  WriteSequencer& sequencer() { return sequencer_; }

  // The slot of `pb`, made (with its MemIndexer) on first use.
  Result<PartitionBucketSlot*> Slot(const PartitionBucket& pb);
  // The slots existing now (pointers stay valid for the context's life).
  std::vector<PartitionBucketSlot*> Slots() const;

  // Committed end per partition-bucket as this process knows it.
  ProgressMap Committed() const;
  // Records a published snapshot's progress for `pb` and lets its indexer reclaim memory.
  void OnCommitted(const ProgressMap& ends, int64_t rows);

  // Memory accounting: an estimate kept up to date by writes, made exact by Recount().
  // CheckBudget fails with ResourceExhausted past the hard limit (back-pressure).
  Status CheckBudget(int64_t incoming_bytes) const;
  void AddMemory(int64_t bytes) { memory_bytes_ += bytes; }
  void Recount();
  void MaybeRequestCommit();

  RealtimeUsage Usage() const;
  void SetCommitRequestCallback(std::function<void(const RealtimeUsage&)> callback);
  void CollectGarbage();
  std::vector<PartitionBucketProgress> CommittedProgress() const;

  // The partition's (column, value) pairs, as in partition paths (empty when unpartitioned).
  std::vector<std::pair<std::string, std::string>> PartitionValues(const PartitionBucket& pb) const;
  // "bucket 3 of partition dt=2026-11-30", for error messages.
  std::string Describe(const PartitionBucket& pb) const;

  std::atomic<int64_t> rows_written{0};
  std::atomic<int64_t> rows_committed{0};

 private:
  Impl(std::shared_ptr<io::FileIO> file_io, std::string path, meta::TableSchema schema,
       std::shared_ptr<arrow::Schema> arrow_schema, RealtimeOptions options,
       write::RowKeyExtractor keys, std::shared_ptr<MemIndexerFactory> factory);

  std::shared_ptr<io::FileIO> file_io_;
  std::string path_;
  meta::TableSchema schema_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  RealtimeOptions options_;
  write::RowKeyExtractor keys_;
  std::shared_ptr<MemIndexerFactory> factory_;
  std::shared_ptr<const KeyOrder> key_order_;  // primary-key tables
  ProgressResolver resolver_;
  std::unique_ptr<RealtimeWrite> write_;
  WriteSequencer sequencer_;

  mutable std::shared_mutex slots_mu_;
  std::map<PartitionBucket, std::unique_ptr<PartitionBucketSlot>> slots_;

  mutable std::mutex committed_mu_;
  ProgressMap committed_;

  std::atomic<int64_t> memory_bytes_{0};
  std::atomic<bool> commit_requested_{false};
  mutable std::mutex callback_mu_;
  std::function<void(const RealtimeUsage&)> commit_request_callback_;
};

}  // namespace freshet::realtime
