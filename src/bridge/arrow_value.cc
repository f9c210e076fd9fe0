#include "bridge/arrow_value.h"

#include "common/arrow_status.h"

#include <arrow/api.h>

#include <cstring>
#include <limits>
#include <string>

namespace freshet::bridge {

using meta::DataType;
using meta::TypeRoot;
using meta::Value;

namespace {

Status TypeMismatch(const arrow::DataType& arrow_type, const DataType& type) {
  return Status::Invalid("an Arrow array of type ", arrow_type.ToString(),
                         " cannot hold Paimon type ", type.ToString());
}

// The Arrow type id each Paimon type is stored as (see ToArrowType), or NA for nested types.
arrow::Type::type ExpectedArrowTypeId(TypeRoot root) {
  switch (root) {
    case TypeRoot::kBoolean:
      return arrow::Type::BOOL;
    case TypeRoot::kTinyInt:
      return arrow::Type::INT8;
    case TypeRoot::kSmallInt:
      return arrow::Type::INT16;
    case TypeRoot::kInt:
      return arrow::Type::INT32;
    case TypeRoot::kBigInt:
      return arrow::Type::INT64;
    case TypeRoot::kFloat:
      return arrow::Type::FLOAT;
    case TypeRoot::kDouble:
      return arrow::Type::DOUBLE;
    case TypeRoot::kDecimal:
      return arrow::Type::DECIMAL128;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return arrow::Type::STRING;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return arrow::Type::BINARY;
    case TypeRoot::kDate:
      return arrow::Type::DATE32;
    case TypeRoot::kTime:
      return arrow::Type::TIME32;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return arrow::Type::TIMESTAMP;
    default:
      return arrow::Type::NA;
  }
}

__int128 Decimal128ToInt128(const uint8_t* little_endian_bytes) {
  uint64_t low;
  int64_t high;
  std::memcpy(&low, little_endian_bytes, 8);
  std::memcpy(&high, little_endian_bytes + 8, 8);
  return static_cast<__int128>((static_cast<unsigned __int128>(static_cast<uint64_t>(high)) << 64) |
                               low);
}

int32_t TimeToMillis(int32_t value, arrow::TimeUnit::type unit) {
  return unit == arrow::TimeUnit::SECOND ? value * 1000 : value;
}

template <typename ArrayType>
auto PrimitiveAt(const arrow::Array& array, int64_t row) {
  return static_cast<const ArrayType&>(array).Value(row);
}

}  // namespace

meta::Timestamp TimestampFromUnits(int64_t value, arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return meta::Timestamp{value * 1000, 0};
    case arrow::TimeUnit::MILLI:
      return meta::Timestamp{value, 0};
    case arrow::TimeUnit::MICRO:
      return meta::Timestamp::FromEpochMicros(value);
    case arrow::TimeUnit::NANO:
      return meta::Timestamp::FromEpochNanos(value);
  }
  return meta::Timestamp{};
}

Result<Value> ArrowValueAt(const arrow::Array& array, int64_t row, const DataType& type) {
  if (row < 0 || row >= array.length()) {
    return Status::Invalid("row ", row, " is out of range for an array of length ", array.length());
  }
  arrow::Type::type expected = ExpectedArrowTypeId(type.root());
  if (expected == arrow::Type::NA) {
    return Status::NotImplemented("a single value of type ", type.ToString(),
                                  " (nested values have no meta::Value form)");
  }
  if (array.type_id() != expected) return TypeMismatch(*array.type(), type);
  if (array.IsNull(row)) return Value::Null();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Value::Boolean(PrimitiveAt<arrow::BooleanArray>(array, row));
    case TypeRoot::kTinyInt:
      return Value::TinyInt(PrimitiveAt<arrow::Int8Array>(array, row));
    case TypeRoot::kSmallInt:
      return Value::SmallInt(PrimitiveAt<arrow::Int16Array>(array, row));
    case TypeRoot::kInt:
      return Value::Int(PrimitiveAt<arrow::Int32Array>(array, row));
    case TypeRoot::kBigInt:
      return Value::BigInt(PrimitiveAt<arrow::Int64Array>(array, row));
    case TypeRoot::kFloat:
      return Value::Float(PrimitiveAt<arrow::FloatArray>(array, row));
    case TypeRoot::kDouble:
      return Value::Double(PrimitiveAt<arrow::DoubleArray>(array, row));
    case TypeRoot::kDecimal: {
      const auto& decimals = static_cast<const arrow::Decimal128Array&>(array);
      return Value::Dec(meta::Decimal{Decimal128ToInt128(decimals.GetValue(row)), type.precision(),
                                      type.scale()});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Value::String(std::string(static_cast<const arrow::StringArray&>(array).GetView(row)));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return Value::Bytes(std::string(static_cast<const arrow::BinaryArray&>(array).GetView(row)));
    case TypeRoot::kDate:
      return Value::Int(PrimitiveAt<arrow::Date32Array>(array, row));
    case TypeRoot::kTime: {
      auto unit = static_cast<const arrow::Time32Type&>(*array.type()).unit();
      return Value::Int(TimeToMillis(PrimitiveAt<arrow::Time32Array>(array, row), unit));
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      auto unit = static_cast<const arrow::TimestampType&>(*array.type()).unit();
      return Value::Ts(TimestampFromUnits(PrimitiveAt<arrow::TimestampArray>(array, row), unit));
    }
    default:
      break;
  }
  return Status::Internal("unhandled type ", type.ToString());
}

namespace {

Status ValueMismatch(const Value& /*value*/, const DataType& type) {
  return Status::Invalid("value does not match type ", type.ToString());
}

template <typename T, typename BuilderType>
Status AppendHeld(arrow::ArrayBuilder* builder, const Value& value, const DataType& type) {
  const T* held = value.get_if<T>();
  if (held == nullptr) return ValueMismatch(value, type);
  auto status = static_cast<BuilderType*>(builder)->Append(*held);
  return status.ok() ? Status::OK() : Status::Internal(status.ToString());
}

// Fails when the instant does not fit the unit's int64 range (nanoseconds cover 1677..2262).
Result<int64_t> TimestampToUnits(const meta::Timestamp& ts, arrow::TimeUnit::type unit) {
  int64_t factor = 1;
  int64_t sub_milli = 0;
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return ts.millis / 1000 - (ts.millis % 1000 < 0);
    case arrow::TimeUnit::MILLI:
      return ts.millis;
    case arrow::TimeUnit::MICRO:
      factor = 1000;
      sub_milli = ts.nano_of_milli / 1000;
      break;
    case arrow::TimeUnit::NANO:
      factor = 1000000;
      sub_milli = ts.nano_of_milli;
      break;
  }
  __int128 scaled = static_cast<__int128>(ts.millis) * factor + sub_milli;
  if (scaled < std::numeric_limits<int64_t>::min() ||
      scaled > std::numeric_limits<int64_t>::max()) {
    return Status::Invalid("timestamp ", ts.ToSqlString(9), " is out of range for ",
                           unit == arrow::TimeUnit::NANO ? "nanosecond" : "microsecond",
                           " precision");
  }
  return static_cast<int64_t>(scaled);
}

}  // namespace

Status AppendArrowValue(arrow::ArrayBuilder* builder, const Value& value, const DataType& type) {
  arrow::Type::type expected = ExpectedArrowTypeId(type.root());
  if (expected == arrow::Type::NA) {
    return Status::NotImplemented("appending a single value of type ", type.ToString());
  }
  if (builder->type()->id() != expected) return TypeMismatch(*builder->type(), type);
  if (value.is_null()) return FromArrowStatus(builder->AppendNull());
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return AppendHeld<bool, arrow::BooleanBuilder>(builder, value, type);
    case TypeRoot::kTinyInt:
      return AppendHeld<int8_t, arrow::Int8Builder>(builder, value, type);
    case TypeRoot::kSmallInt:
      return AppendHeld<int16_t, arrow::Int16Builder>(builder, value, type);
    case TypeRoot::kInt:
      return AppendHeld<int32_t, arrow::Int32Builder>(builder, value, type);
    case TypeRoot::kBigInt:
      return AppendHeld<int64_t, arrow::Int64Builder>(builder, value, type);
    case TypeRoot::kFloat:
      return AppendHeld<float, arrow::FloatBuilder>(builder, value, type);
    case TypeRoot::kDouble:
      return AppendHeld<double, arrow::DoubleBuilder>(builder, value, type);
    case TypeRoot::kDate:
      return AppendHeld<int32_t, arrow::Date32Builder>(builder, value, type);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return AppendHeld<std::string, arrow::StringBuilder>(builder, value, type);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return AppendHeld<std::string, arrow::BinaryBuilder>(builder, value, type);
    case TypeRoot::kTime: {
      const int32_t* millis = value.get_if<int32_t>();
      if (millis == nullptr) return ValueMismatch(value, type);
      auto unit = static_cast<const arrow::Time32Type&>(*builder->type()).unit();
      int32_t stored = unit == arrow::TimeUnit::SECOND ? *millis / 1000 : *millis;
      return FromArrowStatus(static_cast<arrow::Time32Builder*>(builder)->Append(stored));
    }
    case TypeRoot::kDecimal: {
      const meta::Decimal* decimal = value.get_if<meta::Decimal>();
      if (decimal == nullptr || decimal->scale != type.scale()) return ValueMismatch(value, type);
      auto unscaled = static_cast<unsigned __int128>(decimal->unscaled);
      arrow::Decimal128 arrow_decimal(static_cast<int64_t>(static_cast<uint64_t>(unscaled >> 64)),
                                      static_cast<uint64_t>(unscaled));
      return FromArrowStatus(
          static_cast<arrow::Decimal128Builder*>(builder)->Append(arrow_decimal));
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const meta::Timestamp* ts = value.get_if<meta::Timestamp>();
      if (ts == nullptr) return ValueMismatch(value, type);
      auto unit = static_cast<const arrow::TimestampType&>(*builder->type()).unit();
      FRESHET_ASSIGN_OR_RETURN(int64_t stored, TimestampToUnits(*ts, unit));
      return FromArrowStatus(static_cast<arrow::TimestampBuilder*>(builder)->Append(stored));
    }
    default:
      break;
  }
  return Status::Internal("unhandled type ", type.ToString());
}

}  // namespace freshet::bridge
