#include <gtest/gtest.h>

#include "meta/row/binary_row.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kDigits[static_cast<uint8_t>(c) >> 4];
    out += kDigits[static_cast<uint8_t>(c) & 0xF];
  }
  return out;
}

DataTypePtr Type(const char* sql) { return *ParseAtomicType(sql); }

BinaryRow Row(const std::vector<const char*>& types, const std::vector<Value>& values) {
  std::vector<DataTypePtr> parsed;
  for (const char* sql : types) parsed.push_back(Type(sql));
  auto row = BuildBinaryRow(parsed, values);
  EXPECT_TRUE(row.ok()) << row.status().ToString();
  return *row;
}

// The worked examples of the format notes (section 5), byte for byte.
TEST(BinaryRowTest, WorkedExamples) {
  EXPECT_EQ(Hex(SerializeBinaryRow(BinaryRow())), "000000000000000000000000");
  EXPECT_EQ(Hex(SerializeBinaryRow(Row({"INT"}, {Value::Int(5)}))),
            "00000001"
            "0000000000000000"
            "0500000000000000");
  EXPECT_EQ(Hex(SerializeBinaryRow(Row({"INT"}, {Value::Int(10)}))),
            "00000001"
            "0000000000000000"
            "0a00000000000000");
  EXPECT_EQ(Hex(SerializeBinaryRow(Row({"STRING"}, {Value::String("20240514")}))),
            "00000001"
            "0000000000000000"
            "0800000010000000"
            "3230323430353134");
  EXPECT_EQ(
      Hex(Row({"STRING", "INT"}, {Value::String("Alice"), Value::Int(1)}).bytes()).substr(16, 16),
      "416c696365000085");
  EXPECT_EQ(Hex(Row({"INT", "BIGINT"}, {Value::Null(), Value::BigInt(7)}).bytes()),
            "0001000000000000"
            "0000000000000000"
            "0700000000000000");
}

// Both section-5 examples in one arity-6 row: fixed part = 8 + 6 * 8 = 0x38, so the null
// TIMESTAMP(9) reserves [0x38, 0x40) and the DECIMAL(23, 5) chunk follows at 0x40.
TEST(BinaryRowTest, NonCompactDecimalAndTimestamp) {
  ASSERT_OK_AND_ASSIGN(Decimal d, Decimal::FromString("12.30000", 23, 5));
  BinaryRow row = Row(
      {"INT", "INT", "INT", "INT", "TIMESTAMP(9)", "DECIMAL(23, 5)"},
      {Value::Int(1), Value::Int(2), Value::Int(3), Value::Int(4), Value::Null(), Value::Dec(d)});
  std::string hex = Hex(row.bytes());
  EXPECT_EQ(hex.substr(0, 16), "0010000000000000");  // null bit of field 4 = bit 12
  EXPECT_EQ(hex.substr(16 + 4 * 16, 16), "0000000038000000");
  EXPECT_EQ(hex.substr(0x38 * 2, 16), "0000000000000000");
  EXPECT_EQ(hex.substr(16 + 5 * 16, 16), "0300000040000000");
  EXPECT_EQ(hex.substr(0x40 * 2), "12c4b000000000000000000000000000");
  EXPECT_EQ(row.bytes().size(), 0x40u + 16);
  ASSERT_OK_AND_ASSIGN(Decimal read, row.GetDecimal(5, 23, 5));
  EXPECT_EQ(read.ToPlainString(), "12.30000");

  // A null DECIMAL(23, 5) still reserves 16 zero bytes; its slot holds only the offset.
  BinaryRow null_dec = Row({"DECIMAL(23, 5)"}, {Value::Null()});
  EXPECT_EQ(Hex(null_dec.bytes()),
            "0001000000000000"
            "0000000010000000"
            "00000000000000000000000000000000");
}

TEST(BinaryRowTest, RoundTripsEveryPrimitiveType) {
  std::vector<const char*> types = {"BOOLEAN",
                                    "TINYINT",
                                    "SMALLINT",
                                    "INT",
                                    "BIGINT",
                                    "FLOAT",
                                    "DOUBLE",
                                    "DATE",
                                    "TIME(3)",
                                    "DECIMAL(10, 2)",
                                    "DECIMAL(38, 4)",
                                    "STRING",
                                    "BYTES",
                                    "CHAR(3)",
                                    "TIMESTAMP(3)",
                                    "TIMESTAMP(9)",
                                    "TIMESTAMP(6) WITH LOCAL TIME ZONE",
                                    "STRING"};
  std::vector<Value> values = {
      Value::Boolean(true),
      Value::TinyInt(-3),
      Value::SmallInt(-300),
      Value::Int(-70000),
      Value::BigInt(-(1LL << 40)),
      Value::Float(1.5f),
      Value::Double(-2.25),
      Value::Int(19723),
      Value::Int(3600000),
      Value::Dec(*Decimal::FromString("-123.45", 10, 2)),
      Value::Dec(*Decimal::FromString("-12345678901234567890123456789012.3456", 38, 4)),
      Value::String("a longer string than seven bytes"),
      Value::Bytes(std::string("\0\1\2", 3)),
      Value::String("abc"),
      Value::Ts({-1, 0}),
      Value::Ts(Timestamp::FromEpochNanos(-1)),
      Value::Ts({1700000000123, 456000}),
      Value::Null()};
  BinaryRow row = Row(types, values);
  EXPECT_EQ(row.bytes().size() % 8, 0u);
  for (size_t i = 0; i < types.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(Value read, row.GetValue(static_cast<int32_t>(i), *Type(types[i])));
    EXPECT_EQ(read, values[i]) << types[i];
  }
  ASSERT_OK_AND_ASSIGN(BinaryRow again, DeserializeBinaryRow(SerializeBinaryRow(row)));
  EXPECT_EQ(again, row);
}

TEST(BinaryRowTest, DecimalBytesAreJavaBigIntegerBytes) {
  auto bytes = [](const char* text) {
    return Hex(Decimal::FromString(text, 38, 0)->ToBigEndianBytes());
  };
  EXPECT_EQ(bytes("0"), "00");
  EXPECT_EQ(bytes("127"), "7f");
  EXPECT_EQ(bytes("128"), "0080");
  EXPECT_EQ(bytes("-1"), "ff");
  EXPECT_EQ(bytes("-128"), "80");
  EXPECT_EQ(bytes("-129"), "ff7f");
  EXPECT_EQ(Decimal::FromString("-0.05", 5, 2)->ToPlainString(), "-0.05");
  EXPECT_EQ(Decimal::FromString("12.3", 7, 5)->ToPlainString(), "12.30000");
  EXPECT_FALSE(Decimal::FromString("123.456", 10, 2).ok());
  EXPECT_FALSE(Decimal::FromString("1234", 3, 0).ok());
  EXPECT_FALSE(Decimal::FromString("1x", 3, 0).ok());
}

TEST(BinaryRowTest, MismatchedValueIsAnError) {
  auto row = BuildBinaryRow({DataType::Int()}, {Value::String("x")});
  EXPECT_TRUE(row.status().IsInvalid());
  EXPECT_FALSE(BuildBinaryRow({DataType::Int()}, {}).ok());
  EXPECT_FALSE(BuildBinaryRow({*DataType::Decimal(5, 2)}, {Value::Dec({1, 5, 3})}).ok());
}

TEST(BinaryRowTest, TruncatedOrCorruptRowsAreStatuses) {
  EXPECT_TRUE(DeserializeBinaryRow(std::string("\0\0", 2)).status().IsCorruption());
  // Arity 2 needs 8 + 16 bytes.
  std::string short_row = std::string("\0\0\0\x02", 4) + std::string(16, '\0');
  EXPECT_TRUE(DeserializeBinaryRow(short_row).status().IsCorruption());

  BinaryRow good = Row({"STRING"}, {Value::String("a string of 19 bytes")});
  std::string cut = good.bytes().substr(0, 24);  // keeps the slot, loses the data
  ASSERT_OK_AND_ASSIGN(BinaryRow truncated, BinaryRow::FromBytes(cut, 1));
  auto value = truncated.GetBinary(0);
  EXPECT_TRUE(value.status().IsCorruption()) << value.status().ToString();

  BinaryRow ts = Row({"TIMESTAMP(6)"}, {Value::Ts({5, 5})});
  ASSERT_OK_AND_ASSIGN(BinaryRow ts_cut, BinaryRow::FromBytes(ts.bytes().substr(0, 16), 1));
  EXPECT_TRUE(ts_cut.GetTimestamp(0, 6).status().IsCorruption());

  BinaryRow dec = Row({"DECIMAL(20, 0)"}, {Value::Dec({5, 20, 0})});
  std::string bad_len = dec.bytes();
  bad_len[8] = 17;  // nbytes = 17 > 16
  ASSERT_OK_AND_ASSIGN(BinaryRow dec_bad, BinaryRow::FromBytes(bad_len, 1));
  EXPECT_TRUE(dec_bad.GetDecimal(0, 20, 0).status().IsCorruption());

  EXPECT_TRUE(good.GetInt(1).status().IsInvalid());
  EXPECT_TRUE(good.GetInt(-1).status().IsInvalid());
}

// Found by the predicate fuzz target: a fraction with a letter threw std::invalid_argument out of
// `read --where "ts > '...'"`. Every field must be plain digits; anything else is Invalid.
TEST(TimestampTest, MalformedTextIsInvalidNotAnException) {
  for (const char* text :
       {"2024-01-01 00:00:00.J   ", "2024-01-01 00:00:00.", "2024-01-01 00:00:+5",
        "2024-01-01 00:00:0x", " 2024-01-01 10:00", "+2024-01-01 10:00", "2024-01-01 10:-1",
        "2024-1a-01 10:00", "2024-01-01 10:00:00.1234567890", "9999999-01-01 10:00",
        "2024-01-01 10:00 ", "2024-01-01", "", "2024-1-2 3:04:05.5", "12024-01-01 10:00"}) {
    auto parsed = Timestamp::FromIsoString(text);
    EXPECT_TRUE(parsed.status().IsInvalid()) << "'" << text << "': " << parsed.status().ToString();
  }
  EXPECT_EQ(Timestamp::FromIsoString("+12024-01-02 03:04:05.5")->ToLocalDateTimeString(),
            "+12024-01-02T03:04:05.500");
  // Negative years (proleptic Gregorian, as java.time): one minute before year 0.
  EXPECT_EQ(Timestamp::FromIsoString("0000-01-01 00:00")->millis -
                Timestamp::FromIsoString("-0001-12-31 23:59")->millis,
            60000);
}

TEST(TimestampTest, JavaLocalDateTimeStrings) {
  EXPECT_EQ(Timestamp::FromIsoString("2024-01-01T10:00")->ToLocalDateTimeString(),
            "2024-01-01T10:00");
  EXPECT_EQ(Timestamp::FromIsoString("2024-01-01T10:00:00")->ToLocalDateTimeString(),
            "2024-01-01T10:00");
  EXPECT_EQ(Timestamp::FromIsoString("2024-01-01T10:00:05")->ToLocalDateTimeString(),
            "2024-01-01T10:00:05");
  EXPECT_EQ(Timestamp::FromIsoString("2024-01-01T10:00:00.1")->ToLocalDateTimeString(),
            "2024-01-01T10:00:00.100");
  EXPECT_EQ(Timestamp::FromIsoString("2024-01-01T10:00:00.0001")->ToLocalDateTimeString(),
            "2024-01-01T10:00:00.000100");
  EXPECT_EQ(Timestamp::FromIsoString("1969-12-31T23:59:59.999999999")->ToLocalDateTimeString(),
            "1969-12-31T23:59:59.999999999");
  EXPECT_EQ(Timestamp::FromIsoString("0005-03-01T00:00")->ToLocalDateTimeString(),
            "0005-03-01T00:00");
  EXPECT_EQ(Timestamp::FromIsoString("1970-01-01T00:00:00.001")->millis, 1);
  EXPECT_FALSE(Timestamp::FromIsoString("2024-13-01T00:00").ok());
  EXPECT_FALSE(Timestamp::FromIsoString("yesterday").ok());
  EXPECT_EQ(FormatEpochDay(19723), "2024-01-01");
  EXPECT_EQ(FormatEpochDay(-1), "1969-12-31");
  EXPECT_EQ(EpochDayFromCivil(2024, 1, 1), 19723);
}

}  // namespace
}  // namespace freshet::meta
