#include "realtime/records.h"

#include <arrow/api.h>

#include <vector>

#include "common/arrow_status.h"

namespace freshet::realtime {

Result<std::shared_ptr<mergetree::MergeBatch>> AsRecords(const RowBatch& rows,
                                                         const mergetree::MergeLayout& layout) {
  if (rows.sequence_numbers == nullptr) {
    return Status::Internal("primary-key rows without sequence numbers in the real-time layer");
  }
  if (rows.rows->num_columns() != layout.num_value_fields()) {
    return Status::Internal("real-time rows have ", rows.rows->num_columns(),
                            " columns, the merge ", layout.num_value_fields());
  }
  std::vector<std::shared_ptr<arrow::Array>> columns = rows.rows->columns();
  columns.push_back(rows.sequence_numbers);
  if (rows.row_kinds) {
    columns.push_back(rows.row_kinds);
  } else {
    std::vector<int8_t> inserts(static_cast<size_t>(rows.num_rows()), 0);
    arrow::Int8Builder builder;
    FRESHET_RETURN_NOT_OK_ARROW(builder.AppendValues(inserts));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto kinds, builder.Finish());
    columns.push_back(std::move(kinds));
  }
  return mergetree::MergeBatch::Make(
      arrow::RecordBatch::Make(layout.arrow_schema(), rows.num_rows(), std::move(columns)), layout);
}

}  // namespace freshet::realtime
