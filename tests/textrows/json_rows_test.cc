#include "textrows/json_rows.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include "format/data_file_test_util.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bridge/arrow_schema.h"
#include "bridge/arrow_value.h"
#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet::textrows {
namespace {

using meta::DataField;
using meta::DataType;
using meta::DataTypePtr;
using meta::Value;

using format::testing::MakeFields;

DataTypePtr Dec(int p, int s) { return *DataType::Decimal(p, s); }
DataTypePtr Time(int p) { return *DataType::Time(p); }
DataTypePtr Ts(int p) { return *DataType::Timestamp(p); }
DataTypePtr Ltz(int p) { return *DataType::TimestampLtz(p); }

std::string RoundTrip(const std::string& text, const std::vector<DataField>& fields) {
  auto parsed = textrows::ParseJsonRows(text, fields);
  if (!parsed.ok()) return "PARSE ERROR " + parsed.status().ToString();
  auto printed = textrows::FormatJsonRows(*parsed->batch, fields);
  if (!printed.ok()) return "FORMAT ERROR " + printed.status().ToString();
  return *printed;
}

std::string ParseError(const std::string& text, const std::vector<DataField>& fields) {
  auto parsed = textrows::ParseJsonRows(text, fields);
  return parsed.ok() ? "OK" : parsed.status().ToString();
}

// Parses lenient input and prints it canonically.
std::string Canonical(const std::string& line, const DataTypePtr& type) {
  std::string printed = RoundTrip(R"({"c": )" + line + "}\n", MakeFields({{"c", type}}));
  if (printed.rfind(R"({"c": )", 0) != 0) return printed;
  return printed.substr(6, printed.size() - 8);
}

// ---------------------------------------------------------------------------------------------
// Round trips: canonical text in, the same bytes out.

TEST(JsonRowsTest, PrimitivesRoundTripByteExact) {
  auto fields = MakeFields({{"b", DataType::Boolean()},
                            {"i8", DataType::TinyInt()},
                            {"i16", DataType::SmallInt()},
                            {"i32", DataType::Int()},
                            {"i64", DataType::BigInt(false)},
                            {"f", DataType::Float()},
                            {"d", DataType::Double()},
                            {"dec", Dec(38, 10)},
                            {"dec2", Dec(5, 2)},
                            {"dec0", Dec(3, 0)},
                            {"c", *DataType::Char(3)},
                            {"s", DataType::String()},
                            {"bin", *DataType::Binary(2)},
                            {"bytes", DataType::Bytes()}});
  const std::string text =
      R"({"b": true, "i8": -128, "i16": 32767, "i32": -2147483648, "i64": 9223372036854775807, "f": 1.5, "d": 0.1, "dec": "1234567890123456789012345678.9012345678", "dec2": "-0.05", "dec0": "999", "c": "abc", "s": "héllo \"q\" \\ /", "bin": "AAE=", "bytes": ""})"
      "\n"
      R"({"b": false, "i8": 127, "i16": -32768, "i32": 0, "i64": -9223372036854775808, "f": 3.4028235E38, "d": 1.0E300, "dec": "-0.0000000001", "dec2": "0.00", "dec0": "-7", "c": "", "s": "", "bin": "//8=", "bytes": "SGVsbG8gV29ybGQ="})"
      "\n"
      R"({"b": null, "i8": null, "i16": null, "i32": null, "i64": 0, "f": 1.4E-45, "d": 4.9E-324, "dec": null, "dec2": null, "dec0": null, "c": null, "s": null, "bin": null, "bytes": null})"
      "\n"
      R"({"b": true, "i8": 0, "i16": 0, "i32": 1, "i64": 1, "f": -0.0, "d": "NaN", "dec": "0.0000000000", "dec2": "999.99", "dec0": "0", "c": "x", "s": "tab\tnew\nline\u0001\u001F é 中文 😀", "bin": "AA==", "bytes": "AAECAw=="})"
      "\n"
      R"({"b": false, "i8": 1, "i16": 1, "i32": 2147483647, "i64": 2, "f": "Infinity", "d": "-Infinity", "dec": "9999999999999999999999999999.9999999999", "dec2": "-999.99", "dec0": "-999", "c": "a,b", "s": "1.0E7", "bin": "AAA=", "bytes": "+/+/"})"
      "\n"
      R"({"b": true, "i8": 2, "i16": 2, "i32": 3, "i64": 3, "f": 1.0E7, "d": 123.456, "dec": "1.0000000000", "dec2": "1.50", "dec0": "1", "c": "z", "s": "x", "bin": "AQI=", "bytes": "/w=="})"
      "\n"
      R"({"b": true, "i8": 3, "i16": 3, "i32": 4, "i64": 4, "f": 0.001, "d": 9999999.999, "dec": "-1.0000000000", "dec2": "0.01", "dec0": "2", "c": "z", "s": "x", "bin": "AQI=", "bytes": "/w=="})"
      "\n";
  EXPECT_EQ(RoundTrip(text, fields), text);
}

TEST(JsonRowsTest, DatesAndTimesRoundTripByteExact) {
  auto fields = MakeFields({{"day", DataType::Date()},
                            {"t0", Time(0)},
                            {"t3", Time(3)},
                            {"t6", Time(6)},
                            {"ts0", Ts(0)},
                            {"ts3", Ts(3)},
                            {"ts6", Ts(6)},
                            {"ts9", Ts(9)},
                            {"ltz3", Ltz(3)},
                            {"ltz6", Ltz(6)}});
  const std::string text =
      R"({"day": "2024-02-29", "t0": "00:00:00", "t3": "23:59:59.999", "t6": "12:34:56.789000", "ts0": "2024-01-01 10:00:00", "ts3": "2024-01-01 10:00:05.120", "ts6": "1969-12-31 23:59:59.999999", "ts9": "2262-04-11 23:47:16.854775807", "ltz3": "2024-06-30 23:59:59.001Z", "ltz6": "1970-01-01 00:00:00.000001Z"})"
      "\n"
      R"({"day": "1970-01-01", "t0": "23:59:59", "t3": "00:00:00.001", "t6": "00:00:00.000000", "ts0": "0001-01-01 00:00:00", "ts3": "9999-12-31 23:59:59.999", "ts6": "0001-01-01 00:00:00.000001", "ts9": "1677-09-21 00:12:43.145224192", "ltz3": "1969-12-31 23:59:59.999Z", "ltz6": "9999-12-31 23:59:59.999999Z"})"
      "\n"
      R"({"day": "-0001-01-01", "t0": null, "t3": null, "t6": null, "ts0": "-0044-03-15 12:00:00", "ts3": "+10000-01-01 00:00:00.000", "ts6": "+12345-06-07 08:09:10.111213", "ts9": "1900-01-01 00:00:00.000000001", "ltz3": null, "ltz6": "0000-02-29 00:00:00.000000Z"})"
      "\n"
      R"({"day": "+10000-12-31", "t0": "01:02:03", "t3": "01:02:03.004", "t6": "01:02:03.004000", "ts0": null, "ts3": null, "ts6": null, "ts9": null, "ltz3": "2000-02-29 12:00:00.000Z", "ltz6": null})"
      "\n"
      R"({"day": "0000-02-29", "t0": "12:00:00", "t3": "12:00:00.000", "t6": "12:00:00.100000", "ts0": "-1000-01-01 00:00:00", "ts3": "1582-10-04 23:59:59.999", "ts6": "1582-10-15 00:00:00.000000", "ts9": "1970-01-01 00:00:00.000000000", "ltz3": "1970-01-01 00:00:00.000Z", "ltz6": "1970-01-01 00:00:00.000000Z"})"
      "\n"
      R"({"day": null, "t0": null, "t3": null, "t6": null, "ts0": null, "ts3": null, "ts6": null, "ts9": null, "ltz3": null, "ltz6": null})"
      "\n";
  EXPECT_EQ(RoundTrip(text, fields), text);
}

TEST(JsonRowsTest, NestedTypesRoundTripByteExact) {
  auto inner = DataType::Row({DataField{10, "x", DataType::Int(), {}, {}},
                              DataField{11, "tags", DataType::Array(DataType::String()), {}, {}}});
  auto fields = MakeFields({{"arr", DataType::Array(DataType::Int())},
                            {"strict", DataType::Array(DataType::BigInt(false), false)},
                            {"m", DataType::Map(DataType::String(), DataType::Double())},
                            {"ms", DataType::Multiset(DataType::String())},
                            {"r", inner},
                            {"deep", DataType::Array(DataType::Map(DataType::Int(), inner))},
                            {"dates", DataType::Array(DataType::Date())},
                            {"decs", DataType::Map(Dec(10, 2), DataType::Bytes())}});
  const std::string text =
      R"({"arr": [1, null, 3], "strict": [1, 2], "m": [["a", 1.5], ["b", null], ["a", "NaN"]], "ms": [["x", 2], ["y", 1]], "r": {"x": 1, "tags": ["p", null]}, "deep": [[[1, {"x": null, "tags": []}]], null, []], "dates": ["2024-01-01", null], "decs": [["1.00", "AQ=="]]})"
      "\n"
      R"({"arr": [], "strict": [], "m": [], "ms": [], "r": {"x": null, "tags": null}, "deep": [], "dates": [], "decs": []})"
      "\n"
      R"({"arr": null, "strict": [-9223372036854775808], "m": null, "ms": null, "r": null, "deep": null, "dates": null, "decs": null})"
      "\n";
  EXPECT_EQ(RoundTrip(text, fields), text);
}

TEST(JsonRowsTest, KeysAreColumnNamesInColumnOrderAndEscaped) {
  auto fields = MakeFields({{"b", DataType::Int()}, {"a \"q\"", DataType::Int()}});
  EXPECT_EQ(RoundTrip(R"({"a \"q\"": 2, "b": 1})", fields), "{\"b\": 1, \"a \\\"q\\\"\": 2}\n");
  // Missing keys read as null; blank lines and CRLF are fine.
  EXPECT_EQ(RoundTrip("\n{}\r\n  \n{\"b\": 5}", fields),
            "{\"b\": null, \"a \\\"q\\\"\": null}\n{\"b\": 5, \"a \\\"q\\\"\": null}\n");
}

// ---------------------------------------------------------------------------------------------
// Lenient input

TEST(JsonRowsTest, LenientNumbers) {
  EXPECT_EQ(Canonical("\"42\"", DataType::Int()), "42");
  EXPECT_EQ(Canonical("\"-9223372036854775808\"", DataType::BigInt()), "-9223372036854775808");
  EXPECT_EQ(Canonical("3", DataType::Double()), "3.0");
  EXPECT_EQ(Canonical("1e300", DataType::Double()), "1.0E300");
  EXPECT_EQ(Canonical("1e-400", DataType::Double()), "0.0");
  EXPECT_EQ(Canonical("16777217", DataType::Float()), "1.6777216E7");
  // Parsed once from the text: 1.00000005960464477539062500001 is just above the midpoint
  // between float 1 and its successor, which double rounding would lose.
  EXPECT_EQ(Canonical("1.00000005960464477539062500001", DataType::Float()), "1.0000001");
  EXPECT_EQ(Canonical("7", Dec(5, 2)), "\"7.00\"");
  EXPECT_EQ(Canonical("1.005", Dec(5, 2)), "\"1.01\"");  // HALF_UP, from the text
  EXPECT_EQ(Canonical("-1.005", Dec(5, 2)), "\"-1.01\"");
  EXPECT_EQ(Canonical("\"-1.004\"", Dec(5, 2)), "\"-1.00\"");
  EXPECT_EQ(Canonical("\"-0.001\"", Dec(5, 2)), "\"0.00\"");
  EXPECT_EQ(Canonical("1.5e2", Dec(5, 2)), "\"150.00\"");
  EXPECT_EQ(Canonical("\"12E-3\"", Dec(5, 2)), "\"0.01\"");
  EXPECT_EQ(Canonical("99999999999999999999999999999999999999", Dec(38, 0)),
            "\"99999999999999999999999999999999999999\"");
}

TEST(JsonRowsTest, LenientDatesAndTimes) {
  EXPECT_EQ(Canonical("\"2024-01-01T10:00\"", Ts(3)), "\"2024-01-01 10:00:00.000\"");
  EXPECT_EQ(Canonical("\"2024-01-01 10:00:05.123456789Z\"", Ts(6)),
            "\"2024-01-01 10:00:05.123456\"");
  EXPECT_EQ(Canonical("\"1969-12-31 23:59:59.9999\"", Ts(3)), "\"1969-12-31 23:59:59.999\"");
  EXPECT_EQ(Canonical("\"2024-01-01T02:30:00+02:30\"", Ltz(0)), "\"2024-01-01 00:00:00Z\"");
  EXPECT_EQ(Canonical("\"2024-01-01 00:00:00-01:00\"", Ltz(3)), "\"2024-01-01 01:00:00.000Z\"");
  EXPECT_EQ(Canonical("\"12:34:56.789999\"", Time(2)), "\"12:34:56.78\"");
  EXPECT_EQ(Canonical("\"12:34\"", Time(0)), "\"12:34:00\"");
  EXPECT_EQ(Canonical("\"12:34:56.7\"", Time(9)), "\"12:34:56.700000000\"");
}

TEST(JsonRowsTest, LenientNestedForms) {
  auto map = DataType::Map(DataType::Int(), DataType::String());
  EXPECT_EQ(Canonical(R"({"1": "a", "2": null})", map), R"([[1, "a"], [2, null]])");
  EXPECT_EQ(Canonical(R"({"x": 3})", DataType::Multiset(DataType::String())), R"([["x", 3]])");
  auto row = DataType::Row(
      {DataField{5, "a", DataType::Int(), {}, {}}, DataField{6, "b", DataType::String(), {}, {}}});
  EXPECT_EQ(Canonical(R"([1, "x"])", row), R"({"a": 1, "b": "x"})");
  EXPECT_EQ(Canonical(R"({"b": "x"})", row), R"({"a": null, "b": "x"})");
}

TEST(JsonRowsTest, RowKinds) {
  auto fields = MakeFields({{"id", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(auto parsed, textrows::ParseJsonRows(R"({"id": 1}
{"_kind": "-U", "id": 2}
{"id": 3, "_kind": "+U"}
{"_kind": "-D", "id": 4}
{"_kind": "+I", "id": 5}
)",
                                                            fields));
  EXPECT_EQ(parsed.row_kinds, (std::vector<int8_t>{0, 1, 2, 3, 0}));
  EXPECT_EQ(parsed.batch->num_rows(), 5);
  EXPECT_EQ(*textrows::FormatJsonRows(*parsed.batch, fields),
            "{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}\n{\"id\": 4}\n{\"id\": 5}\n");
  EXPECT_STREQ(RowKindShortString(RowKind::kUpdateBefore), "-U");
}

TEST(JsonRowsTest, EmptyInputGivesAnEmptyBatch) {
  auto fields = MakeFields({{"id", DataType::Int()}, {"a", DataType::Array(DataType::Int())}});
  ASSERT_OK_AND_ASSIGN(auto parsed, textrows::ParseJsonRows("", fields));
  EXPECT_EQ(parsed.batch->num_rows(), 0);
  EXPECT_EQ(parsed.batch->num_columns(), 2);
  EXPECT_TRUE(parsed.batch->schema()->Equals(**bridge::ToArrowSchema(fields)));
  EXPECT_EQ(*textrows::FormatJsonRows(*parsed.batch, fields), "");
}

TEST(JsonRowsTest, ParsedBatchHasTheTableSchema) {
  auto fields = MakeFields({{"m", DataType::Map(DataType::String(), DataType::Int())},
                            {"ms", DataType::Multiset(DataType::Int())},
                            {"r", DataType::Row({DataField{7, "a", DataType::Int(false), {}, {}}})},
                            {"l", DataType::Array(Ts(9))}});
  ASSERT_OK_AND_ASSIGN(auto parsed,
                       textrows::ParseJsonRows(R"({"m": [["a", 1]], "r": {"a": 1}})", fields));
  EXPECT_TRUE(parsed.batch->schema()->Equals(**bridge::ToArrowSchema(fields), true));
  EXPECT_TRUE(parsed.batch->ValidateFull().ok()) << parsed.batch->ValidateFull().ToString();
}

// ---------------------------------------------------------------------------------------------
// Errors: exact messages

TEST(JsonRowsTest, ErrorMessages) {
  auto fields = MakeFields({{"id", DataType::Int(false)},
                            {"price", Dec(10, 2)},
                            {"tags", DataType::Array(DataType::Int(false))},
                            {"m", DataType::Map(DataType::String(), DataType::Int())},
                            {"r", DataType::Row({DataField{9, "a", DataType::Date(), {}, {}}})},
                            {"t", Ts(3)}});
  EXPECT_EQ(ParseError("{\"id\": 1}\n{\"id\": 2, \"zz\": 1}", fields),
            "Invalid: line 2: unknown column 'zz'");
  EXPECT_EQ(ParseError("{\"id\": 1,}", fields),
            "Invalid: line 1: invalid JSON: parse error at line 1, column 10: syntax error while "
            "parsing object key - unexpected '}'; expected string literal");
  EXPECT_EQ(ParseError("[1]", fields), "Invalid: line 1: expected a JSON object, got [1]");
  EXPECT_EQ(ParseError("{\"price\": 1}", fields),
            "Invalid: line 1: column 'id' is NOT NULL but missing");
  EXPECT_EQ(ParseError("\n{\"id\": null}", fields),
            "Invalid: line 2: column 'id' is NOT NULL but null");
  EXPECT_EQ(ParseError("{\"id\": \"x\"}", fields),
            "Invalid: line 1: column 'id': expected an integer for INT, got \"x\"");
  EXPECT_EQ(ParseError("{\"id\": 1.5}", fields),
            "Invalid: line 1: column 'id': expected an integer for INT, got 1.5");
  EXPECT_EQ(ParseError("{\"id\": 2147483648}", fields),
            "Invalid: line 1: column 'id': 2147483648 is out of range for INT");
  EXPECT_EQ(ParseError("{\"id\": 1, \"price\": true}", fields),
            "Invalid: line 1: column 'price': expected a decimal string or number for "
            "DECIMAL(10, 2), got true");
  EXPECT_EQ(ParseError("{\"id\": 1, \"price\": \"123456789\"}", fields),
            "Invalid: line 1: column 'price': 123456789 does not fit DECIMAL(10, 2)");
  EXPECT_EQ(ParseError("{\"id\": 1, \"tags\": [1, null]}", fields),
            "Invalid: line 1: column 'tags': element 1: null for INT NOT NULL");
  EXPECT_EQ(ParseError("{\"id\": 1, \"tags\": {}}", fields),
            "Invalid: line 1: column 'tags': expected an array for ARRAY<INT NOT NULL>, got {}");
  EXPECT_EQ(ParseError("{\"id\": 1, \"m\": [[\"a\", \"b\"]]}", fields),
            "Invalid: line 1: column 'm': value 0: expected an integer for INT, got \"b\"");
  EXPECT_EQ(ParseError("{\"id\": 1, \"m\": [[null, 1]]}", fields),
            "Invalid: line 1: column 'm': key 0: null for STRING NOT NULL");
  EXPECT_EQ(ParseError("{\"id\": 1, \"m\": [[\"a\"]]}", fields),
            "Invalid: line 1: column 'm': expected an array of [key, value] pairs or an object "
            "for MAP<STRING, INT>, got [[\"a\"]]");
  EXPECT_EQ(ParseError("{\"id\": 1, \"r\": {\"b\": 1}}", fields),
            "Invalid: line 1: column 'r': unknown field 'b' for ROW<`a` DATE>");
  EXPECT_EQ(ParseError("{\"id\": 1, \"r\": {\"a\": \"2023-02-29\"}}", fields),
            "Invalid: line 1: column 'r': field 'a': expected a date YYYY-MM-DD for DATE, got "
            "\"2023-02-29\"");
  EXPECT_EQ(ParseError("{\"id\": 1, \"t\": \"2024-01-01 24:00:00\"}", fields),
            "Invalid: line 1: column 't': expected a timestamp YYYY-MM-DD HH:MM:SS[.fffffffff] "
            "for TIMESTAMP(3), got \"2024-01-01 24:00:00\"");
  EXPECT_EQ(ParseError("{\"id\": 1, \"_kind\": \"+X\"}", fields),
            "Invalid: line 1: \"_kind\" must be one of \"+I\", \"-U\", \"+U\", \"-D\", got \"+X\"");
}

TEST(JsonRowsTest, MoreErrorMessages) {
  auto one = [](const DataTypePtr& type, const std::string& value) {
    return ParseError(R"({"c": )" + value + "}", MakeFields({{"c", type}}));
  };
  EXPECT_EQ(one(DataType::Boolean(), "1"),
            "Invalid: line 1: column 'c': expected true or false for BOOLEAN, got 1");
  EXPECT_EQ(one(DataType::Float(), "\"nan\""),
            "Invalid: line 1: column 'c': expected a number or \"NaN\", \"Infinity\", "
            "\"-Infinity\" for FLOAT, got \"nan\"");
  EXPECT_EQ(one(DataType::Float(), "1e39"),
            "Invalid: line 1: column 'c': 1e39 is out of range for FLOAT");
  EXPECT_EQ(one(DataType::Bytes(), "\"abc\""),
            "Invalid: line 1: column 'c': expected a base64 string for BYTES, got \"abc\"");
  EXPECT_EQ(one(DataType::String(), "5"),
            "Invalid: line 1: column 'c': expected a string for STRING, got 5");
  EXPECT_EQ(one(Time(3), "\"25:00:00\""),
            "Invalid: line 1: column 'c': expected a time HH:MM:SS[.fff] for TIME(3), got "
            "\"25:00:00\"");
  EXPECT_EQ(one(Ts(9), "\"2300-01-01 00:00:00\""),
            "Invalid: line 1: column 'c': timestamp 2300-01-01 00:00:00.000000000 is out of range "
            "for nanosecond precision");
  EXPECT_EQ(one(Ts(3), "\"2024-01-01 00:00:00+01:00\""),
            "Invalid: line 1: column 'c': expected a timestamp YYYY-MM-DD HH:MM:SS[.fffffffff] "
            "for TIMESTAMP(3), got \"2024-01-01 00:00:00+01:00\"");
  EXPECT_EQ(one(DataType::Date(), "\"99999999-01-01\""),
            "Invalid: line 1: column 'c': expected a date YYYY-MM-DD for DATE, got "
            "\"99999999-01-01\"");
  EXPECT_EQ(one(DataType::Date(), "\"24-01-01\""),
            "Invalid: line 1: column 'c': expected a date YYYY-MM-DD for DATE, got \"24-01-01\"");
}

// ---------------------------------------------------------------------------------------------
// CSV and table printers

TEST(JsonRowsTest, CsvQuotesAsRfc4180) {
  auto fields = MakeFields({{"id", DataType::Int()},
                            {"s", DataType::String()},
                            {"a", DataType::Array(DataType::String())},
                            {"d", Dec(4, 1)},
                            {"x,y", DataType::Double()}});
  ASSERT_OK_AND_ASSIGN(
      auto parsed,
      textrows::ParseJsonRows(R"({"id": 1, "s": "plain", "a": ["p", "q"], "d": "1.5", "x,y": 0.5}
{"id": null, "s": "", "a": [], "d": null, "x,y": "NaN"}
{"id": 3, "s": "say \"hi\", bye\nnext", "a": null, "d": "-2.0", "x,y": 1e20}
)",
                              fields));
  ASSERT_OK_AND_ASSIGN(std::string csv, textrows::FormatCsvRows(*parsed.batch, fields));
  EXPECT_EQ(csv,
            "id,s,a,d,\"x,y\"\n"
            "1,plain,\"[\"\"p\"\", \"\"q\"\"]\",1.5,0.5\n"
            ",\"\",[],,NaN\n"
            "3,\"say \"\"hi\"\", bye\nnext\",,-2.0,1.0E20\n");
}

TEST(JsonRowsTest, TablePrinterAligns) {
  auto fields = MakeFields({{"id", DataType::Int()},
                            {"name", DataType::String()},
                            {"price", Dec(6, 2)},
                            {"m", DataType::Map(DataType::String(), DataType::Int())}});
  ASSERT_OK_AND_ASSIGN(
      auto parsed,
      textrows::ParseJsonRows(R"({"id": 1, "name": "é中", "price": "1.50", "m": [["k", 1]]}
{"id": 1000, "name": "tab\there", "price": null, "m": null}
)",
                              fields));
  ASSERT_OK_AND_ASSIGN(std::string table, textrows::FormatTableRows(*parsed.batch, fields));
  EXPECT_EQ(table,
            "id   | name      | price | m\n"
            "-----+-----------+-------+-----------\n"
            "   1 | é中        |  1.50 | [[\"k\", 1]]\n"
            "1000 | tab\\there |  null | null\n");
}

TEST(JsonRowsTest, PrintersRejectABatchOfAnotherSchema) {
  auto fields = MakeFields({{"id", DataType::Int()}});
  ASSERT_OK_AND_ASSIGN(auto parsed, textrows::ParseJsonRows("{\"id\": 1}", fields));
  auto other = MakeFields({{"id", DataType::BigInt()}});
  EXPECT_EQ(textrows::FormatJsonRows(*parsed.batch, other).status().ToString(),
            "Invalid: column 'id' is int32 in the batch, expected int64 for BIGINT");
  EXPECT_FALSE(textrows::FormatCsvRows(*parsed.batch, MakeFields({})).ok());
}

// ---------------------------------------------------------------------------------------------
// FLOAT / DOUBLE text vs the Python harness (repr, float32 shortest via numpy): the same number.

std::string PythonPath() { return std::string(FRESHET_SOURCE_DIR) + "/.venv-pypaimon/bin/python"; }

TEST(JsonRowsTest, FloatingTextMatchesPythonHarness) {
  if (!std::filesystem::exists(PythonPath())) GTEST_SKIP() << "no " << PythonPath();
  std::mt19937_64 random(2024);
  std::vector<double> doubles;
  std::vector<float> floats;
  for (int i = 0; i < 3000; ++i) {
    double d;
    float f;
    do {
      d = std::bit_cast<double>(random());
    } while (!std::isfinite(d));
    do {
      f = std::bit_cast<float>(static_cast<uint32_t>(random()));
    } while (!std::isfinite(f));
    // Also values of everyday magnitude, where the plain / exponent layouts switch.
    if (i % 3 == 0) d = std::ldexp(static_cast<double>(random() % 1000000), -(int)(random() % 40));
    if (i % 3 == 0)
      f = static_cast<float>(
          std::ldexp(static_cast<double>(random() % 100000), 20 - (int)(random() % 40)));
    doubles.push_back(d);
    floats.push_back(f);
  }
  auto fields = MakeFields({{"f", DataType::Float()}, {"d", DataType::Double()}});
  arrow::FloatBuilder float_builder;
  arrow::DoubleBuilder double_builder;
  std::ostringstream bits;
  for (size_t i = 0; i < doubles.size(); ++i) {
    ASSERT_TRUE(float_builder.Append(floats[i]).ok());
    ASSERT_TRUE(double_builder.Append(doubles[i]).ok());
    bits << std::bit_cast<uint32_t>(floats[i]) << " " << std::bit_cast<uint64_t>(doubles[i])
         << "\n";
  }
  auto batch = arrow::RecordBatch::Make(*bridge::ToArrowSchema(fields), doubles.size(),
                                        {*float_builder.Finish(), *double_builder.Finish()});
  ASSERT_OK_AND_ASSIGN(std::string ours, textrows::FormatJsonRows(*batch, fields));

  const char* script = R"(
import sys, struct, numpy as np
for line in sys.stdin:
    f_bits, d_bits = map(int, line.split())
    f = np.frombuffer(struct.pack('<I', f_bits), dtype=np.float32)[0]
    d = struct.unpack('<d', struct.pack('<Q', d_bits))[0]
    print(repr(float(str(f))), repr(d))
)";
  auto python = freshet::testing::RunProcess({PythonPath(), "-c", script}, bits.str());
  ASSERT_EQ(python.exit_code, 0) << python.err;

  // Significant digits of a number's text: "1.25E-3" and "0.00125" both give "125".
  auto digits = [](const std::string& text) {
    std::string mantissa = text.substr(0, text.find_first_of("eE"));
    std::string out;
    for (char c : mantissa) {
      if (c >= '0' && c <= '9') out += c;
    }
    out.erase(0, std::min(out.find_first_not_of('0'), out.size()));
    while (!out.empty() && out.back() == '0') out.pop_back();
    return out;
  };
  std::istringstream our_lines(ours), python_lines(python.out);
  std::string our_line, python_line;
  size_t checked = 0;
  while (std::getline(our_lines, our_line) && std::getline(python_lines, python_line)) {
    // {"f": <f>, "d": <d>}
    std::string our_f = our_line.substr(6, our_line.find(", \"d\"") - 6);
    std::string our_d = our_line.substr(our_line.find("\"d\": ") + 5);
    our_d.pop_back();
    std::string py_f = python_line.substr(0, python_line.find(' '));
    std::string py_d = python_line.substr(python_line.find(' ') + 1);
    size_t i = checked++;
    EXPECT_EQ(std::strtof(our_f.c_str(), nullptr), floats[i]) << our_f;
    EXPECT_EQ(std::strtof(py_f.c_str(), nullptr), floats[i]) << py_f;
    EXPECT_EQ(std::bit_cast<uint64_t>(std::strtod(our_d.c_str(), nullptr)),
              std::bit_cast<uint64_t>(doubles[i]))
        << our_d;
    // Same digits, except where Python's shortest has one digit: Java (and we) then print the
    // closest two-digit decimal ("4.9E-324" for Python's "5e-324").
    if (digits(py_f).size() > 1) {
      EXPECT_EQ(digits(our_f), digits(py_f)) << our_f << " vs " << py_f;
    }
    if (digits(py_d).size() > 1) {
      EXPECT_EQ(digits(our_d), digits(py_d)) << our_d << " vs " << py_d;
    }
    if (HasFailure()) break;
  }
  EXPECT_EQ(checked, doubles.size());
}

}  // namespace
}  // namespace freshet::textrows

namespace freshet::textrows {
namespace {

// A value nested 70,000 levels used to overflow the stack (the error path printed it
// recursively); it is now refused before it is parsed, with the line named.
TEST(JsonRowsDepthTest, DeeplyNestedValuesAreRefused) {
  auto fields = format::testing::MakeFields({{"c", meta::DataType::Array(meta::DataType::Int())}});
  for (int levels : {300, 70000}) {
    std::string line = R"({"c": )" + std::string(levels, '[') + std::string(levels, ']') + "}\n";
    auto parsed = textrows::ParseJsonRows(line, fields);
    ASSERT_FALSE(parsed.ok());
    EXPECT_TRUE(parsed.status().IsInvalid()) << parsed.status().ToString();
    EXPECT_NE(parsed.status().message().find("nests JSON deeper than 256 levels"),
              std::string::npos)
        << parsed.status().ToString();
  }
  // Nesting the table's types allow still parses.
  auto ok = textrows::ParseJsonRows(R"({"c": [1, 2]})"
                                    "\n",
                                    fields);
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
}

}  // namespace
}  // namespace freshet::textrows
