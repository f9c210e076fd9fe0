// Reads the Java-written golden data files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "bridge/arrow_schema.h"
#include "data_file_test_util.h"
#include "meta/manifest/manifest_file.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::format {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> GoldenTables() {
  std::vector<std::string> tables;
  for (const auto& entry : fs::recursive_directory_iterator(freshet::testing::GoldenDir())) {
    if (entry.is_directory() && entry.path().filename() == "snapshot") {
      tables.push_back(entry.path().parent_path().string());
    }
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

std::string FindDataFile(const std::string& table, const std::string& name) {
  for (const auto& entry : fs::recursive_directory_iterator(table)) {
    if (entry.path().filename() == name) return entry.path().string();
  }
  return "";
}

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Every live data file of every golden table opens with the table's latest schema, and yields
// exactly the manifest's row count.
TEST(GoldenDataFileTest, AllLiveFilesMatchManifestRowCounts) {
  FRESHET_REQUIRE_GOLDEN();
  auto file_io = io::LocalFileIO();
  auto tables = GoldenTables();
  ASSERT_GE(tables.size(), 18u);
  int files = 0;
  for (const auto& table : tables) {
    SCOPED_TRACE(table);
    ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, table).LatestSchema());
    ASSERT_TRUE(schema.has_value());
    ASSERT_OK_AND_ASSIGN(auto snapshot, meta::SnapshotManager(file_io, table).LatestSnapshot());
    if (!snapshot.has_value()) continue;
    meta::ManifestFile manifests(file_io, table);
    ASSERT_OK_AND_ASSIGN(auto entries, meta::ReadLiveEntries(manifests, *snapshot));
    for (const auto& entry : entries) {
      std::string path = FindDataFile(table, entry.file.file_name);
      ASSERT_FALSE(path.empty()) << entry.file.file_name;
      SCOPED_TRACE(path);
      ASSERT_OK_AND_ASSIGN(auto batch,
                           testing::ReadFile(path, schema->fields(), {}, entry.file.file_size));
      EXPECT_EQ(batch->num_rows(), entry.file.row_count);
      ++files;
    }
  }
  EXPECT_GE(files, 40);
}

// Snapshot 1 of parquet/append_09 is one APPEND: its files hold exactly the expected s1 rows.
TEST(GoldenDataFileTest, Append09Snapshot1RowsMatchExpected) {
  FRESHET_REQUIRE_GOLDEN();
  auto file_io = io::LocalFileIO();
  std::string table = freshet::testing::GoldenDir() + "/parquet/append_09.db/append_09";
  ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, table).ReadSchema(0));
  ASSERT_OK_AND_ASSIGN(auto snapshot, meta::SnapshotManager(file_io, table).ReadSnapshot(1));
  meta::ManifestFile manifests(file_io, table);
  ASSERT_OK_AND_ASSIGN(auto entries, meta::ReadLiveEntries(manifests, snapshot));
  std::string actual;
  for (const auto& entry : entries) {
    std::string path = FindDataFile(table, entry.file.file_name);
    ASSERT_OK_AND_ASSIGN(auto batch,
                         testing::ReadFile(path, schema.fields(), {}, entry.file.file_size));
    actual += testing::Json(*batch, schema.fields());
  }
  std::string expected = freshet::testing::ReadWholeFile(freshet::testing::GoldenDir() +
                                                         "/expected/parquet__append_09/s1.jsonl");
  EXPECT_EQ(SortedLines(actual), SortedLines(expected));
}

// Field ids in Java's files: the Parquet footer's field_id and ORC's paimon.id attribute surface
// as Arrow field metadata, nested ids included.
TEST(GoldenDataFileTest, FileSchemasCarryJavaFieldIds) {
  FRESHET_REQUIRE_GOLDEN();
  for (const char* format : {"parquet", "orc"}) {
    std::string table = freshet::testing::GoldenDir() + "/" + format +
                        "/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid";
    auto file_io = io::LocalFileIO();
    ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, table).LatestSchema());
    for (const auto& entry : fs::recursive_directory_iterator(table)) {
      if (entry.path().filename().string().rfind("data-", 0) != 0) continue;
      ASSERT_OK_AND_ASSIGN(
          auto reader,
          FormatReader::Open(*file_io, entry.path().string(),
                             static_cast<int64_t>(fs::file_size(entry.path())), schema->fields()));
      const auto& file_schema = reader->file_schema();
      ASSERT_EQ(file_schema->num_fields(), static_cast<int>(schema->fields().size())) << format;
      for (int i = 0; i < file_schema->num_fields(); ++i) {
        EXPECT_EQ(bridge::FieldIdOf(*file_schema->field(i)), schema->fields()[i].id) << format;
      }
    }
  }
}

}  // namespace
}  // namespace freshet::format
