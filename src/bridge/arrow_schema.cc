#include "bridge/arrow_schema.h"

#include <charconv>

#include <arrow/api.h>

namespace freshet::bridge {

using meta::DataType;
using meta::TypeRoot;

namespace {

// Ids of ARRAY elements and MAP keys/values are derived the way Java derives them for Parquet:
// base ± id·1024 ± depth, with base = Integer.MAX_VALUE / 4.
constexpr int64_t kNestedIdBase = 536870911;

std::shared_ptr<const arrow::KeyValueMetadata> IdMetadata(int64_t id) {
  return arrow::key_value_metadata({kParquetFieldIdKey, kOrcFieldIdKey},
                                   {std::to_string(id), std::to_string(id)});
}

arrow::TimeUnit::type TimestampUnit(int32_t precision) {
  if (precision <= 3) return arrow::TimeUnit::MILLI;
  if (precision <= 6) return arrow::TimeUnit::MICRO;
  return arrow::TimeUnit::NANO;
}

Result<std::shared_ptr<arrow::DataType>> ToArrowTypeWithId(const DataType& type, int32_t id,
                                                           int depth);

Result<std::shared_ptr<arrow::Field>> NestedField(const std::string& name, const DataType& type,
                                                  int64_t nested_id, int32_t owner_id, int depth) {
  FRESHET_ASSIGN_OR_RETURN(auto arrow_type, ToArrowTypeWithId(type, owner_id, depth + 1));
  return arrow::field(name, arrow_type, type.nullable(), IdMetadata(nested_id));
}

Result<std::shared_ptr<arrow::DataType>> ToArrowTypeWithId(const DataType& type, int32_t id,
                                                           int depth) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return arrow::boolean();
    case TypeRoot::kTinyInt:
      return arrow::int8();
    case TypeRoot::kSmallInt:
      return arrow::int16();
    case TypeRoot::kInt:
      return arrow::int32();
    case TypeRoot::kBigInt:
      return arrow::int64();
    case TypeRoot::kFloat:
      return arrow::float32();
    case TypeRoot::kDouble:
      return arrow::float64();
    case TypeRoot::kDecimal:
      return arrow::decimal128(type.precision(), type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return arrow::utf8();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return arrow::binary();
    case TypeRoot::kDate:
      return arrow::date32();
    case TypeRoot::kTime:
      return arrow::time32(arrow::TimeUnit::MILLI);
    case TypeRoot::kTimestamp:
      return arrow::timestamp(TimestampUnit(type.precision()));
    case TypeRoot::kTimestampLtz:
      return arrow::timestamp(TimestampUnit(type.precision()), "UTC");
    case TypeRoot::kArray: {
      int64_t element_id = kNestedIdBase + static_cast<int64_t>(id) * 1024 + depth + 1;
      FRESHET_ASSIGN_OR_RETURN(auto element,
                               NestedField("element", *type.element_type(), element_id, id, depth));
      return arrow::list(element);
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      int64_t key_id = kNestedIdBase - static_cast<int64_t>(id) * 1024 - depth - 1;
      int64_t value_id = kNestedIdBase + static_cast<int64_t>(id) * 1024 + depth + 1;
      FRESHET_ASSIGN_OR_RETURN(
          auto key, NestedField("key", *type.key_type()->WithNullable(false), key_id, id, depth));
      std::shared_ptr<arrow::Field> value;
      if (type.root() == TypeRoot::kMultiset) {
        value = arrow::field("value", arrow::int32(), false, IdMetadata(value_id));
      } else {
        FRESHET_ASSIGN_OR_RETURN(value,
                                 NestedField("value", *type.value_type(), value_id, id, depth));
      }
      return std::shared_ptr<arrow::DataType>(std::make_shared<arrow::MapType>(key, value));
    }
    case TypeRoot::kRow: {
      std::vector<std::shared_ptr<arrow::Field>> children;
      for (const auto& field : type.fields()) {
        FRESHET_ASSIGN_OR_RETURN(auto child, ToArrowField(field));
        children.push_back(std::move(child));
      }
      return arrow::struct_(children);
    }
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
      break;
  }
  return Status::NotImplemented("type ", type.ToString(), " has no Arrow mapping yet");
}

}  // namespace

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& type) {
  return ToArrowTypeWithId(type, 0, 0);
}

Result<std::shared_ptr<arrow::Field>> ToArrowField(const meta::DataField& field) {
  FRESHET_ASSIGN_OR_RETURN(auto type, ToArrowTypeWithId(*field.type, field.id, 0));
  return arrow::field(field.name, type, field.type->nullable(), IdMetadata(field.id));
}

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const std::vector<meta::DataField>& fields) {
  arrow::FieldVector out;
  for (const auto& field : fields) {
    FRESHET_ASSIGN_OR_RETURN(auto arrow_field, ToArrowField(field));
    out.push_back(std::move(arrow_field));
  }
  return arrow::schema(out);
}

std::optional<int32_t> FieldIdOf(const arrow::Field& field) {
  if (!field.metadata()) return std::nullopt;
  for (const char* key : {kParquetFieldIdKey, kOrcFieldIdKey}) {
    int index = field.metadata()->FindKey(key);
    if (index >= 0) {
      // The whole attribute must be the number: a damaged "12" read as "1r" is no id, not 1.
      const std::string& text = field.metadata()->value(index);
      int32_t id = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
      if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
      return id;
    }
  }
  return std::nullopt;
}

}  // namespace freshet::bridge
