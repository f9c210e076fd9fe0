#include "realtime/zone_map.h"

#include <arrow/api.h>

#include "bridge/arrow_value.h"
#include "format/data_file_stats.h"
#include "read/predicate_filter.h"

namespace freshet::realtime {

scan::ColumnStats ComputeColumnStats(const arrow::Array& array, const meta::DataType& type) {
  scan::ColumnStats stats;
  stats.row_count = array.length();
  stats.null_count = array.null_count();
  if (*stats.null_count == stats.row_count) return stats;  // bounds stay unknown (all null)
  // The bounds data file statistics use (format/data_file_stats.h); types without an order, and
  // floating point with a NaN, keep them unknown.
  bool has_nan = false;
  auto positions = format::ColumnArgMinMax(array, &has_nan);
  if (!positions.ok() || positions->first < 0 || has_nan) return stats;
  auto lo = bridge::ArrowValueAt(array, positions->first, type);
  auto hi = bridge::ArrowValueAt(array, positions->second, type);
  if (lo.ok() && hi.ok()) {
    stats.min = std::move(*lo);
    stats.max = std::move(*hi);
  }
  return stats;
}

namespace internal {

// Publishes `fresh` into the empty `slot`, unless a racing thread published first; either way
// returns what the slot holds (owned by it from then on).
template <typename T>
T* PublishOnce(std::atomic<T*>& slot, std::unique_ptr<T> fresh) {
  T* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return fresh.release();
  }
  return expected;  // another query published it first
}

ZoneColumns::ZoneColumns(int num_columns) : num_columns_(num_columns) {
  if (num_columns > kInlineSlots)
    more_slots_ = std::make_unique<Slot[]>(num_columns - kInlineSlots);
  for (int i = 0; i < num_columns; ++i) SlotOf(i).store(nullptr, std::memory_order_relaxed);
}

ZoneColumns::~ZoneColumns() {
  for (int i = 0; i < num_columns_; ++i) delete SlotOf(i).load(std::memory_order_relaxed);
}

const scan::ColumnStats* ZoneColumns::Get(int column, const arrow::RecordBatch& rows,
                                          const meta::DataType& type) {
  if (column < 0 || column >= num_columns_) return nullptr;
  Slot& slot = SlotOf(column);
  if (const scan::ColumnStats* known = slot.load(std::memory_order_acquire)) return known;
  if (column >= rows.num_columns()) return nullptr;  // not a batch of every table column
  return PublishOnce(slot, std::make_unique<const scan::ColumnStats>(
                               ComputeColumnStats(*rows.column(column), type)));
}

}  // namespace internal

ZoneMap::~ZoneMap() { delete columns_.load(std::memory_order_relaxed); }

internal::ZoneColumns& ZoneMap::Columns(int num_columns) const {
  if (internal::ZoneColumns* known = columns_.load(std::memory_order_acquire)) return *known;
  return *internal::PublishOnce(columns_, std::make_unique<internal::ZoneColumns>(num_columns));
}

PredicateRowFilter::PredicateRowFilter(
    std::shared_ptr<const scan::Predicate> predicate, const meta::TableSchema& schema,
    std::shared_ptr<const std::vector<meta::DataField>> read_fields)
    : predicate_(std::move(predicate)), read_fields_(std::move(read_fields)) {
  const std::vector<meta::DataField>& table_fields = schema.fields();
  type_of_column_.resize(table_fields.size());
  for (const meta::DataField& field : predicate_->Fields()) {
    if (field.id < 0 || field.id > (1 << 20)) continue;  // not a top-level column id
    if (static_cast<size_t>(field.id) >= column_of_field_.size()) {
      column_of_field_.resize(static_cast<size_t>(field.id) + 1, -1);
    }
    for (size_t i = 0; i < table_fields.size(); ++i) {
      if (table_fields[i].id != field.id) continue;
      column_of_field_[field.id] = static_cast<int>(i);
      type_of_column_[i] = table_fields[i].type;
    }
  }
}

Result<std::shared_ptr<arrow::RecordBatch>> PredicateRowFilter::Filter(
    const std::shared_ptr<arrow::RecordBatch>& batch) const {
  return read::FilterBatch(*predicate_, batch, *read_fields_);
}

// The predicate tree walked directly (no std::function per leaf): this runs for every written
// batch a query passes. AND / OR stop at an outcome the other children cannot change.
scan::Outcomes PredicateRowFilter::ZoneOutcomes(const scan::Predicate& predicate,
                                                const arrow::RecordBatch& rows,
                                                internal::ZoneColumns& zone) const {
  if (predicate.IsLeaf()) {
    const int32_t id = predicate.field.id;
    const int column =
        id >= 0 && static_cast<size_t>(id) < column_of_field_.size() ? column_of_field_[id] : -1;
    const scan::ColumnStats* stats =
        column < 0 ? nullptr : zone.Get(column, rows, *type_of_column_[column]);
    return stats ? scan::EvaluateLeafStats(predicate, *stats) : scan::kAnyOutcome;
  }
  scan::Outcomes acc = ZoneOutcomes(predicate.children[0], rows, zone);
  if (predicate.kind == scan::Expr::Kind::kNot) return scan::Not3(acc);
  const bool is_and = predicate.kind == scan::Expr::Kind::kAnd;
  const scan::Outcomes settled = is_and ? scan::kFalse : scan::kTrue;
  for (size_t i = 1; i < predicate.children.size() && acc != settled; ++i) {
    acc = scan::CombineSets(acc, ZoneOutcomes(predicate.children[i], rows, zone), is_and);
  }
  return acc;
}

bool PredicateRowFilter::MayMatch(const RowBatch& rows, const ZoneMap& zone) const {
  internal::ZoneColumns& columns = zone.Columns(static_cast<int>(type_of_column_.size()));
  return (ZoneOutcomes(*predicate_, *rows.rows, columns) & scan::kTrue) != 0;
}

}  // namespace freshet::realtime
