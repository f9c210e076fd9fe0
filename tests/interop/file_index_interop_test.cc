// Java's data-file index (`file-index.bloom-filter.columns`, docs/file-index.md) in both
// directions: freshet builds byte for byte the index Java wrote for each of Java's files (inlined
// in the manifest and as `.index` files), prunes Java's files with it, and Java's scan prunes
// freshet's files with the index freshet wrote.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/file_index_writer.h"
#include "format/format_reader.h"
#include "interop/interop_harness.h"
#include "io/file_io.h"
#include "mergetree/key_value.h"
#include "meta/fileindex/file_index.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/schema_manager.h"
#include "scan/predicate.h"
#include "scan/table_scan.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

// Even ids (so that odd ones fall inside the files' min/max statistics but are absent).
std::string Rows(int from, int to) {
  std::string jsonl;
  for (int id = from; id < to; id += 2) {
    jsonl += R"({"id": )" + std::to_string(id) + R"(, "name": "n)" + std::to_string(id) + "\"}\n";
  }
  return jsonl;
}

std::string SchemaJson(bool primary_key, const std::string& index_options) {
  return std::string(R"({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},)"
                     R"( {"name": "name", "type": "STRING"}],)") +
         (primary_key ? R"( "primaryKeys": ["id"],)" : "") +
         R"( "options": {"bucket": "1", "bucket-key": "id",)"
         R"( "file-index.bloom-filter.columns": "id,name")" +
         index_options + "}}";
}

struct Table {
  meta::TableSchema schema;
  scan::ScanPlan plan;
};

Table Plan(const std::string& path, const std::string& where = "") {
  auto io = io::LocalFileIO();
  auto schema = meta::SchemaManager(io, path).LatestSchema();
  EXPECT_TRUE(schema.ok() && schema->has_value());
  scan::ScanOptions options;
  if (!where.empty()) {
    auto predicate = scan::MakePredicate(where, **schema);
    EXPECT_TRUE(predicate.ok()) << predicate.status().ToString();
    options.predicate = std::make_shared<const scan::Predicate>(std::move(*predicate));
  }
  auto plan = scan::TableScan(io, path).Plan(options);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return Table{**schema, std::move(*plan)};
}

// For each live file: the index Java stored (inlined or `.index`) and the one freshet builds from
// the file's rows.
void ExpectFreshetBuildsJavasIndexes(const std::string& path, bool expect_index_files) {
  auto io = io::LocalFileIO();
  Table table = Plan(path);
  auto spec = meta::FileIndexSpec::FromSchema(table.schema);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto paths = meta::DataFilePaths::Make(path, table.schema);
  ASSERT_TRUE(paths.ok());
  const bool primary_key = !table.schema.primary_keys().empty();
  const auto fields =
      primary_key ? mergetree::KeyValueFileFields(table.schema) : table.schema.fields();
  int files = 0;
  for (const auto& split : table.plan.splits) {
    for (const auto& file : split.files) {
      ++files;
      std::string java_bytes;
      if (file.embedded_index) {
        EXPECT_FALSE(expect_index_files) << file.file_name;
        java_bytes = *file.embedded_index;
      } else {
        EXPECT_TRUE(expect_index_files) << file.file_name;
        ASSERT_EQ(file.extra_files.size(), 1u) << file.file_name;
        EXPECT_EQ(file.extra_files[0], file.file_name + ".index");
        auto extra = paths->ExtraFilePaths(split.partition, split.bucket, file);
        ASSERT_TRUE(extra.ok());
        auto read = io->ReadFile((*extra)[0]);
        ASSERT_TRUE(read.ok()) << read.status().ToString();
        java_bytes = *read;
      }
      auto file_path = paths->FilePath(split.partition, split.bucket, file);
      ASSERT_TRUE(file_path.ok());
      auto reader = format::FormatReader::Open(*io, *file_path, file.file_size, fields);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      auto writer = format::FileIndexWriter::Make(*spec, fields);
      ASSERT_TRUE(writer.ok() && *writer != nullptr);
      while (true) {
        auto batch = (*reader)->Next();
        ASSERT_TRUE(batch.ok()) << batch.status().ToString();
        if (!*batch) break;
        ASSERT_TRUE((*writer)->Add(**batch).ok());
      }
      EXPECT_EQ((*writer)->Finish(), java_bytes) << file.file_name;
    }
  }
  EXPECT_GE(files, 2);
}

class FileIndexInteropTest : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  bool primary_key() const { return std::get<0>(GetParam()); }
  // Small filters are inlined in the manifest; Java's default size (1,000,000 items) goes to
  // `.index` files.
  bool index_files() const { return std::get<1>(GetParam()); }
  std::string IndexOptions() const {
    return index_files() ? ""
                         : R"(, "file-index.bloom-filter.id.items": "40",)"
                           R"( "file-index.bloom-filter.name.items": "40")";
  }
};

TEST_P(FileIndexInteropTest, FreshetBuildsAndUsesTheIndexJavaWrote) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("wh/db.db/java");
  WriteTextFile(dir.Sub("schema.json"), SchemaJson(primary_key(), IndexOptions()));
  WriteTextFile(dir.Sub("a.jsonl"), Rows(0, 80));
  WriteTextFile(dir.Sub("b.jsonl"), Rows(40, 120));
  auto java =
      RunChains({{JavaCommand({"create", "--table", table, "--schema", dir.Sub("schema.json")}),
                  JavaCommand({"write", "--table", table, "--input", dir.Sub("a.jsonl")}),
                  JavaCommand({"write", "--table", table, "--input", dir.Sub("b.jsonl")})}},
                1);
  ASSERT_EQ(FirstFailure(java), "");
  ExpectFreshetBuildsJavasIndexes(table, index_files());

  // Absent ids inside the files' key ranges: the index drops every file that lacks them (stats
  // cannot), and a present id keeps the files that have it.
  int pruned = 0;
  for (int id = 41; id < 60; id += 2) {
    Table absent = Plan(table, "id = " + std::to_string(id));
    pruned += static_cast<int>(absent.plan.files_pruned_by_index);
    EXPECT_EQ(absent.plan.files_pruned_by_stats, 0);
  }
  EXPECT_GE(pruned, 10) << "the index pruned too few of 20 absent-id file checks";
  Table present = Plan(table, "id = 50 OR name = 'n60'");
  EXPECT_EQ(present.plan.files_pruned_by_index, 0);
  Table by_name = Plan(table, "name IN ('n2', 'n4')");  // only in the first commit's file
  EXPECT_EQ(by_name.plan.files_pruned_by_index, primary_key() ? 0 : 1);

  CommandResult ours = RunCommand(
      {FreshetCliPath(), "read", table, "--format", "jsonl", "--where", "id = 51 OR id = 52"});
  ASSERT_TRUE(ours.ok()) << ours.Describe();
  // Append tables hold 52 twice (both commits wrote it).
  EXPECT_EQ(CanonicalRows(ours.out),
            CanonicalRows(primary_key() ? Rows(52, 54) : Rows(52, 54) + Rows(52, 54)));
}

TEST_P(FileIndexInteropTest, JavaUsesTheIndexFreshetWrote) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("wh/db.db/ours");
  const std::string cli = FreshetCliPath();
  WriteTextFile(dir.Sub("schema.json"), SchemaJson(primary_key(), IndexOptions()));
  WriteTextFile(dir.Sub("a.jsonl"), Rows(0, 80));
  WriteTextFile(dir.Sub("b.jsonl"), Rows(40, 120));
  auto written = RunChains({{{cli, "create", table, "--schema", dir.Sub("schema.json")},
                             {cli, "write", table, "--input", dir.Sub("a.jsonl")},
                             {cli, "write", table, "--input", dir.Sub("b.jsonl")}}},
                           1);
  ASSERT_EQ(FirstFailure(written), "");
  // freshet's bytes are the ones freshet builds for Java's files (the test above): Java's own.
  ExpectFreshetBuildsJavasIndexes(table, index_files());

  CommandResult java_read = RunCommand(JavaCommand({"read", "--table", table}));
  ASSERT_TRUE(java_read.ok()) << java_read.Describe();
  std::string expected = primary_key() ? Rows(0, 120) : Rows(0, 80) + Rows(40, 120);
  EXPECT_EQ(CanonicalRows(java_read.out), CanonicalRows(expected));
  // Java reads primary-key file indexes only with deletion vectors, and its scan plans with
  // inlined indexes only (`.index` files are read when a split is read).
  if (primary_key() || index_files()) return;

  // Java's append scan drops a file when freshet's bloom filter rules the value out.
  int java_files = 0;
  for (int id = 41; id < 60; id += 2) {
    CommandResult plan = RunCommand(
        JavaCommand({"plan-files", "--table", table, "--equal", "id=" + std::to_string(id)}));
    ASSERT_TRUE(plan.ok()) << plan.Describe();
    java_files += std::stoi(plan.out);
  }
  EXPECT_LE(java_files, 10) << "of 20 file checks, Java's index pruning kept too many";
  CommandResult kept =
      RunCommand(JavaCommand({"plan-files", "--table", table, "--equal", "id=50"}));
  ASSERT_TRUE(kept.ok()) << kept.Describe();
  EXPECT_EQ(std::stoi(kept.out), 2);
}

INSTANTIATE_TEST_SUITE_P(Layouts, FileIndexInteropTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "primary_key" : "append") +
                                  (std::get<1>(info.param) ? "_index_files" : "_inlined");
                         });

}  // namespace
}  // namespace freshet::interop
