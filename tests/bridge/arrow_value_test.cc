#include "bridge/arrow_value.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "bridge/arrow_schema.h"
#include "testing/test_util.h"

namespace freshet::bridge {
namespace {

using meta::DataType;
using meta::DataTypePtr;
using meta::Decimal;
using meta::Timestamp;
using meta::Value;

// Appends `values` with AppendArrowValue and reads each back with ArrowValueAt.
void ExpectRoundTrip(const DataTypePtr& type, const std::vector<Value>& values) {
  ASSERT_OK_AND_ASSIGN(auto arrow_type, bridge::ToArrowType(*type));
  auto builder = *arrow::MakeBuilder(arrow_type);
  for (const Value& value : values)
    ASSERT_OK(bridge::AppendArrowValue(builder.get(), value, *type));
  auto array = *builder->Finish();
  ASSERT_EQ(array->length(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(Value got, bridge::ArrowValueAt(*array, static_cast<int64_t>(i), *type));
    EXPECT_EQ(got, values[i]) << type->ToString() << " #" << i;
  }
}

TEST(ArrowValueTest, PrimitivesRoundTrip) {
  ExpectRoundTrip(DataType::Boolean(),
                  {Value::Boolean(true), Value::Null(), Value::Boolean(false)});
  ExpectRoundTrip(DataType::TinyInt(), {Value::TinyInt(-128), Value::TinyInt(127), Value::Null()});
  ExpectRoundTrip(DataType::SmallInt(), {Value::SmallInt(-32768), Value::Null()});
  ExpectRoundTrip(DataType::Int(),
                  {Value::Int(std::numeric_limits<int32_t>::min()), Value::Null()});
  ExpectRoundTrip(DataType::BigInt(), {Value::BigInt(std::numeric_limits<int64_t>::max())});
  ExpectRoundTrip(DataType::Float(), {Value::Float(1.5f), Value::Float(-0.0f), Value::Null()});
  ExpectRoundTrip(DataType::Double(), {Value::Double(1e300), Value::Null()});
  ExpectRoundTrip(DataType::String(), {Value::String("héllo"), Value::String(""), Value::Null()});
  ExpectRoundTrip(DataType::Bytes(), {Value::Bytes(std::string("\0\xff", 2)), Value::Null()});
  ExpectRoundTrip(DataType::Date(), {Value::Int(-719162), Value::Int(19723), Value::Null()});
  ExpectRoundTrip(*DataType::Time(3), {Value::Int(0), Value::Int(86399999), Value::Null()});
}

TEST(ArrowValueTest, DecimalsKeepTheUnscaledInt128) {
  __int128 big = static_cast<__int128>(1) << 100;
  ExpectRoundTrip(*DataType::Decimal(38, 10),
                  {Value::Dec(Decimal{big, 38, 10}), Value::Dec(Decimal{-big - 7, 38, 10}),
                   Value::Dec(Decimal{-1, 38, 10}), Value::Null()});
  ExpectRoundTrip(*DataType::Decimal(5, 2), {Value::Dec(Decimal{-99999, 5, 2})});
}

TEST(ArrowValueTest, TimestampsAsMillisAndNanoOfMilli) {
  ExpectRoundTrip(*DataType::Timestamp(3), {Value::Ts({-1, 0}), Value::Ts({1700000000123, 0})});
  ExpectRoundTrip(*DataType::Timestamp(6), {Value::Ts({-1, 999000}), Value::Ts({5, 1000})});
  ExpectRoundTrip(*DataType::Timestamp(9),
                  {Value::Ts({-1, 999999}), Value::Ts({0, 1}), Value::Null()});
  ExpectRoundTrip(*DataType::TimestampLtz(6), {Value::Ts({-62135596800000, 1000})});

  // -1 microsecond is millisecond -1 plus 999000 nanoseconds (floor, not truncation).
  arrow::TimestampBuilder micros(arrow::timestamp(arrow::TimeUnit::MICRO),
                                 arrow::default_memory_pool());
  ASSERT_TRUE(micros.Append(-1).ok());
  auto array = *micros.Finish();
  ASSERT_OK_AND_ASSIGN(Value v, bridge::ArrowValueAt(*array, 0, **DataType::Timestamp(6)));
  EXPECT_EQ(v, Value::Ts({-1, 999000}));
}

TEST(ArrowValueTest, Errors) {
  arrow::Int32Builder builder;
  ASSERT_TRUE(builder.Append(1).ok());
  auto array = *builder.Finish();
  EXPECT_EQ(bridge::ArrowValueAt(*array, 1, *DataType::Int()).status().ToString(),
            "Invalid: row 1 is out of range for an array of length 1");
  EXPECT_EQ(bridge::ArrowValueAt(*array, 0, *DataType::BigInt()).status().ToString(),
            "Invalid: an Arrow array of type int32 cannot hold Paimon type BIGINT");
  EXPECT_TRUE(bridge::ArrowValueAt(*array, 0, *DataType::Array(DataType::Int()))
                  .status()
                  .IsNotImplemented());

  arrow::TimestampBuilder nanos(arrow::timestamp(arrow::TimeUnit::NANO),
                                arrow::default_memory_pool());
  EXPECT_EQ(bridge::AppendArrowValue(&nanos, Value::Ts({Timestamp{9223372036855, 0}}),
                                     **DataType::Timestamp(9))
                .ToString(),
            "Invalid: timestamp 2262-04-11 23:47:16.855000000 is out of range for nanosecond "
            "precision");
  arrow::Int32Builder ints;
  EXPECT_EQ(bridge::AppendArrowValue(&ints, Value::String("x"), *DataType::Int()).ToString(),
            "Invalid: value does not match type INT");
}

}  // namespace
}  // namespace freshet::bridge
