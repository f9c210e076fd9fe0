// SchemaManager: the `schema/schema-<N>` files of one table.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

class SchemaManager {
 public:
  SchemaManager(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  std::string SchemaPath(int64_t id) const;
  Result<std::vector<int64_t>> ListSchemaIds() const;
  // NotFound naming the table when schema `id` does not exist.
  Result<TableSchema> ReadSchema(int64_t id) const;
  // The same without a copy: the parse is shared while the file holds the same bytes.
  Result<std::shared_ptr<const TableSchema>> ReadSchemaShared(int64_t id) const;
  // The newest schema, or nullopt when the directory holds none (not a table).
  Result<std::optional<TableSchema>> LatestSchema() const;

  // Writes schema-0 of a new table; AlreadyExists when the table already has one.
  Result<TableSchema> CreateTable(SchemaSpec spec, int64_t time_millis) const;
  // Publishes `schema` as the next schema file; Conflict if another writer got its id first.
  Status PublishNext(const TableSchema& schema) const;

 private:
  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
};

}  // namespace freshet::meta
