#include "realtime/key_order.h"

#include <arrow/api.h>

#include <vector>

#include "mergetree/merge_function.h"
#include "mergetree/row_comparator.h"

namespace freshet::realtime {

namespace {

class TableKeyOrder final : public KeyOrder {
 public:
  struct Column {
    int index;  // table column
    bool descending;
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
      int c = column.compare(*x.rows->column(column.index), a, *y.rows->column(column.index), b);
      if (c != 0) return column.descending ? -c : c;
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
      out.push_back({indices[i], i < descending.size() && descending[i], compare});
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
