#include "bridge/schema_import.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <string>

namespace freshet::bridge {
namespace {

std::shared_ptr<arrow::RecordBatch> Batch(const std::shared_ptr<arrow::Schema>& schema,
                                          int64_t value) {
  arrow::Int64Builder ids;
  EXPECT_TRUE(ids.Append(value).ok());
  arrow::StringBuilder names;
  EXPECT_TRUE(names.Append("n" + std::to_string(value)).ok());
  return arrow::RecordBatch::Make(schema, 1, {*ids.Finish(), *names.Finish()});
}

std::shared_ptr<arrow::Schema> Schema(const std::string& second_name,
                                      std::shared_ptr<const arrow::KeyValueMetadata> meta = {}) {
  return arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field(second_name, arrow::utf8())},
      std::move(meta));
}

Result<std::shared_ptr<arrow::RecordBatch>> Import(SchemaImportCache* cache,
                                                   const std::shared_ptr<arrow::Schema>& schema,
                                                   int64_t value) {
  ArrowArray array;
  ArrowSchema c_schema;
  EXPECT_TRUE(arrow::ExportRecordBatch(*Batch(schema, value), &array, &c_schema).ok());
  return cache->ImportRecordBatch(&array, &c_schema);
}

TEST(SchemaImportCacheTest, TheSameSchemaIsImportedOnce) {
  SchemaImportCache cache;
  auto first = Import(&cache, Schema("name"), 1);
  auto second = Import(&cache, Schema("name"), 2);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)->schema(), (*second)->schema());  // the kept schema object
  EXPECT_TRUE((*second)->Equals(*Batch(Schema("name"), 2)));
}

TEST(SchemaImportCacheTest, AnyDifferenceImportsTheNewSchema) {
  SchemaImportCache cache;
  ASSERT_TRUE(Import(&cache, Schema("name"), 1).ok());
  const std::vector<std::shared_ptr<arrow::Schema>> others = {
      Schema("other"),
      Schema("name", arrow::key_value_metadata({"k"}, {"v"})),
      Schema("name", arrow::key_value_metadata({"k"}, {"w"})),
      arrow::schema(
          {arrow::field("id", arrow::int64(), true), arrow::field("name", arrow::utf8())}),
      arrow::schema(
          {arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::large_utf8())}),
  };
  for (const auto& schema : others) {
    ArrowArray array;
    ArrowSchema c_schema;
    auto batch = arrow::RecordBatch::Make(schema, 0,
                                          {*arrow::MakeArrayOfNull(schema->field(0)->type(), 0),
                                           *arrow::MakeArrayOfNull(schema->field(1)->type(), 0)});
    ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &c_schema).ok());
    auto imported = cache.ImportRecordBatch(&array, &c_schema);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    EXPECT_TRUE((*imported)->schema()->Equals(*schema, /*check_metadata=*/true))
        << schema->ToString(true);
  }
}

// A struct array with a top-level offset (a slice), and one with children longer than itself,
// import as the rows they describe.
TEST(SchemaImportCacheTest, SlicedRowsImportAsTheirRows) {
  SchemaImportCache cache;
  auto schema = Schema("name");
  ASSERT_TRUE(Import(&cache, schema, 0).ok());  // the kept schema
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(ids.Append(i).ok());
    ASSERT_TRUE(names.Append("n" + std::to_string(i)).ok());
  }
  auto whole = arrow::RecordBatch::Make(schema, 5, {*ids.Finish(), *names.Finish()});
  auto rows = *whole->ToStructArray();
  for (auto [offset, length] : {std::pair<int64_t, int64_t>{1, 3}, {0, 2}}) {
    ArrowArray array;
    ArrowSchema c_schema;
    ASSERT_TRUE(arrow::ExportArray(*rows->Slice(offset, length), &array, &c_schema).ok());
    auto imported = cache.ImportRecordBatch(&array, &c_schema);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    ASSERT_TRUE((*imported)->ValidateFull().ok());
    EXPECT_TRUE((*imported)->Equals(*whole->Slice(offset, length))) << offset;
  }
}

TEST(SchemaImportCacheTest, AnArrayNotMatchingTheSchemaFailsAndIsReleased) {
  SchemaImportCache cache;
  ASSERT_TRUE(Import(&cache, Schema("name"), 1).ok());
  ArrowArray array;
  ArrowSchema c_schema;
  auto one_column = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), 0,
                                             {*arrow::MakeArrayOfNull(arrow::int64(), 0)});
  ASSERT_TRUE(arrow::ExportRecordBatch(*one_column, &array, nullptr).ok());
  ASSERT_TRUE(arrow::ExportSchema(*Schema("name"), &c_schema).ok());
  auto imported = cache.ImportRecordBatch(&array, &c_schema);
  EXPECT_FALSE(imported.ok());
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(c_schema.release, nullptr);
  EXPECT_FALSE(cache.ImportRecordBatch(nullptr, nullptr).ok());
}

}  // namespace
}  // namespace freshet::bridge
