#include "meta/schema/schema_spec_json.h"

#include <algorithm>

#include "common/json.h"

namespace freshet::meta {

namespace {

// Fields in a spec carry no ids; give every (nested) field a placeholder so the schema-file
// parser accepts it. TableSchema::Create assigns the real ids.
void AddPlaceholderIds(Json& type) {
  if (!type.is_object()) return;
  for (const char* member : {"element", "key", "value"}) {
    if (type.contains(member)) AddPlaceholderIds(type[member]);
  }
  if (type.contains("fields") && type["fields"].is_array()) {
    for (Json& field : type["fields"]) {
      if (field.is_object() && !field.contains("id")) field["id"] = 0;
      if (field.is_object() && field.contains("type")) AddPlaceholderIds(field["type"]);
    }
  }
}

Result<std::vector<std::string>> StringList(const Json& json, const char* key,
                                            std::string_view source) {
  std::vector<std::string> out;
  auto it = json.find(key);
  if (it == json.end() || it->is_null()) return out;
  if (!it->is_array()) return Status::Invalid(source, ": \"", key, "\" must be a list of names");
  for (const Json& item : *it) {
    if (!item.is_string()) return Status::Invalid(source, ": \"", key, "\" must hold strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

Result<SchemaSpec> SchemaSpecFromJson(std::string_view text, std::string_view source) {
  Result<Json> parsed = ParseJson(text, source);
  if (!parsed.ok()) return Status::Invalid(parsed.status().message());
  Json json = std::move(*parsed);
  if (!json.is_object() || !json.contains("fields") || !json["fields"].is_array()) {
    return Status::Invalid(source, ": a schema needs a \"fields\" list");
  }
  static const char* kKnown[] = {"fields", "partitionKeys", "primaryKeys", "options", "comment"};
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (std::find(std::begin(kKnown), std::end(kKnown), it.key()) == std::end(kKnown)) {
      return Status::Invalid(source, ": unknown key \"", it.key(), "\" (expected fields, ",
                             "partitionKeys, primaryKeys, options, comment)");
    }
  }
  SchemaSpec spec;
  Json fields_type = Json{{"type", "ROW"}, {"fields", json["fields"]}};
  AddPlaceholderIds(fields_type);
  for (const Json& field_json : fields_type["fields"]) {
    Result<DataField> field = DataFieldFromJson(field_json);
    if (!field.ok()) return field.status().WithContext(std::string(source));
    spec.fields.push_back(std::move(*field));
  }
  FRESHET_ASSIGN_OR_RETURN(spec.partition_keys, StringList(json, "partitionKeys", source));
  FRESHET_ASSIGN_OR_RETURN(spec.primary_keys, StringList(json, "primaryKeys", source));
  if (auto it = json.find("options"); it != json.end() && !it->is_null()) {
    if (!it->is_object()) return Status::Invalid(source, ": \"options\" must be an object");
    for (auto opt = it->begin(); opt != it->end(); ++opt) {
      if (!opt->is_string()) {
        return Status::Invalid(source, ": option \"", opt.key(), "\" must be a string value");
      }
      spec.options.emplace_back(opt.key(), opt->get<std::string>());
    }
  }
  if (auto it = json.find("comment"); it != json.end() && it->is_string()) {
    spec.comment = it->get<std::string>();
  }
  return spec;
}

}  // namespace freshet::meta
