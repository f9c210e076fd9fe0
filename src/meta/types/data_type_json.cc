// Parsing of the SQL type strings and the JSON type encoding used by Paimon schema files.
#include <cctype>
#include <charconv>
#include <string>
#include <vector>

#include "common/json.h"
#include "meta/types/data_type.h"

namespace freshet::meta {

namespace {

// Splits a type string into upper-cased words, numbers and the punctuation "(", ")", ",".
std::vector<std::string> Tokenize(std::string_view sql) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < sql.size()) {
    unsigned char c = static_cast<unsigned char>(sql[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (c == '(' || c == ')' || c == ',') {
      tokens.emplace_back(1, static_cast<char>(c));
      ++i;
    } else {
      std::string word;
      while (i < sql.size()) {
        unsigned char w = static_cast<unsigned char>(sql[i]);
        if (std::isspace(w) || w == '(' || w == ')' || w == ',') break;
        word += static_cast<char>(std::toupper(w));
        ++i;
      }
      tokens.push_back(std::move(word));
    }
  }
  return tokens;
}

// Recursive-descent parser over the tokens of one atomic type.
class AtomicTypeParser {
 public:
  explicit AtomicTypeParser(std::string_view sql) : sql_(sql), tokens_(Tokenize(sql)) {}

  Result<DataTypePtr> Parse() {
    if (tokens_.empty()) return Error("empty type string");
    FRESHET_ASSIGN_OR_RETURN(DataTypePtr type, ParseBase());
    FRESHET_ASSIGN_OR_RETURN(bool nullable, ParseNullability());
    if (pos_ != tokens_.size()) return Error("unexpected '" + tokens_[pos_] + "'");
    return type->WithNullable(nullable);
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Invalid("invalid data type '", sql_, "': ", what);
  }
  bool Accept(std::string_view token) {
    if (pos_ < tokens_.size() && tokens_[pos_] == token) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status Expect(std::string_view token) {
    if (Accept(token)) return Status::OK();
    return Error("expected '" + std::string(token) + "'");
  }
  Result<int32_t> ParseNumber() {
    if (pos_ >= tokens_.size()) return Error("expected a number");
    const std::string& token = tokens_[pos_];
    int64_t value = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size() || value > 2147483647) {
      return Error("'" + token + "' is not a valid length or precision");
    }
    ++pos_;
    return static_cast<int32_t>(value);
  }
  // "(n)" if present, else `fallback`.
  Result<int32_t> OptionalParameter(int32_t fallback) {
    if (!Accept("(")) return fallback;
    FRESHET_ASSIGN_OR_RETURN(int32_t value, ParseNumber());
    FRESHET_RETURN_NOT_OK(Expect(")"));
    return value;
  }
  Result<bool> ParseNullability() {
    if (Accept("NOT")) {
      FRESHET_RETURN_NOT_OK(Expect("NULL"));
      return false;
    }
    Accept("NULL");
    return true;
  }
  // Swallows "WITHOUT TIME ZONE"; returns true for "WITH LOCAL TIME ZONE".
  Result<bool> ParseZoneSuffix() {
    if (Accept("WITHOUT")) {
      FRESHET_RETURN_NOT_OK(Expect("TIME"));
      FRESHET_RETURN_NOT_OK(Expect("ZONE"));
      return false;
    }
    if (!Accept("WITH")) return false;
    FRESHET_RETURN_NOT_OK(Expect("LOCAL"));
    FRESHET_RETURN_NOT_OK(Expect("TIME"));
    FRESHET_RETURN_NOT_OK(Expect("ZONE"));
    return true;
  }
  Result<DataTypePtr> ParseDecimal() {
    int32_t precision = 10;
    int32_t scale = 0;
    if (Accept("(")) {
      FRESHET_ASSIGN_OR_RETURN(precision, ParseNumber());
      if (Accept(",")) {
        FRESHET_ASSIGN_OR_RETURN(scale, ParseNumber());
      }
      FRESHET_RETURN_NOT_OK(Expect(")"));
    }
    return WithContext(DataType::Decimal(precision, scale));
  }
  Result<DataTypePtr> ParseTimestamp() {
    FRESHET_ASSIGN_OR_RETURN(int32_t precision, OptionalParameter(6));
    FRESHET_ASSIGN_OR_RETURN(bool local_zone, ParseZoneSuffix());
    return WithContext(local_zone ? DataType::TimestampLtz(precision)
                                  : DataType::Timestamp(precision));
  }
  Result<DataTypePtr> WithContext(Result<DataTypePtr> result) const {
    if (result.ok()) return result;
    return Error(result.status().message());
  }
  Result<DataTypePtr> ParseLength(Result<DataTypePtr> (*make)(int32_t, bool)) {
    FRESHET_ASSIGN_OR_RETURN(int32_t length, OptionalParameter(1));
    return WithContext(make(length, true));
  }

  Result<DataTypePtr> ParseBase() {
    const std::string word = tokens_[pos_++];
    if (word == "BOOLEAN") return DataType::Boolean();
    if (word == "TINYINT") return DataType::TinyInt();
    if (word == "SMALLINT") return DataType::SmallInt();
    if (word == "INT" || word == "INTEGER") return DataType::Int();
    if (word == "BIGINT") return DataType::BigInt();
    if (word == "FLOAT") return DataType::Float();
    if (word == "DOUBLE") {
      Accept("PRECISION");
      return DataType::Double();
    }
    if (word == "DATE") return DataType::Date();
    if (word == "STRING") return DataType::String();
    if (word == "BYTES") return DataType::Bytes();
    if (word == "VARIANT") return DataType::Variant();
    if (word == "BLOB") return DataType::Blob();
    if (word == "CHAR") return ParseLength(&DataType::Char);
    if (word == "VARCHAR") return ParseLength(&DataType::VarChar);
    if (word == "BINARY") return ParseLength(&DataType::Binary);
    if (word == "VARBINARY") return ParseLength(&DataType::VarBinary);
    if (word == "DECIMAL" || word == "DEC" || word == "NUMERIC") return ParseDecimal();
    if (word == "TIME") {
      FRESHET_ASSIGN_OR_RETURN(int32_t precision, OptionalParameter(0));
      FRESHET_ASSIGN_OR_RETURN(bool local_zone, ParseZoneSuffix());
      if (local_zone) return Error("TIME WITH LOCAL TIME ZONE is not a Paimon type");
      return WithContext(DataType::Time(precision));
    }
    if (word == "TIMESTAMP") return ParseTimestamp();
    if (word == "TIMESTAMP_LTZ") {
      FRESHET_ASSIGN_OR_RETURN(int32_t precision, OptionalParameter(6));
      return WithContext(DataType::TimestampLtz(precision));
    }
    return Error("unknown type '" + word + "'");
  }

  std::string_view sql_;
  std::vector<std::string> tokens_;
  size_t pos_ = 0;
};

// "ARRAY NOT NULL" -> ("ARRAY", false).
std::pair<std::string, bool> SplitCompositeName(const std::string& text) {
  std::vector<std::string> tokens = Tokenize(text);
  bool nullable = true;
  if (tokens.size() >= 2 && tokens[tokens.size() - 2] == "NOT" && tokens.back() == "NULL") {
    nullable = false;
    tokens.resize(tokens.size() - 2);
  } else if (tokens.size() >= 2 && tokens.back() == "NULL") {
    tokens.pop_back();
  }
  return {tokens.size() == 1 ? tokens[0] : text, nullable};
}

Result<DataTypePtr> TypeFromJson(const Json& json, int depth);
Result<DataField> FieldFromJson(const Json& json, int depth);

Result<DataTypePtr> MemberType(const Json& json, const char* member, int depth) {
  auto it = json.find(member);
  if (it == json.end()) {
    return Status::Invalid("composite type ", JsonSnippet(json), " has no '", member, "' member");
  }
  return TypeFromJson(*it, depth);
}

// `depth`: the nesting levels used by the enclosing types. A MAP takes two (Arrow represents it
// as a list of key/value structs).
Result<DataTypePtr> CompositeFromJson(const Json& json, int depth) {
  auto type_it = json.find("type");
  if (type_it == json.end() || !type_it->is_string()) {
    return Status::Invalid("composite type ", JsonSnippet(json), " has no string 'type' member");
  }
  auto [name, nullable] = SplitCompositeName(type_it->get<std::string>());
  const int levels = depth + (name == "MAP" || name == "MULTISET" ? 2 : 1);
  if (levels > kMaxTypeNestingDepth) {
    return Status::Invalid("types nest deeper than ", kMaxTypeNestingDepth,
                           " levels (MAP and MULTISET count two), which Arrow cannot carry");
  }
  if (name == "ARRAY" || name == "MULTISET") {
    FRESHET_ASSIGN_OR_RETURN(DataTypePtr element, MemberType(json, "element", levels));
    return name == "ARRAY" ? DataType::Array(element, nullable)
                           : DataType::Multiset(element, nullable);
  }
  if (name == "MAP") {
    FRESHET_ASSIGN_OR_RETURN(DataTypePtr key, MemberType(json, "key", levels));
    FRESHET_ASSIGN_OR_RETURN(DataTypePtr value, MemberType(json, "value", levels));
    return DataType::Map(key, value, nullable);
  }
  if (name == "ROW") {
    auto fields_it = json.find("fields");
    if (fields_it == json.end() || !fields_it->is_array()) {
      return Status::Invalid("ROW type ", JsonSnippet(json), " has no 'fields' array");
    }
    std::vector<DataField> fields;
    for (const Json& field_json : *fields_it) {
      FRESHET_ASSIGN_OR_RETURN(DataField field, FieldFromJson(field_json, levels));
      fields.push_back(std::move(field));
    }
    return DataType::Row(std::move(fields), nullable);
  }
  return Status::Invalid("unknown composite type '", type_it->get<std::string>(), "'");
}

Result<std::optional<std::string>> OptionalString(const Json& json, const char* member) {
  auto it = json.find(member);
  if (it == json.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Status::Invalid("'", member, "' must be a string");
  return std::optional<std::string>(it->get<std::string>());
}

}  // namespace

Result<DataTypePtr> ParseAtomicType(std::string_view sql) { return AtomicTypeParser(sql).Parse(); }

Result<DataTypePtr> DataTypeFromJson(const Json& json) { return TypeFromJson(json, 0); }

Json DataTypeToJson(const DataType& type) {
  if (!type.IsComposite()) return Json(type.ToString());
  std::string name;
  switch (type.root()) {
    case TypeRoot::kArray:
      name = "ARRAY";
      break;
    case TypeRoot::kMultiset:
      name = "MULTISET";
      break;
    case TypeRoot::kMap:
      name = "MAP";
      break;
    default:
      name = "ROW";
  }
  Json json = Json::object();
  json["type"] = type.nullable() ? name : name + " NOT NULL";
  if (type.root() == TypeRoot::kMap) {
    json["key"] = DataTypeToJson(*type.key_type());
    json["value"] = DataTypeToJson(*type.value_type());
  } else if (type.root() == TypeRoot::kRow) {
    Json fields = Json::array();
    for (const DataField& field : type.fields()) fields.push_back(DataFieldToJson(field));
    json["fields"] = std::move(fields);
  } else {
    json["element"] = DataTypeToJson(*type.element_type());
  }
  return json;
}

Result<DataField> DataFieldFromJson(const Json& json) { return FieldFromJson(json, 0); }

namespace {

Result<DataTypePtr> TypeFromJson(const Json& json, int depth) {
  if (json.is_string()) return ParseAtomicType(json.get<std::string>());
  if (json.is_object()) return CompositeFromJson(json, depth);
  return Status::Invalid("a data type must be a string or an object, got ", JsonSnippet(json));
}

// A field id: a JSON integer in [0, 2^31 - 1] (Java's int), never narrowed.
Result<int32_t> FieldId(const Json& json) {
  auto id = json.find("id");
  bool in_range =
      id != json.end() && ((id->is_number_unsigned() && id->get<uint64_t>() <= INT32_MAX) ||
                           (id->is_number_integer() && !id->is_number_unsigned() &&
                            id->get<int64_t>() >= 0 && id->get<int64_t>() <= INT32_MAX));
  if (!in_range) {
    return Status::Invalid("field ", JsonSnippet(json),
                           " has no integer 'id' between 0 and 2147483647");
  }
  return id->get<int32_t>();
}

Result<DataField> FieldFromJson(const Json& json, int depth) {
  if (!json.is_object()) {
    return Status::Invalid("a field must be an object, got ", JsonSnippet(json));
  }
  FRESHET_ASSIGN_OR_RETURN(int32_t id, FieldId(json));
  auto name_it = json.find("name");
  if (name_it == json.end() || !name_it->is_string()) {
    return Status::Invalid("field ", JsonSnippet(json), " has no string 'name'");
  }
  DataField field;
  field.id = id;
  field.name = name_it->get<std::string>();
  auto type_it = json.find("type");
  if (type_it == json.end()) return Status::Invalid("field '", field.name, "' has no 'type'");
  auto type = TypeFromJson(*type_it, depth);
  if (!type.ok()) return type.status().WithContext("field '" + field.name + "'");
  field.type = *type;
  FRESHET_ASSIGN_OR_RETURN(field.description, OptionalString(json, "description"));
  FRESHET_ASSIGN_OR_RETURN(field.default_value, OptionalString(json, "defaultValue"));
  return field;
}

}  // namespace

Json DataFieldToJson(const DataField& field) {
  Json json = Json::object();
  json["id"] = field.id;
  json["name"] = field.name;
  json["type"] = DataTypeToJson(*field.type);
  if (field.description) json["description"] = *field.description;
  if (field.default_value) json["defaultValue"] = *field.default_value;
  return json;
}

}  // namespace freshet::meta
