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

 private:
  struct Column {
    int index;
    bool descending;
    ElementCompare compare;
  };
  std::vector<Column> columns_;
};

}  // namespace freshet::mergetree
