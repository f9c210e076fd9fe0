#include "write/row_kinds.h"

#include <arrow/api.h>

#include <string>
#include <string_view>

#include "common/arrow_status.h"

namespace freshet::write {

namespace {

std::optional<RowKind> ParseShortString(std::string_view text) {
  for (RowKind kind :
       {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete}) {
    if (text == RowKindShortString(kind)) return kind;
  }
  return std::nullopt;
}

Status BadKind(const std::string& column, int64_t row, const std::string& what) {
  return Status::Invalid("row kind column '", column, "' has ", what, " in row ", row,
                         " (row kinds are +I, -U, +U, -D",
                         column == kRowKindColumn ? ", or int8 0 to 3)" : ")");
}

Result<std::vector<RowKind>> KindsFromStrings(const arrow::StringArray& array,
                                              const std::string& column) {
  std::vector<RowKind> kinds(static_cast<size_t>(array.length()));
  for (int64_t row = 0; row < array.length(); ++row) {
    if (array.IsNull(row)) return BadKind(column, row, "a null");
    std::optional<RowKind> kind = ParseShortString(array.GetView(row));
    if (!kind) return BadKind(column, row, "'" + std::string(array.GetView(row)) + "'");
    kinds[static_cast<size_t>(row)] = *kind;
  }
  return kinds;
}

Result<std::vector<RowKind>> KindsFromBytes(const arrow::Int8Array& array,
                                            const std::string& column) {
  std::vector<RowKind> kinds(static_cast<size_t>(array.length()));
  for (int64_t row = 0; row < array.length(); ++row) {
    if (array.IsNull(row)) return BadKind(column, row, "a null");
    int8_t value = array.Value(row);
    if (value < 0 || value > 3) return BadKind(column, row, std::to_string(value));
    kinds[static_cast<size_t>(row)] = static_cast<RowKind>(value);
  }
  return kinds;
}

Result<std::vector<RowKind>> KindsOf(const arrow::Array& array, const std::string& column) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
      return KindsFromStrings(static_cast<const arrow::StringArray&>(array), column);
    case arrow::Type::INT8:
      if (column == kRowKindColumn) {
        return KindsFromBytes(static_cast<const arrow::Int8Array&>(array), column);
      }
      break;
    default:
      break;
  }
  return Status::Invalid(
      "row kind column '", column, "' has type ", array.type()->ToString(),
      column == kRowKindColumn ? ", expected int8 or utf8" : ", expected a string");
}

}  // namespace

Result<RowKindExtractor> RowKindExtractor::Make(const meta::TableSchema& schema) {
  RowKindExtractor extractor;
  extractor.table_has_row_kind_name_ = schema.FieldIndex(kRowKindColumn) >= 0;
  if (auto name = schema.option("rowkind.field")) {
    int index = schema.FieldIndex(*name);
    if (index < 0) {
      return Status::Invalid("table option 'rowkind.field' names '", *name,
                             "', which is not a column of the table");
    }
    extractor.kind_field_ = index;
  }
  return extractor;
}

bool RowKindExtractor::HasRowKindColumn(const arrow::Schema& batch) const {
  return !table_has_row_kind_name_ && batch.GetFieldIndex(kRowKindColumn) >= 0;
}

Result<KindedBatch> RowKindExtractor::Extract(const arrow::RecordBatch& batch) const {
  KindedBatch out;
  int column =
      HasRowKindColumn(*batch.schema()) ? batch.schema()->GetFieldIndex(kRowKindColumn) : -1;
  if (column >= 0 && kind_field_) {
    return Status::Invalid("the batch has a '", kRowKindColumn,
                           "' column and the table option 'rowkind.field' is set: give the row "
                           "kinds one way only");
  }
  if (column >= 0) {
    FRESHET_ASSIGN_OR_RETURN(out.kinds, KindsOf(*batch.column(column), kRowKindColumn));
    FRESHET_ASSIGN_OR_RETURN_ARROW(out.rows, batch.RemoveColumn(column));
    return out;
  }
  // A copy of the shared_ptrs only: the caller's batch stays untouched.
  out.rows = arrow::RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns());
  if (kind_field_) {
    if (*kind_field_ >= batch.num_columns()) {
      return Status::Invalid("the batch has ", batch.num_columns(), " columns, too few for the '",
                             "rowkind.field' column");
    }
    FRESHET_ASSIGN_OR_RETURN(out.kinds, KindsOf(*batch.column(*kind_field_),
                                                batch.schema()->field(*kind_field_)->name()));
  } else {
    out.kinds.assign(static_cast<size_t>(batch.num_rows()), RowKind::kInsert);
  }
  return out;
}

}  // namespace freshet::write
