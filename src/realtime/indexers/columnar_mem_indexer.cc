#include "realtime/indexers/columnar_mem_indexer.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/util/byte_size.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <thread>
#include "common/arrow_status.h"
#include "realtime/background_copier.h"
#include "realtime/memory_size.h"

namespace freshet::realtime {

namespace {

// Process-wide, so that a view or segment handle of one indexer is never taken for another's
// (addresses can be reused).
std::atomic<uint64_t> next_indexer_id{1};

// All table columns, in table order.
std::vector<int> AllColumns(const arrow::Schema& schema) {
  std::vector<int> columns(schema.num_fields());
  for (int i = 0; i < schema.num_fields(); ++i) columns[i] = i;
  return columns;
}

// Memory a written batch pins: every buffer of its arrays (allocated capacity, including the
// unsliced parts) and their bookkeeping (realtime/memory_size.h).
int64_t BatchBytes(const RowBatch& batch) {
  return HeldBytes(*batch.rows) + HeldBytes(batch.offsets) + HeldBytes(batch.row_kinds) +
         HeldBytes(batch.sequence_numbers);
}

Status ValidateColumn(const std::shared_ptr<arrow::Array>& array, int64_t rows, const char* what) {
  if (array == nullptr) return Status::OK();
  if (array->length() != rows) {
    return Status::Invalid("RowBatch ", what, " has ", array->length(), " values for ", rows,
                           " rows");
  }
  if (array->null_count() != 0) return Status::Invalid("RowBatch ", what, " has nulls");
  return Status::OK();
}

class SegmentReader final : public RowBatchReader {
 public:
  SegmentReader(std::unique_ptr<ChunkSource> source, SegmentScan scan)
      : source_(std::move(source)), scan_(std::move(scan)) {}

  Result<std::optional<RowBatch>> Next() override {
    while (pos_ >= limit_) {
      FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> chunk, source_->Next());
      if (!chunk.has_value()) return std::optional<RowBatch>();
      chunk_ = Project(std::move(*chunk));
      pos_ = chunk_.LowerBound(scan_.from_offset);
      limit_ = chunk_.LowerBound(scan_.end_offset);
    }
    int64_t length = std::min(scan_.batch_size, limit_ - pos_);
    RowBatch out = chunk_.Slice(pos_, length);
    pos_ += length;
    return std::optional<RowBatch>(std::move(out));
  }

 private:
  // Once per chunk, so that the slices cut from it only slice the requested columns.
  RowBatch Project(RowBatch chunk) const {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    columns.reserve(scan_.columns.size());
    for (int c : scan_.columns) columns.push_back(chunk.rows->column(c));
    int64_t rows = chunk.rows->num_rows();
    chunk.rows = arrow::RecordBatch::Make(scan_.schema, rows, std::move(columns));
    return chunk;
  }

  std::unique_ptr<ChunkSource> source_;
  const SegmentScan scan_;
  RowBatch chunk_;
  int64_t pos_ = 0;
  int64_t limit_ = 0;
};

// Walks a MemChunks state: the blocks from the head to the state's last one, then its tail,
// up to the scan's end.
class MemChunkSource final : public ChunkSource {
 public:
  MemChunkSource(std::shared_ptr<const MemChunks> chunks, const MemChunks::Node* head,
                 int64_t from_offset, int64_t end_offset, const RowFilter* filter)
      : chunks_(std::move(chunks)),
        state_(chunks_->state()),
        node_(head),
        from_(from_offset),
        end_(end_offset),
        filter_(filter),
        returned_end_(head->end_offset) {
    for (const MemChunks::TailLink* link = state_->tail.get(); link; link = link->older.get()) {
      tail_.push_back(link);
    }
  }

  Result<std::optional<RowBatch>> Next() override {
    while (returned_end_ < end_) {
      const RowBatch* batch;
      const ZoneMap* zone;
      // Never reads `next` of the state's last block: the writer may be setting it. The end
      // offsets are kept beside the batches, so that passing over one reads no batch.
      if (node_ != state_->last_block) {
        node_ = node_->next;
        batch = &node_->batch;
        zone = &node_->zone;
        returned_end_ = node_->end_offset;
      } else if (!tail_.empty()) {
        batch = &tail_.back()->batch;
        zone = &tail_.back()->zone;
        returned_end_ = tail_.back()->end_offset;
        tail_.pop_back();
      } else {
        break;
      }
      if (returned_end_ <= from_) continue;
      if (filter_ && !filter_->MayMatch(*batch, *zone)) continue;
      return std::optional<RowBatch>(*batch);
    }
    return std::optional<RowBatch>();
  }

 private:
  std::shared_ptr<const MemChunks> chunks_;        // keeps the blocks alive
  std::shared_ptr<const MemChunks::State> state_;  // keeps the tail alive
  const MemChunks::Node* node_;
  std::vector<const MemChunks::TailLink*> tail_;  // newest first; taken from the back
  const int64_t from_;
  const int64_t end_;
  const RowFilter* filter_;  // null: every batch
  int64_t returned_end_;     // end offset of the last batch passed over
};

// The rows of `batches` (oldest first: small written batches of an append table) in one batch,
// copied. Offsets stay implicit when the batches' offsets follow each other.
Result<RowBatch> ConcatenateBatches(const std::vector<const RowBatch*>& batches) {
  const arrow::RecordBatch& first = *batches.front()->rows;
  int64_t rows = 0;
  bool contiguous = true;
  for (const RowBatch* batch : batches) {
    if (batch->offsets != nullptr ||
        (rows > 0 && batch->first_offset != batches.front()->first_offset + rows)) {
      contiguous = false;
    }
    rows += batch->num_rows();
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < first.num_columns(); ++c) {
    arrow::ArrayVector pieces;
    for (const RowBatch* batch : batches) pieces.push_back(batch->rows->column(c));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto column, arrow::Concatenate(pieces));
    columns.push_back(std::move(column));
  }
  RowBatch out;
  out.rows = arrow::RecordBatch::Make(first.schema(), rows, std::move(columns));
  out.first_offset = batches.front()->OffsetAt(0);
  if (!contiguous) {
    arrow::Int64Builder offsets;
    FRESHET_RETURN_NOT_OK_ARROW(offsets.Reserve(rows));
    for (const RowBatch* batch : batches) {
      for (int64_t i = 0; i < batch->num_rows(); ++i) offsets.UnsafeAppend(batch->OffsetAt(i));
    }
    FRESHET_RETURN_NOT_OK_ARROW(offsets.Finish(&out.offsets));
  }
  return out;
}

// A view: the segments (in the form they had then) and the building segment's published prefix.
class IndexerView final : public ReadView {
 public:
  struct Part {
    std::shared_ptr<const SegmentData> data;
    OffsetRange range;  // for the building segment, up to the published end
    int64_t rows = 0;
  };

  IndexerView(uint64_t owner, std::vector<Part> parts) : owner_(owner), parts_(std::move(parts)) {
    range_ = {parts_.front().range.begin, parts_.back().range.end};
    for (const Part& part : parts_) rows_ += part.rows;
  }

  OffsetRange range() const override { return range_; }
  int64_t num_rows() const override { return rows_; }
  uint64_t owner() const { return owner_; }
  const std::vector<Part>& parts() const { return parts_; }

 private:
  const uint64_t owner_;
  const std::vector<Part> parts_;
  OffsetRange range_;
  int64_t rows_ = 0;
};

class ColumnarFactory final : public MemIndexerFactory {
 public:
  ColumnarFactory(std::string name, bool index_rows)
      : name_(std::move(name)), index_rows_(index_rows) {}
  std::string name() const override { return name_; }
  Result<std::unique_ptr<MemIndexer>> Create(const MemIndexerOptions& options) override {
    FRESHET_ASSIGN_OR_RETURN(auto indexer, ColumnarMemIndexer::Make(options, index_rows_));
    return std::unique_ptr<MemIndexer>(std::move(indexer));
  }

 private:
  const std::string name_;
  const bool index_rows_;
};

}  // namespace

std::unique_ptr<RowBatchReader> MakeSegmentReader(std::unique_ptr<ChunkSource> source,
                                                  SegmentScan scan) {
  return std::make_unique<SegmentReader>(std::move(source), std::move(scan));
}

// ---------------------------------------------------------------------------------------------
// SegmentData, MemChunks, Graveyard

SegmentData::SegmentData(std::shared_ptr<IndexerAccounting> accounting)
    : accounting_(std::move(accounting)) {}

MemChunks::MemChunks(std::shared_ptr<IndexerAccounting> accounting, int64_t begin_offset,
                     std::shared_ptr<const KeyOrder> index_order, bool coalesce)
    : SegmentData(std::move(accounting)), coalesce_(coalesce && index_order == nullptr) {
  head_.end_offset = begin_offset;
  if (index_order) index_ = std::make_unique<RowSkipList>(std::move(index_order));
  std::shared_ptr<const State> none;
  PublishLocked(nullptr, 0, &none);  // not shared yet
}

MemChunks::~MemChunks() {
  stopping_.store(true);
  while (coalescing_.load()) std::this_thread::yield();
  accounting_->bytes.fetch_sub(bytes_, std::memory_order_relaxed);
  accounting_->rows.fetch_sub(rows_, std::memory_order_relaxed);
  if (rows_ > 0) accounting_->segments.fetch_sub(1, std::memory_order_relaxed);
}

MemChunks::TailLink::TailLink(std::shared_ptr<IndexerAccounting> accounting, RowBatch batch,
                              int64_t bytes, std::shared_ptr<const TailLink> older)
    : accounting(std::move(accounting)),
      batch(std::move(batch)),
      end_offset(this->batch.EndOffset()),
      bytes(bytes),
      older(std::move(older)),
      tail_bytes(bytes + (this->older ? this->older->tail_bytes : 0)) {
  this->accounting->bytes.fetch_add(bytes, std::memory_order_relaxed);
}

MemChunks::TailLink::~TailLink() { accounting->bytes.fetch_sub(bytes, std::memory_order_relaxed); }

void MemChunks::Append(RowBatch batch, int64_t bytes) {
  // Only batches of an append table's plain rows are coalesced (no kinds, no sequence numbers).
  const bool small = coalesce_ && bytes < kSmallBatchBytes && batch.row_kinds == nullptr &&
                     batch.sequence_numbers == nullptr;
  // A large batch follows the tail's rows: they become blocks first.
  if (!small) EmptyTail();
  if (rows_ == 0) accounting_->segments.fetch_add(1, std::memory_order_relaxed);
  rows_ += batch.num_rows();
  accounting_->rows.fetch_add(batch.num_rows(), std::memory_order_relaxed);
  std::shared_ptr<const State> old;  // released after the lock
  if (!small) {
    std::unique_ptr<Node> node = NewBlock(std::move(batch), &bytes);
    std::lock_guard lock(state_mu_);
    LinkBlock(std::move(node), bytes);
    PublishLocked(nullptr, rows_, &old);
    return;
  }
  int64_t tail_bytes;
  {
    std::lock_guard lock(state_mu_);
    auto link =
        std::make_shared<const TailLink>(accounting_, std::move(batch), bytes, state_->tail);
    tail_bytes = link->tail_bytes;
    PublishLocked(std::move(link), rows_, &old);
  }
  if (tail_bytes >= kCoalescedBlockBytes) CoalesceInBackground();
}

std::unique_ptr<MemChunks::Node> MemChunks::NewBlock(RowBatch batch, int64_t* bytes) {
  auto node = std::make_unique<Node>();
  node->end_offset = batch.EndOffset();
  node->batch = std::move(batch);
  if (index_) {
    // Indexed before the node is published; readers of the list skip rows past their view.
    const int64_t before = index_->bytes();
    for (int64_t row = 0; row < node->batch.num_rows(); ++row) index_->Insert(&node->batch, row);
    *bytes += index_->bytes() - before;
  }
  return node;
}

void MemChunks::LinkBlock(std::unique_ptr<Node> node, int64_t bytes) {
  accounting_->bytes.fetch_add(bytes, std::memory_order_relaxed);
  bytes_ += bytes;
  last_->next = node.get();
  last_ = node.get();
  nodes_.push_back(std::move(node));
}

void MemChunks::PublishLocked(std::shared_ptr<const TailLink> tail, int64_t rows,
                              std::shared_ptr<const State>* old) {
  auto state = std::make_shared<State>();
  state->last_block = last_;
  state->end_offset = tail ? tail->end_offset : last_->end_offset;
  state->rows = rows;
  state->tail = std::move(tail);
  *old = std::move(state_);
  state_ = std::move(state);
}

std::shared_ptr<const MemChunks::State> MemChunks::state() const {
  std::lock_guard lock(state_mu_);
  return state_;
}

namespace {

// The batches of a tail, oldest first.
std::vector<const RowBatch*> TailBatches(const MemChunks::TailLink* newest) {
  std::vector<const RowBatch*> batches;
  for (const MemChunks::TailLink* link = newest; link; link = link->older.get()) {
    batches.push_back(&link->batch);
  }
  std::reverse(batches.begin(), batches.end());
  return batches;
}

}  // namespace

bool MemChunks::SpliceBlocks(const State& snapshot, std::vector<RowBatch> blocks) {
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<int64_t> node_bytes;
  for (RowBatch& block : blocks) {
    int64_t bytes = BatchBytes(block);
    nodes.push_back(NewBlock(std::move(block), &bytes));
    node_bytes.push_back(bytes);
  }
  std::shared_ptr<const State> old;  // released after the lock
  std::lock_guard lock(state_mu_);
  // The links written since the snapshot, newest first; the snapshot's newest must still be in
  // the tail (a splice in between makes new links for the ones it keeps).
  std::vector<const TailLink*> newer;
  const TailLink* link = state_->tail.get();
  for (; link != nullptr && link != snapshot.tail.get(); link = link->older.get()) {
    newer.push_back(link);
  }
  if (link == nullptr) return false;
  for (size_t i = 0; i < nodes.size(); ++i) LinkBlock(std::move(nodes[i]), node_bytes[i]);
  std::shared_ptr<const TailLink> tail;
  for (auto it = newer.rbegin(); it != newer.rend(); ++it) {
    tail =
        std::make_shared<const TailLink>(accounting_, (*it)->batch, (*it)->bytes, std::move(tail));
  }
  PublishLocked(std::move(tail), state_->rows, &old);
  return true;
}

void MemChunks::EmptyTail() {
  // Only the background copy removes links meanwhile, and this writer adds none: the loop ends.
  for (std::shared_ptr<const State> snapshot = state(); snapshot->tail; snapshot = state()) {
    // Linked as they are: the writer thread never copies rows.
    std::vector<RowBatch> blocks;
    for (const RowBatch* batch : TailBatches(snapshot->tail.get())) blocks.push_back(*batch);
    SpliceBlocks(*snapshot, std::move(blocks));
  }
}

void MemChunks::CoalesceInBackground() {
  if (coalescing_.exchange(true)) return;
  // The task holds no reference: the destructor stops it and waits for it (a copy of at most
  // kCoalescedBlockBytes), so that a reclaimed segment is freed by the Reclaim that drops it.
  auto copy = [this] {
    while (!stopping_.load()) {
      std::shared_ptr<const State> snapshot = state();
      if (snapshot->tail == nullptr || snapshot->tail->tail_bytes < kCoalescedBlockBytes) break;
      Result<RowBatch> block = ConcatenateBatches(TailBatches(snapshot->tail.get()));
      if (!block.ok()) break;  // out of memory: the batches stay as written
      std::vector<RowBatch> blocks;
      blocks.push_back(std::move(block).ValueOrDie());
      SpliceBlocks(*snapshot, std::move(blocks));
    }
    // The last access to this object. A Write that filled the tail meanwhile found the copy
    // still running; the next Write starts another.
    coalescing_.store(false);
  };
  RunInBackground(std::move(copy));
}

MemChunks::Published MemChunks::published() const {
  std::shared_ptr<const State> state = this->state();
  return {state->end_offset, state->rows};
}

std::vector<RowBatch> MemChunks::Chunks(int64_t end_offset) const {
  std::vector<RowBatch> chunks;
  MemChunkSource source(std::static_pointer_cast<const MemChunks>(shared_from_this()), &head_,
                        head_.end_offset, end_offset, nullptr);
  while (true) {
    std::optional<RowBatch> batch = source.Next().ValueOrDie();
    if (!batch) break;
    if (batch->EndOffset() > end_offset) batch = batch->Slice(0, batch->LowerBound(end_offset));
    chunks.push_back(std::move(*batch));
  }
  return chunks;
}

std::shared_ptr<const RowPositions> MemChunks::KeyOrderedOf(int64_t end_offset,
                                                            const KeyOrder& order,
                                                            const RowBatch& keys) const {
  if (index_) return std::make_shared<const RowPositions>(index_->PositionsOf(keys));
  return std::make_shared<const RowPositions>(
      PositionsOfKeys(*KeyOrdered(end_offset, order), keys, order));
}

std::shared_ptr<const RowPositions> MemChunks::KeyOrderedIn(int64_t end_offset,
                                                            const KeyOrder& order,
                                                            const KeyRangeTest& may_match) const {
  if (index_) return std::make_shared<const RowPositions>(index_->PositionsInRange(may_match));
  return std::make_shared<const RowPositions>(
      PositionsInRange(*KeyOrdered(end_offset, order), may_match));
}

std::shared_ptr<const RowPositions> MemChunks::KeyOrdered(int64_t end_offset,
                                                          const KeyOrder& order) const {
  if (index_) return std::make_shared<const RowPositions>(index_->Positions());
  std::lock_guard lock(sort_mu_);
  if (sorted_end_ == end_offset) return sorted_;
  // Chunks published since the kept sort (all of them when there is none, or when it is of a
  // later end than asked: an older view) are sorted and merged into it.
  const bool extend = sorted_ != nullptr && sorted_end_ < end_offset;
  std::vector<const RowBatch*> chunks;
  for (const Node* node = &head_; node->end_offset < end_offset;) {
    node = node->next;
    if (!extend || node->end_offset > sorted_end_) chunks.push_back(&node->batch);
  }
  RowPositions added = SortRows(chunks, order);
  if (extend) {
    RowPositions merged;
    merged.reserve(sorted_->size() + added.size());
    std::merge(sorted_->begin(), sorted_->end(), added.begin(), added.end(),
               std::back_inserter(merged), [&](const RowPosition& a, const RowPosition& b) {
                 return order.Compare(*a.chunk, a.row, *b.chunk, b.row) < 0;
               });
    added = std::move(merged);
  }
  sorted_ = std::make_shared<const RowPositions>(std::move(added));
  sorted_end_ = end_offset;
  return sorted_;
}

Result<std::unique_ptr<RowBatchReader>> MemChunks::NewReader(SegmentScan scan) const {
  auto self = std::static_pointer_cast<const MemChunks>(shared_from_this());
  auto source = std::make_unique<MemChunkSource>(std::move(self), &head_, scan.from_offset,
                                                 scan.end_offset, scan.filter);
  return MakeSegmentReader(std::move(source), std::move(scan));
}

void Graveyard::Bury(const SegmentData* data) {
  {
    std::lock_guard lock(mu_);
    if (!closed_) {
      dead_.push_back(data);
      return;
    }
  }
  delete data;
}

void Graveyard::Drain() {
  std::vector<const SegmentData*> dead;
  {
    std::lock_guard lock(mu_);
    dead.swap(dead_);
  }
  for (const SegmentData* data : dead) delete data;
}

void Graveyard::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  Drain();
}

// ---------------------------------------------------------------------------------------------
// ColumnarMemIndexer

Result<std::unique_ptr<ColumnarMemIndexer>> ColumnarMemIndexer::Make(
    const MemIndexerOptions& options, bool index_rows) {
  FRESHET_RETURN_NOT_OK(ValidateOptions(options));
  return std::unique_ptr<ColumnarMemIndexer>(new ColumnarMemIndexer(options, index_rows));
}

Status ColumnarMemIndexer::ValidateOptions(const MemIndexerOptions& options) {
  if (options.schema == nullptr) return Status::Invalid("MemIndexerOptions.schema is not set");
  return Status::OK();
}

ColumnarMemIndexer::ColumnarMemIndexer(const MemIndexerOptions& options, bool index_rows)
    : options_(options),
      index_rows_(index_rows && options.key_order != nullptr),
      id_(next_indexer_id.fetch_add(1)),
      accounting_(std::make_shared<IndexerAccounting>()),
      graveyard_(std::make_shared<Graveyard>()),
      written_end_(options.start_offset),
      building_(NewBuilding(options.start_offset)),
      reclaimed_end_(options.start_offset) {}

ColumnarMemIndexer::~ColumnarMemIndexer() {
  {
    std::lock_guard lock(mu_);
    // Handles the framework still holds must not keep rows alive past the indexer.
    for (auto& entry : sealed_) entry->data_.reset();
    sealed_.clear();
    building_.reset();
  }
  graveyard_->Close();
}

std::shared_ptr<MemChunks> ColumnarMemIndexer::NewBuilding(int64_t begin_offset) {
  std::shared_ptr<Graveyard> graveyard = graveyard_;
  return std::shared_ptr<MemChunks>(
      new MemChunks(accounting_, begin_offset, index_rows_ ? options_.key_order : nullptr,
                    /*coalesce=*/options_.key_order == nullptr),
      [graveyard](MemChunks* data) { graveyard->Bury(data); });
}

std::shared_ptr<const SegmentData> ColumnarMemIndexer::Adopt(std::unique_ptr<SegmentData> data) {
  std::shared_ptr<Graveyard> graveyard = graveyard_;
  return std::shared_ptr<const SegmentData>(
      data.release(), [graveyard](const SegmentData* dead) { graveyard->Bury(dead); });
}

Status ColumnarMemIndexer::ValidateWrite(const RowBatch& batch) const {
  if (batch.rows == nullptr) return Status::Invalid("RowBatch without rows");
  const arrow::Schema& schema = *batch.rows->schema();
  if (&schema != options_.schema.get() && !schema.Equals(*options_.schema, false)) {
    return Status::Invalid("rows of schema {", schema.ToString(), "} do not match the table's {",
                           options_.schema->ToString(), "}");
  }
  int64_t rows = batch.num_rows();
  FRESHET_RETURN_NOT_OK(ValidateColumn(batch.offsets, rows, "offsets"));
  FRESHET_RETURN_NOT_OK(ValidateColumn(batch.row_kinds, rows, "row_kinds"));
  FRESHET_RETURN_NOT_OK(ValidateColumn(batch.sequence_numbers, rows, "sequence_numbers"));
  if (rows == 0) return Status::OK();
  if (batch.offsets != nullptr) {
    for (int64_t i = 1; i < rows; ++i) {
      if (batch.offsets->Value(i) <= batch.offsets->Value(i - 1)) {
        return Status::Invalid("RowBatch offsets are not strictly increasing at row ", i, " (",
                               batch.offsets->Value(i - 1), ", then ", batch.offsets->Value(i),
                               ")");
      }
    }
  }
  if (batch.OffsetAt(rows - 1) == std::numeric_limits<int64_t>::max()) {
    return Status::Invalid("RowBatch offset ", batch.OffsetAt(rows - 1), " is out of range");
  }
  if (batch.OffsetAt(0) < written_end_) {
    return Status::Invalid(
        "offset ", batch.OffsetAt(0), " of bucket ", options_.partition_bucket.bucket,
        " is not above the offsets written before (next allowed: ", written_end_, ")");
  }
  if (batch.row_kinds != nullptr) {
    for (int64_t i = 0; i < rows; ++i) {
      int8_t kind = batch.row_kinds->Value(i);
      if (kind < 0 || kind > static_cast<int8_t>(RowKind::kDelete)) {
        return Status::Invalid("RowBatch row kind ", static_cast<int>(kind), " at row ", i,
                               " is not a Paimon RowKind");
      }
    }
  }
  return Status::OK();
}

Status ColumnarMemIndexer::Write(const RowBatch& batch) {
  FRESHET_RETURN_NOT_OK(ValidateWrite(batch));
  undo_ = UndoPoint{building_->published().end_offset, written_end_};
  if (batch.num_rows() == 0) return Status::OK();
  building_->Append(batch, BatchBytes(batch));
  written_end_ = batch.EndOffset();
  return Status::OK();
}

Status ColumnarMemIndexer::UndoLastWrite() {
  if (!undo_) return Status::Invalid("UndoLastWrite without a Write to undo");
  if (building_->published().end_offset != undo_->building_end) {
    std::shared_ptr<MemChunks> replacement = NewBuilding(building_->begin_offset());
    for (RowBatch& chunk : building_->Chunks(undo_->building_end)) {
      int64_t bytes = BatchBytes(chunk);
      replacement->Append(std::move(chunk), bytes);
    }
    std::lock_guard lock(mu_);
    building_.swap(replacement);
  }
  written_end_ = undo_->written_end;
  undo_.reset();
  return Status::OK();
}

Result<std::shared_ptr<SealedSegment>> ColumnarMemIndexer::SealForCommit() {
  MemChunks::Published published = building_->published();
  if (published.rows == 0) return std::shared_ptr<SealedSegment>();
  OffsetRange range{building_->begin_offset(), published.end_offset};
  auto entry = std::make_shared<SegmentEntry>(id_, next_entry_id_++, range, published.rows);
  entry->data_ = building_;
  std::shared_ptr<MemChunks> next = NewBuilding(range.end);  // allocated before taking the lock
  {
    std::lock_guard lock(mu_);
    sealed_.push_back(entry);
    building_ = std::move(next);
  }
  undo_.reset();
  return std::shared_ptr<SealedSegment>(std::move(entry));
}

Result<std::shared_ptr<SegmentEntry>> ColumnarMemIndexer::OwnEntry(
    const std::shared_ptr<SealedSegment>& segment) const {
  auto entry = std::dynamic_pointer_cast<SegmentEntry>(segment);
  if (entry == nullptr || entry->owner() != id_) {
    return Status::Invalid("the sealed segment was not sealed by this MemIndexer (bucket ",
                           options_.partition_bucket.bucket, ")");
  }
  return entry;
}

std::vector<std::shared_ptr<SegmentEntry>> ColumnarMemIndexer::HeldEntries() const {
  std::lock_guard lock(mu_);
  return {sealed_.begin(), sealed_.end()};
}

std::shared_ptr<const SegmentData> ColumnarMemIndexer::DataOf(const SegmentEntry& entry) const {
  std::lock_guard lock(mu_);
  return entry.data_;
}

bool ColumnarMemIndexer::ReplaceData(SegmentEntry& entry,
                                     const std::shared_ptr<const SegmentData>& expected,
                                     std::shared_ptr<const SegmentData> replacement) {
  {
    std::lock_guard lock(mu_);
    if (entry.data_ != expected) return false;
    entry.data_.swap(replacement);
  }
  // `replacement` now holds the old data: released here, outside mu_.
  return true;
}

Result<RowBatchReaders> ColumnarMemIndexer::CommitReadersOver(
    const SegmentEntry& entry, const std::shared_ptr<const SegmentData>& data) const {
  SegmentScan scan;
  scan.from_offset = entry.range().begin;
  scan.end_offset = entry.range().end;
  scan.columns = AllColumns(*options_.schema);
  scan.schema = options_.schema;
  scan.batch_size = std::numeric_limits<int64_t>::max();
  RowBatchReaders readers;
  FRESHET_ASSIGN_OR_RETURN(auto reader, data->NewReader(std::move(scan)));
  readers.push_back(std::move(reader));
  return readers;
}

Result<RowBatchReaders> ColumnarMemIndexer::CreateCommitReaders(
    const std::shared_ptr<SealedSegment>& segment) {
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<SegmentEntry> entry, OwnEntry(segment));
  std::shared_ptr<const SegmentData> data = DataOf(*entry);
  if (data == nullptr) {
    return Status::Invalid("sealed segment [", entry->range().begin, ", ", entry->range().end,
                           ") of bucket ", options_.partition_bucket.bucket,
                           " was reclaimed: its rows are committed already");
  }
  return CommitReadersOver(*entry, data);
}

std::shared_ptr<const ReadView> ColumnarMemIndexer::AcquireReadView() {
  std::vector<IndexerView::Part> parts;
  {
    std::lock_guard lock(mu_);
    parts.reserve(sealed_.size() + 1);
    for (const auto& entry : sealed_) {
      parts.push_back({entry->data_, entry->range(), entry->num_rows()});
    }
    MemChunks::Published published = building_->published();
    parts.push_back({building_, {building_->begin_offset(), published.end_offset}, published.rows});
  }
  return std::make_shared<IndexerView>(id_, std::move(parts));
}

std::shared_ptr<arrow::Schema> ColumnarMemIndexer::ProjectedSchema(
    const std::vector<int>& columns) const {
  std::lock_guard lock(projection_mu_);
  if (projected_schema_ == nullptr || projected_columns_ != columns) {
    arrow::FieldVector fields;
    for (int c : columns) fields.push_back(options_.schema->field(c));
    projected_schema_ = arrow::schema(std::move(fields), options_.schema->metadata());
    projected_columns_ = columns;
  }
  return projected_schema_;
}

Result<RowBatchReaders> ColumnarMemIndexer::CreateQueryReaders(
    const std::shared_ptr<const ReadView>& view, const QuerySpec& spec) {
  const auto* own = dynamic_cast<const IndexerView*>(view.get());
  if (own == nullptr || own->owner() != id_) {
    return Status::Invalid("the read view was not acquired from this MemIndexer (bucket ",
                           options_.partition_bucket.bucket, ")");
  }
  if (spec.batch_size <= 0) {
    return Status::Invalid("QuerySpec.batch_size must be positive, not ", spec.batch_size);
  }
  if (spec.from_offset < own->range().begin) {
    return Status::Invalid("query from offset ", spec.from_offset, " of bucket ",
                           options_.partition_bucket.bucket,
                           " would miss rows: the view only holds offsets from ",
                           own->range().begin, " on (rows below were reclaimed)");
  }
  for (int c : spec.columns) {
    if (c < 0 || c >= options_.schema->num_fields()) {
      return Status::Invalid("QuerySpec column ", c, " is not a column of the table (",
                             options_.schema->num_fields(), " columns)");
    }
  }
  std::shared_ptr<arrow::Schema> schema = ProjectedSchema(spec.columns);

  if (spec.key_order && options_.key_order == nullptr) {
    return Status::Invalid("QuerySpec.key_order for a table without a primary key");
  }
  RowBatchReaders readers;
  for (const IndexerView::Part& part : own->parts()) {
    int64_t end = std::min(part.range.end, spec.end_offset);
    if (part.rows == 0 || end <= spec.from_offset || part.range.begin >= end) continue;
    if (spec.key_order) {
      FRESHET_ASSIGN_OR_RETURN(
          auto reader,
          KeyOrderedReader(
              *part.data, part.range,
              KeyOrderedScan{spec.from_offset, end, spec.columns, schema, spec.batch_size}, spec));
      readers.push_back(std::move(reader));
      continue;
    }
    SegmentScan scan{spec.from_offset, end, spec.columns, schema, spec.batch_size, spec.filter};
    FRESHET_ASSIGN_OR_RETURN(auto reader, part.data->NewReader(std::move(scan)));
    readers.push_back(std::move(reader));
  }
  return readers;
}

Result<std::unique_ptr<RowBatchReader>> ColumnarMemIndexer::KeyOrderedReader(
    const SegmentData& data, OffsetRange range, KeyOrderedScan scan, const QuerySpec& spec) const {
  auto self = data.shared_from_this();
  const KeyOrder& order = *options_.key_order;
  if (const auto* chunks = dynamic_cast<const MemChunks*>(&data)) {
    // `range.end` is the segment's end in the view: fixed for a sealed segment, the published
    // end for the building one.
    std::shared_ptr<const RowPositions> positions;
    if (spec.keys) {
      positions = chunks->KeyOrderedOf(range.end, order, *spec.keys);
    } else if (spec.keys_may_match) {
      positions = chunks->KeyOrderedIn(range.end, order, spec.keys_may_match);
    } else {
      positions = chunks->KeyOrdered(range.end, order);
    }
    return MakeKeyOrderedReader(self, std::move(positions), std::move(scan));
  }
  // Another form (a spilled segment): its rows in range, read with every column and sorted for
  // this query.
  SegmentScan all{scan.from_offset, scan.end_offset, AllColumns(*options_.schema), options_.schema,
                  std::numeric_limits<int64_t>::max()};
  FRESHET_ASSIGN_OR_RETURN(auto reader, data.NewReader(std::move(all)));
  auto held = std::make_shared<std::vector<RowBatch>>();
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> batch, reader->Next());
    if (!batch) break;
    held->push_back(std::move(*batch));
  }
  std::vector<const RowBatch*> chunks;
  for (const RowBatch& batch : *held) chunks.push_back(&batch);
  RowPositions sorted = SortRows(chunks, order);
  if (spec.keys) {
    sorted = PositionsOfKeys(sorted, *spec.keys, order);
  } else if (spec.keys_may_match) {
    sorted = PositionsInRange(sorted, spec.keys_may_match);
  }
  auto positions = std::make_shared<const RowPositions>(std::move(sorted));
  return MakeKeyOrderedReader(std::move(held), std::move(positions), std::move(scan));
}

void ColumnarMemIndexer::Reclaim(int64_t committed_end) {
  std::vector<std::shared_ptr<const SegmentData>> dropped;
  {
    std::lock_guard lock(mu_);
    reclaimed_end_ = std::max(reclaimed_end_, committed_end);
    while (!sealed_.empty() && sealed_.front()->range().end <= reclaimed_end_) {
      dropped.push_back(std::move(sealed_.front()->data_));
      sealed_.front()->data_.reset();
      sealed_.pop_front();
    }
  }
  dropped.clear();  // unpinned data goes to the graveyard now, pinned data when its views go
  AfterReclaim();
  DrainFreed();
}

MemoryUsage ColumnarMemIndexer::Usage() const {
  MemoryUsage usage;
  usage.bytes = accounting_->bytes.load(std::memory_order_relaxed);
  usage.rows = accounting_->rows.load(std::memory_order_relaxed);
  usage.segments = accounting_->segments.load(std::memory_order_relaxed);
  usage.spilled_bytes = accounting_->spilled_bytes.load(std::memory_order_relaxed);
  return usage;
}

std::shared_ptr<MemIndexerFactory> MakeIndexedMemIndexerFactory() {
  return std::make_shared<ColumnarFactory>("indexed", true);
}

std::shared_ptr<MemIndexerFactory> MakeColumnarMemIndexerFactory() {
  return std::make_shared<ColumnarFactory>("columnar", false);
}

}  // namespace freshet::realtime
