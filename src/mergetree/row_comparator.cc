#include "mergetree/row_comparator.h"

#include <arrow/api.h>
#include <arrow/util/bit_util.h>

#include "meta/row/value_compare.h"

namespace freshet::mergetree {

namespace {

// Whether element `row` is null. Every type ordered here keeps its nulls in a validity bitmap
// (no unions or run-end encoding), so an array without one has no nulls: this skips the type
// dispatch Array::IsNull does then, which merges pay per comparison.
inline bool IsNullInBitmap(const arrow::Array& array, int64_t row) {
  const uint8_t* bits = array.null_bitmap_data();
  return bits != nullptr && !arrow::bit_util::GetBit(bits, row + array.offset());
}

// Nulls first; then `compare_values` on two non-null elements.
template <typename ArrayType,
          int (*compare_values)(const ArrayType&, int64_t, const ArrayType&, int64_t)>
int WithNulls(const arrow::Array& a, int64_t a_row, const arrow::Array& b, int64_t b_row) {
  bool a_null = IsNullInBitmap(a, a_row);
  bool b_null = IsNullInBitmap(b, b_row);
  if (a_null || b_null) return a_null == b_null ? 0 : (a_null ? -1 : 1);
  return compare_values(static_cast<const ArrayType&>(a), a_row, static_cast<const ArrayType&>(b),
                        b_row);
}

template <typename ArrayType>
int Numeric(const ArrayType& a, int64_t a_row, const ArrayType& b, int64_t b_row) {
  return meta::CompareThreeWay(a.Value(a_row), b.Value(b_row));
}

template <typename ArrayType>
int Floating(const ArrayType& a, int64_t a_row, const ArrayType& b, int64_t b_row) {
  return meta::JavaCompareFloating(a.Value(a_row), b.Value(b_row));
}

// Unsigned byte-wise, then by length (std::string_view::compare is memcmp-based).
template <typename ArrayType>
int Bytes(const ArrayType& a, int64_t a_row, const ArrayType& b, int64_t b_row) {
  int c = a.GetView(a_row).compare(b.GetView(b_row));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int Decimal(const arrow::Decimal128Array& a, int64_t a_row, const arrow::Decimal128Array& b,
            int64_t b_row) {
  arrow::Decimal128 x(a.GetValue(a_row));
  arrow::Decimal128 y(b.GetValue(b_row));
  return x < y ? -1 : (y < x ? 1 : 0);
}

}  // namespace

Result<ElementCompare> ElementCompareFor(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return &WithNulls<arrow::BooleanArray, Numeric<arrow::BooleanArray>>;
    case arrow::Type::INT8:
      return &WithNulls<arrow::Int8Array, Numeric<arrow::Int8Array>>;
    case arrow::Type::INT16:
      return &WithNulls<arrow::Int16Array, Numeric<arrow::Int16Array>>;
    case arrow::Type::INT32:
      return &WithNulls<arrow::Int32Array, Numeric<arrow::Int32Array>>;
    case arrow::Type::DATE32:
      return &WithNulls<arrow::Date32Array, Numeric<arrow::Date32Array>>;
    case arrow::Type::TIME32:
      return &WithNulls<arrow::Time32Array, Numeric<arrow::Time32Array>>;
    case arrow::Type::INT64:
      return &WithNulls<arrow::Int64Array, Numeric<arrow::Int64Array>>;
    case arrow::Type::TIMESTAMP:  // one unit per column, so the raw count orders
      return &WithNulls<arrow::TimestampArray, Numeric<arrow::TimestampArray>>;
    case arrow::Type::FLOAT:
      return &WithNulls<arrow::FloatArray, Floating<arrow::FloatArray>>;
    case arrow::Type::DOUBLE:
      return &WithNulls<arrow::DoubleArray, Floating<arrow::DoubleArray>>;
    case arrow::Type::STRING:
      return &WithNulls<arrow::StringArray, Bytes<arrow::StringArray>>;
    case arrow::Type::BINARY:
      return &WithNulls<arrow::BinaryArray, Bytes<arrow::BinaryArray>>;
    case arrow::Type::DECIMAL128:
      return &WithNulls<arrow::Decimal128Array, Decimal>;
    default:
      return Status::NotImplemented("ordering values of Arrow type ", type.ToString());
  }
}

namespace {
// The width of the types whose elements compare as signed integers (Numeric above), else 0.
int SignedIntegerWidth(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      return 4;
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return 8;
    default:
      return 0;
  }
}
}  // namespace

Result<RowComparator> RowComparator::Make(const arrow::Schema& schema, std::vector<int> columns,
                                          std::vector<bool> descending) {
  RowComparator comparator;
  for (size_t i = 0; i < columns.size(); ++i) {
    int index = columns[i];
    if (index < 0 || index >= schema.num_fields()) {
      return Status::Invalid("comparator column ", index, " is out of range");
    }
    FRESHET_ASSIGN_OR_RETURN(ElementCompare compare,
                             ElementCompareFor(*schema.field(index)->type()));
    bool desc = i < descending.size() && descending[i];
    comparator.columns_.push_back(Column{index, desc, compare});
  }
  if (columns.size() == 1 && !comparator.columns_[0].descending) {
    comparator.integer_width_ = SignedIntegerWidth(schema.field(columns[0])->type()->id());
  }
  return comparator;
}

int RowComparator::Compare(const MergeBatch& a, int64_t a_row, const MergeBatch& b,
                           int64_t b_row) const {
  for (const Column& column : columns_) {
    const arrow::Array& x = a.column(column.index);
    const arrow::Array& y = b.column(column.index);
    int c = column.compare(x, a_row, y, b_row);
    if (c == 0) continue;
    // Descending reverses the values only: nulls stay first, as in Java's comparator.
    if (column.descending && !IsNullInBitmap(x, a_row) && !IsNullInBitmap(y, b_row)) return -c;
    return c;
  }
  return 0;
}

}  // namespace freshet::mergetree
