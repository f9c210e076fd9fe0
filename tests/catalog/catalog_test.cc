#include <gtest/gtest.h>

#include "catalog/filesystem_catalog.h"
#include "meta/schema/schema_manager.h"
#include "testing/test_util.h"

namespace freshet::catalog {
namespace {

using freshet::testing::TempDir;

meta::SchemaSpec SimpleSpec() {
  meta::SchemaSpec spec;
  spec.fields.push_back({0, "id", meta::DataType::BigInt(false), std::nullopt, std::nullopt});
  spec.fields.push_back({0, "name", meta::DataType::String(), std::nullopt, std::nullopt});
  spec.fields.push_back({0, "dt", meta::DataType::String(), std::nullopt, std::nullopt});
  spec.partition_keys = {"dt"};
  spec.options = {{"bucket", "2"}, {"bucket-key", "id"}};
  return spec;
}

TEST(IdentifierTest, ParsesDatabaseAndTable) {
  ASSERT_OK_AND_ASSIGN(Identifier id, Identifier::Parse("sales.orders"));
  EXPECT_EQ(id.database, "sales");
  EXPECT_EQ(id.table, "orders");
  ASSERT_OK_AND_ASSIGN(Identifier plain, Identifier::Parse("orders"));
  EXPECT_EQ(plain.database, "default");
  EXPECT_FALSE(Identifier::Parse("db.").ok());
  EXPECT_FALSE(Identifier::Parse("a/b.c").ok());
}

TEST(FileSystemCatalogTest, DatabaseLifecycle) {
  TempDir dir;
  FileSystemCatalog catalog(io::LocalFileIO(), dir.path());
  ASSERT_OK(catalog.CreateDatabase("db1", false));
  ASSERT_OK(catalog.CreateDatabase("db2", false));
  EXPECT_TRUE(catalog.CreateDatabase("db1", false).IsAlreadyExists());
  EXPECT_OK(catalog.CreateDatabase("db1", true));
  ASSERT_OK_AND_ASSIGN(auto dbs, catalog.ListDatabases());
  EXPECT_EQ(dbs, (std::vector<std::string>{"db1", "db2"}));
  ASSERT_OK(catalog.DropDatabase("db2", false, false));
  EXPECT_TRUE(catalog.DropDatabase("db2", false, false).IsNotFound());
  EXPECT_OK(catalog.DropDatabase("db2", true, false));
}

TEST(FileSystemCatalogTest, TableLifecycleWritesJavaLayout) {
  TempDir dir;
  FileSystemCatalog catalog(io::LocalFileIO(), dir.path());
  ASSERT_OK(catalog.CreateDatabase("db", false));
  Identifier id{"db", "events"};
  ASSERT_OK_AND_ASSIGN(TableInfo created, catalog.CreateTable(id, SimpleSpec(), false));
  EXPECT_EQ(created.path, dir.path() + "/db.db/events");
  EXPECT_EQ(created.schema.bucket(), 2);
  EXPECT_EQ(created.schema.fields()[2].id, 2);
  ASSERT_OK_AND_ASSIGN(bool exists, io::LocalFileIO()->Exists(created.path + "/schema/schema-0"));
  EXPECT_TRUE(exists);

  auto again = catalog.CreateTable(id, SimpleSpec(), false);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsAlreadyExists());
  EXPECT_OK(catalog.CreateTable(id, SimpleSpec(), true).status());

  ASSERT_OK_AND_ASSIGN(TableInfo loaded, catalog.GetTable(id));
  EXPECT_TRUE(loaded.schema == created.schema);
  ASSERT_OK_AND_ASSIGN(auto tables, catalog.ListTables("db"));
  EXPECT_EQ(tables, std::vector<std::string>{"events"});

  EXPECT_FALSE(catalog.DropDatabase("db", false, false).ok()) << "non-empty database";
  ASSERT_OK(catalog.DropTable(id, false));
  EXPECT_TRUE(catalog.GetTable(id).status().IsNotFound());
  EXPECT_TRUE(catalog.DropTable(id, false).IsNotFound());
}

TEST(FileSystemCatalogTest, BadInputIsRejectedWithoutLeavingATable) {
  TempDir dir;
  FileSystemCatalog catalog(io::LocalFileIO(), dir.path());
  auto no_db = catalog.CreateTable({"missing", "t"}, SimpleSpec(), false);
  ASSERT_FALSE(no_db.ok());
  EXPECT_NE(no_db.status().message().find("database 'missing' does not exist"), std::string::npos);

  ASSERT_OK(catalog.CreateDatabase("db", false));
  meta::SchemaSpec bad_bucket = SimpleSpec();
  bad_bucket.options = {{"bucket", "zero"}};
  auto result = catalog.CreateTable({"db", "t"}, bad_bucket, false);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'bucket'"), std::string::npos)
      << result.status().ToString();
  meta::SchemaSpec bad_format = SimpleSpec();
  bad_format.options.emplace_back("file.format", "csvx");
  EXPECT_FALSE(catalog.CreateTable({"db", "t"}, bad_format, false).ok());
  ASSERT_OK_AND_ASSIGN(auto tables, catalog.ListTables("db"));
  EXPECT_TRUE(tables.empty());
}

TEST(LoadTableTest, LoadsEveryGoldenTable) {
  FRESHET_REQUIRE_GOLDEN();
  int loaded = 0;
  for (const char* path : {"/parquet/append_09.db/append_09", "/orc/pk_09.db/pk_09",
                           "/avro/append_multiple.db/append_multiple",
                           "/append_table_with_multiple_file_format.db/"
                           "append_table_with_multiple_file_format"}) {
    auto table = LoadTable(io::LocalFileIO(), freshet::testing::GoldenDir() + path);
    ASSERT_TRUE(table.ok()) << path << ": " << table.status().ToString();
    EXPECT_FALSE(table->schema.fields().empty());
    ++loaded;
  }
  EXPECT_EQ(loaded, 4);
}

TEST(LoadTableTest, MissingTableIsAClearError) {
  auto missing = LoadTable(io::LocalFileIO(), "/nonexistent/table");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("is not a Paimon table"), std::string::npos);
}

}  // namespace
}  // namespace freshet::catalog
