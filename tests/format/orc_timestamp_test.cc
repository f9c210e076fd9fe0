// Zone-less ORC TIMESTAMP values: Java-written files in a non-UTC writer zone decode exactly as
// Java reads them, and freshet's own ORC files round-trip sub-second and pre-1970 values.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "data_file_test_util.h"
#include "meta/schema/schema_manager.h"

namespace freshet::format {
namespace {

namespace fs = std::filesystem;
using Nanos = std::optional<int64_t>;
using meta::DataType;
using testing::Field;
using testing::Must;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMilli = 1'000'000;

// Value `row` of a timestamp column as nanoseconds since the epoch; nullopt when null.
Nanos NanosAt(const arrow::Array& array, int64_t row) {
  if (array.IsNull(row)) return std::nullopt;
  const auto& type = static_cast<const arrow::TimestampType&>(*array.type());
  int64_t factor = type.unit() == arrow::TimeUnit::SECOND  ? kSecond
                   : type.unit() == arrow::TimeUnit::MILLI ? kMilli
                   : type.unit() == arrow::TimeUnit::MICRO ? 1000
                                                           : 1;
  return static_cast<const arrow::TimestampArray&>(array).Value(row) * factor;
}

std::vector<Nanos> Column(const arrow::RecordBatch& batch, const std::string& name) {
  auto column = batch.GetColumnByName(name);
  EXPECT_NE(column, nullptr) << name;
  std::vector<Nanos> values;
  if (column == nullptr) return values;
  for (int64_t row = 0; row < column->length(); ++row) values.push_back(NanosAt(*column, row));
  return values;
}

std::string TableDir(const std::string& name) {
  return freshet::testing::GoldenDir() + "/orc/" + name + ".db/" + name;
}

// The Java file (writer zone Asia/Shanghai) stores `1970-01-01 00:00:00.001` at -28799 local
// seconds; the C++ file (writer zone GMT) at 0. Both must read as the values Java wrote.
TEST(OrcTimestampTest, GoldenMultiplePrecisionsReadExactly) {
  FRESHET_REQUIRE_GOLDEN();
  std::string table = TableDir("append_with_multiple_ts_precision_and_timezone");
  auto file_io = io::LocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, table).ReadSchema(0));
  const std::vector<std::pair<std::string, std::vector<Nanos>>> expected = {
      {"ts_sec", {1 * kSecond, 3 * kSecond, 5 * kSecond}},
      {"ts_milli", {1 * kMilli, 3 * kMilli, 5 * kMilli}},
      {"ts_micro", {1000, std::nullopt, std::nullopt}},
      {"ts_nano", {1, 3, std::nullopt}},
      {"ts_tz_sec", {2 * kSecond, 4 * kSecond, 6 * kSecond}},
      {"ts_tz_milli", {2 * kMilli, 4 * kMilli, std::nullopt}},
      {"ts_tz_micro", {2000, 4000, 6000}},
      {"ts_tz_nano", {2, 4, std::nullopt}},
  };
  int files = 0;
  for (const auto& entry : fs::directory_iterator(table + "/bucket-0")) {
    SCOPED_TRACE(entry.path().string());
    for (int64_t batch_size : {1024, 1}) {
      FormatReaderOptions options;
      options.batch_size = batch_size;
      ASSERT_OK_AND_ASSIGN(auto batch,
                           testing::ReadFile(entry.path().string(), schema.fields(), options));
      for (const auto& [name, values] : expected) {
        EXPECT_EQ(Column(*batch, name), values) << name << " batch size " << batch_size;
      }
    }
    ++files;
  }
  EXPECT_EQ(files, 2);
}

// TIMESTAMP(9) `f4` of the Java-written ORC table with nested types.
TEST(OrcTimestampTest, GoldenComplexTableTimestampReadsExactly) {
  FRESHET_REQUIRE_GOLDEN();
  std::string table = TableDir("append_complex_build_in_fieldid");
  auto file_io = io::LocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, table).LatestSchema());
  ASSERT_TRUE(schema.has_value());
  std::vector<Nanos> all;
  for (const auto& entry : fs::recursive_directory_iterator(table)) {
    if (entry.path().extension() != ".orc") continue;
    ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadFile(entry.path().string(), schema->fields()));
    for (const auto& value : Column(*batch, "f4")) all.push_back(value);
  }
  std::sort(all.begin(), all.end());
  const int64_t f4 = 123 * kSecond + 123'123'000;  // 1970-01-01 00:02:03.123123
  EXPECT_EQ(all, (std::vector<Nanos>{0, f4, f4}));
}

// freshet writes ORC timestamps in GMT; values around and before the epoch, with fractions
// above and below one millisecond, must come back unchanged at every precision.
TEST(OrcTimestampTest, OwnFilesRoundTripSubSecondAndPre1970Values) {
  std::vector<meta::DataField> schema = {
      Field(0, "ts3", Must(DataType::Timestamp(3))),
      Field(1, "ts6", Must(DataType::Timestamp(6))),
      Field(2, "ts9", Must(DataType::Timestamp(9))),
      Field(3, "ltz9", Must(DataType::TimestampLtz(9))),
      Field(4, "nested", DataType::Row({Field(5, "ts9", Must(DataType::Timestamp(9)))})),
  };
  const char* values[] = {
      "1969-12-31 23:59:59.999999999", "1969-12-31 23:59:59.001000000",
      "1969-12-31 23:59:59.000000500", "1969-12-31 23:59:58.500000000",
      "1969-12-31 16:00:00.123456789", "1970-01-01 00:00:00.000000001",
      "1970-01-01 00:00:00.001000000", "1970-01-01 07:59:59.999000000",
      "1969-12-31 20:00:00.500000000", "1900-01-01 00:00:00.100000000",
      "2024-02-29 23:59:59.999999999", "1970-01-01 00:00:00.000000000",
  };
  std::string rows;
  for (const char* value : values) {
    std::string ts(value);
    std::string ts3 = ts.substr(0, 23);
    std::string ts6 = ts.substr(0, 26);
    rows += R"({"ts3": ")" + ts3 + R"(", "ts6": ")" + ts6 + R"(", "ts9": ")" + ts +
            R"(", "ltz9": ")" + ts + R"(Z", "nested": {"ts9": ")" + ts + "\"}}\n";
  }
  auto batch = testing::ParseRows(rows, schema);
  ASSERT_NE(batch, nullptr);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("ts.orc");
  ASSERT_OK(testing::WriteFile(FileFormat::kOrc, path, schema, {batch}).status());
  for (int64_t batch_size : {1024, 5}) {
    FormatReaderOptions options;
    options.batch_size = batch_size;
    ASSERT_OK_AND_ASSIGN(auto read, testing::ReadFile(path, schema, options));
    EXPECT_EQ(testing::Json(*read, schema), testing::Json(*batch, schema));
    for (const char* name : {"ts3", "ts6", "ts9", "ltz9"}) {
      EXPECT_EQ(Column(*read, name), Column(*batch, name)) << name;
    }
  }
}

}  // namespace
}  // namespace freshet::format
