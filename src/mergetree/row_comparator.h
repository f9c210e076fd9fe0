// RowComparator: orders records of MergeBatches by some of their columns, as Java compares keys
// (docs/paimon-format.md §7.4): field by field, nulls first, integers/dates/times numerically,
// FLOAT/DOUBLE as Float.compare/Double.compare (-0.0 < 0.0, NaN largest), strings and binaries
// unsigned byte-wise then by length, decimals and timestamps numerically, booleans false < true.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <vector>

#include "freshet/result.h"
#include "mergetree/key_value.h"

namespace freshet::mergetree {

// Compares element `a_row` of `a` with element `b_row` of `b` (arrays of one Arrow type), in
// Java's order, nulls first.
using ElementCompare = int (*)(const arrow::Array& a, int64_t a_row, const arrow::Array& b,
                               int64_t b_row);
// NotImplemented for nested types (Java cannot order them).
Result<ElementCompare> ElementCompareFor(const arrow::DataType& type);

class RowComparator {
 public:
  // Compares by `columns` of `schema` (a MergeLayout's Arrow schema), each ascending unless
  // `descending` says otherwise (empty = all ascending; nulls come first either way).
  // NotImplemented for nested types.
  static Result<RowComparator> Make(const arrow::Schema& schema, std::vector<int> columns,
                                    std::vector<bool> descending = {});

  // <0, 0, >0.
  int Compare(const MergeBatch& a, int64_t a_row, const MergeBatch& b, int64_t b_row) const;
  int Compare(const KeyValueRef& a, const KeyValueRef& b) const {
    return Compare(*a.batch, a.row, *b.batch, b.row);
  }
  bool empty() const { return columns_.empty(); }

  // For a comparison by one ascending column of 32- or 64-bit signed integers (INT, DATE, TIME,
  // BIGINT, TIMESTAMP): that column and its width in bytes, so that a merge can keep the values
  // and compare them directly. Width 0 otherwise.
  int integer_column() const { return columns_.empty() ? -1 : columns_[0].index; }
  int integer_width() const { return integer_width_; }

 private:
  struct Column {
    int index;
    bool descending;
    ElementCompare compare;
  };
  std::vector<Column> columns_;
  int integer_width_ = 0;
};

}  // namespace freshet::mergetree
