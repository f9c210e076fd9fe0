// Paimon logical data types, their SQL form and their JSON encoding in schema files.
//
// The JSON encoding follows Java Paimon: an atomic type is a JSON string holding its SQL form
// ("INT NOT NULL", "DECIMAL(10, 2)"), a composite type is an object whose "type" member names it
// ("ARRAY", "MAP", "MULTISET", "ROW", each with " NOT NULL" when not nullable).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "freshet/result.h"

namespace freshet::meta {

// Key order matters for schema files, so every JSON value here keeps insertion order.
using Json = nlohmann::ordered_json;

enum class TypeRoot : int8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kChar,
  kVarChar,
  kBinary,
  kVarBinary,
  kDate,
  kTime,
  kTimestamp,
  kTimestampLtz,  // TIMESTAMP(p) WITH LOCAL TIME ZONE
  kArray,
  kMap,
  kMultiset,
  kRow,
  kVariant,
  kBlob,
};

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

// One column (or nested ROW field) of a schema.
struct DataField {
  int32_t id = 0;
  std::string name;
  DataTypePtr type;
  std::optional<std::string> description;
  std::optional<std::string> default_value;

  // Deep equality: id, name, type (with nullability), description and default value.
  bool operator==(const DataField& other) const;
};

// An immutable type. Build one with the static factories; share it through DataTypePtr.
class DataType {
 public:
  static constexpr int32_t kMaxLength = 2147483647;  // VARCHAR(kMaxLength) is STRING
  static constexpr int32_t kMaxDecimalPrecision = 38;
  static constexpr int32_t kMaxCompactDecimalPrecision = 18;   // stored as int64 in BinaryRow
  static constexpr int32_t kMaxCompactTimestampPrecision = 3;  // stored as epoch millis

  static DataTypePtr Boolean(bool nullable = true);
  static DataTypePtr TinyInt(bool nullable = true);
  static DataTypePtr SmallInt(bool nullable = true);
  static DataTypePtr Int(bool nullable = true);
  static DataTypePtr BigInt(bool nullable = true);
  static DataTypePtr Float(bool nullable = true);
  static DataTypePtr Double(bool nullable = true);
  static DataTypePtr Date(bool nullable = true);
  static DataTypePtr Variant(bool nullable = true);
  static DataTypePtr Blob(bool nullable = true);
  static DataTypePtr String(bool nullable = true) { return *VarChar(kMaxLength, nullable); }
  static DataTypePtr Bytes(bool nullable = true) { return *VarBinary(kMaxLength, nullable); }
  // The factories below validate their parameters (e.g. DECIMAL precision 1..38).
  static Result<DataTypePtr> Decimal(int32_t precision, int32_t scale, bool nullable = true);
  static Result<DataTypePtr> Char(int32_t length, bool nullable = true);
  static Result<DataTypePtr> VarChar(int32_t length, bool nullable = true);
  static Result<DataTypePtr> Binary(int32_t length, bool nullable = true);
  static Result<DataTypePtr> VarBinary(int32_t length, bool nullable = true);
  static Result<DataTypePtr> Time(int32_t precision, bool nullable = true);
  static Result<DataTypePtr> Timestamp(int32_t precision, bool nullable = true);
  static Result<DataTypePtr> TimestampLtz(int32_t precision, bool nullable = true);
  static DataTypePtr Array(DataTypePtr element, bool nullable = true);
  static DataTypePtr Multiset(DataTypePtr element, bool nullable = true);
  static DataTypePtr Map(DataTypePtr key, DataTypePtr value, bool nullable = true);
  static DataTypePtr Row(std::vector<DataField> fields, bool nullable = true);

  TypeRoot root() const { return root_; }
  bool nullable() const { return nullable_; }
  // CHAR / VARCHAR / BINARY / VARBINARY.
  int32_t length() const { return length_; }
  // DECIMAL / TIME / TIMESTAMP / TIMESTAMP_LTZ.
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  // ARRAY / MULTISET element, MAP key and value; null for other types.
  const DataTypePtr& element_type() const { return element_; }
  const DataTypePtr& key_type() const { return element_; }
  const DataTypePtr& value_type() const { return value_; }
  // ROW fields; empty for other types.
  const std::vector<DataField>& fields() const { return fields_; }

  bool IsComposite() const;      // ARRAY, MAP, MULTISET, ROW
  bool IsStringLike() const;     // CHAR, VARCHAR
  bool IsBinaryLike() const;     // BINARY, VARBINARY
  bool IsTimestampLike() const;  // TIMESTAMP, TIMESTAMP_LTZ
  // Values of this type are stored inside the 8-byte BinaryRow slot (no variable part).
  bool IsCompactDecimal() const;
  bool IsCompactTimestamp() const;

  DataTypePtr WithNullable(bool nullable) const;

  // SQL form as Java's asSQLString(): "INT NOT NULL", "ARRAY<INT>", "ROW<`a` INT, `b` STRING>".
  std::string ToString() const;
  // Deep equality including nullability (and field ids/names for ROW).
  bool Equals(const DataType& other) const;
  bool operator==(const DataType& other) const { return Equals(other); }

  // ROW helpers: index of the field with that name / id, or -1.
  int FieldIndexByName(std::string_view name) const;
  int FieldIndexById(int32_t id) const;

 private:
  explicit DataType(TypeRoot root, bool nullable) : root_(root), nullable_(nullable) {}
  static Result<DataTypePtr> WithLength(TypeRoot root, const char* name, int32_t length,
                                        bool nullable);

  TypeRoot root_;
  bool nullable_;
  int32_t length_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  DataTypePtr element_;  // element or map key
  DataTypePtr value_;    // map value
  std::vector<DataField> fields_;
};

// Parses an atomic type's SQL string ("int not null", "DEC(10)", "TIMESTAMP_LTZ(3)", ...).
Result<DataTypePtr> ParseAtomicType(std::string_view sql);

// How deep composite types may nest (MAP and MULTISET count two levels: Arrow holds them as lists
// of key/value structs). Arrow's C Data Interface imports at most 64 levels, so that every type
// accepted here can also be written and read through the API.
constexpr int kMaxTypeNestingDepth = 32;

// Parses the JSON encoding of any type (a string for atomic types, an object for composites).
// Invalid for types nested deeper than kMaxTypeNestingDepth.
Result<DataTypePtr> DataTypeFromJson(const Json& json);
// Java's canonical JSON encoding of a type.
Json DataTypeToJson(const DataType& type);

// DataField JSON: {"id", "name", "type", "description"?, "defaultValue"?}; ids (nested ones
// too) must be integers in [0, 2^31 - 1].
Result<DataField> DataFieldFromJson(const Json& json);
Json DataFieldToJson(const DataField& field);

// Index of the field with that name / id in a field list, or -1.
int FindFieldByName(const std::vector<DataField>& fields, std::string_view name);
int FindFieldById(const std::vector<DataField>& fields, int32_t id);

}  // namespace freshet::meta
