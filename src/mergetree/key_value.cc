#include "mergetree/key_value.h"

#include <arrow/api.h>

#include "bridge/arrow_schema.h"

namespace freshet::mergetree {

meta::DataField SequenceNumberField() {
  return meta::DataField{kSequenceNumberFieldId, kSequenceNumberFieldName,
                         meta::DataType::BigInt(false), std::nullopt, std::nullopt};
}

meta::DataField ValueKindField() {
  return meta::DataField{kValueKindFieldId, kValueKindFieldName, meta::DataType::TinyInt(false),
                         std::nullopt, std::nullopt};
}

std::vector<meta::DataField> KeyValueFileFields(const meta::TableSchema& schema) {
  std::vector<meta::DataField> fields;
  for (const std::string& key : schema.TrimmedPrimaryKeys()) {
    meta::DataField field = schema.fields()[static_cast<size_t>(schema.FieldIndex(key))];
    field.id += kKeyFieldIdOffset;
    field.name = kKeyFieldPrefix + field.name;
    field.description.reset();
    field.default_value.reset();
    fields.push_back(std::move(field));
  }
  fields.push_back(SequenceNumberField());
  fields.push_back(ValueKindField());
  fields.insert(fields.end(), schema.fields().begin(), schema.fields().end());
  return fields;
}

Result<MergeLayout> MergeLayout::Make(std::vector<meta::DataField> value_fields,
                                      const std::vector<std::string>& key_names,
                                      const std::vector<std::string>& sequence_field_names,
                                      bool sequence_descending) {
  MergeLayout layout;
  layout.sequence_descending_ = sequence_descending;
  layout.value_fields_ = std::move(value_fields);
  auto column_of = [&](const std::string& name, const char* what) -> Result<int> {
    int index = layout.FieldIndex(name);
    if (index < 0) return Status::Invalid(what, " column '", name, "' is not a read column");
    return index;
  };
  for (const std::string& name : key_names) {
    FRESHET_ASSIGN_OR_RETURN(int index, column_of(name, "primary-key"));
    layout.key_columns_.push_back(index);
  }
  for (const std::string& name : sequence_field_names) {
    FRESHET_ASSIGN_OR_RETURN(int index, column_of(name, "sequence.field"));
    layout.user_sequence_columns_.push_back(index);
  }
  FRESHET_ASSIGN_OR_RETURN(layout.arrow_schema_, bridge::ToArrowSchema(layout.AllFields()));
  return layout;
}

std::vector<meta::DataField> MergeLayout::AllFields() const {
  std::vector<meta::DataField> fields = value_fields_;
  fields.push_back(SequenceNumberField());
  fields.push_back(ValueKindField());
  return fields;
}

int MergeLayout::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < value_fields_.size(); ++i) {
    if (value_fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Result<std::shared_ptr<MergeBatch>> MergeBatch::Make(std::shared_ptr<arrow::RecordBatch> batch,
                                                     const MergeLayout& layout) {
  const arrow::Schema& expected = *layout.arrow_schema();
  if (batch->num_columns() != expected.num_fields()) {
    return Status::Invalid("a key-value batch has ", batch->num_columns(), " columns, expected ",
                           expected.num_fields());
  }
  for (int i = 0; i < expected.num_fields(); ++i) {
    if (!batch->column(i)->type()->Equals(*expected.field(i)->type())) {
      return Status::Invalid("key-value column '", expected.field(i)->name(), "' has type ",
                             batch->column(i)->type()->ToString(), ", expected ",
                             expected.field(i)->type()->ToString());
    }
  }
  const auto& sequences = *batch->column(layout.sequence_column());
  const auto& kinds = *batch->column(layout.kind_column());
  if (sequences.null_count() > 0 || kinds.null_count() > 0) {
    return Status::Corruption("a key-value record has a null ", kSequenceNumberFieldName, " or ",
                              kValueKindFieldName);
  }
  std::shared_ptr<MergeBatch> merge_batch(new MergeBatch());
  merge_batch->num_rows_ = batch->num_rows();
  merge_batch->sequences_ = static_cast<const arrow::Int64Array&>(sequences).raw_values();
  merge_batch->kinds_ = static_cast<const arrow::Int8Array&>(kinds).raw_values();
  for (int64_t row = 0; row < batch->num_rows(); ++row) {
    int8_t kind = merge_batch->kinds_[row];
    if (kind < 0 || kind > 3) {
      return Status::Corruption("a key-value record has ", kValueKindFieldName, " ",
                                static_cast<int>(kind), " (row kinds are 0 to 3)");
    }
  }
  for (int i = 0; i < batch->num_columns(); ++i) {
    merge_batch->arrays_.push_back(batch->column(i).get());
  }
  merge_batch->batch_ = std::move(batch);
  return merge_batch;
}

}  // namespace freshet::mergetree
