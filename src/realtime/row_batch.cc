// RowBatch: rows of one partition-bucket with their offsets
// (include/freshet/realtime/mem_indexer.h).
#include <arrow/api.h>

#include <algorithm>

#include "freshet/realtime/mem_indexer.h"

namespace freshet::realtime {

namespace {

template <typename ArrayType>
std::shared_ptr<ArrayType> SliceOrNull(const std::shared_ptr<ArrayType>& array, int64_t offset,
                                       int64_t length) {
  if (array == nullptr) return nullptr;
  return std::static_pointer_cast<ArrayType>(array->Slice(offset, length));
}

}  // namespace

int64_t RowBatch::num_rows() const { return rows == nullptr ? 0 : rows->num_rows(); }

int64_t RowBatch::OffsetAt(int64_t row) const {
  return offsets == nullptr ? first_offset + row : offsets->Value(row);
}

int64_t RowBatch::EndOffset() const {
  int64_t n = num_rows();
  return n == 0 ? first_offset : OffsetAt(n - 1) + 1;
}

RowBatch RowBatch::Slice(int64_t offset, int64_t length) const {
  // Clamped like arrow::Array::Slice, so that a slice past the end is empty rather than invalid.
  int64_t n = num_rows();
  offset = std::clamp<int64_t>(offset, 0, n);
  length = std::clamp<int64_t>(length, 0, n - offset);
  RowBatch out;
  out.rows = rows == nullptr ? nullptr : rows->Slice(offset, length);
  // An empty slice keeps first_offset meaningful: the offset where its rows would have started.
  out.first_offset = offset < n ? OffsetAt(offset) : EndOffset();
  out.offsets = SliceOrNull(offsets, offset, length);
  out.row_kinds = SliceOrNull(row_kinds, offset, length);
  out.sequence_numbers = SliceOrNull(sequence_numbers, offset, length);
  return out;
}

int64_t RowBatch::LowerBound(int64_t offset) const {
  int64_t n = num_rows();
  if (offsets == nullptr) return std::clamp<int64_t>(offset - first_offset, 0, n);
  const int64_t* values = offsets->raw_values();
  return std::lower_bound(values, values + n, offset) - values;
}

}  // namespace freshet::realtime
