#include "meta/types/data_type.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace freshet::meta {

namespace {

const char* AtomicName(TypeRoot root) {
  switch (root) {
    case TypeRoot::kBoolean:
      return "BOOLEAN";
    case TypeRoot::kTinyInt:
      return "TINYINT";
    case TypeRoot::kSmallInt:
      return "SMALLINT";
    case TypeRoot::kInt:
      return "INT";
    case TypeRoot::kBigInt:
      return "BIGINT";
    case TypeRoot::kFloat:
      return "FLOAT";
    case TypeRoot::kDouble:
      return "DOUBLE";
    case TypeRoot::kDate:
      return "DATE";
    case TypeRoot::kVariant:
      return "VARIANT";
    case TypeRoot::kBlob:
      return "BLOB";
    case TypeRoot::kArray:
      return "ARRAY";
    case TypeRoot::kMap:
      return "MAP";
    case TypeRoot::kMultiset:
      return "MULTISET";
    case TypeRoot::kRow:
      return "ROW";
    default:
      return "";
  }
}

std::string EscapeIdentifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string EscapeSingleQuotes(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out;
}

bool SameOptionalTypes(const DataTypePtr& a, const DataTypePtr& b) {
  if (!a || !b) return !a && !b;
  return a->Equals(*b);
}

}  // namespace

bool DataField::operator==(const DataField& other) const {
  return id == other.id && name == other.name && SameOptionalTypes(type, other.type) &&
         description == other.description && default_value == other.default_value;
}

// ---------------------------------------------------------------------------------------------
// Factories

#define FRESHET_SIMPLE_TYPE(Name, Root)                                       \
  DataTypePtr DataType::Name(bool nullable) {                                 \
    return std::shared_ptr<DataType>(new DataType(TypeRoot::Root, nullable)); \
  }
FRESHET_SIMPLE_TYPE(Boolean, kBoolean)
FRESHET_SIMPLE_TYPE(TinyInt, kTinyInt)
FRESHET_SIMPLE_TYPE(SmallInt, kSmallInt)
FRESHET_SIMPLE_TYPE(Int, kInt)
FRESHET_SIMPLE_TYPE(BigInt, kBigInt)
FRESHET_SIMPLE_TYPE(Float, kFloat)
FRESHET_SIMPLE_TYPE(Double, kDouble)
FRESHET_SIMPLE_TYPE(Date, kDate)
FRESHET_SIMPLE_TYPE(Variant, kVariant)
FRESHET_SIMPLE_TYPE(Blob, kBlob)
#undef FRESHET_SIMPLE_TYPE

Result<DataTypePtr> DataType::Decimal(int32_t precision, int32_t scale, bool nullable) {
  if (precision < 1 || precision > kMaxDecimalPrecision) {
    return Status::Invalid("DECIMAL precision must be between 1 and 38 (both inclusive), got ",
                           precision);
  }
  if (scale < 0 || scale > precision) {
    return Status::Invalid("DECIMAL scale must be between 0 and the precision ", precision,
                           " (both inclusive), got ", scale);
  }
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kDecimal, nullable));
  type->precision_ = precision;
  type->scale_ = scale;
  return DataTypePtr(type);
}

namespace {

Status CheckLength(const char* name, int32_t length) {
  if (length < 1) {
    return Status::Invalid(name, " length must be between 1 and 2147483647 (both inclusive), got ",
                           length);
  }
  return Status::OK();
}

Status CheckTimePrecision(const char* name, int32_t precision) {
  if (precision < 0 || precision > 9) {
    return Status::Invalid(name, " precision must be between 0 and 9 (both inclusive), got ",
                           precision);
  }
  return Status::OK();
}

}  // namespace

Result<DataTypePtr> DataType::WithLength(TypeRoot root, const char* name, int32_t length,
                                         bool nullable) {
  FRESHET_RETURN_NOT_OK(CheckLength(name, length));
  std::shared_ptr<DataType> type(new DataType(root, nullable));
  type->length_ = length;
  return DataTypePtr(type);
}

Result<DataTypePtr> DataType::Char(int32_t length, bool nullable) {
  return WithLength(TypeRoot::kChar, "CHAR", length, nullable);
}
Result<DataTypePtr> DataType::VarChar(int32_t length, bool nullable) {
  return WithLength(TypeRoot::kVarChar, "VARCHAR", length, nullable);
}
Result<DataTypePtr> DataType::Binary(int32_t length, bool nullable) {
  return WithLength(TypeRoot::kBinary, "BINARY", length, nullable);
}
Result<DataTypePtr> DataType::VarBinary(int32_t length, bool nullable) {
  return WithLength(TypeRoot::kVarBinary, "VARBINARY", length, nullable);
}

Result<DataTypePtr> DataType::Time(int32_t precision, bool nullable) {
  FRESHET_RETURN_NOT_OK(CheckTimePrecision("TIME", precision));
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kTime, nullable));
  type->precision_ = precision;
  return DataTypePtr(type);
}
Result<DataTypePtr> DataType::Timestamp(int32_t precision, bool nullable) {
  FRESHET_RETURN_NOT_OK(CheckTimePrecision("TIMESTAMP", precision));
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kTimestamp, nullable));
  type->precision_ = precision;
  return DataTypePtr(type);
}
Result<DataTypePtr> DataType::TimestampLtz(int32_t precision, bool nullable) {
  FRESHET_RETURN_NOT_OK(CheckTimePrecision("TIMESTAMP WITH LOCAL TIME ZONE", precision));
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kTimestampLtz, nullable));
  type->precision_ = precision;
  return DataTypePtr(type);
}

DataTypePtr DataType::Array(DataTypePtr element, bool nullable) {
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kArray, nullable));
  type->element_ = std::move(element);
  return type;
}
DataTypePtr DataType::Multiset(DataTypePtr element, bool nullable) {
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kMultiset, nullable));
  type->element_ = std::move(element);
  return type;
}
DataTypePtr DataType::Map(DataTypePtr key, DataTypePtr value, bool nullable) {
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kMap, nullable));
  type->element_ = std::move(key);
  type->value_ = std::move(value);
  return type;
}
DataTypePtr DataType::Row(std::vector<DataField> fields, bool nullable) {
  std::shared_ptr<DataType> type(new DataType(TypeRoot::kRow, nullable));
  type->fields_ = std::move(fields);
  return type;
}

DataTypePtr DataType::WithNullable(bool nullable) const {
  std::shared_ptr<DataType> copy(new DataType(*this));
  copy->nullable_ = nullable;
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Predicates

bool DataType::IsComposite() const {
  return root_ == TypeRoot::kArray || root_ == TypeRoot::kMap || root_ == TypeRoot::kMultiset ||
         root_ == TypeRoot::kRow;
}
bool DataType::IsStringLike() const {
  return root_ == TypeRoot::kChar || root_ == TypeRoot::kVarChar;
}
bool DataType::IsBinaryLike() const {
  return root_ == TypeRoot::kBinary || root_ == TypeRoot::kVarBinary;
}
bool DataType::IsTimestampLike() const {
  return root_ == TypeRoot::kTimestamp || root_ == TypeRoot::kTimestampLtz;
}
bool DataType::IsCompactDecimal() const {
  return root_ == TypeRoot::kDecimal && precision_ <= kMaxCompactDecimalPrecision;
}
bool DataType::IsCompactTimestamp() const {
  return IsTimestampLike() && precision_ <= kMaxCompactTimestampPrecision;
}

// ---------------------------------------------------------------------------------------------
// SQL form and equality

std::string DataType::ToString() const {
  std::string out;
  switch (root_) {
    case TypeRoot::kDecimal:
      out = "DECIMAL(" + std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
      break;
    case TypeRoot::kChar:
      out = "CHAR(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kVarChar:
      out = length_ == kMaxLength ? "STRING" : "VARCHAR(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kBinary:
      out = "BINARY(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kVarBinary:
      out = length_ == kMaxLength ? "BYTES" : "VARBINARY(" + std::to_string(length_) + ")";
      break;
    case TypeRoot::kTime:
      out = "TIME(" + std::to_string(precision_) + ")";
      break;
    case TypeRoot::kTimestamp:
      out = "TIMESTAMP(" + std::to_string(precision_) + ")";
      break;
    case TypeRoot::kTimestampLtz:
      out = "TIMESTAMP(" + std::to_string(precision_) + ") WITH LOCAL TIME ZONE";
      break;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
      out = std::string(AtomicName(root_)) + "<" + element_->ToString() + ">";
      break;
    case TypeRoot::kMap:
      out = "MAP<" + element_->ToString() + ", " + value_->ToString() + ">";
      break;
    case TypeRoot::kRow: {
      out = "ROW<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        const DataField& field = fields_[i];
        if (i > 0) out += ", ";
        out += EscapeIdentifier(field.name) + " " + field.type->ToString();
        if (field.description) out += " '" + EscapeSingleQuotes(*field.description) + "'";
      }
      out += ">";
      break;
    }
    default:
      out = AtomicName(root_);
  }
  return nullable_ ? out : out + " NOT NULL";
}

bool DataType::Equals(const DataType& other) const {
  return root_ == other.root_ && nullable_ == other.nullable_ && length_ == other.length_ &&
         precision_ == other.precision_ && scale_ == other.scale_ &&
         SameOptionalTypes(element_, other.element_) && SameOptionalTypes(value_, other.value_) &&
         fields_ == other.fields_;
}

int FindFieldByName(const std::vector<DataField>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int FindFieldById(const std::vector<DataField>& fields, int32_t id) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int DataType::FieldIndexByName(std::string_view name) const {
  return FindFieldByName(fields_, name);
}
int DataType::FieldIndexById(int32_t id) const { return FindFieldById(fields_, id); }

}  // namespace freshet::meta
