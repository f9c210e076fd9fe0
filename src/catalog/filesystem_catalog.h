// FileSystemCatalog: databases and tables laid out as Java Paimon's filesystem catalog does,
// `<warehouse>/<database>.db/<table>/`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/schema/table_schema.h"

namespace freshet::catalog {

struct Identifier {
  std::string database;
  std::string table;

  // Parses "db.table" (or "table", meaning the default database).
  static Result<Identifier> Parse(std::string_view text);
  std::string ToString() const { return database + "." + table; }
};

inline constexpr char kDefaultDatabase[] = "default";
inline constexpr char kDatabaseSuffix[] = ".db";

// A table as loaded from its directory: where it is and its latest schema.
struct TableInfo {
  std::string path;
  meta::TableSchema schema;
};

// Checks a table path given by a user before anything touches the file system: an empty path is
// Invalid, as it would silently mean the current directory.
Status CheckTablePath(std::string_view path);
// CheckTablePath, and for a table to be created a ".." component is Invalid too: creating
// "wh/a/../t" makes every missing directory on the way, leaving "wh/a" outside the table. (An
// existing table may be opened through such a path, which resolves only when "wh/a" exists.)
Status CheckNewTablePath(std::string_view path);
// Whether a table of `spec` may be created: its options, and for a primary-key table what freshet
// supports of it (mergetree/primary_key_support.h). Errors name the option.
Status CheckNewTableSpec(const meta::SchemaSpec& spec);

// Loads the table at `table_path` (NotFound when the directory has no schema file).
Result<TableInfo> LoadTable(const std::shared_ptr<io::FileIO>& file_io,
                            const std::string& table_path);

class FileSystemCatalog {
 public:
  FileSystemCatalog(std::shared_ptr<io::FileIO> file_io, std::string warehouse);

  Status CreateDatabase(const std::string& name, bool ignore_if_exists);
  Result<bool> DatabaseExists(const std::string& name);
  Result<std::vector<std::string>> ListDatabases();
  // Dropping a database that still has tables needs `cascade`.
  Status DropDatabase(const std::string& name, bool ignore_if_not_exists, bool cascade);

  Result<TableInfo> CreateTable(const Identifier& id, meta::SchemaSpec spec, bool ignore_if_exists);
  Result<TableInfo> GetTable(const Identifier& id);
  Result<std::vector<std::string>> ListTables(const std::string& database);
  Status DropTable(const Identifier& id, bool ignore_if_not_exists);

  std::string DatabasePath(const std::string& database) const;
  std::string TablePath(const Identifier& id) const;
  const std::string& warehouse() const { return warehouse_; }

 private:
  Status CheckDatabaseExists(const std::string& name);

  std::shared_ptr<io::FileIO> file_io_;
  std::string warehouse_;
};

}  // namespace freshet::catalog
