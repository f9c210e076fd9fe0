#include "realtime/key_order.h"

#include <arrow/api.h>

#include <string_view>
#include <vector>

#include "mergetree/merge_function.h"
#include "mergetree/row_comparator.h"
#include "meta/row/value_compare.h"

namespace freshet::realtime {

namespace {

// Compares elements of two ArrayData of one type. The arrays come as ArrayData because
// RecordBatch::column() takes a lock (atomic shared_ptr load) on every call, and sorts compare
// millions of times; column_data() is a plain reference.
using DataCompare = int (*)(const arrow::ArrayData& a, int64_t a_row, const arrow::ArrayData& b,
                            int64_t b_row);

// Nulls first, as mergetree::RowComparator.
inline int NullOrder(const arrow::ArrayData& a, int64_t a_row, const arrow::ArrayData& b,
                     int64_t b_row, bool* decided) {
  bool a_null = a.IsNull(a_row);
  bool b_null = b.IsNull(b_row);
  *decided = a_null || b_null;
  return a_null == b_null ? 0 : (a_null ? -1 : 1);
}

template <typename T, bool kFloating>
int FixedWidth(const arrow::ArrayData& a, int64_t a_row, const arrow::ArrayData& b, int64_t b_row) {
  bool decided = false;
  int c = NullOrder(a, a_row, b, b_row, &decided);
  if (decided) return c;
  T x = a.GetValues<T>(1)[a_row];
  T y = b.GetValues<T>(1)[b_row];
  if constexpr (kFloating) {
    return meta::JavaCompareFloating(x, y);
  } else {
    return meta::CompareThreeWay(x, y);
  }
}

template <typename Offset>
std::string_view BytesAt(const arrow::ArrayData& data, int64_t row) {
  const Offset* offsets = data.GetValues<Offset>(1);
  const char* bytes = reinterpret_cast<const char*>(data.buffers[2]->data());
  return std::string_view(bytes + offsets[row],
                          static_cast<size_t>(offsets[row + 1] - offsets[row]));
}

// Unsigned byte-wise, then by length.
template <typename Offset>
int Bytes(const arrow::ArrayData& a, int64_t a_row, const arrow::ArrayData& b, int64_t b_row) {
  bool decided = false;
  int c = NullOrder(a, a_row, b, b_row, &decided);
  if (decided) return c;
  c = BytesAt<Offset>(a, a_row).compare(BytesAt<Offset>(b, b_row));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// The fast comparison of `type`, or null (then the boxed mergetree::ElementCompare is used).
DataCompare DataCompareFor(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
      return &FixedWidth<int8_t, false>;
    case arrow::Type::INT16:
      return &FixedWidth<int16_t, false>;
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      return &FixedWidth<int32_t, false>;
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return &FixedWidth<int64_t, false>;
    case arrow::Type::FLOAT:
      return &FixedWidth<float, true>;
    case arrow::Type::DOUBLE:
      return &FixedWidth<double, true>;
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return &Bytes<int32_t>;
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return &Bytes<int64_t>;
    default:
      return nullptr;
  }
}

class TableKeyOrder final : public KeyOrder {
 public:
  struct Column {
    int index;  // table column
    bool descending;
    DataCompare fast;  // null: use `compare` on boxed arrays
    mergetree::ElementCompare compare;
  };

  TableKeyOrder(std::vector<Column> keys, std::vector<Column> user_sequence)
      : keys_(std::move(keys)), user_sequence_(std::move(user_sequence)) {}

  int Compare(const RowBatch& x, int64_t a, const RowBatch& y, int64_t b) const override {
    int c = CompareColumns(keys_, x, a, y, b);
    if (c == 0) c = CompareColumns(user_sequence_, x, a, y, b);
    if (c != 0) return c;
    int64_t sa = x.sequence_numbers ? x.sequence_numbers->Value(a) : 0;
    int64_t sb = y.sequence_numbers ? y.sequence_numbers->Value(b) : 0;
    return sa < sb ? -1 : (sa > sb ? 1 : 0);
  }

  int CompareKeys(const RowBatch& x, int64_t a, const RowBatch& y, int64_t b) const override {
    return CompareColumns(keys_, x, a, y, b);
  }

 private:
  static int CompareColumns(const std::vector<Column>& columns, const RowBatch& x, int64_t a,
                            const RowBatch& y, int64_t b) {
    for (const Column& column : columns) {
      int c;
      if (column.fast) {
        c = column.fast(*x.rows->column_data()[static_cast<size_t>(column.index)], a,
                        *y.rows->column_data()[static_cast<size_t>(column.index)], b);
      } else {
        c = column.compare(*x.rows->column(column.index), a, *y.rows->column(column.index), b);
      }
      if (c == 0) continue;
      if (!column.descending) return c;
      // Nulls come first in either direction.
      const auto idx = static_cast<size_t>(column.index);
      bool a_null = x.rows->column_data()[idx]->IsNull(a);
      bool b_null = y.rows->column_data()[idx]->IsNull(b);
      return a_null || b_null ? c : -c;
    }
    return 0;
  }

  std::vector<Column> keys_;
  std::vector<Column> user_sequence_;
};

}  // namespace

Result<std::shared_ptr<const KeyOrder>> MakeKeyOrder(const meta::TableSchema& schema) {
  // Over every field in table order, so that layout columns are table columns.
  FRESHET_ASSIGN_OR_RETURN(mergetree::MergeLayout layout,
                           mergetree::MakeMergeLayout(schema, schema.fields()));
  const arrow::Schema& arrow_schema = *layout.arrow_schema();
  auto columns =
      [&](const std::vector<int>& indices,
          const std::vector<bool>& descending) -> Result<std::vector<TableKeyOrder::Column>> {
    std::vector<TableKeyOrder::Column> out;
    for (size_t i = 0; i < indices.size(); ++i) {
      FRESHET_ASSIGN_OR_RETURN(
          auto compare, mergetree::ElementCompareFor(*arrow_schema.field(indices[i])->type()));
      const arrow::DataType& type = *arrow_schema.field(indices[i])->type();
      out.push_back(
          {indices[i], i < descending.size() && descending[i], DataCompareFor(type), compare});
    }
    return out;
  };
  FRESHET_ASSIGN_OR_RETURN(auto keys, columns(layout.key_columns(), {}));
  FRESHET_ASSIGN_OR_RETURN(auto user_sequence, columns(layout.user_sequence_columns(),
                                                       layout.user_sequence_descending()));
  return std::shared_ptr<const KeyOrder>(
      std::make_shared<TableKeyOrder>(std::move(keys), std::move(user_sequence)));
}

}  // namespace freshet::realtime
