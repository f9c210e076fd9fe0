#include "write/row_keys.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include "format/data_file_test_util.h"

#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bridge/arrow_schema.h"
#include "bridge/arrow_value.h"
#include "common/json.h"
#include "meta/bucket/bucket_function.h"
#include "meta/partition/partition_path.h"
#include "testing/test_util.h"
#include "textrows/json_rows.h"

namespace freshet::write {
namespace {

using meta::BinaryRow;
using meta::DataField;
using meta::DataType;
using meta::DataTypePtr;
using meta::TableSchema;
using meta::Value;

using format::testing::MakeFields;

Result<TableSchema> MakeSchema(std::vector<DataField> fields, std::vector<std::string> partitions,
                               std::vector<std::string> primary_keys, meta::Options options) {
  meta::SchemaSpec spec;
  spec.fields = std::move(fields);
  spec.partition_keys = std::move(partitions);
  spec.primary_keys = std::move(primary_keys);
  spec.options = std::move(options);
  return TableSchema::Create(0, std::move(spec), 0);
}

// A batch of `schema` from rows of Values (one vector per row).
std::shared_ptr<arrow::RecordBatch> BatchOf(const std::vector<DataField>& fields,
                                            const std::vector<std::vector<Value>>& rows) {
  auto schema = *bridge::ToArrowSchema(fields);
  arrow::ArrayVector columns;
  for (size_t c = 0; c < fields.size(); ++c) {
    auto builder = *arrow::MakeBuilder(schema->field(static_cast<int>(c))->type());
    for (const auto& row : rows) {
      Status status = bridge::AppendArrowValue(builder.get(), row[c], *fields[c].type);
      EXPECT_TRUE(status.ok()) << status.ToString();
    }
    columns.push_back(*builder->Finish());
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), columns);
}

// ---------------------------------------------------------------------------------------------
// Bucket vectors computed by Java (12345 buckets): the golden set's, or those the Java harness
// writes (testing::VectorsDir()).

struct VectorFile {
  std::vector<std::vector<Json>> rows;  // key values, then the expected bucket
};

VectorFile ReadVectors(const std::string& name) {
  std::string text = freshet::testing::ReadWholeFile(freshet::testing::VectorsDir() + "/" + name);
  text.erase(text.find_last_of(','));
  auto parsed = ParseJson("[" + text + "]", name);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  VectorFile file;
  for (const Json& row : *parsed) file.rows.emplace_back(row.begin(), row.end());
  return file;
}

// A vector value (Arrow JSON test conventions) as a Paimon value of `type`.
Value VectorValue(const Json& json, const DataType& type) {
  if (json.is_null()) return Value::Null();
  switch (type.root()) {
    case meta::TypeRoot::kBoolean:
      return Value::Boolean(json.get<bool>());
    case meta::TypeRoot::kTinyInt:
      return Value::TinyInt(json.get<int8_t>());
    case meta::TypeRoot::kSmallInt:
      return Value::SmallInt(json.get<int16_t>());
    case meta::TypeRoot::kInt:
    case meta::TypeRoot::kDate:
      return Value::Int(json.get<int32_t>());
    case meta::TypeRoot::kBigInt:
      return Value::BigInt(json.get<int64_t>());
    case meta::TypeRoot::kFloat:
      // The vectors print float32 values with their shortest digits: parse those as float.
      return Value::Float(std::strtof(json.dump().c_str(), nullptr));
    case meta::TypeRoot::kDouble:
      return Value::Double(json.get<double>());
    case meta::TypeRoot::kDecimal:
      return Value::Dec(
          *meta::Decimal::FromString(json.get<std::string>(), type.precision(), type.scale()));
    case meta::TypeRoot::kVarChar:
      return Value::String(json.get<std::string>());
    case meta::TypeRoot::kVarBinary:
      return Value::Bytes(json.get<std::string>());
    default:  // TIMESTAMP: nanoseconds (int) or an ISO string
      if (json.is_number()) return Value::Ts(meta::Timestamp::FromEpochNanos(json.get<int64_t>()));
      return Value::Ts(*meta::Timestamp::FromIsoString(json.get<std::string>()));
  }
}

void ExpectJavaBuckets(const std::string& file, const std::vector<DataField>& fields) {
  VectorFile vectors = ReadVectors(file);
  ASSERT_EQ(vectors.rows.size(), 5000u);
  std::vector<std::string> keys;
  for (const auto& field : fields) keys.push_back(field.name);
  std::string bucket_key;
  for (const auto& key : keys) bucket_key += (bucket_key.empty() ? "" : ",") + key;
  ASSERT_OK_AND_ASSIGN(
      TableSchema schema,
      MakeSchema(fields, {}, {}, {{"bucket", "12345"}, {"bucket-key", bucket_key}}));
  std::vector<std::vector<Value>> rows;
  for (const auto& row : vectors.rows) {
    std::vector<Value> values;
    for (size_t c = 0; c < fields.size(); ++c)
      values.push_back(VectorValue(row[c], *fields[c].type));
    rows.push_back(std::move(values));
  }
  auto batch = BatchOf(schema.fields(), rows);
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));
  ASSERT_OK_AND_ASSIGN(RowKeys keys_of_rows, extractor.Extract(*batch));
  int mismatches = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    int32_t java_bucket = vectors.rows[r].back().get<int32_t>();
    if (keys_of_rows.bucket_of_row[r] != java_bucket && ++mismatches <= 5) {
      ADD_FAILURE() << file << " row " << r << ": bucket " << keys_of_rows.bucket_of_row[r]
                    << ", Java " << java_bucket;
    }
  }
  EXPECT_EQ(mismatches, 0) << file;
}

DataTypePtr Dec(int p, int s) { return *DataType::Decimal(p, s); }
DataTypePtr Ts(int p) { return *DataType::Timestamp(p); }
DataTypePtr Ltz(int p) { return *DataType::TimestampLtz(p); }

TEST(RowKeysGoldenTest, AllTypesMatchJava) {
  FRESHET_REQUIRE_VECTORS();
  ExpectJavaBuckets("record_for_bucket_id.data", MakeFields({{"v0", DataType::Boolean()},
                                                             {"v1", DataType::TinyInt()},
                                                             {"v2", DataType::SmallInt()},
                                                             {"v3", DataType::Int()},
                                                             {"v4", DataType::BigInt()},
                                                             {"v5", DataType::Float()},
                                                             {"v6", DataType::Double()},
                                                             {"v7", DataType::Date()},
                                                             {"v8", Ts(9)},
                                                             {"v9", Dec(30, 20)},
                                                             {"v10", DataType::String()},
                                                             {"v11", DataType::Bytes()}}));
}

TEST(RowKeysGoldenTest, NullsMatchJava) {
  FRESHET_REQUIRE_VECTORS();
  ExpectJavaBuckets("record_with_null_for_bucket_id.data",
                    MakeFields({{"v0", DataType::Boolean()},
                                {"v1", DataType::TinyInt()},
                                {"v2", DataType::SmallInt()},
                                {"v3", DataType::Int()},
                                {"v4", DataType::BigInt()},
                                {"v5", DataType::Float()},
                                {"v6", DataType::Double()},
                                {"v7", DataType::Date()},
                                {"v8", Ts(9)},
                                {"v9", Dec(5, 2)},
                                {"v10", Dec(30, 2)},
                                {"v11", DataType::String()},
                                {"v12", DataType::Bytes()}}));
}

TEST(RowKeysGoldenTest, TimestampsMatchJava) {
  FRESHET_REQUIRE_VECTORS();
  ExpectJavaBuckets("record_with_timestamp_for_bucket_id.data", MakeFields({{"ts_sec", Ts(0)},
                                                                            {"ts_milli", Ts(3)},
                                                                            {"ts_micro", Ts(6)},
                                                                            {"ts_nano", Ts(9)},
                                                                            {"ltz_sec", Ltz(0)},
                                                                            {"ltz_milli", Ltz(3)},
                                                                            {"ltz_micro", Ltz(6)},
                                                                            {"ltz_nano", Ltz(9)}}));
}

// ---------------------------------------------------------------------------------------------
// Arrow path vs Value path

TEST(RowKeysTest, BucketsEqualValuePathOnRandomRows) {
  auto fields = MakeFields({{"k", DataType::BigInt(false)},
                            {"s", DataType::String()},
                            {"d", Dec(25, 3)},
                            {"t", Ts(6)},
                            {"v", DataType::Double()}});
  ASSERT_OK_AND_ASSIGN(TableSchema schema,
                       MakeSchema(fields, {}, {}, {{"bucket", "7"}, {"bucket-key", "k,s,d,t"}}));
  std::mt19937_64 random(7);
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 2000; ++i) {
    bool null = random() % 5 == 0;
    rows.push_back({Value::BigInt(static_cast<int64_t>(random())),
                    null ? Value::Null() : Value::String(std::string(random() % 20, 'a' + i % 26)),
                    null ? Value::Null() : Value::Dec({static_cast<__int128>(random()), 25, 3}),
                    null ? Value::Null()
                         : Value::Ts(meta::Timestamp::FromEpochMicros(
                               static_cast<int64_t>(random() % (1LL << 50)) - (1LL << 49))),
                    Value::Double(1.5)});
  }
  auto batch = BatchOf(schema.fields(), rows);
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));
  ASSERT_OK_AND_ASSIGN(RowKeys keys, extractor.Extract(*batch));
  for (size_t r = 0; r < rows.size(); ++r) {
    ASSERT_OK_AND_ASSIGN(BinaryRow key_row, meta::BucketKeyRowOf(schema, rows[r]));
    ASSERT_OK_AND_ASSIGN(int32_t expected, meta::BucketOf(key_row, 7));
    ASSERT_EQ(keys.bucket_of_row[r], expected) << "row " << r;
  }
}

TEST(RowKeysTest, PartitionRowsEqualValueRowsAndJavaDirectoryNames) {
  auto fields = MakeFields({{"dt", DataType::String()},
                            {"hr", DataType::Int()},
                            {"day", DataType::Date()},
                            {"id", DataType::BigInt()}});
  ASSERT_OK_AND_ASSIGN(TableSchema schema,
                       MakeSchema(fields, {"dt", "hr", "day"}, {"dt", "hr", "day", "id"},
                                  {{"bucket", "3"}, {"partition.legacy-name", "false"}}));
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      textrows::ParseJsonRows(R"({"dt": "2024-01-01", "hr": 1, "day": "2024-01-01", "id": 1}
{"dt": "a/b c", "hr": -2, "day": "1969-12-31", "id": 2}
{"dt": "2024-01-01", "hr": 1, "day": "2024-01-01", "id": 3}
{"dt": "", "hr": 0, "day": "0001-01-01", "id": 4}
)",
                              schema.fields()));
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));
  ASSERT_OK_AND_ASSIGN(RowKeys keys, extractor.Extract(*batch.batch));
  ASSERT_EQ(keys.partitions.size(), 3u);
  EXPECT_EQ(keys.partition_of_row, (std::vector<int32_t>{0, 1, 0, 2}));
  std::vector<std::vector<Value>> expected_values = {
      {Value::String("2024-01-01"), Value::Int(1), Value::Int(19723)},
      {Value::String("a/b c"), Value::Int(-2), Value::Int(-1)},
      {Value::String(""), Value::Int(0), Value::Int(-719162)}};
  std::vector<std::string> expected_paths = {"dt=2024-01-01/hr=1/day=2024-01-01/",
                                             "dt=a%2Fb c/hr=-2/day=1969-12-31/",
                                             "dt=__DEFAULT_PARTITION__/hr=0/day=0001-01-01/"};
  ASSERT_OK_AND_ASSIGN(auto naming, meta::PartitionNaming::FromOptions(schema.options()));
  for (size_t p = 0; p < 3; ++p) {
    ASSERT_OK_AND_ASSIGN(BinaryRow expected,
                         meta::BuildBinaryRow(schema.PartitionFields(), expected_values[p]));
    EXPECT_EQ(keys.partitions[p], expected) << p;
    EXPECT_EQ(meta::SerializeBinaryRow(keys.partitions[p]), meta::SerializeBinaryRow(expected));
    ASSERT_OK_AND_ASSIGN(std::string path,
                         meta::PartitionPath(keys.partitions[p], schema.PartitionFields(), naming));
    EXPECT_EQ(path, expected_paths[p]);
  }
  // Bucket key = trimmed primary key (id).
  for (size_t r = 0; r < 4; ++r) {
    ASSERT_OK_AND_ASSIGN(BinaryRow key_row,
                         meta::BuildBinaryRow({DataType::BigInt(false)}, {Value::BigInt(r + 1)}));
    EXPECT_EQ(keys.bucket_of_row[r], *meta::BucketOf(key_row, 3));
  }
}

TEST(RowKeysTest, GroupsByPartitionAndBucketInFirstRowOrder) {
  auto fields = MakeFields({{"p", DataType::Int()}, {"k", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(TableSchema schema,
                       MakeSchema(fields, {"p"}, {}, {{"bucket", "4"}, {"bucket-key", "k"}}));
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 40; ++i) rows.push_back({Value::Int(i % 2), Value::Int(i % 5)});
  auto batch = BatchOf(schema.fields(), rows);
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));
  ASSERT_OK_AND_ASSIGN(RowKeys keys, extractor.Extract(*batch));
  ASSERT_OK_AND_ASSIGN(auto groups, extractor.Group(*batch));
  size_t total = 0;
  std::set<std::pair<std::string, int32_t>> seen;
  int64_t previous_first_row = -1;
  for (const auto& group : groups) {
    EXPECT_TRUE(seen.insert({group.partition.bytes(), group.bucket}).second);
    EXPECT_GT(group.rows.front(), previous_first_row);
    previous_first_row = group.rows.front();
    for (int64_t row : group.rows) {
      EXPECT_EQ(keys.partitions[keys.partition_of_row[row]], group.partition);
      EXPECT_EQ(keys.bucket_of_row[row], group.bucket);
      ASSERT_OK_AND_ASSIGN(BinaryRow key_row,
                           meta::BuildBinaryRow({DataType::Int()}, {Value::Int(row % 5)}));
      EXPECT_EQ(group.bucket, *meta::BucketOf(key_row, 4));
    }
    total += group.rows.size();
  }
  EXPECT_EQ(total, 40u);
}

TEST(RowKeysTest, UnawareBucketAppendTableUsesBucketZero) {
  auto fields = MakeFields({{"a", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(TableSchema schema, MakeSchema(fields, {}, {}, {}));
  auto batch = BatchOf(schema.fields(), {{Value::Int(1)}, {Value::Null()}});
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));
  ASSERT_OK_AND_ASSIGN(RowKeys keys, extractor.Extract(*batch));
  EXPECT_EQ(keys.bucket_of_row, (std::vector<int32_t>{0, 0}));
  ASSERT_EQ(keys.partitions.size(), 1u);
  EXPECT_EQ(keys.partitions[0], BinaryRow());
  ASSERT_OK_AND_ASSIGN(auto groups, extractor.Group(*batch));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].rows, (std::vector<int64_t>{0, 1}));
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(RowKeysTest, NullInPrimaryKeyColumn) {
  auto fields = MakeFields({{"id", DataType::Int()}, {"v", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(TableSchema schema, MakeSchema(fields, {}, {"id"}, {{"bucket", "2"}}));
  // The batch is built by hand: the schema says NOT NULL, the data has a null anyway.
  auto batch =
      BatchOf(schema.fields(), {{Value::Int(1), Value::Int(1)}, {Value::Null(), Value::Int(2)}});
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));
  auto keys = extractor.Extract(*batch);
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.status().ToString(), "Invalid: primary key column 'id' is null in row 1");
}

TEST(RowKeysTest, BatchSchemaMismatch) {
  auto fields = MakeFields({{"id", DataType::Int()}, {"v", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(TableSchema schema, MakeSchema(fields, {}, {"id"}, {{"bucket", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto extractor, write::RowKeyExtractor::Make(schema));

  auto other = MakeFields({{"id", DataType::Int(false)}, {"v", DataType::BigInt()}});
  auto wrong_type = BatchOf(other, {{Value::Int(1), Value::BigInt(1)}});
  EXPECT_EQ(extractor.Extract(*wrong_type).status().ToString(),
            "Invalid: batch column 1 is 'v' int64, the table expects 'v' int32 (INT)");

  auto fewer = BatchOf(MakeFields({{"id", DataType::Int()}}), {{Value::Int(1)}});
  EXPECT_EQ(extractor.Extract(*fewer).status().ToString(),
            "Invalid: the batch has 1 columns, the table has 2");
}

TEST(RowKeysTest, UnsupportedBucketModes) {
  auto fields = MakeFields({{"id", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(TableSchema dynamic, MakeSchema(fields, {}, {"id"}, {}));
  EXPECT_TRUE(write::RowKeyExtractor::Make(dynamic).status().IsNotImplemented());
}

}  // namespace
}  // namespace freshet::write
