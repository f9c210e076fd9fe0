#include "realtime/indexers/key_ordered_rows.h"

#include <arrow/api.h>

#include <algorithm>
#include <new>

#include "common/arrow_status.h"

namespace freshet::realtime {

RowPositions SortRows(const std::vector<const RowBatch*>& chunks, const KeyOrder& order) {
  RowPositions positions;
  for (const RowBatch* chunk : chunks) {
    for (int64_t row = 0; row < chunk->num_rows(); ++row) positions.push_back({chunk, row});
  }
  std::sort(positions.begin(), positions.end(), [&](const RowPosition& a, const RowPosition& b) {
    return order.Compare(*a.chunk, a.row, *b.chunk, b.row) < 0;
  });
  return positions;
}

RowPositions PositionsOfKeys(const RowPositions& sorted, const RowBatch& keys,
                             const KeyOrder& order) {
  RowPositions out;
  auto from = sorted.begin();  // keys ascend: each search starts where the last one ended
  for (int64_t key = 0; key < keys.num_rows(); ++key) {
    from = std::lower_bound(from, sorted.end(), key, [&](const RowPosition& p, int64_t k) {
      return order.CompareKeys(*p.chunk, p.row, keys, k) < 0;
    });
    for (; from != sorted.end() && order.CompareKeys(*from->chunk, from->row, keys, key) == 0;
         ++from) {
      out.push_back(*from);
    }
  }
  return out;
}

RowPositions PositionsInRange(const RowPositions& sorted, const KeyRangeTest& may_match) {
  if (sorted.empty()) return {};
  const RowPosition& first = sorted.front();
  const RowPosition& last = sorted.back();
  // [first, p] may match: false up to some p, true after (ranges only grow).
  auto begin = std::partition_point(sorted.begin(), sorted.end(), [&](const RowPosition& p) {
    return !may_match(*first.chunk, first.row, *p.chunk, p.row);
  });
  // [p, last] may match: true up to some p, false after (ranges only shrink).
  auto end = std::partition_point(begin, sorted.end(), [&](const RowPosition& p) {
    return may_match(*p.chunk, p.row, *last.chunk, last.row);
  });
  return RowPositions(begin, end);
}

namespace {

class KeyOrderedReader final : public RowBatchReader {
 public:
  KeyOrderedReader(std::shared_ptr<const void> keep_alive,
                   std::shared_ptr<const RowPositions> positions, KeyOrderedScan scan)
      : keep_alive_(std::move(keep_alive)),
        positions_(std::move(positions)),
        scan_(std::move(scan)) {}

  Result<std::optional<RowBatch>> Next() override {
    // The next positions in range, up to a batch.
    std::vector<RowPosition> picked;
    while (next_ < positions_->size() && static_cast<int64_t>(picked.size()) < scan_.batch_size) {
      const RowPosition& p = (*positions_)[next_++];
      int64_t offset = p.chunk->OffsetAt(p.row);
      if (offset >= scan_.from_offset && offset < scan_.end_offset) picked.push_back(p);
    }
    if (picked.empty()) return std::optional<RowBatch>();
    return Gather(picked);
  }

 private:
  Result<std::optional<RowBatch>> Gather(const std::vector<RowPosition>& picked) const {
    const auto rows = static_cast<int64_t>(picked.size());
    // Runs of rows that follow each other in one chunk, copied as one slice.
    struct Run {
      const RowBatch* chunk;
      int64_t row;
      int64_t length;
    };
    std::vector<Run> runs;
    for (const RowPosition& p : picked) {
      if (!runs.empty() && runs.back().chunk == p.chunk &&
          runs.back().row + runs.back().length == p.row) {
        ++runs.back().length;
      } else {
        runs.push_back({p.chunk, p.row, 1});
      }
    }
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (size_t c = 0; c < scan_.columns.size(); ++c) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      FRESHET_RETURN_NOT_OK_ARROW(arrow::MakeBuilder(arrow::default_memory_pool(),
                                                     scan_.schema->field(c)->type(), &builder));
      FRESHET_RETURN_NOT_OK_ARROW(builder->Reserve(rows));
      for (const Run& run : runs) {
        const arrow::ArrayData& data = *run.chunk->rows->column_data(scan_.columns[c]);
        FRESHET_RETURN_NOT_OK_ARROW(
            builder->AppendArraySlice(arrow::ArraySpan(data), run.row, run.length));
      }
      FRESHET_ASSIGN_OR_RETURN_ARROW(auto column, builder->Finish());
      columns.push_back(std::move(column));
    }
    arrow::Int64Builder offsets, sequences;
    arrow::Int8Builder kinds;
    FRESHET_RETURN_NOT_OK_ARROW(offsets.Reserve(rows));
    FRESHET_RETURN_NOT_OK_ARROW(sequences.Reserve(rows));
    FRESHET_RETURN_NOT_OK_ARROW(kinds.Reserve(rows));
    for (const RowPosition& p : picked) {
      offsets.UnsafeAppend(p.chunk->OffsetAt(p.row));
      sequences.UnsafeAppend(p.chunk->sequence_numbers ? p.chunk->sequence_numbers->Value(p.row)
                                                       : 0);
      kinds.UnsafeAppend(p.chunk->row_kinds ? p.chunk->row_kinds->Value(p.row) : 0);
    }
    RowBatch out;
    out.rows = arrow::RecordBatch::Make(scan_.schema, rows, std::move(columns));
    FRESHET_RETURN_NOT_OK_ARROW(offsets.Finish(&out.offsets));
    FRESHET_RETURN_NOT_OK_ARROW(sequences.Finish(&out.sequence_numbers));
    FRESHET_RETURN_NOT_OK_ARROW(kinds.Finish(&out.row_kinds));
    return std::optional<RowBatch>(std::move(out));
  }

  std::shared_ptr<const void> keep_alive_;
  std::shared_ptr<const RowPositions> positions_;
  const KeyOrderedScan scan_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<RowBatchReader> MakeKeyOrderedReader(std::shared_ptr<const void> keep_alive,
                                                     std::shared_ptr<const RowPositions> positions,
                                                     KeyOrderedScan scan) {
  return std::make_unique<KeyOrderedReader>(std::move(keep_alive), std::move(positions),
                                            std::move(scan));
}

// ---------------------------------------------------------------------------------------------
// RowSkipList

struct RowSkipList::Entry {
  const RowBatch* chunk;
  int64_t row;
  // The first of `height` links (the entry is allocated with room for all of them, reached
  // through Link(), never by subscripting the one-element array).
  std::atomic<Entry*> first_link;

  std::atomic<Entry*>& Link(int level) { return (&first_link)[level]; }
  const std::atomic<Entry*>& Link(int level) const { return (&first_link)[level]; }
  Entry* Next(int level) const { return Link(level).load(std::memory_order_acquire); }
  void SetNext(int level, Entry* entry) { Link(level).store(entry, std::memory_order_release); }
};

RowSkipList::RowSkipList(std::shared_ptr<const KeyOrder> order) : order_(std::move(order)) {
  head_ = NewEntry(nullptr, 0, kMaxHeight);
}

RowSkipList::~RowSkipList() = default;

RowSkipList::Entry* RowSkipList::NewEntry(const RowBatch* chunk, int64_t row, int height) {
  const size_t size = sizeof(Entry) + sizeof(std::atomic<Entry*>) * static_cast<size_t>(height - 1);
  blocks_.push_back(std::make_unique<char[]>(size));
  bytes_.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  auto* entry = new (blocks_.back().get()) Entry{chunk, row, {nullptr}};
  for (int level = 1; level < height; ++level) {
    new (&entry->Link(level)) std::atomic<Entry*>(nullptr);
  }
  return entry;
}

int RowSkipList::RandomHeight() {
  int height = 1;
  while (height < kMaxHeight && random_() % 4 == 0) ++height;
  return height;
}

int RowSkipList::Compare(const Entry* entry, const RowBatch* chunk, int64_t row) const {
  return order_->Compare(*entry->chunk, entry->row, *chunk, row);
}

void RowSkipList::Insert(const RowBatch* chunk, int64_t row) {
  // The entries before the new one, per level.
  Entry* previous[kMaxHeight];
  Entry* at = head_;
  for (int level = height_.load(std::memory_order_relaxed) - 1; level >= 0; --level) {
    for (Entry* next = at->Next(level); next != nullptr && Compare(next, chunk, row) < 0;
         next = at->Next(level)) {
      at = next;
    }
    previous[level] = at;
  }
  const int height = RandomHeight();
  const int old_height = height_.load(std::memory_order_relaxed);
  for (int level = old_height; level < height; ++level) previous[level] = head_;
  // Readers that see the new height before the links find head_'s null links there and go down.
  if (height > old_height) height_.store(height, std::memory_order_relaxed);
  Entry* entry = NewEntry(chunk, row, height);
  for (int level = 0; level < height; ++level) {
    entry->Link(level).store(previous[level]->Next(level), std::memory_order_relaxed);
    previous[level]->SetNext(level, entry);  // publishes the entry, fully built
  }
}

template <typename Before>
RowSkipList::Entry* RowSkipList::FirstAtOrAfter(const Before& before) const {
  Entry* at = head_;
  Entry* next = nullptr;
  for (int level = height_.load(std::memory_order_acquire) - 1; level >= 0; --level) {
    for (next = at->Next(level); next != nullptr && before(*next); next = at->Next(level)) {
      at = next;
    }
  }
  // `next`, not a new load of at->Next(0): the writer may have linked an entry that is still
  // before the target right after `at` since, and a walk from it would stop at once.
  return next;
}

RowPositions RowSkipList::PositionsOf(const RowBatch& keys) const {
  RowPositions positions;
  for (int64_t key = 0; key < keys.num_rows(); ++key) {
    // The first entry not below the key, from the top level down, as LevelDB's
    // FindGreaterOrEqual.
    Entry* first = FirstAtOrAfter([&](const Entry& entry) {
      return order_->CompareKeys(*entry.chunk, entry.row, keys, key) < 0;
    });
    for (Entry* entry = first;
         entry != nullptr && order_->CompareKeys(*entry->chunk, entry->row, keys, key) == 0;
         entry = entry->Next(0)) {
      positions.push_back({entry->chunk, entry->row});
    }
  }
  return positions;
}

RowPositions RowSkipList::PositionsInRange(const KeyRangeTest& may_match) const {
  Entry* first = head_->Next(0);
  if (first == nullptr) return {};
  // The last entry now, by descending from the top level.
  Entry* last = head_;
  for (int level = height_.load(std::memory_order_acquire) - 1; level >= 0; --level) {
    for (Entry* next = last->Next(level); next != nullptr; next = last->Next(level)) last = next;
  }
  // The first entry whose range from the first entry may match.
  Entry* begin = FirstAtOrAfter([&](const Entry& entry) {
    return !may_match(*first->chunk, first->row, *entry.chunk, entry.row);
  });
  RowPositions positions;
  for (Entry* entry = begin;
       entry != nullptr && may_match(*entry->chunk, entry->row, *last->chunk, last->row);
       entry = entry->Next(0)) {
    positions.push_back({entry->chunk, entry->row});
  }
  return positions;
}

RowPositions RowSkipList::Positions() const {
  RowPositions positions;
  for (Entry* entry = head_->Next(0); entry != nullptr; entry = entry->Next(0)) {
    positions.push_back({entry->chunk, entry->row});
  }
  return positions;
}

}  // namespace freshet::realtime
