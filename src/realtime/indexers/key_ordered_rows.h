// Rows of a MemIndexer segment in key order (primary-key tables, QuerySpec::key_order): row
// positions sorted by the table's KeyOrder, a reader that gathers them into batches, and the
// skip list the "indexed" plugin keeps its rows in as they are written.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "freshet/realtime/mem_indexer.h"

namespace freshet::realtime {

// One row of a segment: a written batch (all table columns, offsets, kinds, sequence numbers)
// and the row in it. The batch must outlive the position.
struct RowPosition {
  const RowBatch* chunk = nullptr;
  int64_t row = 0;
};
using RowPositions = std::vector<RowPosition>;

// Every row of `chunks`, sorted by `order`.
RowPositions SortRows(const std::vector<const RowBatch*>& chunks, const KeyOrder& order);

// The positions of `sorted` (sorted by `order`) whose primary key is one of `keys` (sorted by
// order.CompareKeys, distinct), in order: a binary search per key.
RowPositions PositionsOfKeys(const RowPositions& sorted, const RowBatch& keys,
                             const KeyOrder& order);

// QuerySpec::keys_may_match.
using KeyRangeTest = std::function<bool(const RowBatch&, int64_t, const RowBatch&, int64_t)>;

// The positions of `sorted` (in key order) that `may_match` cannot rule out: those after the
// longest prefix and before the longest suffix it rules out, found by binary search.
RowPositions PositionsInRange(const RowPositions& sorted, const KeyRangeTest& may_match);

// What a key-ordered reader returns: rows with offset in [from_offset, end_offset), the table
// columns `columns` (output schema `schema`), at most `batch_size` rows per batch.
struct KeyOrderedScan {
  int64_t from_offset = 0;
  int64_t end_offset = 0;
  std::vector<int> columns;
  std::shared_ptr<arrow::Schema> schema;
  int64_t batch_size = 4096;
};

// Reads `positions` in order, gathering the rows in range into new batches (rows that follow
// each other in one chunk are copied as one slice). `keep_alive` owns the chunks.
std::unique_ptr<RowBatchReader> MakeKeyOrderedReader(std::shared_ptr<const void> keep_alive,
                                                     std::shared_ptr<const RowPositions> positions,
                                                     KeyOrderedScan scan);

// A skip list of row positions in key order, as LevelDB's memtable: one writer inserts (under
// the framework's write lock), any number of readers walk it at the same time without a lock.
// A reader may see rows inserted after it started; the readers filter by offset, and views end
// at an offset published before, so a view still reads a fixed set of rows.
class RowSkipList {
 public:
  explicit RowSkipList(std::shared_ptr<const KeyOrder> order);
  ~RowSkipList();
  RowSkipList(const RowSkipList&) = delete;
  RowSkipList& operator=(const RowSkipList&) = delete;

  // Writer only. `chunk` must stay where it is for the list's life.
  void Insert(const RowBatch* chunk, int64_t row);
  // Any thread: the positions of the rows in the list now (and maybe some inserted meanwhile),
  // in key order.
  RowPositions Positions() const;
  // Any thread: the positions of the rows whose primary key is one of `keys` (sorted by
  // KeyOrder::CompareKeys, distinct), in key order: a seek per key.
  RowPositions PositionsOf(const RowBatch& keys) const;
  // Any thread: as PositionsInRange over Positions(), seeking to the first row instead of
  // walking the list from its head.
  RowPositions PositionsInRange(const KeyRangeTest& may_match) const;
  // Memory held by the list's entries.
  int64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  static constexpr int kMaxHeight = 12;
  struct Entry;

  Entry* NewEntry(const RowBatch* chunk, int64_t row, int height);
  int RandomHeight();
  // <0, 0, >0: the row of `entry` against (chunk, row).
  int Compare(const Entry* entry, const RowBatch* chunk, int64_t row) const;
  // The first entry that is not `before` (a predicate true for a prefix of the list), found
  // from the top level down as LevelDB's FindGreaterOrEqual; null past the end.
  template <typename Before>
  Entry* FirstAtOrAfter(const Before& before) const;

  std::shared_ptr<const KeyOrder> order_;
  Entry* head_;
  std::atomic<int> height_{1};
  std::vector<std::unique_ptr<char[]>> blocks_;  // the entries' memory (writer only)
  std::atomic<int64_t> bytes_{0};
  std::minstd_rand random_{0xdecafbad};
};

}  // namespace freshet::realtime
