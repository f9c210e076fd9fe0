#include "textrows/json_rows.h"

#include "common/java_text.h"
#include "common/json.h"

#include <arrow/api.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "bridge/arrow_schema.h"
#include "bridge/arrow_value.h"
#include "common/arrow_status.h"
#include "common/base64.h"
#include "common/json.h"
#include "common/utf8.h"
#include "meta/row/value.h"
#include "meta/row/value_text.h"

namespace freshet::textrows {

using meta::DataType;
using meta::TypeRoot;
using meta::Value;

namespace {

// Correctly rounded parse of JSON number text straight into T (no double rounding for FLOAT).
template <typename T>
std::optional<T> ParseFloating(const std::string& text) {
  T value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    // Too small rounds to (signed) zero as in Java; too large is an error.
    T rounded = std::is_same_v<T, float> ? std::strtof(text.c_str(), nullptr)
                                         : std::strtod(text.c_str(), nullptr);
    if (std::isinf(rounded) || std::fabs(rounded) >= 1) return std::nullopt;
    return rounded;
  }
  if (error != std::errc()) return std::nullopt;
  return value;
}

// ---------------------------------------------------------------------------------------------
// JSON input. A SAX handler builds the document and keeps every non-integer number as its source
// text (in a JSON binary value, which JSON text itself can never produce), so FLOAT and DECIMAL
// are parsed once from the digits the user wrote.

class RawNumberDocumentBuilder {
 public:
  explicit RawNumberDocumentBuilder(Json* root) : root_(root) {}

  bool null() { return Put(nullptr) != nullptr; }
  bool boolean(bool value) { return Put(value) != nullptr; }
  bool number_integer(int64_t value) { return Put(value) != nullptr; }
  bool number_unsigned(uint64_t value) { return Put(value) != nullptr; }
  bool number_float(double, const std::string& text) {
    return Put(Json::binary(Json::binary_t::container_type(text.begin(), text.end()))) != nullptr;
  }
  bool string(std::string& value) { return Put(std::move(value)) != nullptr; }
  bool binary(Json::binary_t& value) { return Put(Json::binary(value)) != nullptr; }
  bool start_object(size_t) {
    stack_.push_back(Put(Json::object()));
    return true;
  }
  bool key(std::string& name) {
    pending_member_ = &(*stack_.back())[name];
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    stack_.push_back(Put(Json::array()));
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& error) {
    error_ = error.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix: users need the rest.
    size_t end_of_tag = error_.find("] ");
    if (error_.rfind("[json.exception", 0) == 0 && end_of_tag != std::string::npos) {
      error_ = error_.substr(end_of_tag + 2);
    }
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  Json* Put(Json value) {
    if (stack_.empty()) {
      *root_ = std::move(value);
      return root_;
    }
    Json* container = stack_.back();
    if (container->is_array()) {
      container->push_back(std::move(value));
      return &container->back();
    }
    *pending_member_ = std::move(value);
    return pending_member_;
  }

  Json* root_;
  std::vector<Json*> stack_;
  Json* pending_member_ = nullptr;
  std::string error_;
};

Result<Json> ParseLine(std::string_view line) {
  // Values nest at most as deep as the table's types (kMaxTypeNestingDepth); the nesting check
  // keeps a hostile line from exhausting the stack in the DOM or in the error message.
  Status shallow = CheckJsonNesting(line, "the line");
  if (!shallow.ok()) return Status::Invalid(shallow.message());
  Json document;
  RawNumberDocumentBuilder builder(&document);
  if (!Json::sax_parse(line.begin(), line.end(), &builder)) {
    return Status::Invalid("invalid JSON: ", builder.error());
  }
  return document;
}

// How a JSON value looks in an error message (raw number text, long values cut).
std::string Describe(const Json& value) {
  std::string text;
  if (value.is_binary()) {
    text.assign(value.get_binary().begin(), value.get_binary().end());
  } else {
    text = value.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
  }
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string TypeName(const DataType& type) { return type.WithNullable(true)->ToString(); }

Status Expected(const char* what, const DataType& type, const Json& got) {
  return Status::Invalid("expected ", what, " for ", TypeName(type), ", got ", Describe(got));
}

// The text of a JSON number (integer or raw), or nullopt for other values.
std::optional<std::string> NumberText(const Json& value) {
  if (value.is_binary()) return std::string(value.get_binary().begin(), value.get_binary().end());
  if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  return std::nullopt;
}

template <typename T>
Result<Value> IntegerFromJson(const Json& json, const DataType& type, Value (*make)(T)) {
  std::optional<std::string> text;
  if (json.is_string()) {
    text = json.get<std::string>();
  } else if (json.is_number_integer() || json.is_number_unsigned()) {
    text = NumberText(json);
  }
  if (!text) return Expected("an integer", type, json);
  int64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (end != text->data() + text->size() || text->empty()) {
    return Expected("an integer", type, json);
  }
  if (error != std::errc() || value < std::numeric_limits<T>::min() ||
      value > std::numeric_limits<T>::max()) {
    return Status::Invalid(*text, " is out of range for ", TypeName(type));
  }
  return make(static_cast<T>(value));
}

template <typename T>
Result<Value> FloatingFromJson(const Json& json, const DataType& type, Value (*make)(T)) {
  constexpr const char* kWhat = "a number or \"NaN\", \"Infinity\", \"-Infinity\"";
  if (json.is_string()) {
    const auto& text = json.get_ref<const std::string&>();
    if (text == "NaN") return make(std::numeric_limits<T>::quiet_NaN());
    if (text == "Infinity") return make(std::numeric_limits<T>::infinity());
    if (text == "-Infinity") return make(-std::numeric_limits<T>::infinity());
    return Expected(kWhat, type, json);
  }
  std::optional<std::string> text = NumberText(json);
  if (!text) return Expected(kWhat, type, json);
  std::optional<T> value = ParseFloating<T>(*text);
  if (!value) return Status::Invalid(*text, " is out of range for ", TypeName(type));
  return make(*value);
}

Result<Value> DecimalFromJson(const Json& json, const DataType& type) {
  std::optional<std::string> text =
      json.is_string() ? std::optional<std::string>(json.get<std::string>()) : NumberText(json);
  if (!text) return Expected("a decimal string or number", type, json);
  auto unscaled = meta::ParseDecimalText(*text, type.precision(), type.scale());
  if (!unscaled) {
    if (!meta::ParseDecimalText(*text, meta::DataType::kMaxDecimalPrecision * 2, type.scale())) {
      return Expected("a decimal string or number", type, json);
    }
    return Status::Invalid(*text, " does not fit ", TypeName(type));
  }
  return Value::Dec(meta::Decimal{*unscaled, type.precision(), type.scale()});
}

Result<Value> TextFromJson(const Json& json, const DataType& type) {
  if (!json.is_string()) return Expected("a string", type, json);
  const auto& text = json.get_ref<const std::string&>();
  switch (type.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Value::String(text);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      std::optional<std::string> bytes = Base64Decode(text);
      if (!bytes) return Expected("a base64 string", type, json);
      return Value::Bytes(std::move(*bytes));
    }
    case TypeRoot::kDate: {
      std::optional<int32_t> day = meta::ParseDateText(text);
      if (!day) return Expected("a date YYYY-MM-DD", type, json);
      return Value::Int(*day);
    }
    case TypeRoot::kTime: {
      std::optional<int32_t> millis = meta::ParseTimeText(text, type.precision());
      if (!millis) return Expected("a time HH:MM:SS[.fff]", type, json);
      return Value::Int(*millis);
    }
    default: {
      bool ltz = type.root() == TypeRoot::kTimestampLtz;
      auto ts = meta::ParseTimestampText(text, type.precision(), ltz);
      if (!ts) {
        return Expected(ltz ? "a timestamp YYYY-MM-DD HH:MM:SS[.fffffffff][Z|+HH:MM]"
                            : "a timestamp YYYY-MM-DD HH:MM:SS[.fffffffff]",
                        type, json);
      }
      return Value::Ts(*ts);
    }
  }
}

Result<Value> LeafValueFromJson(const Json& json, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (!json.is_boolean()) return Expected("true or false", type, json);
      return Value::Boolean(json.get<bool>());
    case TypeRoot::kTinyInt:
      return IntegerFromJson<int8_t>(json, type, &Value::TinyInt);
    case TypeRoot::kSmallInt:
      return IntegerFromJson<int16_t>(json, type, &Value::SmallInt);
    case TypeRoot::kInt:
      return IntegerFromJson<int32_t>(json, type, &Value::Int);
    case TypeRoot::kBigInt:
      return IntegerFromJson<int64_t>(json, type, &Value::BigInt);
    case TypeRoot::kFloat:
      return FloatingFromJson<float>(json, type, &Value::Float);
    case TypeRoot::kDouble:
      return FloatingFromJson<double>(json, type, &Value::Double);
    case TypeRoot::kDecimal:
      return DecimalFromJson(json, type);
    default:
      return TextFromJson(json, type);
  }
}

Status AppendJson(const Json& json, const DataType& type, arrow::ArrayBuilder* builder);

Status AppendArray(const Json& json, const DataType& type, arrow::ArrayBuilder* builder) {
  if (!json.is_array()) return Expected("an array", type, json);
  auto* list = static_cast<arrow::ListBuilder*>(builder);
  FRESHET_RETURN_NOT_OK(FromArrowStatus(list->Append()));
  for (size_t i = 0; i < json.size(); ++i) {
    Status status = AppendJson(json[i], *type.element_type(), list->value_builder());
    if (!status.ok()) return status.WithContext("element " + std::to_string(i));
  }
  return Status::OK();
}

Status AppendMapEntry(const Json& key, const Json& value, size_t index, const DataType& type,
                      arrow::MapBuilder* map) {
  // MAP keys are never null (Paimon and Arrow both forbid it).
  Status status = AppendJson(key, *type.key_type()->WithNullable(false), map->key_builder());
  if (!status.ok()) return status.WithContext("key " + std::to_string(index));
  if (type.root() == TypeRoot::kMultiset) {
    status = AppendJson(value, *DataType::Int(false), map->item_builder());
  } else {
    status = AppendJson(value, *type.value_type(), map->item_builder());
  }
  if (!status.ok()) return status.WithContext("value " + std::to_string(index));
  return Status::OK();
}

Status AppendMap(const Json& json, const DataType& type, arrow::ArrayBuilder* builder) {
  constexpr const char* kWhat = "an array of [key, value] pairs or an object";
  auto* map = static_cast<arrow::MapBuilder*>(builder);
  if (json.is_object()) {
    FRESHET_RETURN_NOT_OK(FromArrowStatus(map->Append()));
    size_t index = 0;
    for (const auto& [key, value] : json.items()) {
      FRESHET_RETURN_NOT_OK(AppendMapEntry(Json(key), value, index++, type, map));
    }
    return Status::OK();
  }
  if (!json.is_array()) return Expected(kWhat, type, json);
  for (const Json& entry : json) {
    if (!entry.is_array() || entry.size() != 2) return Expected(kWhat, type, json);
  }
  FRESHET_RETURN_NOT_OK(FromArrowStatus(map->Append()));
  for (size_t i = 0; i < json.size(); ++i) {
    FRESHET_RETURN_NOT_OK(AppendMapEntry(json[i][0], json[i][1], i, type, map));
  }
  return Status::OK();
}

Status AppendRow(const Json& json, const DataType& type, arrow::ArrayBuilder* builder) {
  const auto& fields = type.fields();
  auto* row = static_cast<arrow::StructBuilder*>(builder);
  static const Json kNull;
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (type.FieldIndexByName(key) < 0) {
        return Status::Invalid("unknown field '", key, "' for ", TypeName(type));
      }
    }
  } else if (!json.is_array() || json.size() != fields.size()) {
    return Expected("an object or an array of the field values", type, json);
  }
  FRESHET_RETURN_NOT_OK(FromArrowStatus(row->Append()));
  for (size_t i = 0; i < fields.size(); ++i) {
    const Json* value = &kNull;
    if (json.is_array()) {
      value = &json[i];
    } else if (auto it = json.find(fields[i].name); it != json.end()) {
      value = &*it;
    }
    Status status = AppendJson(*value, *fields[i].type, row->field_builder(static_cast<int>(i)));
    if (!status.ok()) return status.WithContext("field '" + fields[i].name + "'");
  }
  return Status::OK();
}

Status AppendJson(const Json& json, const DataType& type, arrow::ArrayBuilder* builder) {
  if (json.is_null()) {
    if (!type.nullable()) return Status::Invalid("null for ", type.ToString());
    return FromArrowStatus(builder->AppendNull());
  }
  switch (type.root()) {
    case TypeRoot::kArray:
      return AppendArray(json, type, builder);
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
      return AppendMap(json, type, builder);
    case TypeRoot::kRow:
      return AppendRow(json, type, builder);
    default: {
      FRESHET_ASSIGN_OR_RETURN(Value value, LeafValueFromJson(json, type));
      return bridge::AppendArrowValue(builder, value, type);
    }
  }
}

Result<RowKind> ParseRowKind(const Json& json, const std::string& key) {
  if (json.is_string()) {
    const auto& text = json.get_ref<const std::string&>();
    for (auto kind :
         {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete}) {
      if (text == RowKindShortString(kind)) return kind;
    }
  }
  return Status::Invalid("\"", key, "\" must be one of \"+I\", \"-U\", \"+U\", \"-D\", got ",
                         Describe(json));
}

class RowParser {
 public:
  RowParser(const std::vector<meta::DataField>& fields,
            std::vector<std::unique_ptr<arrow::ArrayBuilder>>* builders)
      : fields_(fields), builders_(*builders) {}

  // Appends one line's object to the builders (nothing is appended when it fails).
  Result<RowKind> ParseObject(const Json& row) {
    if (!row.is_object()) {
      return Status::Invalid("expected a JSON object, got ", Describe(row));
    }
    RowKind kind = RowKind::kInsert;
    const char* kind_key = nullptr;
    for (const auto& [key, value] : row.items()) {
      if (meta::FindFieldByName(fields_, key) >= 0) continue;
      if (key != kRowKindKey && key != "_kind") {
        return Status::Invalid("unknown column '", key, "'");
      }
      if (kind_key != nullptr) {
        return Status::Invalid("both \"", kind_key, "\" and \"", key,
                               "\" give the row kind: use one");
      }
      kind_key = key == "_kind" ? "_kind" : kRowKindKey;
      FRESHET_ASSIGN_OR_RETURN(kind, ParseRowKind(value, key));
    }
    // Check every column before appending, so a failed line leaves the builders aligned.
    values_.assign(fields_.size(), nullptr);
    for (size_t i = 0; i < fields_.size(); ++i) {
      auto it = row.find(fields_[i].name);
      if (it != row.end()) values_[i] = &*it;
      if ((values_[i] == nullptr || values_[i]->is_null()) && !fields_[i].type->nullable()) {
        return Status::Invalid("column '", fields_[i].name, "' is NOT NULL but ",
                               values_[i] == nullptr ? "missing" : "null");
      }
    }
    for (size_t i = 0; i < fields_.size(); ++i) {
      static const Json kNull;
      Status status =
          AppendJson(values_[i] ? *values_[i] : kNull, *fields_[i].type, builders_[i].get());
      if (!status.ok()) return status.WithContext("column '" + fields_[i].name + "'");
    }
    return kind;
  }

 private:
  const std::vector<meta::DataField>& fields_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>>& builders_;
  std::vector<const Json*> values_;
};

// The Arrow builders of one batch of `fields`.
struct RowBuilders {
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;

  static Result<RowBuilders> Make(const std::vector<meta::DataField>& fields) {
    RowBuilders out;
    FRESHET_ASSIGN_OR_RETURN(out.schema, bridge::ToArrowSchema(fields));
    for (const auto& field : out.schema->fields()) {
      auto builder = arrow::MakeBuilder(field->type());
      if (!builder.ok()) return FromArrowStatus(builder.status());
      out.builders.push_back(std::move(builder).ValueUnsafe());
    }
    return out;
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Finish(size_t rows) {
    arrow::ArrayVector columns;
    for (auto& builder : builders) {
      std::shared_ptr<arrow::Array> column;
      FRESHET_RETURN_NOT_OK(FromArrowStatus(builder->Finish(&column)));
      columns.push_back(std::move(column));
    }
    return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows), std::move(columns));
  }
};

// "<source>:<line>" (a file) or "line <line>".
std::string LineContext(std::string_view source, int64_t line) {
  if (source.empty()) return "line " + std::to_string(line);
  return std::string(source) + ":" + std::to_string(line);
}

// [-]digits[.digits][e[+-]digits], also "1." and ".5": the numbers FLOAT and DOUBLE read from CSV.
bool LooksLikeNumber(std::string_view text) {
  size_t pos = text.empty() || text[0] != '-' ? 0 : 1;
  size_t digits = 0;
  bool point = false;
  for (; pos < text.size(); ++pos) {
    if (std::isdigit(static_cast<unsigned char>(text[pos]))) {
      ++digits;
    } else if (text[pos] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits == 0) return false;
  if (pos == text.size()) return true;
  if (text[pos] != 'e' && text[pos] != 'E') return false;
  if (++pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  if (pos == text.size()) return false;
  for (; pos < text.size(); ++pos) {
    if (!std::isdigit(static_cast<unsigned char>(text[pos]))) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// CSV input is UTF-8 text, as JSON lines are (their parser refuses anything else).
Status CheckCsvFieldIsUtf8(const std::string& text) {
  size_t bad = FindInvalidUtf8(text);
  if (bad == std::string::npos) return Status::OK();
  char byte[8];
  std::snprintf(byte, sizeof(byte), "0x%02X", static_cast<unsigned char>(text[bad]));
  return Status::Invalid("not valid UTF-8 (byte ", byte, " at offset ", bad, ")");
}

// A CSV field as the JSON value that the JSON-lines reader takes for the same column, so both
// inputs share one converter: text as a string, FLOAT/DOUBLE digits as a raw number, BOOLEAN as
// a boolean, nested columns parsed as JSON. An empty field is null, except that a quoted empty
// field ("") is the empty string (or empty bytes) for the text and binary types.
Result<Json> CsvFieldToJson(const CsvField& field, const DataType& type) {
  FRESHET_RETURN_NOT_OK(CheckCsvFieldIsUtf8(field.text));
  if (field.text.empty()) {
    bool keeps_empty =
        field.quoted && (type.root() == TypeRoot::kChar || type.root() == TypeRoot::kVarChar ||
                         type.root() == TypeRoot::kBinary || type.root() == TypeRoot::kVarBinary);
    return keeps_empty ? Json(std::string()) : Json(nullptr);
  }
  if (type.IsComposite()) return ParseLine(field.text);
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (EqualsIgnoreCase(field.text, "true")) return Json(true);
      if (EqualsIgnoreCase(field.text, "false")) return Json(false);
      return Json(field.text);
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
      if (!LooksLikeNumber(field.text)) return Json(field.text);
      return Json::binary(Json::binary_t::container_type(field.text.begin(), field.text.end()));
    default:
      return Json(field.text);
  }
}

// ---------------------------------------------------------------------------------------------
// Output

// A JSON string: Jackson's escapes, and U+FFFD for bytes that are not UTF-8 (a data file written
// by another tool may hold any bytes), so that the output is always valid JSON.
std::string JsonString(const std::string& text) {
  return IsValidUtf8(text) ? JacksonQuote(text) : JacksonQuote(ReplaceInvalidUtf8(text));
}

// The text of one non-nested value; `quoted` when JSON writes it as a string.
struct LeafText {
  std::string text;
  bool quoted = false;
};

Result<LeafText> FormatLeaf(const arrow::Array& array, int64_t row, const DataType& type) {
  if (type.root() == TypeRoot::kChar || type.root() == TypeRoot::kVarChar) {
    return LeafText{std::string(static_cast<const arrow::StringArray&>(array).GetView(row)), true};
  }
  if (type.root() == TypeRoot::kBinary || type.root() == TypeRoot::kVarBinary) {
    return LeafText{Base64Encode(static_cast<const arrow::BinaryArray&>(array).GetView(row)), true};
  }
  FRESHET_ASSIGN_OR_RETURN(Value value, bridge::ArrowValueAt(array, row, type));
  const auto& storage = value.storage();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return LeafText{std::get<bool>(storage) ? "true" : "false", false};
    case TypeRoot::kTinyInt:
      return LeafText{std::to_string(std::get<int8_t>(storage)), false};
    case TypeRoot::kSmallInt:
      return LeafText{std::to_string(std::get<int16_t>(storage)), false};
    case TypeRoot::kInt:
      return LeafText{std::to_string(std::get<int32_t>(storage)), false};
    case TypeRoot::kBigInt:
      return LeafText{std::to_string(std::get<int64_t>(storage)), false};
    case TypeRoot::kFloat: {
      float v = std::get<float>(storage);
      return LeafText{JavaFloatingToString(v), !std::isfinite(v)};
    }
    case TypeRoot::kDouble: {
      double v = std::get<double>(storage);
      return LeafText{JavaFloatingToString(v), !std::isfinite(v)};
    }
    case TypeRoot::kDecimal:
      return LeafText{
          meta::FormatDecimalText(std::get<meta::Decimal>(storage).unscaled, type.scale()), true};
    case TypeRoot::kDate:
      return LeafText{meta::FormatEpochDay(std::get<int32_t>(storage)), true};
    case TypeRoot::kTime:
      return LeafText{meta::FormatTimeText(std::get<int32_t>(storage), type.precision()), true};
    case TypeRoot::kTimestamp:
      return LeafText{
          meta::FormatTimestampText(std::get<meta::Timestamp>(storage), type.precision()), true};
    case TypeRoot::kTimestampLtz:
      return LeafText{
          meta::FormatTimestampText(std::get<meta::Timestamp>(storage), type.precision()) + "Z",
          true};
    default:
      return Status::NotImplemented("printing ", type.ToString());
  }
}

Status WriteJsonValue(const arrow::Array& array, int64_t row, const DataType& type,
                      std::string* out);

Status WriteJsonList(const arrow::Array& array, int64_t row, const DataType& type,
                     std::string* out) {
  const auto& list = static_cast<const arrow::ListArray&>(array);
  *out += '[';
  for (int64_t i = 0; i < list.value_length(row); ++i) {
    if (i > 0) *out += ", ";
    FRESHET_RETURN_NOT_OK(
        WriteJsonValue(*list.values(), list.value_offset(row) + i, *type.element_type(), out));
  }
  *out += ']';
  return Status::OK();
}

Status WriteJsonMap(const arrow::Array& array, int64_t row, const DataType& type,
                    std::string* out) {
  const auto& map = static_cast<const arrow::MapArray&>(array);
  meta::DataTypePtr value_type =
      type.root() == TypeRoot::kMultiset ? DataType::Int(false) : type.value_type();
  *out += '[';
  for (int64_t i = 0; i < map.value_length(row); ++i) {
    int64_t entry = map.value_offset(row) + i;
    *out += i > 0 ? ", [" : "[";
    FRESHET_RETURN_NOT_OK(WriteJsonValue(*map.keys(), entry, *type.key_type(), out));
    *out += ", ";
    FRESHET_RETURN_NOT_OK(WriteJsonValue(*map.items(), entry, *value_type, out));
    *out += ']';
  }
  *out += ']';
  return Status::OK();
}

Status WriteJsonRow(const arrow::Array& array, int64_t row, const DataType& type,
                    std::string* out) {
  const auto& row_array = static_cast<const arrow::StructArray&>(array);
  const auto& fields = type.fields();
  *out += '{';
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) *out += ", ";
    *out += JsonString(fields[i].name);
    *out += ": ";
    FRESHET_RETURN_NOT_OK(
        WriteJsonValue(*row_array.field(static_cast<int>(i)), row, *fields[i].type, out));
  }
  *out += '}';
  return Status::OK();
}

Status WriteJsonValue(const arrow::Array& array, int64_t row, const DataType& type,
                      std::string* out) {
  if (array.IsNull(row)) {
    *out += "null";
    return Status::OK();
  }
  switch (type.root()) {
    case TypeRoot::kArray:
      return WriteJsonList(array, row, type, out);
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
      return WriteJsonMap(array, row, type, out);
    case TypeRoot::kRow:
      return WriteJsonRow(array, row, type, out);
    default: {
      FRESHET_ASSIGN_OR_RETURN(LeafText leaf, FormatLeaf(array, row, type));
      *out += leaf.quoted ? JsonString(leaf.text) : leaf.text;
      return Status::OK();
    }
  }
}

Status CheckBatchShape(const arrow::RecordBatch& batch,
                       const std::vector<meta::DataField>& fields) {
  if (batch.num_columns() != static_cast<int>(fields.size())) {
    return Status::Invalid("the batch has ", batch.num_columns(), " columns, the schema has ",
                           fields.size());
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(auto expected, bridge::ToArrowType(*fields[i].type));
    const auto& actual = batch.column(static_cast<int>(i))->type();
    if (!actual->Equals(*expected, false)) {
      return Status::Invalid("column '", fields[i].name, "' is ", actual->ToString(),
                             " in the batch, expected ", expected->ToString(), " for ",
                             fields[i].type->ToString());
    }
  }
  return Status::OK();
}

// A cell as CSV / table text: strings without their quotes, nested values as JSON text.
Result<std::optional<std::string>> CellText(const arrow::Array& array, int64_t row,
                                            const DataType& type) {
  if (array.IsNull(row)) return std::optional<std::string>();
  if (type.IsComposite()) {
    std::string json;
    FRESHET_RETURN_NOT_OK(WriteJsonValue(array, row, type, &json));
    return std::optional<std::string>(std::move(json));
  }
  FRESHET_ASSIGN_OR_RETURN(LeafText leaf, FormatLeaf(array, row, type));
  return std::optional<std::string>(std::move(leaf.text));
}

std::string QuoteCsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Control characters would break the table's lines; show them as JSON escapes.
std::string TerminalSafe(const std::string& text) {
  bool has_control = std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
  if (!has_control) return text;
  std::string out;
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      std::string escaped = JacksonQuote(std::string(1, c));
      out += c == 0x7F ? "\\u007F" : escaped.substr(1, escaped.size() - 2);
    } else {
      out += c;
    }
  }
  return out;
}

// Display width: UTF-8 code points (continuation bytes do not count).
size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

bool IsNumeric(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
    case TypeRoot::kDecimal:
      return true;
    default:
      return false;
  }
}

std::string Pad(const std::string& text, size_t width, bool right_align) {
  size_t fill = width - std::min(width, DisplayWidth(text));
  return right_align ? std::string(fill, ' ') + text : text + std::string(fill, ' ');
}

void AppendTableLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                     const std::vector<bool>& right_align, std::string* out) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += " | ";
    line += Pad(cells[i], widths[i], right_align[i]);
  }
  line.erase(line.find_last_not_of(' ') + 1);
  *out += line + "\n";
}

}  // namespace

Result<ParsedRows> ParseJsonRows(std::string_view text, const std::vector<meta::DataField>& fields,
                                 std::string_view source, int64_t first_line) {
  FRESHET_ASSIGN_OR_RETURN(RowBuilders builders, RowBuilders::Make(fields));
  ParsedRows parsed;
  RowParser parser(fields, &builders.builders);
  int64_t line_number = first_line - 1;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto row = ParseLine(line);
    Result<RowKind> kind = row.ok() ? parser.ParseObject(*row) : Result<RowKind>(row.status());
    if (!kind.ok()) return kind.status().WithContext(LineContext(source, line_number));
    parsed.row_kinds.push_back(static_cast<int8_t>(*kind));
    parsed.lines.push_back(line_number);
  }
  FRESHET_ASSIGN_OR_RETURN(parsed.batch, builders.Finish(parsed.row_kinds.size()));
  return parsed;
}

Result<CsvRowParser> CsvRowParser::Make(const CsvRecord& header,
                                        const std::vector<meta::DataField>& fields,
                                        std::string source) {
  CsvRowParser parser;
  parser.fields_ = fields;
  parser.source_ = std::move(source);
  std::string context = LineContext(parser.source_, header.line);
  if (header.fields.size() == 1 && header.fields[0].text.empty()) {
    return Status::Invalid(context, ": the header line is empty; it must name the columns");
  }
  std::vector<bool> seen(fields.size(), false);
  bool kind_column = false;
  for (const CsvField& name : header.fields) {
    int index = meta::FindFieldByName(fields, name.text);
    if (index < 0 && name.text == kRowKindKey) {
      if (kind_column) {
        return Status::Invalid(context, ": column '", name.text, "' appears twice in the header");
      }
      kind_column = true;
      parser.columns_.push_back(-1);
      continue;
    }
    if (index < 0) {
      std::string names;
      for (const auto& field : fields) names += (names.empty() ? "" : ", ") + field.name;
      return Status::Invalid(context, ": unknown column '", name.text,
                             "' in the header (the table's columns: ", names, ")");
    }
    if (seen[static_cast<size_t>(index)]) {
      return Status::Invalid(context, ": column '", name.text, "' appears twice in the header");
    }
    seen[static_cast<size_t>(index)] = true;
    parser.columns_.push_back(index);
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!seen[i] && !fields[i].type->nullable()) {
      return Status::Invalid(context, ": the header has no column '", fields[i].name,
                             "', which is NOT NULL");
    }
  }
  return parser;
}

Result<ParsedRows> CsvRowParser::Parse(const std::vector<CsvRecord>& records) const {
  FRESHET_ASSIGN_OR_RETURN(RowBuilders builders, RowBuilders::Make(fields_));
  ParsedRows parsed;
  RowParser parser(fields_, &builders.builders);
  for (const CsvRecord& record : records) {
    // An empty line is one empty field: a null row for a one-column header, skipped otherwise.
    bool blank =
        record.fields.size() == 1 && !record.fields[0].quoted && record.fields[0].text.empty();
    if (blank && columns_.size() != 1) continue;
    std::string context = LineContext(source_, record.line);
    if (record.fields.size() != columns_.size()) {
      return Status::Invalid(context, ": ", record.fields.size(), " field",
                             record.fields.size() == 1 ? "" : "s", ", but the header has ",
                             columns_.size());
    }
    Json row = Json::object();
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i] < 0) {  // the row kind: an empty field is +I
        const CsvField& kind = record.fields[i];
        if (kind.quoted || !kind.text.empty()) row[kRowKindKey] = kind.text;
        continue;
      }
      const meta::DataField& field = fields_[static_cast<size_t>(columns_[i])];
      Result<Json> value = CsvFieldToJson(record.fields[i], *field.type);
      if (!value.ok()) {
        return value.status().WithContext(context + ": column '" + field.name + "'");
      }
      row[field.name] = std::move(*value);
    }
    Result<RowKind> kind = parser.ParseObject(row);
    if (!kind.ok()) return kind.status().WithContext(context);
    parsed.row_kinds.push_back(static_cast<int8_t>(*kind));
    parsed.lines.push_back(record.line);
  }
  FRESHET_ASSIGN_OR_RETURN(parsed.batch, builders.Finish(parsed.row_kinds.size()));
  return parsed;
}

Result<std::string> FormatJsonRows(const arrow::RecordBatch& batch,
                                   const std::vector<meta::DataField>& fields) {
  FRESHET_RETURN_NOT_OK(CheckBatchShape(batch, fields));
  std::vector<std::string> keys;
  for (const auto& field : fields) keys.push_back(JsonString(field.name) + ": ");
  std::string out;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    out += '{';
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ", ";
      out += keys[i];
      FRESHET_RETURN_NOT_OK(
          WriteJsonValue(*batch.column(static_cast<int>(i)), row, *fields[i].type, &out));
    }
    out += "}\n";
  }
  return out;
}

Result<std::string> FormatCsvRows(const arrow::RecordBatch& batch,
                                  const std::vector<meta::DataField>& fields) {
  FRESHET_RETURN_NOT_OK(CheckBatchShape(batch, fields));
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += QuoteCsvField(fields[i].name);
  }
  out += '\n';
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ',';
      FRESHET_ASSIGN_OR_RETURN(auto cell,
                               CellText(*batch.column(static_cast<int>(i)), row, *fields[i].type));
      // Null is an empty field; an empty string is quoted so that the two stay distinct.
      if (cell) out += cell->empty() ? "\"\"" : QuoteCsvField(*cell);
    }
    out += '\n';
  }
  return out;
}

Result<std::string> FormatTableRows(const arrow::RecordBatch& batch,
                                    const std::vector<meta::DataField>& fields) {
  FRESHET_RETURN_NOT_OK(CheckBatchShape(batch, fields));
  std::vector<std::vector<std::string>> lines(1);
  std::vector<size_t> widths;
  std::vector<bool> right_align;
  for (const auto& field : fields) {
    lines[0].push_back(TerminalSafe(field.name));
    widths.push_back(DisplayWidth(lines[0].back()));
    right_align.push_back(IsNumeric(*field.type));
  }
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    std::vector<std::string>& cells = lines.emplace_back();
    for (size_t i = 0; i < fields.size(); ++i) {
      FRESHET_ASSIGN_OR_RETURN(auto cell,
                               CellText(*batch.column(static_cast<int>(i)), row, *fields[i].type));
      cells.push_back(cell ? TerminalSafe(*cell) : "null");
      widths[i] = std::max(widths[i], DisplayWidth(cells.back()));
    }
  }
  std::string out;
  AppendTableLine(lines[0], widths, std::vector<bool>(fields.size(), false), &out);
  std::string rule;
  for (size_t i = 0; i < widths.size(); ++i)
    rule += (i > 0 ? "-+-" : "") + std::string(widths[i], '-');
  out += rule + "\n";
  for (size_t i = 1; i < lines.size(); ++i) AppendTableLine(lines[i], widths, right_align, &out);
  return out;
}

}  // namespace freshet::textrows
