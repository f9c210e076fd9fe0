// ColumnarMemIndexer: the default MemIndexer plugin ("columnar"), rows kept as Arrow arrays.
//
// Layout. A segment's rows live in a SegmentData. In memory that is a MemChunks: an append-only
// singly linked list of blocks (batches as written, arrays kept, never copied row by row), each
// node knowing its end offset, and a tail of small written batches not coalesced yet. The writer
// links a new block or tail link and then publishes both with a release store of an immutable
// state; AcquireReadView loads that state, so a view sees a prefix of the building segment and
// never waits for the writer, and the writer never waits for readers (the indexer mutex is only
// held to copy a few pointers).
//
// Coalescing (append tables). A batch of a few hundred rows costs far more than its data: each
// array, buffer and C Data Interface import object is a heap allocation, each buffer padded to
// 64 bytes. Small batches are therefore kept in the tail only until it holds kCoalescedBlockBytes;
// a task on the real-time background thread (background_copier.h) then copies them into one block
// (arrow::Concatenate) and splices it in their place: a new state with the block linked and the
// tail without them. The copy runs off the writer thread, so Writes never wait for it. Views and
// readers that loaded an older state keep its tail links alive until they let it go. Primary-key
// tables keep batches as written: their key-ordered reads hold row positions into the written
// batches.
//
// Lifetime. Views and readers hold shared_ptrs to the SegmentData they read. When the last
// reference goes (a view released on a query thread, or Reclaim dropping an unpinned segment),
// the data is not destroyed there: it is parked in a Graveyard that the next Reclaim drains (or
// the indexer's destructor). Usage() counts data until it is actually destroyed.
//
// Subclasses (SpillingMemIndexer) swap a sealed segment's SegmentData for another form; views
// acquired before keep the old form, views acquired after get the new one.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "freshet/realtime/mem_indexer.h"
#include "realtime/indexers/key_ordered_rows.h"

namespace freshet::realtime {

// Figures of an indexer's segment data. Shared with the data objects, which may outlive the
// indexer (a view released after it). Relaxed atomics: they are metrics, not synchronization.
struct IndexerAccounting {
  std::atomic<int64_t> bytes{0};          // memory held by chunks
  std::atomic<int64_t> rows{0};           // rows held in memory
  std::atomic<int64_t> segments{0};       // data objects holding rows (memory or file)
  std::atomic<int64_t> spilled_bytes{0};  // bytes of spill files still on disk
};

// What a segment reader returns.
struct SegmentScan {
  int64_t from_offset = 0;  // first offset to return
  // One past the last offset to return; for a building segment, an end published to a view.
  int64_t end_offset = 0;
  std::vector<int> columns;               // table column indices, in output order
  std::shared_ptr<arrow::Schema> schema;  // the output schema: those fields of the table
  int64_t batch_size = 0;                 // maximum rows per returned batch
  // QuerySpec::filter: in-memory readers skip the written batches it rules out by their zone
  // maps (the rows of the others are returned unfiltered).
  const RowFilter* filter = nullptr;
};

// Rows of one segment in one form. Immutable, except that a building MemChunks grows at its end.
class SegmentData : public std::enable_shared_from_this<SegmentData> {
 public:
  explicit SegmentData(std::shared_ptr<IndexerAccounting> accounting);
  virtual ~SegmentData() = default;
  SegmentData(const SegmentData&) = delete;
  SegmentData& operator=(const SegmentData&) = delete;

  // A reader of this data's rows with offset in [scan.from_offset, scan.end_offset), in offset
  // order. The reader keeps the data alive.
  virtual Result<std::unique_ptr<RowBatchReader>> NewReader(SegmentScan scan) const = 0;

 protected:
  std::shared_ptr<IndexerAccounting> accounting_;
};

// The in-memory form: the batches as written. Primary-key tables read them in key order: with
// `index_order` (the "indexed" plugin) a skip list keeps the rows in that order as they are
// appended; without it, the rows are sorted when a query first needs them up to an end, and
// that sort is kept (a sealed segment's end never changes: it is sorted once).
class MemChunks final : public SegmentData {
 public:
  // A written batch of fewer bytes (realtime/memory_size.h) is small: it joins the tail. A
  // larger one is linked as written, after the tail's batches, also as written.
  static constexpr int64_t kSmallBatchBytes = 128 << 10;
  // A tail of this size is copied into one block in the background.
  static constexpr int64_t kCoalescedBlockBytes = 256 << 10;

  // `coalesce`: copy small batches into blocks (see the file comment); not with `index_order`.
  MemChunks(std::shared_ptr<IndexerAccounting> accounting, int64_t begin_offset,
            std::shared_ptr<const KeyOrder> index_order = nullptr, bool coalesce = false);
  ~MemChunks() override;

  // Writer only: appends a validated, non-empty batch and publishes it to new views.
  void Append(RowBatch batch, int64_t bytes);

  // Any thread: what is published now.
  struct Published {
    int64_t end_offset;  // one past the last published row (begin_offset when none)
    int64_t rows;
  };
  Published published() const;
  int64_t begin_offset() const { return head_.end_offset; }

  // The published rows with offsets below end_offset (an end returned by published()), as
  // blocks and tail batches (a block coalesced since that end is cut at it).
  std::vector<RowBatch> Chunks(int64_t end_offset) const;
  // The rows below end_offset in `order` (the index's, or a sort kept for the latest end asked;
  // positions may also hold rows at or past end_offset, which readers skip).
  std::shared_ptr<const RowPositions> KeyOrdered(int64_t end_offset, const KeyOrder& order) const;
  // The same restricted to the rows of `keys` (QuerySpec::keys): a seek per key in the index,
  // or a binary search per key in the kept sort.
  std::shared_ptr<const RowPositions> KeyOrderedOf(int64_t end_offset, const KeyOrder& order,
                                                   const RowBatch& keys) const;
  // The same restricted to a key range (QuerySpec::keys_may_match).
  std::shared_ptr<const RowPositions> KeyOrderedIn(int64_t end_offset, const KeyOrder& order,
                                                   const KeyRangeTest& may_match) const;

  Result<std::unique_ptr<RowBatchReader>> NewReader(SegmentScan scan) const override;

  struct Node {
    RowBatch batch;          // empty in the head sentinel
    int64_t end_offset = 0;  // one past this node's last row (the segment begin for the head)
    ZoneMap zone;            // of `batch`, filled by queries' filters
    // Written once, by the writer, before the node it points to is published. A reader only
    // follows `next` of nodes before its state's last block, so it never reads a `next` being
    // set.
    const Node* next = nullptr;
  };

  // A small batch in the tail; links point to the older ones, so that states share them. A
  // link's bytes stay counted in the accounting until the last state holding it goes.
  struct TailLink {
    TailLink(std::shared_ptr<IndexerAccounting> accounting, RowBatch batch, int64_t bytes,
             std::shared_ptr<const TailLink> older);
    ~TailLink();
    TailLink(const TailLink&) = delete;
    TailLink& operator=(const TailLink&) = delete;

    const std::shared_ptr<IndexerAccounting> accounting;
    const RowBatch batch;
    const int64_t end_offset;  // batch.EndOffset()
    const int64_t bytes;
    const std::shared_ptr<const TailLink> older;
    const int64_t tail_bytes;  // of this link and the older ones
    ZoneMap zone;
  };

  // What a reader may see: the blocks up to last_block, then the tail.
  struct State {
    const Node* last_block = nullptr;
    std::shared_ptr<const TailLink> tail;  // newest first; null when empty
    int64_t end_offset = 0;                // one past the last published row
    int64_t rows = 0;                      // published rows
  };
  std::shared_ptr<const State> state() const;

 private:
  // Links `blocks` in place of the tail links of `snapshot` (a state loaded before) and
  // publishes the result; false, changing nothing, when those links were replaced meanwhile.
  bool SpliceBlocks(const State& snapshot, std::vector<RowBatch> blocks);
  // Writer only: links the tail's batches as blocks, as they are.
  void EmptyTail();
  // Starts the background copy unless one runs; it goes on while the tail is over the size.
  void CoalesceInBackground();
  // A node of `batch`, indexed (the "indexed" plugin: `bytes` grows by the index's share).
  std::unique_ptr<Node> NewBlock(RowBatch batch, int64_t* bytes);
  // Hold state_mu_: links a block after the last one / publishes a state.
  void LinkBlock(std::unique_ptr<Node> node, int64_t bytes);
  void PublishLocked(std::shared_ptr<const TailLink> tail, int64_t rows,
                     std::shared_ptr<const State>* old);

  Node head_;
  // Guards the published state and the block list's end (the writer and the background copy
  // both link blocks); held only to link a node or swap a pointer, never during a copy.
  // (libstdc++ 12's atomic<shared_ptr> releases its load with a relaxed store, which
  // ThreadSanitizer rightly reports against the next swap.)
  mutable std::mutex state_mu_;
  std::shared_ptr<const State> state_;
  Node* last_ = &head_;
  std::vector<std::unique_ptr<Node>> nodes_;
  int64_t bytes_ = 0;  // of the blocks
  const bool coalesce_;
  std::atomic<bool> coalescing_{false};  // a background copy is queued or running
  std::atomic<bool> stopping_{false};    // the destructor runs: the copy stops
  int64_t rows_ = 0;                     // writer only: rows appended
  std::unique_ptr<RowSkipList> index_;   // the "indexed" plugin only

  mutable std::mutex sort_mu_;  // guards the kept sort
  mutable int64_t sorted_end_ = -1;
  mutable std::shared_ptr<const RowPositions> sorted_;
};

// A source of whole batches for MakeSegmentReader (all table columns, with their offsets).
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual Result<std::optional<RowBatch>> Next() = 0;
};

// Returns the rows of `source` in [scan.from_offset, scan.end_offset), projected to scan.columns,
// in zero-copy slices of at most scan.batch_size rows.
std::unique_ptr<RowBatchReader> MakeSegmentReader(std::unique_ptr<ChunkSource> source,
                                                  SegmentScan scan);

// Parks SegmentData whose last reference went away until the indexer drains it.
class Graveyard {
 public:
  void Bury(const SegmentData* data);
  void Drain();
  // Drains; later burials are destroyed at once (the indexer is gone, nobody would drain).
  void Close();

 private:
  std::mutex mu_;
  bool closed_ = false;
  std::vector<const SegmentData*> dead_;
};

// A sealed segment: the handle SealForCommit returns and the indexer's record of it.
class SegmentEntry final : public SealedSegment {
 public:
  SegmentEntry(uint64_t owner, uint64_t id, OffsetRange range, int64_t rows)
      : owner_(owner), id_(id), range_(range), rows_(rows) {}
  OffsetRange range() const override { return range_; }
  int64_t num_rows() const override { return rows_; }
  uint64_t owner() const { return owner_; }
  uint64_t id() const { return id_; }

 private:
  friend class ColumnarMemIndexer;
  const uint64_t owner_;
  const uint64_t id_;
  const OffsetRange range_;
  const int64_t rows_;
  // Guarded by the owner's mutex; null once the segment is reclaimed.
  std::shared_ptr<const SegmentData> data_;
  // Serializes replacements of data_ (a spill), which run without the owner's mutex.
  std::mutex convert_mu_;
};

class ColumnarMemIndexer : public MemIndexer {
 public:
  // `index_rows`: keep primary-key rows in a skip list in key order as they are written (the
  // "indexed" plugin), so that queries read them in order without sorting.
  static Result<std::unique_ptr<ColumnarMemIndexer>> Make(const MemIndexerOptions& options,
                                                          bool index_rows = false);
  ~ColumnarMemIndexer() override;

  // Rejects (Invalid, nothing stored) a batch whose schema differs from the table's (field
  // metadata aside), whose offsets are not above every offset written before (nor >=
  // start_offset), or whose offsets/row_kinds/sequence_numbers are malformed.
  Status Write(const RowBatch& batch) override;
  // Replaces the building segment by a copy without the last Write's batch (the batches are
  // shared, not copied); views holding the old one keep it.
  Status UndoLastWrite() override;
  Result<std::shared_ptr<SealedSegment>> SealForCommit() override;
  // Invalid when the segment is not this indexer's or was reclaimed already.
  Result<RowBatchReaders> CreateCommitReaders(
      const std::shared_ptr<SealedSegment>& segment) override;
  std::shared_ptr<const ReadView> AcquireReadView() override;
  // One reader per segment that has rows in [from_offset, view end), in offset order; batches
  // are zero-copy slices of the blocks and tail batches (never merged further). Those that
  // spec.filter rules out by their zone maps (RowFilter::MayMatch) are skipped; the rows of the
  // others are not filtered (a RowFilter does not say which rows it kept, so offsets could not
  // follow it).
  Result<RowBatchReaders> CreateQueryReaders(const std::shared_ptr<const ReadView>& view,
                                             const QuerySpec& spec) override;
  // Drops sealed segments whose range ends at or below committed_end (a segment partly below
  // stays whole), then frees every dropped segment no view pins any more.
  void Reclaim(int64_t committed_end) override;
  // bytes/rows: memory not yet freed (unpinned data waits for the next Reclaim); segments: data
  // objects holding rows; spilled_bytes: spill files not yet deleted.
  MemoryUsage Usage() const override;
  // Primary-key tables: QuerySpec::key_order gives one sorted run per segment.
  bool ReadsInKeyOrder() const override { return options_.key_order != nullptr; }

 protected:
  explicit ColumnarMemIndexer(const MemIndexerOptions& options, bool index_rows = false);
  static Status ValidateOptions(const MemIndexerOptions& options);

  // Runs in Reclaim after reclaimed segments were dropped and before the final drain.
  virtual void AfterReclaim() {}

  const MemIndexerOptions& options() const { return options_; }
  const std::shared_ptr<IndexerAccounting>& accounting() const { return accounting_; }
  uint64_t id() const { return id_; }

  // The entry behind a handle of this indexer (Invalid for a foreign one).
  Result<std::shared_ptr<SegmentEntry>> OwnEntry(
      const std::shared_ptr<SealedSegment>& segment) const;
  // Sealed segments not reclaimed yet, oldest first.
  std::vector<std::shared_ptr<SegmentEntry>> HeldEntries() const;
  // The entry's data now (null once reclaimed).
  std::shared_ptr<const SegmentData> DataOf(const SegmentEntry& entry) const;
  std::mutex& ConvertMutex(SegmentEntry& entry) const { return entry.convert_mu_; }
  // Replaces the entry's data `expected` by `replacement`; false (nothing changed) when the data
  // is no longer `expected` (reclaimed meanwhile). Hold ConvertMutex(entry).
  bool ReplaceData(SegmentEntry& entry, const std::shared_ptr<const SegmentData>& expected,
                   std::shared_ptr<const SegmentData> replacement);
  // Takes ownership of new data; its destruction is deferred to DrainFreed.
  std::shared_ptr<const SegmentData> Adopt(std::unique_ptr<SegmentData> data);
  // Destroys the data whose last reference is gone.
  void DrainFreed() { graveyard_->Drain(); }
  // Readers returning all rows of the entry from `data` (one of its forms).
  Result<RowBatchReaders> CommitReadersOver(const SegmentEntry& entry,
                                            const std::shared_ptr<const SegmentData>& data) const;

 private:
  Status ValidateWrite(const RowBatch& batch) const;
  std::shared_ptr<MemChunks> NewBuilding(int64_t begin_offset);

  // One sorted run per segment in [spec.from_offset, end) for a key-ordered query; only the
  // rows of `keys` when given (QuerySpec::keys).
  Result<std::unique_ptr<RowBatchReader>> KeyOrderedReader(const SegmentData& data,
                                                           OffsetRange range, KeyOrderedScan scan,
                                                           const QuerySpec& spec) const;

  // The Arrow schema of `columns` of the table (the last projection asked for is kept: queries
  // of one shape ask for the same one every time).
  std::shared_ptr<arrow::Schema> ProjectedSchema(const std::vector<int>& columns) const;

  const MemIndexerOptions options_;
  const bool index_rows_;
  const uint64_t id_;
  mutable std::mutex projection_mu_;
  mutable std::vector<int> projected_columns_;
  mutable std::shared_ptr<arrow::Schema> projected_schema_;
  const std::shared_ptr<IndexerAccounting> accounting_;
  const std::shared_ptr<Graveyard> graveyard_;

  // Writer only (Write and SealForCommit are serialized by the framework).
  int64_t written_end_;  // one past the last written offset (start_offset at first)
  // What UndoLastWrite restores: the building segment's end and written_end_ before the latest
  // Write (unset after a seal or an undo).
  struct UndoPoint {
    int64_t building_end;
    int64_t written_end;
  };
  std::optional<UndoPoint> undo_;
  uint64_t next_entry_id_ = 0;

  mutable std::mutex mu_;  // short: guards the members below and SegmentEntry::data_
  std::deque<std::shared_ptr<SegmentEntry>> sealed_;
  // Replaced under mu_ by SealForCommit; Write reads it without mu_ (never concurrent with a
  // seal) and appends to it lock-free.
  std::shared_ptr<MemChunks> building_;
  int64_t reclaimed_end_;
};

std::shared_ptr<MemIndexerFactory> MakeColumnarMemIndexerFactory();
// "indexed": the columnar plugin with primary-key rows kept in key order as they are written.
std::shared_ptr<MemIndexerFactory> MakeIndexedMemIndexerFactory();

}  // namespace freshet::realtime
