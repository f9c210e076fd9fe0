#include <gtest/gtest.h>

#include <fstream>

#include "meta/bucket/bucket_function.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

DataTypePtr Type(const char* sql) { return *ParseAtomicType(sql); }

int32_t BucketOfInts(const std::vector<int32_t>& ints, int32_t num_buckets) {
  std::vector<DataTypePtr> types;
  std::vector<Value> values;
  for (int32_t v : ints) {
    types.push_back(DataType::Int());
    values.push_back(Value::Int(v));
  }
  return *BucketOf(*BuildBinaryRow(types, values), num_buckets);
}

// Values from Java Paimon's unit tests and pypaimon's end-to-end test.
TEST(BucketFunctionTest, JavaUnitValues) {
  EXPECT_EQ(BucketOfInts({5}, 100), 96);
  EXPECT_EQ(BucketOfInts({5, 6}, 100), 27);
  EXPECT_EQ(BucketOfInts({5, 6, 7}, 100), 40);
  EXPECT_EQ(BucketOfInts({1}, 4), 2);
}

TEST(BucketFunctionTest, JavaRemainderSemantics) {
  EXPECT_EQ(BucketFromHash(-7, 4), 3);
  EXPECT_EQ(BucketFromHash(7, 4), 3);
  EXPECT_EQ(BucketFromHash(INT32_MIN, 7), 2);  // |-2147483648 % 7| = 2
  EXPECT_EQ(BucketFromHash(12345, 1), 0);
  EXPECT_FALSE(BucketOf(BinaryRow(), 0).ok());
}

// Converts one JSON vector value (Arrow JSON test conventions) to a Value of `type`.
Result<Value> VectorValue(const nlohmann::json& json, const DataType& type) {
  if (json.is_null()) return Value::Null();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Value::Boolean(json.get<bool>());
    case TypeRoot::kTinyInt:
      return Value::TinyInt(json.get<int8_t>());
    case TypeRoot::kSmallInt:
      return Value::SmallInt(json.get<int16_t>());
    case TypeRoot::kInt:
    case TypeRoot::kDate:
      return Value::Int(json.get<int32_t>());
    case TypeRoot::kBigInt:
      return Value::BigInt(json.get<int64_t>());
    case TypeRoot::kFloat:
      return Value::Float(static_cast<float>(json.get<double>()));
    case TypeRoot::kDouble:
      return Value::Double(json.get<double>());
    case TypeRoot::kDecimal: {
      FRESHET_ASSIGN_OR_RETURN(
          Decimal d, Decimal::FromString(json.get<std::string>(), type.precision(), type.scale()));
      return Value::Dec(d);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (json.is_number_integer())
        return Value::Ts(Timestamp::FromEpochNanos(json.get<int64_t>()));
      // Wall-clock strings; for the LOCAL TIME ZONE columns read as the UTC instant.
      FRESHET_ASSIGN_OR_RETURN(Timestamp ts, Timestamp::FromIsoString(json.get<std::string>()));
      return Value::Ts(ts);
    }
    default:
      return Value::String(json.get<std::string>());
  }
}

// Returns the number of rows checked; records each mismatch as a failure.
int CheckVectorFile(const std::string& name, const std::vector<const char*>& column_types) {
  std::vector<DataField> fields;
  for (size_t i = 0; i < column_types.size(); ++i) {
    DataField field;
    field.id = static_cast<int32_t>(i);
    field.name = "v" + std::to_string(i);
    field.type = Type(column_types[i]);
    fields.push_back(field);
  }
  std::ifstream in(testing::VectorsDir() + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::string line;
  int rows = 0;
  int mismatches = 0;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == ',' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    auto json = nlohmann::json::parse(line);
    EXPECT_EQ(json.size(), fields.size() + 1) << name << ": " << line;
    std::vector<Value> values;
    for (size_t i = 0; i < fields.size(); ++i) {
      auto value = VectorValue(json[i], *fields[i].type);
      EXPECT_TRUE(value.ok()) << value.status().ToString();
      if (!value.ok()) return rows;
      values.push_back(*value);
    }
    auto row = BuildBucketKeyRow(fields, values);
    EXPECT_TRUE(row.ok()) << row.status().ToString();
    int32_t expected = json.back().get<int32_t>();
    int32_t actual = *BucketOf(*row, 12345);
    if (actual != expected && ++mismatches <= 5) {
      ADD_FAILURE() << name << " row " << rows << ": bucket " << actual << ", Java " << expected
                    << ": " << line;
    }
    ++rows;
  }
  EXPECT_EQ(mismatches, 0) << name;
  return rows;
}

TEST(BucketFunctionTest, JavaVectorsAllTypes) {
  FRESHET_REQUIRE_VECTORS();
  EXPECT_EQ(CheckVectorFile("record_for_bucket_id.data",
                            {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                             "DATE", "TIMESTAMP(9)", "DECIMAL(30, 20)", "STRING", "BYTES"}),
            5000);
}

TEST(BucketFunctionTest, JavaVectorsWithNulls) {
  FRESHET_REQUIRE_VECTORS();
  EXPECT_EQ(
      CheckVectorFile("record_with_null_for_bucket_id.data",
                      {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE",
                       "TIMESTAMP(9)", "DECIMAL(5, 2)", "DECIMAL(30, 2)", "STRING", "BYTES"}),
      5000);
}

// Also confirms that Java stored the LOCAL TIME ZONE wall-clock strings as UTC instants.
TEST(BucketFunctionTest, JavaVectorsTimestamps) {
  FRESHET_REQUIRE_VECTORS();
  EXPECT_EQ(
      CheckVectorFile("record_with_timestamp_for_bucket_id.data",
                      {"TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
                       "TIMESTAMP(0) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE",
                       "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(9) WITH LOCAL TIME ZONE"}),
      5000);
}

TEST(BucketFunctionTest, BucketKeyRowOfSchema) {
  FRESHET_REQUIRE_GOLDEN();
  std::string path = testing::GoldenDir() + "/orc/pk_09.db/pk_09/schema/schema-0";
  ASSERT_OK_AND_ASSIGN(TableSchema schema,
                       TableSchema::FromJson(testing::ReadWholeFile(path), path));
  ASSERT_OK_AND_ASSIGN(BinaryRow key, BucketKeyRowOf(schema, {Value::String("a"), Value::Int(10),
                                                              Value::Int(5), Value::Double(1)}));
  EXPECT_EQ(*BucketOf(key, 100), 96);  // bucket-key f2 = INT 5
  EXPECT_FALSE(BucketKeyRowOf(schema, {Value::Int(1)}).ok());
}

}  // namespace
}  // namespace freshet::meta
