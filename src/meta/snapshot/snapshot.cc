#include "meta/snapshot/snapshot.h"

#include "common/json.h"
#include "meta/snapshot/snapshot_json.h"

namespace freshet::meta {

const char* CommitKindName(CommitKind kind) {
  switch (kind) {
    case CommitKind::kAppend:
      return "APPEND";
    case CommitKind::kCompact:
      return "COMPACT";
    case CommitKind::kOverwrite:
      return "OVERWRITE";
    case CommitKind::kAnalyze:
      return "ANALYZE";
  }
  return "APPEND";
}

Result<CommitKind> ParseCommitKind(std::string_view name) {
  for (CommitKind kind :
       {CommitKind::kAppend, CommitKind::kCompact, CommitKind::kOverwrite, CommitKind::kAnalyze}) {
    if (name == CommitKindName(kind)) return kind;
  }
  return Status::Invalid("unknown commit kind '", name, "'");
}

namespace {

// Reads typed keys of one JSON object and reports the first problem with file and key names.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string_view source) : object_(object), source_(source) {}

  const Json* Find(const char* key) const {
    auto it = object_.find(key);
    return (it == object_.end() || it->is_null()) ? nullptr : &*it;
  }

  Status Int64(const char* key, int64_t* out, bool required) {
    const Json* v = Find(key);
    if (v == nullptr) return required ? Missing(key) : Status::OK();
    if (!v->is_number_integer()) return WrongType(key, "an integer");
    *out = v->get<int64_t>();
    return Status::OK();
  }
  Status OptionalInt64(const char* key, std::optional<int64_t>* out) {
    int64_t value = 0;
    if (Find(key) == nullptr) return Status::OK();
    FRESHET_RETURN_NOT_OK(Int64(key, &value, true));
    *out = value;
    return Status::OK();
  }
  Status String(const char* key, std::string* out, bool required) {
    const Json* v = Find(key);
    if (v == nullptr) return required ? Missing(key) : Status::OK();
    if (!v->is_string()) return WrongType(key, "a string");
    *out = v->get<std::string>();
    return Status::OK();
  }
  Status OptionalString(const char* key, std::optional<std::string>* out) {
    std::string value;
    if (Find(key) == nullptr) return Status::OK();
    FRESHET_RETURN_NOT_OK(String(key, &value, true));
    *out = std::move(value);
    return Status::OK();
  }

  Status Missing(const char* key) const {
    return Status::Corruption("'", source_, "': required key \"", key, "\" is missing");
  }
  Status WrongType(const char* key, const char* expected) const {
    return Status::Corruption("'", source_, "': key \"", key, "\" must be ", expected);
  }

 private:
  const Json& object_;
  std::string_view source_;
};

Status ReadMaps(const Json& json, FieldReader& reader, std::string_view source, Snapshot* s) {
  if (const Json* offsets = reader.Find("logOffsets")) {
    if (!offsets->is_object()) return reader.WrongType("logOffsets", "an object");
    std::map<int32_t, int64_t> parsed;
    for (auto it = offsets->begin(); it != offsets->end(); ++it) {
      if (!it->is_number_integer()) return reader.WrongType("logOffsets", "a map of integers");
      try {
        parsed[std::stoi(it.key())] = it->get<int64_t>();
      } catch (const std::exception&) {
        return reader.WrongType("logOffsets", "keyed by bucket numbers");
      }
    }
    s->log_offsets = std::move(parsed);
  }
  if (const Json* props = reader.Find("properties")) {
    if (!props->is_object()) return reader.WrongType("properties", "an object");
    for (auto it = props->begin(); it != props->end(); ++it) {
      if (!it->is_string()) return reader.WrongType("properties", "a map of strings");
      s->properties[it.key()] = it->get<std::string>();
    }
  }
  return Status::OK();
}

}  // namespace

Result<Snapshot> Snapshot::FromJson(std::string_view text, std::string_view source) {
  FRESHET_ASSIGN_OR_RETURN(Json json, ParseJson(text, source));
  return SnapshotFromJson(json, source);
}

Result<Snapshot> SnapshotFromJson(const Json& json, std::string_view source) {
  if (!json.is_object()) return Status::Corruption("'", source, "' is not a JSON object");
  Snapshot s;
  FieldReader r(json, source);
  int64_t version = 1;  // files without a version predate 0.3
  FRESHET_RETURN_NOT_OK(r.Int64("version", &version, false));
  s.version = static_cast<int32_t>(version);
  FRESHET_RETURN_NOT_OK(r.OptionalString("uuid", &s.uuid));
  FRESHET_RETURN_NOT_OK(r.Int64("id", &s.id, true));
  FRESHET_RETURN_NOT_OK(r.Int64("schemaId", &s.schema_id, true));
  FRESHET_RETURN_NOT_OK(r.String("baseManifestList", &s.base_manifest_list, true));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("baseManifestListSize", &s.base_manifest_list_size));
  FRESHET_RETURN_NOT_OK(r.String("deltaManifestList", &s.delta_manifest_list, true));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("deltaManifestListSize", &s.delta_manifest_list_size));
  FRESHET_RETURN_NOT_OK(r.OptionalString("changelogManifestList", &s.changelog_manifest_list));
  FRESHET_RETURN_NOT_OK(
      r.OptionalInt64("changelogManifestListSize", &s.changelog_manifest_list_size));
  FRESHET_RETURN_NOT_OK(r.OptionalString("indexManifest", &s.index_manifest));
  FRESHET_RETURN_NOT_OK(r.String("commitUser", &s.commit_user, true));
  FRESHET_RETURN_NOT_OK(r.Int64("commitIdentifier", &s.commit_identifier, true));
  std::string kind;
  FRESHET_RETURN_NOT_OK(r.String("commitKind", &kind, true));
  Result<CommitKind> parsed_kind = ParseCommitKind(kind);
  if (!parsed_kind.ok()) return parsed_kind.status().WithContext("'" + std::string(source) + "'");
  s.commit_kind = *parsed_kind;
  FRESHET_RETURN_NOT_OK(r.Int64("timeMillis", &s.time_millis, true));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("totalRecordCount", &s.total_record_count));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("deltaRecordCount", &s.delta_record_count));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("changelogRecordCount", &s.changelog_record_count));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("watermark", &s.watermark));
  FRESHET_RETURN_NOT_OK(r.OptionalString("statistics", &s.statistics));
  FRESHET_RETURN_NOT_OK(r.OptionalInt64("nextRowId", &s.next_row_id));
  FRESHET_RETURN_NOT_OK(r.OptionalString("operation", &s.operation));
  FRESHET_RETURN_NOT_OK(r.OptionalString("writerVersion", &s.writer_version));
  FRESHET_RETURN_NOT_OK(ReadMaps(json, r, source, &s));
  return s;
}

std::string Snapshot::ToJson() const {
  Json j;
  j["version"] = version;
  if (uuid) j["uuid"] = *uuid;
  j["id"] = id;
  j["schemaId"] = schema_id;
  j["baseManifestList"] = base_manifest_list;
  if (base_manifest_list_size) j["baseManifestListSize"] = *base_manifest_list_size;
  j["deltaManifestList"] = delta_manifest_list;
  if (delta_manifest_list_size) j["deltaManifestListSize"] = *delta_manifest_list_size;
  if (changelog_manifest_list) j["changelogManifestList"] = *changelog_manifest_list;
  if (changelog_manifest_list_size) j["changelogManifestListSize"] = *changelog_manifest_list_size;
  if (index_manifest) j["indexManifest"] = *index_manifest;
  j["commitUser"] = commit_user;
  if (writer_version) j["writerVersion"] = *writer_version;
  j["commitIdentifier"] = commit_identifier;
  j["commitKind"] = CommitKindName(commit_kind);
  j["timeMillis"] = time_millis;
  if (total_record_count) j["totalRecordCount"] = *total_record_count;
  if (delta_record_count) j["deltaRecordCount"] = *delta_record_count;
  if (changelog_record_count) j["changelogRecordCount"] = *changelog_record_count;
  if (watermark) j["watermark"] = *watermark;
  if (statistics) j["statistics"] = *statistics;
  if (!properties.empty()) {
    Json props = Json::object();
    for (const auto& [key, value] : properties) props[key] = value;
    j["properties"] = std::move(props);
  }
  if (next_row_id) j["nextRowId"] = *next_row_id;
  if (operation) j["operation"] = *operation;
  return ToJacksonPrettyJson(j);
}

}  // namespace freshet::meta
