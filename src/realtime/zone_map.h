// Zone maps of memory rows (include/freshet/realtime/mem_indexer.h, ZoneMap) and the RowFilter
// the framework hands to MemIndexers for an append table's filtered query.
//
// A ZoneMap holds one slot per table column, filled on first use with that column's min, max and
// null count over the run's rows (scan::ColumnStats, the type file statistics use), so that one
// evaluator (scan::EvaluateLeafStats) prunes files and memory runs alike. Slots are filled
// without a lock: racing queries may both compute a column, the first published wins.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <memory>
#include <vector>

#include "freshet/realtime/mem_indexer.h"
#include "meta/schema/table_schema.h"
#include "scan/predicate.h"

namespace freshet::realtime {

namespace internal {

class ZoneColumns {
 public:
  explicit ZoneColumns(int num_columns);
  ~ZoneColumns();
  ZoneColumns(const ZoneColumns&) = delete;
  ZoneColumns& operator=(const ZoneColumns&) = delete;

  int num_columns() const { return num_columns_; }
  // The statistics of `column`, computed from that column of `rows` (the run) the first time;
  // null when `rows` has no such column.
  const scan::ColumnStats* Get(int column, const arrow::RecordBatch& rows,
                               const meta::DataType& type);

 private:
  using Slot = std::atomic<const scan::ColumnStats*>;
  // Slots of the first columns are kept inline: a query tests a zone map per block of rows it
  // passes over, and one memory access less per block shows in its latency.
  static constexpr int kInlineSlots = 8;

  Slot& SlotOf(int column) {
    return column < kInlineSlots ? inline_slots_[column] : more_slots_[column - kInlineSlots];
  }

  const int num_columns_;
  Slot inline_slots_[kInlineSlots];
  std::unique_ptr<Slot[]> more_slots_;  // columns from kInlineSlots on
};

}  // namespace internal

// Min, max (exact values of the column, in Paimon's order) and null count of `array`. Bounds
// are left unknown for types without an order (nested types) and floating point with a NaN.
scan::ColumnStats ComputeColumnStats(const arrow::Array& array, const meta::DataType& type);

// An append table's query filter: the predicate over the requested columns (Filter) and over
// runs of written rows by their zone maps (MayMatch).
class PredicateRowFilter final : public RowFilter {
 public:
  // `read_fields`: the fields of QuerySpec::columns, in that order (shared, not copied: a filter
  // is made per query).
  PredicateRowFilter(std::shared_ptr<const scan::Predicate> predicate,
                     const meta::TableSchema& schema,
                     std::shared_ptr<const std::vector<meta::DataField>> read_fields);

  Result<std::shared_ptr<arrow::RecordBatch>> Filter(
      const std::shared_ptr<arrow::RecordBatch>& batch) const override;
  bool MayMatch(const RowBatch& rows, const ZoneMap& zone) const override;

 private:
  // The outcomes `predicate` (a node of predicate_) may have for the run's rows.
  scan::Outcomes ZoneOutcomes(const scan::Predicate& predicate, const arrow::RecordBatch& rows,
                              internal::ZoneColumns& zone) const;

  const std::shared_ptr<const scan::Predicate> predicate_;
  const std::shared_ptr<const std::vector<meta::DataField>> read_fields_;
  // Table column of each field id the predicate reads (indexed by id), -1 if none.
  std::vector<int> column_of_field_;
  // The type of each table column the predicate reads (null for the others).
  std::vector<meta::DataTypePtr> type_of_column_;
};

}  // namespace freshet::realtime
