// The row kind (+I, -U, +U, -D) of every row written to a primary-key table.
//
// A batch says it in one of two ways: an extra column `_ROW_KIND` (int8 0..3, or utf8 "+I",
// "-U", "+U", "-D"), or the table option `rowkind.field` naming a string column of the table
// (as Java's RowKindGenerator reads it). Without either, every row is an insert.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "freshet/result.h"
#include "freshet/row_kind.h"
#include "meta/schema/table_schema.h"

namespace freshet::write {

inline constexpr char kRowKindColumn[] = "_ROW_KIND";

struct KindedBatch {
  std::shared_ptr<arrow::RecordBatch> rows;  // the table's columns (without `_ROW_KIND`)
  std::vector<RowKind> kinds;                // one per row
};

class RowKindExtractor {
 public:
  // Invalid when `rowkind.field` names no column of the table.
  static Result<RowKindExtractor> Make(const meta::TableSchema& schema);

  // Errors (Invalid, naming the column and the row): `_ROW_KIND` of another type, a null or
  // unknown kind, both `_ROW_KIND` and `rowkind.field`.
  Result<KindedBatch> Extract(const arrow::RecordBatch& batch) const;

  // Whether `batch` carries the `_ROW_KIND` column (the table has no column of that name).
  bool HasRowKindColumn(const arrow::Schema& batch) const;

 private:
  RowKindExtractor() = default;

  bool table_has_row_kind_name_ = false;
  std::optional<int> kind_field_;  // `rowkind.field`: index of the table column
};

}  // namespace freshet::write
