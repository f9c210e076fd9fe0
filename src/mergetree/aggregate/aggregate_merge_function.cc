// The aggregation merge engine: every value column folds the versions of a key with its
// aggregate function (fields.<f>.aggregate-function, else fields.default-aggregate-function,
// else last_non_null_value); primary-key columns keep the input, `sequence.field` columns take
// the last value. -U/-D versions retract from each column, or with
// aggregation.remove-record-on-delete a -D removes the whole record.
#include <arrow/api.h>

#include <algorithm>

#include "mergetree/aggregate/field_aggregator.h"
#include "mergetree/merge_function.h"
#include "meta/options/option_registry.h"

namespace freshet::mergetree {

namespace {

using aggregate::FieldAggregator;
using aggregate::IsNull;

class AggregateMergeFunction : public MergeFunction {
 public:
  AggregateMergeFunction(std::vector<std::unique_ptr<FieldAggregator>> aggregators,
                         std::vector<meta::DataField> fields, bool remove_on_delete)
      : aggregators_(std::move(aggregators)),
        fields_(std::move(fields)),
        remove_on_delete_(remove_on_delete),
        row_(fields_.size()) {}

  void Reset() override {
    latest_.reset();
    std::fill(row_.begin(), row_.end(), FieldValue::Null());
    for (auto& aggregator : aggregators_) aggregator->Reset();
    delete_row_ = false;
  }

  Status Add(const KeyValueRef& kv) override {
    latest_ = kv;
    delete_row_ = remove_on_delete_ && kv.kind() == RowKind::kDelete;
    if (delete_row_) return InitRow(kv);
    bool retract = IsRetract(kv.kind());
    for (size_t i = 0; i < row_.size(); ++i) {
      FieldValue input = aggregate::ElementOf(kv, static_cast<int>(i));
      FRESHET_ASSIGN_OR_RETURN(row_[i], retract ? aggregators_[i]->Retract(row_[i], input)
                                                : aggregators_[i]->Agg(row_[i], input));
    }
    return Status::OK();
  }

  Status Finish(MergedRowSink* sink) override {
    if (!latest_) return Status::OK();
    return sink->AppendFields(row_, latest_->sequence(),
                              delete_row_ ? RowKind::kDelete : RowKind::kInsert);
  }

 private:
  // The removed record keeps the delete's values (what Java emits).
  Status InitRow(const KeyValueRef& kv) {
    for (size_t i = 0; i < row_.size(); ++i) {
      row_[i] = aggregate::ElementOf(kv, static_cast<int>(i));
      if (IsNull(row_[i]) && !fields_[i].type->nullable()) {
        return Status::Invalid("column '", fields_[i].name, "' can not be null");
      }
    }
    return Status::OK();
  }

  std::vector<std::unique_ptr<FieldAggregator>> aggregators_;
  const std::vector<meta::DataField> fields_;
  const bool remove_on_delete_;
  std::vector<FieldValue> row_;
  std::optional<KeyValueRef> latest_;
  bool delete_row_ = false;
};

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Result<std::unique_ptr<MergeFunction>> MakeAggregationFunction(const meta::TableSchema& schema,
                                                               const MergeLayout& layout) {
  const meta::Options& options = schema.options();
  FRESHET_ASSIGN_OR_RETURN(bool remove_on_delete,
                           meta::GetBoolOption(options, "aggregation.remove-record-on-delete"));
  std::vector<std::string> sequence_fields;
  for (int column : layout.user_sequence_columns()) {
    sequence_fields.push_back(layout.value_fields()[static_cast<size_t>(column)].name);
  }
  std::vector<std::unique_ptr<FieldAggregator>> aggregators;
  std::vector<meta::DataField> fields;
  for (int i = 0; i < layout.num_value_fields(); ++i) {
    const meta::DataField& field = layout.value_fields()[static_cast<size_t>(i)];
    aggregate::FieldContext context{&options, &field, i, layout.arrow_schema()->field(i)->type(),
                                    ""};
    std::string function;
    if (Contains(sequence_fields, field.name)) {
      function = aggregate::kLastValueFunction;
    } else if (Contains(schema.primary_keys(), field.name)) {
      function = aggregate::kPrimaryKeyFunction;
    } else {
      FRESHET_ASSIGN_OR_RETURN(
          function, aggregate::ConfiguredFunction(options, field.name, &context.option_key));
      if (function.empty()) function = aggregate::kLastNonNullValueFunction;
    }
    FRESHET_ASSIGN_OR_RETURN(auto aggregator, aggregate::MakeFieldAggregator(function, context));
    aggregators.push_back(std::move(aggregator));
    fields.push_back(field);
  }
  return std::unique_ptr<MergeFunction>(
      new AggregateMergeFunction(std::move(aggregators), std::move(fields), remove_on_delete));
}

}  // namespace freshet::mergetree
