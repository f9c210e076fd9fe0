#include "meta/schema/table_schema.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "common/json.h"
#include "meta/options/option_registry.h"

namespace freshet::meta {

namespace {

constexpr char kBucketOption[] = "bucket";
constexpr char kBucketKeyOption[] = "bucket-key";
constexpr char kFileFormatOption[] = "file.format";
constexpr char kPrimaryKeyNullableOption[] = "primary-key.nullable";

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string Join(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

// Java's String.split(","): pieces as is, trailing empty pieces dropped.
std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    parts.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

bool IsWhitespaceOnly(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

void CollectHighestId(const DataType& type, int32_t* highest);

void CollectHighestId(const std::vector<DataField>& fields, int32_t* highest) {
  for (const DataField& field : fields) {
    if (field.id < kKeyFieldIdStart) *highest = std::max(*highest, field.id);
    CollectHighestId(*field.type, highest);
  }
}

void CollectHighestId(const DataType& type, int32_t* highest) {
  if (type.root() == TypeRoot::kRow) CollectHighestId(type.fields(), highest);
  if (type.element_type()) CollectHighestId(*type.element_type(), highest);
  if (type.value_type()) CollectHighestId(*type.value_type(), highest);
}

// ---------------------------------------------------------------------------------------------
// Reading the JSON file

// Reads members of the top-level object; errors name the file and the member.
class SchemaJsonReader {
 public:
  SchemaJsonReader(const Json& root, std::string_view path) : root_(root), path_(path) {}

  Status Error(const std::string& member, const std::string& what) const {
    return Status::Corruption("schema file '", path_, "': field '", member, "': ", what);
  }

  // Missing members read as `fallback`.
  Result<int64_t> Integer(const char* member, std::optional<int64_t> fallback) const {
    auto it = root_.find(member);
    if (it == root_.end() || it->is_null()) {
      if (fallback) return *fallback;
      return Error(member, "missing");
    }
    if (!it->is_number_integer()) return Error(member, "expected an integer, got " + it->dump());
    return it->get<int64_t>();
  }

  Result<std::vector<std::string>> StringArray(const char* member) const {
    auto it = root_.find(member);
    if (it == root_.end()) return Error(member, "missing");
    if (!it->is_array()) return Error(member, "expected an array, got " + it->dump());
    std::vector<std::string> values;
    for (const Json& value : *it) {
      if (!value.is_string()) return Error(member, "expected strings, got " + JsonSnippet(value));
      values.push_back(value.get<std::string>());
    }
    return values;
  }

  Result<std::vector<DataField>> Fields() const {
    auto it = root_.find("fields");
    if (it == root_.end()) return Error("fields", "missing");
    if (!it->is_array()) return Error("fields", "expected an array, got " + it->dump());
    std::vector<DataField> fields;
    for (size_t i = 0; i < it->size(); ++i) {
      auto field = DataFieldFromJson((*it)[i]);
      if (!field.ok()) {
        return Error("fields[" + std::to_string(i) + "]", field.status().message());
      }
      fields.push_back(std::move(field).MoveValueUnsafe());
    }
    return fields;
  }

  Result<Options> OptionMap() const {
    Options options;
    auto it = root_.find("options");
    if (it == root_.end() || it->is_null()) return options;
    if (!it->is_object()) return Error("options", "expected an object, got " + it->dump());
    for (auto entry = it->begin(); entry != it->end(); ++entry) {
      if (!entry.value().is_string()) {
        return Error("options." + entry.key(),
                     "expected a string, got " + JsonSnippet(entry.value()));
      }
      options.emplace_back(entry.key(), entry.value().get<std::string>());
    }
    return options;
  }

  Result<std::optional<std::string>> Comment() const {
    auto it = root_.find("comment");
    if (it == root_.end() || it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return Error("comment", "expected a string, got " + it->dump());
    return std::optional<std::string>(it->get<std::string>());
  }

 private:
  const Json& root_;
  std::string_view path_;
};

// Old schema versions relied on defaults that later versions changed; pin them explicitly.
void ApplyLegacyDefaults(int32_t version, Options* options) {
  if (version <= 1 && !FindOption(*options, kBucketOption)) {
    options->emplace_back(kBucketOption, "1");
  }
  if (version <= 2 && !FindOption(*options, kFileFormatOption)) {
    options->emplace_back(kFileFormatOption, "orc");
  }
}

// ---------------------------------------------------------------------------------------------
// Creating a schema

DataTypePtr ReassignNestedIds(const DataTypePtr& type, int32_t* next_id) {
  switch (type->root()) {
    case TypeRoot::kRow: {
      // Inside a ROW, Java numbers a field's nested fields before the field itself (its id
      // visitor rebuilds the child type first), unlike top-level columns.
      std::vector<DataField> fields = type->fields();
      for (DataField& field : fields) {
        field.type = ReassignNestedIds(field.type, next_id);
        field.id = (*next_id)++;
      }
      return DataType::Row(std::move(fields), type->nullable());
    }
    case TypeRoot::kArray:
      return DataType::Array(ReassignNestedIds(type->element_type(), next_id), type->nullable());
    case TypeRoot::kMultiset:
      return DataType::Multiset(ReassignNestedIds(type->element_type(), next_id), type->nullable());
    case TypeRoot::kMap: {
      DataTypePtr key = ReassignNestedIds(type->key_type(), next_id);
      DataTypePtr value = ReassignNestedIds(type->value_type(), next_id);
      return DataType::Map(key, value, type->nullable());
    }
    default:
      return type;
  }
}

// Java's Schema.Builder: a top-level column takes the next id, then its nested fields take the
// following ones (see ReassignNestedIds for the order inside a ROW).
int32_t AssignIds(std::vector<DataField>* fields, int32_t next_id) {
  for (DataField& field : *fields) {
    field.id = next_id++;
    field.type = ReassignNestedIds(field.type, &next_id);
  }
  return next_id;
}

Status CheckUniqueNames(const std::vector<DataField>& fields, const std::string& where) {
  std::set<std::string> seen;
  for (const DataField& field : fields) {
    if (!field.type) return Status::Invalid("field '", field.name, "' has no type");
    if (!seen.insert(field.name).second) {
      return Status::Invalid("duplicate field name '", field.name, "' in ", where);
    }
    if (field.type->root() == TypeRoot::kRow) {
      FRESHET_RETURN_NOT_OK(
          CheckUniqueNames(field.type->fields(), "ROW field '" + field.name + "'"));
    }
  }
  return Status::OK();
}

void CollectIds(const DataType& type, std::vector<int32_t>* ids);

void CollectIds(const std::vector<DataField>& fields, std::vector<int32_t>* ids) {
  for (const DataField& field : fields) {
    ids->push_back(field.id);
    CollectIds(*field.type, ids);
  }
}

void CollectIds(const DataType& type, std::vector<int32_t>* ids) {
  if (type.root() == TypeRoot::kRow) CollectIds(type.fields(), ids);
  // A MAP's key is its element_type() (key_type() is the same pointer).
  if (type.element_type()) CollectIds(*type.element_type(), ids);
  if (type.value_type()) CollectIds(*type.value_type(), ids);
}

// Field ids (nested ones too) are unique and covered by highestFieldId: a damaged id must not
// map one column's data onto another.
Status CheckFieldIds(const std::vector<DataField>& fields, int64_t highest_field_id) {
  std::vector<int32_t> ids;
  CollectIds(fields, &ids);
  std::sort(ids.begin(), ids.end());
  if (auto dup = std::adjacent_find(ids.begin(), ids.end()); dup != ids.end()) {
    return Status::Invalid("field id ", *dup, " is used twice");
  }
  if (!ids.empty() && ids.back() < kKeyFieldIdStart && ids.back() > highest_field_id) {
    return Status::Invalid("field id ", ids.back(), " is above highestFieldId ", highest_field_id);
  }
  return Status::OK();
}

Status CheckReservedNames(const std::vector<DataField>& fields) {
  static const char* const kReserved[] = {kSequenceNumberField, kValueKindField, kLevelField,
                                          kRowKindField, kRowIdField};
  for (const DataField& field : fields) {
    if (field.name.rfind(kKeyFieldPrefix, 0) == 0) {
      return Status::Invalid("field name '", field.name, "' must not start with the reserved '",
                             kKeyFieldPrefix, "' prefix");
    }
    for (const char* reserved : kReserved) {
      if (field.name == reserved) {
        return Status::Invalid("field name '", field.name, "' is reserved by Paimon");
      }
    }
  }
  return Status::OK();
}

Status CheckKeyColumns(const std::vector<DataField>& fields, const std::vector<std::string>& keys,
                       const char* what) {
  std::set<std::string> seen;
  for (const std::string& key : keys) {
    if (FindFieldByName(fields, key) < 0) {
      return Status::Invalid(what, " column '", key, "' is not a field of the table");
    }
    if (!seen.insert(key).second) return Status::Invalid("duplicate ", what, " column '", key, "'");
  }
  return Status::OK();
}

Status CheckBucketKeys(const TableSchema& schema) {
  auto bucket_key = schema.option(kBucketKeyOption);
  bool has_bucket_key = bucket_key && !IsWhitespaceOnly(*bucket_key);
  bool is_pk_table = !schema.primary_keys().empty();
  int32_t bucket = schema.bucket();  // -2, -1 or positive (the option registry's rule)
  if (bucket == -2 && !is_pk_table) {
    return Status::Invalid("option 'bucket' = -2 (postpone) requires a primary-key table");
  }
  if (!is_pk_table && bucket == -1 && has_bucket_key) {
    return Status::Invalid(
        "option 'bucket-key' cannot be set for an append table without "
        "fixed buckets ('bucket' = -1)");
  }
  if (!is_pk_table && bucket > 0 && !has_bucket_key) {
    return Status::Invalid("an append table with 'bucket' = ", bucket,
                           " must set option 'bucket-key'");
  }
  if (!has_bucket_key) return Status::OK();
  for (const std::string& key : schema.BucketKeys()) {
    int index = schema.FieldIndex(key);
    if (index < 0) return Status::Invalid("bucket-key column '", key, "' is not a field");
    if (Contains(schema.partition_keys(), key)) {
      return Status::Invalid("bucket-key column '", key, "' must not be a partition key");
    }
    if (schema.fields()[index].type->IsComposite()) {
      return Status::Invalid("bucket-key column '", key, "' must not be a nested type, it is ",
                             schema.fields()[index].type->ToString());
    }
    if (is_pk_table && !Contains(schema.primary_keys(), key)) {
      return Status::Invalid("bucket-key column '", key, "' must be a primary-key column ",
                             Join(schema.primary_keys()));
    }
  }
  return Status::OK();
}

}  // namespace

std::optional<std::string> FindOption(const Options& options, std::string_view key) {
  for (const auto& [name, value] : options) {
    if (name == key) return value;
  }
  return std::nullopt;
}

Status TableSchema::InitDerived() {
  FRESHET_ASSIGN_OR_RETURN(bucket_, GetIntOption(options_, kBucketOption));
  return Status::OK();
}

Result<TableSchema> TableSchema::WithOptions(Options options) const {
  TableSchema copy = *this;
  copy.options_ = std::move(options);
  FRESHET_RETURN_NOT_OK(copy.InitDerived());
  return copy;
}

Result<TableSchema> TableSchema::FromJson(std::string_view text, std::string_view source_path) {
  Result<Json> parsed = ParseJson(text, source_path);
  if (!parsed.ok()) {
    return Status::Corruption("schema file '", source_path, "': ", parsed.status().message());
  }
  Json root = std::move(parsed).MoveValueUnsafe();
  if (!root.is_object()) {
    return Status::Corruption("schema file '", source_path, "' is not a JSON object");
  }
  SchemaJsonReader reader(root, source_path);
  TableSchema schema;
  FRESHET_ASSIGN_OR_RETURN(int64_t version, reader.Integer("version", 1));
  schema.version_ = static_cast<int32_t>(version);
  FRESHET_ASSIGN_OR_RETURN(schema.id_, reader.Integer("id", std::nullopt));
  FRESHET_ASSIGN_OR_RETURN(schema.fields_, reader.Fields());
  FRESHET_ASSIGN_OR_RETURN(int64_t highest,
                           reader.Integer("highestFieldId", ComputeHighestFieldId(schema.fields_)));
  schema.highest_field_id_ = static_cast<int32_t>(highest);
  FRESHET_ASSIGN_OR_RETURN(schema.partition_keys_, reader.StringArray("partitionKeys"));
  FRESHET_ASSIGN_OR_RETURN(schema.primary_keys_, reader.StringArray("primaryKeys"));
  FRESHET_ASSIGN_OR_RETURN(schema.options_, reader.OptionMap());
  ApplyLegacyDefaults(schema.version_, &schema.options_);
  FRESHET_ASSIGN_OR_RETURN(schema.comment_, reader.Comment());
  FRESHET_ASSIGN_OR_RETURN(schema.time_millis_, reader.Integer("timeMillis", 0));
  Status valid = schema.CheckLoaded(highest);
  if (!valid.ok()) {
    return Status::Corruption("schema file '", source_path, "': ", valid.message());
  }
  return schema;
}

Status TableSchema::CheckLoaded(int64_t highest_field_id) {
  if (id_ < 0) return Status::Invalid("schema id ", id_, " is negative");
  if (highest_field_id < -1 || highest_field_id > INT32_MAX) {
    return Status::Invalid("highestFieldId ", highest_field_id, " is out of range");
  }
  FRESHET_RETURN_NOT_OK(CheckUniqueNames(fields_, "the table"));
  FRESHET_RETURN_NOT_OK(CheckFieldIds(fields_, highest_field_id));
  FRESHET_RETURN_NOT_OK(CheckKeyColumns(fields_, partition_keys_, "partition"));
  FRESHET_RETURN_NOT_OK(CheckKeyColumns(fields_, primary_keys_, "primary-key"));
  return InitDerived();
}

Result<TableSchema> TableSchema::Create(int64_t id, SchemaSpec spec, int64_t time_millis) {
  TableSchema schema;
  schema.id_ = id;
  schema.time_millis_ = time_millis;
  schema.partition_keys_ = std::move(spec.partition_keys);
  schema.primary_keys_ = std::move(spec.primary_keys);
  schema.options_ = std::move(spec.options);
  schema.comment_ = std::move(spec.comment);
  schema.fields_ = std::move(spec.fields);
  FRESHET_RETURN_NOT_OK(CheckUniqueNames(schema.fields_, "the table"));
  FRESHET_RETURN_NOT_OK(CheckReservedNames(schema.fields_));
  FRESHET_RETURN_NOT_OK(CheckKeyColumns(schema.fields_, schema.partition_keys_, "partition"));
  FRESHET_RETURN_NOT_OK(CheckKeyColumns(schema.fields_, schema.primary_keys_, "primary-key"));
  if (!schema.primary_keys_.empty() && schema.TrimmedPrimaryKeys().empty()) {
    return Status::Invalid(
        "primary key ", Join(schema.primary_keys_), " must not be the same as the partition keys ",
        Join(schema.partition_keys_), ": each partition would hold a single record");
  }
  FRESHET_RETURN_NOT_OK(schema.InitDerived());
  FRESHET_RETURN_NOT_OK(CheckBucketKeys(schema));

  AssignIds(&schema.fields_, 0);
  FRESHET_ASSIGN_OR_RETURN(bool nullable_keys,
                           GetBoolOption(schema.options_, kPrimaryKeyNullableOption));
  if (!nullable_keys) {
    for (DataField& field : schema.fields_) {
      if (Contains(schema.primary_keys_, field.name)) field.type = field.type->WithNullable(false);
    }
  }
  schema.highest_field_id_ = ComputeHighestFieldId(schema.fields_);
  return schema;
}

std::string TableSchema::ToJson() const {
  Json root = Json::object();
  root["version"] = version_;
  root["id"] = id_;
  Json fields = Json::array();
  for (const DataField& field : fields_) fields.push_back(DataFieldToJson(field));
  root["fields"] = std::move(fields);
  root["highestFieldId"] = highest_field_id_;
  root["partitionKeys"] = partition_keys_;
  root["primaryKeys"] = primary_keys_;
  Json options = Json::object();
  for (const auto& [key, value] : options_) options[key] = value;
  root["options"] = std::move(options);
  if (comment_) root["comment"] = *comment_;
  root["timeMillis"] = time_millis_;
  return ToJacksonPrettyJson(root);
}

std::vector<std::string> TableSchema::TrimmedPrimaryKeys() const {
  std::vector<std::string> trimmed;
  for (const std::string& key : primary_keys_) {
    if (!Contains(partition_keys_, key)) trimmed.push_back(key);
  }
  return trimmed;
}

std::vector<std::string> TableSchema::BucketKeys() const {
  auto bucket_key = option(kBucketKeyOption);
  if (!bucket_key || IsWhitespaceOnly(*bucket_key)) return TrimmedPrimaryKeys();
  return SplitComma(*bucket_key);
}

std::vector<DataField> TableSchema::FieldsByNames(const std::vector<std::string>& names) const {
  std::vector<DataField> selected;
  for (const std::string& name : names) {
    int index = FieldIndex(name);
    if (index >= 0) selected.push_back(fields_[index]);
  }
  return selected;
}

std::vector<DataField> TableSchema::PartitionFields() const {
  return FieldsByNames(partition_keys_);
}

int32_t TableSchema::ComputeHighestFieldId(const std::vector<DataField>& fields) {
  int32_t highest = -1;
  CollectHighestId(fields, &highest);
  return highest;
}

bool TableSchema::operator==(const TableSchema& other) const {
  return version_ == other.version_ && id_ == other.id_ && fields_ == other.fields_ &&
         highest_field_id_ == other.highest_field_id_ && partition_keys_ == other.partition_keys_ &&
         primary_keys_ == other.primary_keys_ && options_ == other.options_ &&
         comment_ == other.comment_ && time_millis_ == other.time_millis_;
}

}  // namespace freshet::meta
