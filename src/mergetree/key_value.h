// The key-value layout of primary-key tables: the physical file schema Java writes, and the
// in-memory layout every merge in freshet works on.
//
// A primary-key data file holds, in this order: `_KEY_<k>` for each trimmed primary-key column
// (id 1073741823 + the column's id), `_SEQUENCE_NUMBER` BIGINT NOT NULL, `_VALUE_KIND` TINYINT
// NOT NULL (the RowKind byte), then every table column. Each file is one sorted run: sorted by key
// and holding at most one record per key.
//
// Merges never read the `_KEY_` columns: the key is the primary-key value columns themselves
// (Java >= 1.0 does the same, which is what makes `data-file.thin-mode` files readable). A
// MergeLayout is therefore "some value columns, then _SEQUENCE_NUMBER, then _VALUE_KIND".
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "freshet/row_kind.h"
#include "meta/schema/table_schema.h"

namespace freshet::mergetree {

inline constexpr int32_t kKeyFieldIdOffset = 1073741823;  // Integer.MAX_VALUE / 2
inline constexpr int32_t kSequenceNumberFieldId = 2147483646;
inline constexpr int32_t kValueKindFieldId = 2147483645;
inline constexpr char kKeyFieldPrefix[] = "_KEY_";
inline constexpr char kSequenceNumberFieldName[] = "_SEQUENCE_NUMBER";
inline constexpr char kValueKindFieldName[] = "_VALUE_KIND";

meta::DataField SequenceNumberField();
meta::DataField ValueKindField();

// The fields of a primary-key data file of `schema`, in file order.
std::vector<meta::DataField> KeyValueFileFields(const meta::TableSchema& schema);

// Whether a row kind retracts (-U, -D): such records are dropped from batch read results.
inline bool IsRetract(RowKind kind) {
  return kind == RowKind::kUpdateBefore || kind == RowKind::kDelete;
}

// Columns of a merge: value fields (a subset of the table's fields, in any order, always holding
// the trimmed primary key and the `sequence.field` columns), then _SEQUENCE_NUMBER, _VALUE_KIND.
class MergeLayout {
 public:
  // `key_names`: the trimmed primary key, in key order. `sequence_field_names`: the table's
  // `sequence.field` columns (may be empty). Every name must be one of `value_fields`.
  // `sequence_descending`: `sequence.field.sort-order` = descending.
  static Result<MergeLayout> Make(std::vector<meta::DataField> value_fields,
                                  const std::vector<std::string>& key_names,
                                  const std::vector<std::string>& sequence_field_names,
                                  bool sequence_descending = false);

  const std::vector<meta::DataField>& value_fields() const { return value_fields_; }
  // Value fields + _SEQUENCE_NUMBER + _VALUE_KIND: what files are read with.
  std::vector<meta::DataField> AllFields() const;
  const std::shared_ptr<arrow::Schema>& arrow_schema() const { return arrow_schema_; }
  int num_value_fields() const { return static_cast<int>(value_fields_.size()); }
  int sequence_column() const { return num_value_fields(); }
  int kind_column() const { return num_value_fields() + 1; }
  // Column indices of the key fields, in key order.
  const std::vector<int>& key_columns() const { return key_columns_; }
  // Column indices of the `sequence.field` columns, in option order.
  const std::vector<int>& user_sequence_columns() const { return user_sequence_columns_; }
  // One flag per user sequence column (all equal: the option is table-wide).
  std::vector<bool> user_sequence_descending() const {
    return std::vector<bool>(user_sequence_columns_.size(), sequence_descending_);
  }
  // Index of value field `name`, or -1.
  int FieldIndex(const std::string& name) const;

 private:
  std::vector<meta::DataField> value_fields_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  std::vector<int> key_columns_;
  std::vector<int> user_sequence_columns_;
  bool sequence_descending_ = false;
};

// A record batch in a MergeLayout, with direct access to its arrays (merges touch them per row:
// RecordBatch::column() would copy a shared_ptr each time).
class MergeBatch : public std::enable_shared_from_this<MergeBatch> {
 public:
  // `batch` must have the layout's Arrow schema (types checked; Invalid otherwise). Nulls in
  // _SEQUENCE_NUMBER / _VALUE_KIND and kinds outside 0..3 are Corruption.
  static Result<std::shared_ptr<MergeBatch>> Make(std::shared_ptr<arrow::RecordBatch> batch,
                                                  const MergeLayout& layout);

  const std::shared_ptr<arrow::RecordBatch>& batch() const { return batch_; }
  int64_t num_rows() const { return num_rows_; }
  const arrow::Array& column(int i) const { return *arrays_[static_cast<size_t>(i)]; }
  int64_t sequence(int64_t row) const { return sequences_[row]; }
  RowKind kind(int64_t row) const { return static_cast<RowKind>(kinds_[row]); }

 private:
  MergeBatch() = default;
  std::shared_ptr<arrow::RecordBatch> batch_;
  std::vector<const arrow::Array*> arrays_;
  int64_t num_rows_ = 0;
  const int64_t* sequences_ = nullptr;
  const int8_t* kinds_ = nullptr;
};

// One record (one version of a key) inside a MergeBatch.
struct KeyValueRef {
  const MergeBatch* batch = nullptr;
  int64_t row = 0;

  int64_t sequence() const { return batch->sequence(row); }
  RowKind kind() const { return batch->kind(row); }
  const arrow::Array& column(int i) const { return batch->column(i); }
};

}  // namespace freshet::mergetree
