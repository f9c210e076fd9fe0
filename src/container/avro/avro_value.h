// AvroValue: one generic Avro datum (a record, an array element, a union value, ...).
//
// Record values keep their field values in schema order and point at their record schema, so that
// callers can look a field up by name. A lookup of a field the writer schema does not have returns
// nullptr: Java Paimon reads manifests by field name (a missing field reads as null, an extra one
// is ignored), and callers reproduce that with GetField().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "container/avro/avro_schema.h"
#include "freshet/result.h"

namespace freshet::container::avro {

class AvroValue {
 public:
  // A null value.
  AvroValue() = default;

  static AvroValue Null() { return AvroValue(); }
  static AvroValue Boolean(bool v) { return AvroValue(AvroType::kBoolean, v); }
  static AvroValue Int(int32_t v) { return AvroValue(AvroType::kInt, v); }
  static AvroValue Long(int64_t v) { return AvroValue(AvroType::kLong, v); }
  static AvroValue Float(float v) { return AvroValue(AvroType::kFloat, v); }
  static AvroValue Double(double v) { return AvroValue(AvroType::kDouble, v); }
  static AvroValue String(std::string v) { return AvroValue(AvroType::kString, std::move(v)); }
  static AvroValue Bytes(std::string v) { return AvroValue(AvroType::kBytes, std::move(v)); }
  static AvroValue Fixed(std::string v) { return AvroValue(AvroType::kFixed, std::move(v)); }
  static AvroValue Enum(int32_t index, std::shared_ptr<const AvroNode> schema = nullptr);
  static AvroValue Array(std::vector<AvroValue> items);
  static AvroValue Map(std::vector<std::string> keys, std::vector<AvroValue> values);
  // `schema` is the record's schema node (AvroSchema::Share); without it, lookups by name fail.
  static AvroValue Record(std::shared_ptr<const AvroNode> schema, std::vector<AvroValue> fields);
  // A record of `schema` whose fields are all null, to be filled in with MutableField().
  static AvroValue EmptyRecord(std::shared_ptr<const AvroNode> schema);
  static AvroValue Union(int32_t branch, AvroValue value);

  AvroType type() const { return type_; }
  // True for null and for a union whose selected branch holds null.
  bool is_null() const { return Unwrapped().type_ == AvroType::kNull; }

  // For a union, the value of the selected branch (recursively); otherwise this value itself.
  const AvroValue& Unwrapped() const;

  // Unchecked accessors (unions are unwrapped). Asking for the wrong type is a programming error:
  // it asserts in debug builds and returns a zero / empty value otherwise.
  bool bool_value() const;
  int32_t int_value() const;
  int64_t long_value() const;  // also accepts an int
  float float_value() const;
  double double_value() const;              // also accepts a float
  const std::string& string_value() const;  // string, bytes and fixed
  int32_t enum_index() const;
  // The enum's symbol, or "" when the value carries no schema.
  std::string_view enum_symbol() const;

  // Checked accessors for data read from files: Invalid names the expected and actual types.
  Result<int32_t> GetInt() const;
  Result<int64_t> GetLong() const;  // int or long
  Result<std::string_view> GetString() const;
  Result<std::string_view> GetBytes() const;  // bytes or fixed

  // Records.
  const std::shared_ptr<const AvroNode>& record_schema() const;
  const std::vector<AvroValue>& fields() const;
  // The fields of this record (of the union's value, for a union); a value that is not a record
  // becomes an empty record without schema.
  std::vector<AvroValue>& mutable_fields();
  // The field called `name`, or nullptr when this is not a record or the record's schema has no
  // such field. Unions are unwrapped first, so a nullable record can be looked into directly.
  const AvroValue* GetField(std::string_view name) const;
  AvroValue* MutableField(std::string_view name);

  // Arrays (items) and maps (values, with keys in map_keys()).
  const std::vector<AvroValue>& items() const;
  // Like mutable_fields(): a value that is not an array or map becomes an empty array.
  std::vector<AvroValue>& mutable_items();
  const std::vector<std::string>& map_keys() const;

  // Unions.
  int32_t union_branch() const;
  const AvroValue& union_value() const;

  // Deep equality of type and content (record schemas are not compared).
  bool operator==(const AvroValue& other) const;
  bool operator!=(const AvroValue& other) const { return !(*this == other); }

  // A JSON-like rendering for messages and tests; bytes are written as "\xNN" escapes.
  std::string ToString() const;

 private:
  struct RecordData {
    std::shared_ptr<const AvroNode> schema;
    std::vector<AvroValue> fields;
  };
  // Arrays use `values` only; maps also use `keys`; a union keeps its one value in `values`.
  struct ListData {
    std::vector<std::string> keys;
    std::vector<AvroValue> values;
    int32_t branch = 0;
  };
  struct EnumData {
    int32_t index = 0;
    std::shared_ptr<const AvroNode> schema;
  };
  using Storage = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                               RecordData, ListData, EnumData>;

  template <typename T>
  AvroValue(AvroType type, T value) : type_(type), storage_(std::move(value)) {}

  AvroValue& MutableUnwrapped();
  void AppendTo(std::string* out) const;

  AvroType type_ = AvroType::kNull;
  Storage storage_;
};

// True when `value` is missing (a field the writer schema lacks) or null.
inline bool IsNullOrMissing(const AvroValue* value) { return value == nullptr || value->is_null(); }

}  // namespace freshet::container::avro
