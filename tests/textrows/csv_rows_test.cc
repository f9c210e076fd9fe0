// CSV input: CsvReader (RFC 4180 records) and CsvRowParser (records into rows), and the round
// trip with the CSV printer (FormatCsvRows).
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "format/data_file_test_util.h"
#include "testing/test_util.h"
#include "textrows/csv_reader.h"
#include "textrows/json_rows.h"

namespace freshet::textrows {
namespace {

using format::testing::MakeFields;
using meta::DataField;
using meta::DataType;

// Every record as "line N: [field|field|"quoted"]", or the error.
std::string Records(const std::string& text) {
  std::istringstream in(text);
  textrows::CsvReader reader(&in, "in.csv");
  std::string out;
  textrows::CsvRecord record;
  while (true) {
    Result<bool> more = reader.Next(&record);
    if (!more.ok()) return out + more.status().ToString();
    if (!*more) break;
    out += "line " + std::to_string(record.line) + ": [";
    for (size_t i = 0; i < record.fields.size(); ++i) {
      const CsvField& field = record.fields[i];
      out += (i ? "|" : "") + (field.quoted ? "\"" + field.text + "\"" : field.text);
    }
    out += "]\n";
  }
  EXPECT_EQ(reader.bytes_read(), static_cast<int64_t>(text.size()));
  return out;
}

Result<textrows::ParsedRows> ParseCsv(const std::string& text,
                                      const std::vector<DataField>& fields) {
  std::istringstream in(text);
  textrows::CsvReader reader(&in, "in.csv");
  textrows::CsvRecord header;
  FRESHET_ASSIGN_OR_RETURN(bool has_header, reader.Next(&header));
  if (!has_header) return Status::Invalid("no header");
  FRESHET_ASSIGN_OR_RETURN(auto parser, textrows::CsvRowParser::Make(header, fields, "in.csv"));
  std::vector<textrows::CsvRecord> records;
  textrows::CsvRecord record;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&record));
    if (!more) break;
    records.push_back(record);
  }
  return parser.Parse(records);
}

// The rows of CSV input as JSON lines, or the error.
std::string CsvToJson(const std::string& text, const std::vector<DataField>& fields) {
  auto parsed = ParseCsv(text, fields);
  if (!parsed.ok()) return parsed.status().ToString();
  auto printed = textrows::FormatJsonRows(*parsed->batch, fields);
  return printed.ok() ? *printed : printed.status().ToString();
}

TEST(CsvReaderTest, SplitsRecordsAsRfc4180) {
  EXPECT_EQ(Records("a,b\r\n1,\"x,y\"\r\n\"say \"\"hi\"\"\",\"two\nlines\"\n,\"\"\n"),
            "line 1: [a|b]\n"
            "line 2: [1|\"x,y\"]\n"
            "line 3: [\"say \"hi\"\"|\"two\nlines\"]\n"
            "line 5: [|\"\"]\n");
  // No final line end; an empty line is one empty field; a trailing comma is an empty field.
  EXPECT_EQ(Records("a\n\nb,\n\"c\r\nd\""),
            "line 1: [a]\nline 2: []\nline 3: [b|]\nline 4: [\"c\r\nd\"]\n");
  // A byte order mark is skipped; a lone CR is data.
  EXPECT_EQ(Records("\xEF\xBB\xBFid\nx\ry\n"), "line 1: [id]\nline 2: [x\ry]\n");
  EXPECT_EQ(Records(""), "");
}

TEST(CsvReaderTest, ErrorsNameTheLine) {
  EXPECT_EQ(Records("a\n\"open\nmore\n"),
            "line 1: [a]\nInvalid: in.csv:2: unterminated quoted field (the input ends inside "
            "quotes)");
  EXPECT_EQ(Records("a,b\n1,\"x\"y\n"),
            "line 1: [a|b]\nInvalid: in.csv:2: field 2: a closing quote must be followed by a "
            "comma or a line end");
  EXPECT_EQ(Records("a\nab\"c\n"),
            "line 1: [a]\nInvalid: in.csv:2: field 1: a quote inside an unquoted field (quote "
            "the whole field and double the quote)");
}

TEST(CsvRowParserTest, ColumnsInAnyOrderMissingOnesNull) {
  auto fields = MakeFields({{"id", DataType::Int(false)},
                            {"s", DataType::String()},
                            {"b", DataType::Boolean()},
                            {"bytes", DataType::Bytes()},
                            {"d", DataType::Double()}});
  EXPECT_EQ(CsvToJson("s,id\n,1\n\"\",2\nplain,3\n", fields),
            "{\"id\": 1, \"s\": null, \"b\": null, \"bytes\": null, \"d\": null}\n"
            "{\"id\": 2, \"s\": \"\", \"b\": null, \"bytes\": null, \"d\": null}\n"
            "{\"id\": 3, \"s\": \"plain\", \"b\": null, \"bytes\": null, \"d\": null}\n");
  // "" is null for types other than text and binary; booleans ignore case; empty lines are
  // skipped when the header has several columns.
  EXPECT_EQ(
      CsvToJson("id,b,bytes,d\n1,TRUE,\"\",\"\"\n\n2,false,,-1.5e3\n3,,AAE=,-Infinity\n", fields),
      "{\"id\": 1, \"s\": null, \"b\": true, \"bytes\": \"\", \"d\": null}\n"
      "{\"id\": 2, \"s\": null, \"b\": false, \"bytes\": null, \"d\": -1500.0}\n"
      "{\"id\": 3, \"s\": null, \"b\": null, \"bytes\": \"AAE=\", \"d\": \"-Infinity\"}\n");
  // With a single column, an empty line is a null row (that is how the printer writes it).
  auto one = MakeFields({{"v", DataType::Int()}});
  EXPECT_EQ(CsvToJson("v\n1\n\n2\n", one), "{\"v\": 1}\n{\"v\": null}\n{\"v\": 2}\n");
}

TEST(CsvRowParserTest, ErrorsNameFileLineAndColumn) {
  auto fields = MakeFields({{"id", DataType::Int(false)},
                            {"amount", DataType::Int()},
                            {"price", *DataType::Decimal(5, 2)},
                            {"tags", DataType::Array(DataType::String())},
                            {"f", DataType::Float()}});
  EXPECT_EQ(CsvToJson("id,amount\n1,2\n2,abc\n", fields),
            "Invalid: in.csv:3: column 'amount': expected an integer for INT, got \"abc\"");
  // The line is where the record starts, counting the lines inside quoted fields.
  EXPECT_EQ(CsvToJson("id,tags\n1,\"[\"\"a\"\",\n\"\"b\"\"]\"\n2,[x]\n", fields).substr(0, 48),
            "Invalid: in.csv:4: column 'tags': invalid JSON: ");
  EXPECT_EQ(CsvToJson("id,price\n1,1234.5\n", fields),
            "Invalid: in.csv:2: column 'price': 1234.5 does not fit DECIMAL(5, 2)");
  EXPECT_EQ(CsvToJson("id,f\n1,1.5x\n", fields),
            "Invalid: in.csv:2: column 'f': expected a number or \"NaN\", \"Infinity\", "
            "\"-Infinity\" for FLOAT, got \"1.5x\"");
  EXPECT_EQ(CsvToJson("id,amount\n1\n", fields),
            "Invalid: in.csv:2: 1 field, but the header has 2");
  EXPECT_EQ(CsvToJson("id,amount\n,1\n", fields),
            "Invalid: in.csv:2: column 'id' is NOT NULL but null");
  EXPECT_EQ(CsvToJson("id,zz\n", fields),
            "Invalid: in.csv:1: unknown column 'zz' in the header (the table's columns: id, "
            "amount, price, tags, f)");
  EXPECT_EQ(CsvToJson("id,amount,id\n", fields),
            "Invalid: in.csv:1: column 'id' appears twice in the header");
  EXPECT_EQ(CsvToJson("amount\n", fields),
            "Invalid: in.csv:1: the header has no column 'id', which is NOT NULL");
  EXPECT_EQ(CsvToJson("\n", fields),
            "Invalid: in.csv:1: the header line is empty; it must name the columns");
}

// What the CSV printer writes reads back as the same rows.
TEST(CsvRowParserTest, ReadsBackWhatTheCsvPrinterWrites) {
  auto inner = DataType::Row({DataField{10, "x", DataType::Int(), {}, {}},
                              DataField{11, "tags", DataType::Array(DataType::String()), {}, {}}});
  auto fields = MakeFields({{"b", DataType::Boolean()},
                            {"i8", DataType::TinyInt()},
                            {"i16", DataType::SmallInt()},
                            {"i32", DataType::Int()},
                            {"i64", DataType::BigInt()},
                            {"f", DataType::Float()},
                            {"d", DataType::Double()},
                            {"dec", *DataType::Decimal(38, 10)},
                            {"c", *DataType::Char(3)},
                            {"s", DataType::String()},
                            {"bin", *DataType::Binary(2)},
                            {"bytes", DataType::Bytes()},
                            {"day", DataType::Date()},
                            {"t3", *DataType::Time(3)},
                            {"ts9", *DataType::Timestamp(9)},
                            {"ltz", *DataType::TimestampLtz(6)},
                            {"arr", DataType::Array(DataType::Int())},
                            {"m", DataType::Map(DataType::String(), DataType::Double())},
                            {"ms", DataType::Multiset(DataType::String())},
                            {"r", inner}});
  const std::string json =
      R"({"b": true, "i8": -128, "i16": 32767, "i32": -2147483648, "i64": 9223372036854775807, "f": 1.4E-45, "d": 4.9E-324, "dec": "-0.0000000001", "c": "a,b", "s": "say \"hi\",\r\nbye", "bin": "AAE=", "bytes": "", "day": "-0001-01-01", "t3": "23:59:59.999", "ts9": "1677-09-21 00:12:43.145224192", "ltz": "1970-01-01 00:00:00.000001Z", "arr": [1, null, 3], "m": [["a,\"b\"", 1.5], ["", "NaN"]], "ms": [["x", 2]], "r": {"x": 1, "tags": ["p", null]}})"
      "\n"
      R"({"b": false, "i8": 0, "i16": 0, "i32": 0, "i64": 0, "f": -0.0, "d": "-Infinity", "dec": "0.0000000000", "c": "", "s": "", "bin": "//8=", "bytes": "AAECAw==", "day": "+10000-12-31", "t3": "00:00:00.000", "ts9": "2024-01-01 10:00:00.000000000", "ltz": "2024-06-30 23:59:59.999999Z", "arr": [], "m": [], "ms": [], "r": {"x": null, "tags": []}})"
      "\n"
      R"({"b": null, "i8": null, "i16": null, "i32": null, "i64": null, "f": null, "d": null, "dec": null, "c": null, "s": null, "bin": null, "bytes": null, "day": null, "t3": null, "ts9": null, "ltz": null, "arr": null, "m": null, "ms": null, "r": null})"
      "\n"
      R"({"b": true, "i8": 1, "i16": 1, "i32": 1, "i64": 1, "f": "NaN", "d": 1.0E300, "dec": "1234567890123456789012345678.9012345678", "c": "x", "s": "null", "bin": "AA==", "bytes": "/w==", "day": "2024-02-29", "t3": "12:00:00.001", "ts9": "1900-01-01 00:00:00.000000001", "ltz": "1969-12-31 23:59:59.999999Z", "arr": [null], "m": [["k", null]], "ms": [["", 1]], "r": {"x": 7, "tags": null}})"
      "\n";
  ASSERT_OK_AND_ASSIGN(auto parsed, textrows::ParseJsonRows(json, fields));
  ASSERT_OK_AND_ASSIGN(std::string csv, textrows::FormatCsvRows(*parsed.batch, fields));
  EXPECT_EQ(CsvToJson(csv, fields), json) << csv;
}

}  // namespace
}  // namespace freshet::textrows
