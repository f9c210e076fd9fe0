// What a Table tells about itself through the public API (Schema, Options, snapshots and their
// data files): everything `freshet inspect` prints, without internal headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "freshet/table.h"
#include "table/table_test_util.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::TempDir;

TEST(TableDescriptionTest, SchemaOptionsSnapshotsAndFiles) {
  TempDir dir;
  const std::string path = dir.Sub("db.db/t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, R"({"fields": [
      {"name": "id", "type": "BIGINT NOT NULL", "description": "the key"},
      {"name": "dt", "type": "STRING"}],
      "partitionKeys": ["dt"], "comment": "described", "options": {"bucket": "2",
      "bucket-key": "id"}})"));
  SchemaInfo schema = table->Schema();
  EXPECT_EQ(schema.id, 0);
  ASSERT_EQ(schema.fields.size(), 2u);
  EXPECT_EQ(schema.fields[0].name, "id");
  EXPECT_EQ(schema.fields[0].type, "BIGINT NOT NULL");
  EXPECT_EQ(schema.fields[0].description, "the key");
  EXPECT_EQ(schema.fields[1].type, "STRING");
  EXPECT_EQ(schema.partition_keys, std::vector<std::string>{"dt"});
  EXPECT_TRUE(schema.primary_keys.empty());
  EXPECT_EQ(schema.comment, "described");
  ASSERT_OK_AND_ASSIGN(auto options, table->Options());
  auto has = [&](const std::string& key) {
    return std::any_of(options.begin(), options.end(),
                       [&](const auto& o) { return o.first == key; });
  };
  EXPECT_TRUE(has("bucket") && has("bucket-key") && has("file.format")) << options.size();

  ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
  EXPECT_TRUE(ids.empty());
  EXPECT_TRUE(table->Snapshot(1).status().IsNotFound());

  arrow::Int64Builder id_values;
  arrow::StringBuilder days;
  for (int64_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(id_values.Append(i).ok());
    ASSERT_TRUE(days.Append(i < 5 ? "2026-12-01" : "2026/12/02").ok());
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("dt", arrow::utf8())}),
      10, {*id_values.Finish(), *days.Finish()});
  ArrowArray array;
  ArrowSchema c_schema;
  ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &c_schema).ok());
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(writer->Write(&array, &c_schema));
  CommitOptions commit;
  commit.properties["note"] = "first";
  ASSERT_OK_AND_ASSIGN(auto committed, writer->Commit(commit));
  ASSERT_TRUE(committed.has_value());

  ASSERT_OK_AND_ASSIGN(ids, table->SnapshotIds());
  EXPECT_EQ(ids, std::vector<int64_t>{*committed});
  ASSERT_OK_AND_ASSIGN(SnapshotInfo snapshot, table->Snapshot(*committed));
  EXPECT_EQ(snapshot.commit_kind, "APPEND");
  EXPECT_EQ(snapshot.total_record_count, 10);
  EXPECT_EQ(snapshot.delta_record_count, 10);
  EXPECT_EQ(snapshot.schema_id, 0);
  EXPECT_FALSE(snapshot.commit_user.empty());
  EXPECT_EQ(snapshot.properties.at("note"), "first");

  ASSERT_OK_AND_ASSIGN(auto files, table->DataFiles(*committed));
  int64_t rows = 0;
  for (const DataFileInfo& f : files) {
    SCOPED_TRACE(f.file_name);
    ASSERT_EQ(f.partition.size(), 1u);
    EXPECT_EQ(f.partition[0].first, "dt");
    // The directory escapes what a path cannot hold, as Java does; the values are as written.
    if (f.partition[0].second == "2026/12/02") {
      EXPECT_EQ(f.partition_path, "dt=2026%2F12%2F02");
    } else {
      EXPECT_EQ(f.partition[0].second, "2026-12-01");
      EXPECT_EQ(f.partition_path, "dt=2026-12-01");
    }
    EXPECT_TRUE(f.bucket == 0 || f.bucket == 1);
    EXPECT_TRUE(std::filesystem::exists(path + "/" + f.partition_path + "/bucket-" +
                                        std::to_string(f.bucket) + "/" + f.file_name));
    EXPECT_GT(f.file_size, 0);
    EXPECT_EQ(f.schema_id, 0);
    EXPECT_EQ(f.level, 0);
    EXPECT_LE(f.min_sequence_number, f.max_sequence_number);
    EXPECT_FALSE(f.null_counts.empty());
    rows += f.row_count;
  }
  EXPECT_EQ(rows, 10);
  EXPECT_TRUE(table->DataFiles(*committed + 1).status().IsNotFound());
}

}  // namespace
}  // namespace freshet
