#include "meta/schema/schema_manager.h"

#include <algorithm>

#include "common/parsed_file_cache.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::meta {

namespace {
constexpr std::string_view kSchemaPrefix = "schema-";
}  // namespace

SchemaManager::SchemaManager(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)) {}

std::string SchemaManager::SchemaPath(int64_t id) const {
  return io::JoinPath(io::JoinPath(table_path_, "schema"),
                      std::string(kSchemaPrefix) + std::to_string(id));
}

Result<std::vector<int64_t>> SchemaManager::ListSchemaIds() const {
  FRESHET_ASSIGN_OR_RETURN(auto entries, file_io_->ListDir(io::JoinPath(table_path_, "schema")));
  std::vector<int64_t> ids;
  for (const auto& entry : entries) {
    if (auto id = ParseNumberedName(entry.name, kSchemaPrefix); id && !entry.is_dir) {
      ids.push_back(*id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::shared_ptr<const TableSchema>> SchemaManager::ReadSchemaShared(int64_t id) const {
  // Process-wide: every plan reads the schema of its snapshot (common/parsed_file_cache.h).
  static ParsedFileCache<TableSchema> parsed(16 << 20);
  std::string path = SchemaPath(id);
  Result<std::string> content = file_io_->ReadFile(path);
  if (!content.ok()) {
    if (content.status().IsNotFound()) {
      return Status::NotFound("schema ", id, " of table '", table_path_, "' does not exist");
    }
    return content.status();
  }
  FRESHET_ASSIGN_OR_RETURN(
      std::shared_ptr<const TableSchema> schema,
      parsed.Parse(path, std::move(*content),
                   [&path](const std::string& text) { return TableSchema::FromJson(text, path); }));
  if (schema->id() != id) {
    return Status::Corruption("'", path, "' holds schema id ", schema->id());
  }
  return schema;
}

Result<TableSchema> SchemaManager::ReadSchema(int64_t id) const {
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<const TableSchema> schema, ReadSchemaShared(id));
  return *schema;
}

Result<std::optional<TableSchema>> SchemaManager::LatestSchema() const {
  FRESHET_ASSIGN_OR_RETURN(auto ids, ListSchemaIds());
  if (ids.empty()) return std::optional<TableSchema>();
  FRESHET_ASSIGN_OR_RETURN(TableSchema schema, ReadSchema(ids.back()));
  return std::optional<TableSchema>(std::move(schema));
}

Result<TableSchema> SchemaManager::CreateTable(SchemaSpec spec, int64_t time_millis) const {
  FRESHET_ASSIGN_OR_RETURN(TableSchema schema,
                           TableSchema::Create(0, std::move(spec), time_millis));
  FRESHET_ASSIGN_OR_RETURN(bool created, file_io_->TryPublishNew(SchemaPath(0), schema.ToJson()));
  if (!created) return Status::AlreadyExists("table '", table_path_, "' already exists");
  return schema;
}

Status SchemaManager::PublishNext(const TableSchema& schema) const {
  FRESHET_ASSIGN_OR_RETURN(bool published,
                           file_io_->TryPublishNew(SchemaPath(schema.id()), schema.ToJson()));
  if (!published) {
    return Status::Conflict("schema ", schema.id(), " of table '", table_path_,
                            "' was written concurrently by another writer");
  }
  return Status::OK();
}

}  // namespace freshet::meta
