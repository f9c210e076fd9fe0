#include "catalog/filesystem_catalog.h"

#include <algorithm>
#include <chrono>

#include "mergetree/primary_key_support.h"
#include "meta/fileindex/file_index.h"
#include "meta/options/core_options.h"
#include "meta/schema/schema_manager.h"

namespace freshet::catalog {

namespace {

Status ValidateName(std::string_view kind, std::string_view name) {
  if (name.empty()) return Status::Invalid(kind, " name must not be empty");
  if (name.find('/') != std::string_view::npos || name == "." || name == "..") {
    return Status::Invalid(kind, " name '", name, "' must not contain '/' or be '.' or '..'");
  }
  return Status::OK();
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<Identifier> Identifier::Parse(std::string_view text) {
  size_t dot = text.find('.');
  Identifier id;
  if (dot == std::string_view::npos) {
    id.database = kDefaultDatabase;
    id.table = std::string(text);
  } else {
    id.database = std::string(text.substr(0, dot));
    id.table = std::string(text.substr(dot + 1));
  }
  FRESHET_RETURN_NOT_OK(ValidateName("database", id.database));
  FRESHET_RETURN_NOT_OK(ValidateName("table", id.table));
  return id;
}

Status CheckTablePath(std::string_view path) {
  if (path.empty()) return Status::Invalid("the table path is empty");
  return Status::OK();
}

Status CheckNewTablePath(std::string_view path) {
  FRESHET_RETURN_NOT_OK(CheckTablePath(path));
  for (size_t start = 0; start <= path.size();) {
    size_t end = std::min(path.find('/', start), path.size());
    if (path.substr(start, end - start) == "..") {
      return Status::Invalid("table path '", path,
                             "' has a '..' component; name the table directory without it");
    }
    start = end + 1;
  }
  return Status::OK();
}

Status CheckNewTableSpec(const meta::SchemaSpec& spec) {
  FRESHET_RETURN_NOT_OK(meta::CoreOptions::Make(spec.options, !spec.primary_keys.empty()).status());
  FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema, meta::TableSchema::Create(0, spec, 0));
  // The file index its writers would build (an unknown column or index type is refused now).
  FRESHET_RETURN_NOT_OK(meta::FileIndexSpec::FromSchema(schema).status());
  return mergetree::CheckPrimaryKeyTable(schema, mergetree::PrimaryKeyUse::kCreate);
}

Result<TableInfo> LoadTable(const std::shared_ptr<io::FileIO>& file_io,
                            const std::string& table_path) {
  meta::SchemaManager schemas(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(auto schema, schemas.LatestSchema());
  if (!schema) {
    return Status::NotFound("'", table_path, "' is not a Paimon table (no schema/schema-N file)");
  }
  // Validate the options once here, so every later user can rely on them. Values only writers
  // use are checked when the table is opened for writing (meta::OptionCheck).
  FRESHET_RETURN_NOT_OK(meta::CoreOptions::Make(schema->options(), !schema->primary_keys().empty(),
                                                meta::OptionCheck::kOpen)
                            .status()
                            .WithContext("table '" + table_path + "'"));
  return TableInfo{table_path, std::move(*schema)};
}

FileSystemCatalog::FileSystemCatalog(std::shared_ptr<io::FileIO> file_io, std::string warehouse)
    : file_io_(std::move(file_io)), warehouse_(std::move(warehouse)) {}

std::string FileSystemCatalog::DatabasePath(const std::string& database) const {
  return io::JoinPath(warehouse_, database + kDatabaseSuffix);
}

std::string FileSystemCatalog::TablePath(const Identifier& id) const {
  return io::JoinPath(DatabasePath(id.database), id.table);
}

Status FileSystemCatalog::CreateDatabase(const std::string& name, bool ignore_if_exists) {
  FRESHET_RETURN_NOT_OK(ValidateName("database", name));
  FRESHET_ASSIGN_OR_RETURN(bool exists, DatabaseExists(name));
  if (exists) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("database '", name, "' already exists in '", warehouse_, "'");
  }
  return file_io_->MakeDirs(DatabasePath(name));
}

Result<bool> FileSystemCatalog::DatabaseExists(const std::string& name) {
  return file_io_->Exists(DatabasePath(name));
}

Result<std::vector<std::string>> FileSystemCatalog::ListDatabases() {
  FRESHET_ASSIGN_OR_RETURN(auto entries, file_io_->ListDir(warehouse_));
  std::vector<std::string> names;
  const std::string suffix = kDatabaseSuffix;
  for (const auto& entry : entries) {
    if (entry.is_dir && entry.name.size() > suffix.size() &&
        entry.name.compare(entry.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      names.push_back(entry.name.substr(0, entry.name.size() - suffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Status FileSystemCatalog::CheckDatabaseExists(const std::string& name) {
  FRESHET_ASSIGN_OR_RETURN(bool exists, DatabaseExists(name));
  if (!exists)
    return Status::NotFound("database '", name, "' does not exist in '", warehouse_, "'");
  return Status::OK();
}

Status FileSystemCatalog::DropDatabase(const std::string& name, bool ignore_if_not_exists,
                                       bool cascade) {
  FRESHET_ASSIGN_OR_RETURN(bool exists, DatabaseExists(name));
  if (!exists) return ignore_if_not_exists ? Status::OK() : CheckDatabaseExists(name);
  FRESHET_ASSIGN_OR_RETURN(auto tables, ListTables(name));
  if (!tables.empty() && !cascade) {
    return Status::Invalid("database '", name, "' still has ", tables.size(),
                           " table(s); drop them first or use cascade");
  }
  return file_io_->Delete(DatabasePath(name), /*recursive=*/true);
}

Result<TableInfo> FileSystemCatalog::CreateTable(const Identifier& id, meta::SchemaSpec spec,
                                                 bool ignore_if_exists) {
  FRESHET_RETURN_NOT_OK(ValidateName("table", id.table));
  FRESHET_RETURN_NOT_OK(CheckDatabaseExists(id.database));
  std::string path = TablePath(id);
  meta::SchemaManager schemas(file_io_, path);
  FRESHET_RETURN_NOT_OK(CheckNewTableSpec(spec));
  Result<meta::TableSchema> created = schemas.CreateTable(std::move(spec), NowMillis());
  if (!created.ok()) {
    if (created.status().IsAlreadyExists() && ignore_if_exists) return GetTable(id);
    if (created.status().IsAlreadyExists()) {
      return Status::AlreadyExists("table '", id.ToString(), "' already exists");
    }
    return created.status();
  }
  return TableInfo{path, std::move(*created)};
}

Result<TableInfo> FileSystemCatalog::GetTable(const Identifier& id) {
  Result<TableInfo> table = LoadTable(file_io_, TablePath(id));
  if (!table.ok() && table.status().IsNotFound()) {
    return Status::NotFound("table '", id.ToString(), "' does not exist in '", warehouse_, "'");
  }
  return table;
}

Result<std::vector<std::string>> FileSystemCatalog::ListTables(const std::string& database) {
  FRESHET_RETURN_NOT_OK(CheckDatabaseExists(database));
  FRESHET_ASSIGN_OR_RETURN(auto entries, file_io_->ListDir(DatabasePath(database)));
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    if (!entry.is_dir) continue;
    meta::SchemaManager schemas(file_io_, entry.path);
    FRESHET_ASSIGN_OR_RETURN(auto ids, schemas.ListSchemaIds());
    if (!ids.empty()) names.push_back(entry.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Status FileSystemCatalog::DropTable(const Identifier& id, bool ignore_if_not_exists) {
  Result<TableInfo> table = GetTable(id);
  if (!table.ok()) {
    return table.status().IsNotFound() && ignore_if_not_exists ? Status::OK() : table.status();
  }
  return file_io_->Delete(table->path, /*recursive=*/true);
}

}  // namespace freshet::catalog
