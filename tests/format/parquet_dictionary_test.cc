// Which Parquet columns go without a dictionary (parquet-mr's test on the first batch), and that
// the written files follow it: no dictionary page where the values are mostly distinct, one where
// they repeat, and the same rows read back either way.
#include "format/parquet_dictionary.h"

#include <arrow/api.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <map>
#include <string>
#include <vector>

#include "data_file_test_util.h"

namespace freshet::format {
namespace {

using internal::ColumnsADictionaryWouldNotShrink;
using testing::Field;

// `rows` rows: id (distinct BIGINT), small (INT, 10 values), name (distinct strings), city (STRING,
// 5 values), flag (BOOLEAN), price (DECIMAL(10,2), distinct), empty (INT, all null).
std::shared_ptr<arrow::RecordBatch> MixedBatch(int64_t rows) {
  arrow::Int64Builder id;
  arrow::Int32Builder small, empty;
  arrow::StringBuilder name, city;
  arrow::BooleanBuilder flag;
  arrow::Decimal128Builder price(arrow::decimal128(10, 2));
  const char* cities[] = {"Oslo", "Lima", "Pune", "Kyiv", "Bern"};
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_TRUE(id.Append(i * 7919).ok());
    EXPECT_TRUE(small.Append(static_cast<int32_t>(i % 10)).ok());
    EXPECT_TRUE(empty.AppendNull().ok());
    EXPECT_TRUE(name.Append("customer-" + std::to_string(i * 31)).ok());
    EXPECT_TRUE(city.Append(cities[i % 5]).ok());
    EXPECT_TRUE(flag.Append(i % 3 == 0).ok());
    EXPECT_TRUE(price.Append(arrow::Decimal128(i * 101)).ok());
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("small", arrow::int32()),
       arrow::field("name", arrow::utf8()), arrow::field("city", arrow::utf8()),
       arrow::field("flag", arrow::boolean()), arrow::field("price", arrow::decimal128(10, 2)),
       arrow::field("empty", arrow::int32())});
  return arrow::RecordBatch::Make(schema, rows,
                                  {*id.Finish(), *small.Finish(), *name.Finish(), *city.Finish(),
                                   *flag.Finish(), *price.Finish(), *empty.Finish()});
}

std::vector<meta::DataField> MixedFields() {
  return {Field(0, "id", meta::DataType::BigInt()),
          Field(1, "small", meta::DataType::Int()),
          Field(2, "name", meta::DataType::String()),
          Field(3, "city", meta::DataType::String()),
          Field(4, "flag", meta::DataType::Boolean()),
          Field(5, "price", testing::Must(meta::DataType::Decimal(10, 2))),
          Field(6, "empty", meta::DataType::Int())};
}

TEST(ParquetDictionaryTest, MostlyDistinctColumnsGoWithoutADictionary) {
  EXPECT_EQ(ColumnsADictionaryWouldNotShrink(*MixedBatch(5000)),
            (std::vector<std::string>{"id", "name", "price"}));
  // Too few rows to judge: Arrow's default for every column.
  EXPECT_TRUE(ColumnsADictionaryWouldNotShrink(*MixedBatch(500)).empty());
}

TEST(ParquetDictionaryTest, RepeatsWithinTheSampleKeepTheDictionary) {
  // 2,000 distinct BIGINTs each twice: ids of 11 bits plus an 8-byte dictionary entry per value
  // (2 * 11 / 8 + 8 = 10.75 bytes per two values) beat 16 plain bytes.
  arrow::Int64Builder values;
  for (int64_t i = 0; i < 4000; ++i) ASSERT_TRUE(values.Append(i % 2000).ok());
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("v", arrow::int64())}), 4000,
                                        {*values.Finish()});
  EXPECT_TRUE(ColumnsADictionaryWouldNotShrink(*batch).empty());
}

TEST(ParquetDictionaryTest, FilesHaveDictionaryPagesOnlyWhereTheyPayAndReadBackTheSame) {
  freshet::testing::TempDir dir;
  const std::string path = dir.Sub("mixed.parquet");
  auto batch = MixedBatch(5000);
  ASSERT_OK(testing::WriteFile(FileFormat::kParquet, path, MixedFields(), {batch}).status());

  auto reader = parquet::ParquetFileReader::OpenFile(path);
  auto row_group = reader->metadata()->RowGroup(0);
  std::map<std::string, bool> has_dictionary;
  for (int i = 0; i < row_group->num_columns(); ++i) {
    auto chunk = row_group->ColumnChunk(i);
    has_dictionary[chunk->path_in_schema()->ToDotString()] = chunk->has_dictionary_page();
  }
  EXPECT_EQ(has_dictionary, (std::map<std::string, bool>{{"id", false},
                                                         {"small", true},
                                                         {"name", false},
                                                         {"city", true},
                                                         {"flag", false},
                                                         {"price", false},
                                                         {"empty", true}}));
  ASSERT_OK_AND_ASSIGN(auto back, testing::ReadFile(path, MixedFields()));
  EXPECT_EQ(testing::Json(*back, MixedFields()), testing::Json(*batch, MixedFields()));
}

}  // namespace
}  // namespace freshet::format
