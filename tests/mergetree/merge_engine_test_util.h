// Test harness of the partial-update and aggregation engines: a table schema from its columns,
// the versions of one key as JSON rows, the merged record as text.
#pragma once

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mergetree/merge_function.h"
#include "meta/schema/table_schema.h"
#include "meta/types/data_type.h"

namespace freshet::mergetree::testing {

// One version of the key: its kind and its values, a JSON array in column order (Arrow's JSON
// conventions: decimals as strings, maps as [[key, value], ...]).
struct Version {
  RowKind kind;
  std::string values;
};
inline Version Insert(std::string values) { return {RowKind::kInsert, std::move(values)}; }
inline Version UpdateBefore(std::string values) {
  return {RowKind::kUpdateBefore, std::move(values)};
}
inline Version Delete(std::string values) { return {RowKind::kDelete, std::move(values)}; }

inline meta::DataField Field(std::string name, meta::DataTypePtr type) {
  return meta::DataField{0, std::move(name), std::move(type), std::nullopt, std::nullopt};
}

// Renders a value the way the tests expect it: null, numbers and strings plain, lists [a, b],
// maps {k=v}, rows (a, b).
inline std::string Render(const arrow::Scalar& scalar) {
  if (!scalar.is_valid) return "null";
  auto render_items = [](const arrow::Array& values, const char* open, const char* close) {
    std::string out = open;
    for (int64_t i = 0; i < values.length(); ++i) {
      if (i > 0) out += ", ";
      out += Render(**values.GetScalar(i));
    }
    return out + close;
  };
  switch (scalar.type->id()) {
    case arrow::Type::LIST:
      return render_items(*static_cast<const arrow::BaseListScalar&>(scalar).value, "[", "]");
    case arrow::Type::MAP: {
      const auto& entries = static_cast<const arrow::StructArray&>(
          *static_cast<const arrow::MapScalar&>(scalar).value);
      std::string out = "{";
      for (int64_t i = 0; i < entries.length(); ++i) {
        if (i > 0) out += ", ";
        out += Render(**entries.field(0)->GetScalar(i)) + "=" +
               Render(**entries.field(1)->GetScalar(i));
      }
      return out + "}";
    }
    case arrow::Type::STRUCT: {
      std::string out = "(";
      const auto& row = static_cast<const arrow::StructScalar&>(scalar);
      for (size_t i = 0; i < row.value.size(); ++i) {
        if (i > 0) out += ", ";
        out += Render(*row.value[i]);
      }
      return out + ")";
    }
    default:
      return scalar.ToString();
  }
}

// Collects merged records as "+I[1, a, 3] @5" (kind, values, sequence number).
class TextSink : public MergedRowSink {
 public:
  Status AppendRow(const KeyValueRef& source, RowKind kind) override {
    std::vector<FieldValue> fields;
    for (int i = 0; i < source.batch->batch()->num_columns() - 2; ++i) {
      fields.push_back(FieldValue::From(source));
    }
    return AppendFields(fields, source.sequence(), kind);
  }
  Status AppendFields(const std::vector<FieldValue>& fields, int64_t sequence,
                      RowKind kind) override {
    std::string out = std::string(RowKindShortString(kind)) + "[";
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ", ";
      const FieldValue& v = fields[i];
      if (v.batch != nullptr) {
        out += Render(**v.batch->column(static_cast<int>(i)).GetScalar(v.row));
      } else if (v.scalar != nullptr) {
        out += Render(*v.scalar);
      } else {
        out += "null";
      }
    }
    records.push_back(out + "] @" + std::to_string(sequence));
    return Status::OK();
  }
  std::vector<std::string> records;
};

// One table and its merge function.
class EngineHarness {
 public:
  // `fields` of the table (ids assigned), `primary_keys`, `options` (merge-engine included).
  static Result<EngineHarness> Make(std::vector<meta::DataField> fields,
                                    std::vector<std::string> primary_keys, meta::Options options) {
    meta::SchemaSpec spec;
    spec.fields = std::move(fields);
    spec.primary_keys = std::move(primary_keys);
    spec.options = std::move(options);
    FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema, meta::TableSchema::Create(0, spec, 0));
    FRESHET_ASSIGN_OR_RETURN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
    FRESHET_ASSIGN_OR_RETURN(std::unique_ptr<MergeFunction> function,
                             MakeMergeFunction(schema, layout));
    return EngineHarness(std::make_shared<MergeLayout>(std::move(layout)),
                         std::shared_ptr<MergeFunction>(std::move(function)));
  }

  // Merges the versions (sequence numbers 1, 2, ...); the merged record, or the error.
  Result<std::string> Merge(const std::vector<Version>& versions) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, MakeBatch(versions));
    function_->Reset();
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      FRESHET_RETURN_NOT_OK(function_->Add(KeyValueRef{batch.get(), row}));
    }
    TextSink sink;
    FRESHET_RETURN_NOT_OK(function_->Finish(&sink));
    if (sink.records.size() != 1) return Status::Internal(sink.records.size(), " records");
    return sink.records[0];
  }

  const MergeLayout& layout() const { return *layout_; }

 private:
  EngineHarness(std::shared_ptr<MergeLayout> layout, std::shared_ptr<MergeFunction> function)
      : layout_(std::move(layout)), function_(std::move(function)) {}

  Result<std::shared_ptr<MergeBatch>> MakeBatch(const std::vector<Version>& versions) const {
    const arrow::Schema& schema = *layout_->arrow_schema();
    std::vector<meta::Json> rows;
    for (const Version& v : versions) rows.push_back(meta::Json::parse(v.values));
    arrow::ArrayVector columns;
    for (int c = 0; c < layout_->num_value_fields(); ++c) {
      meta::Json column = meta::Json::array();
      for (const meta::Json& row : rows) column.push_back(row.at(static_cast<size_t>(c)));
      auto array = arrow::json::ArrayFromJSONString(schema.field(c)->type(), column.dump());
      if (!array.ok()) return Status::Invalid(array.status().ToString());
      columns.push_back(*array);
    }
    arrow::Int64Builder sequences;
    arrow::Int8Builder kinds;
    for (size_t i = 0; i < versions.size(); ++i) {
      (void)sequences.Append(static_cast<int64_t>(i + 1));
      (void)kinds.Append(static_cast<int8_t>(versions[i].kind));
    }
    columns.push_back(*sequences.Finish());
    columns.push_back(*kinds.Finish());
    auto batch = arrow::RecordBatch::Make(layout_->arrow_schema(),
                                          static_cast<int64_t>(versions.size()), columns);
    return MergeBatch::Make(std::move(batch), *layout_);
  }

  std::shared_ptr<MergeLayout> layout_;
  std::shared_ptr<MergeFunction> function_;
};

// Expects `versions` to merge into `expected` ("+I[1, a] @2").
inline void ExpectMerge(EngineHarness& harness, const std::vector<Version>& versions,
                        const std::string& expected) {
  Result<std::string> merged = harness.Merge(versions);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(*merged, expected);
}

}  // namespace freshet::mergetree::testing
