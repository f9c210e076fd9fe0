// Cross-checks freshet's Parquet and ORC files with an independent reader (pyarrow in .venv).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "data_file_test_util.h"

namespace freshet::format {
namespace {

using meta::DataType;
using testing::Field;
using testing::Must;

std::string Python() { return std::string(FRESHET_SOURCE_DIR) + "/.venv/bin/python"; }

std::string RunCommand(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
  pclose(pipe);
  return output;
}

// Prints one line per Parquet leaf/group: "name field_id repetition physical logical".
constexpr char kParquetScript[] = R"(
import sys, pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
s = f.schema_arrow
print("root", f.metadata.schema.to_arrow_schema() is not None)
print(str(f.metadata.schema).splitlines()[1].strip())
for i in range(len(f.metadata.schema)):
    c = f.metadata.schema.column(i)
    print(c.path, c.physical_type, c.logical_type, c.max_definition_level)
print("rows", f.metadata.num_rows)
print("table", f.read().num_rows)
)";

TEST(PyArrowCrossCheckTest, ParquetLayoutIsWhatJavaWrites) {
  ASSERT_TRUE(std::filesystem::exists(Python())) << "missing " << Python() << " (scripts/setup.sh)";
  std::vector<meta::DataField> schema = {
      Field(0, "id", DataType::Int(false)),
      Field(1, "ti", DataType::TinyInt()),
      Field(2, "dec9", Must(DataType::Decimal(9, 2))),
      Field(3, "dec18", Must(DataType::Decimal(18, 2))),
      Field(4, "dec20", Must(DataType::Decimal(20, 2))),
      Field(5, "ts3", Must(DataType::Timestamp(3))),
      Field(6, "ts6", Must(DataType::Timestamp(6))),
      Field(7, "ts9", Must(DataType::Timestamp(9))),
      Field(8, "ltz6", Must(DataType::TimestampLtz(6))),
      Field(9, "tm", Must(DataType::Time(0))),
      Field(10, "arr", DataType::Array(DataType::Int())),
      Field(11, "m", DataType::Map(DataType::String(), DataType::Int()))};
  auto batch = testing::ParseRows(
      R"({"id": 1, "ts9": "2024-01-01 10:00:00.123456789", "arr": [1], "m": [["a", 1]]})"
      "\n",
      schema);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("x.parquet");
  ASSERT_OK(testing::WriteFile(FileFormat::kParquet, path, schema, {batch}).status());
  std::string script = dir.Sub("check.py");
  ASSERT_OK(io::LocalFileIO()->WriteFile(script, kParquetScript));
  std::string out = RunCommand(Python() + " " + script + " " + path);
  // The message name and the field ids Java writes (nested ids derived as Java derives them: Java
  // 1.4.2 gave ARRAY id 9 element id 536880128 and MAP id 10 key/value ids 536860670/536881152).
  std::string schema_text = RunCommand(
      Python() +
      " -c \"import pyarrow.parquet as pq,sys; print(pq.ParquetFile(sys.argv[1]).schema)\" " +
      path);
  for (const char* expected : {
           "required group field_id=-1 paimon_schema {",
           "required int32 field_id=0 id;",
           "optional int32 field_id=1 ti (Int(bitWidth=8, isSigned=true));",
           "optional int32 field_id=2 dec9 (Decimal(precision=9, scale=2));",
           "optional int64 field_id=3 dec18 (Decimal(precision=18, scale=2));",
           "optional fixed_len_byte_array(9) field_id=4 dec20 (Decimal(precision=20, scale=2));",
           "optional int64 field_id=5 ts3 (Timestamp(isAdjustedToUTC=false, timeUnit=milliseconds",
           "optional int64 field_id=6 ts6 (Timestamp(isAdjustedToUTC=false, timeUnit=microseconds",
           "optional int96 field_id=7 ts9;",
           "optional int64 field_id=8 ltz6 (Timestamp(isAdjustedToUTC=true, timeUnit=microseconds",
           "optional int32 field_id=9 tm (Time(isAdjustedToUTC=true, timeUnit=milliseconds));",
           "optional group field_id=10 arr (List) {",
           "optional int32 field_id=536881152 element;",
           "optional group field_id=11 m (Map) {",
           "required binary field_id=536859646 key (String);",
           "optional int32 field_id=536882176 value;",
       }) {
    EXPECT_NE(schema_text.find(expected), std::string::npos) << expected << "\n" << schema_text;
  }
  EXPECT_NE(out.find("rows 1"), std::string::npos) << out;
  EXPECT_NE(out.find("table 1"), std::string::npos) << out;
}

// freshet computes Parquet's page CRCs with libdeflate (src/format/parquet_page_crc.h); pyarrow,
// in a process without freshet, verifies them with Arrow's own implementation.
TEST(PyArrowCrossCheckTest, PageChecksumsVerifyWithArrowsOwnCrc) {
  ASSERT_TRUE(std::filesystem::exists(Python())) << "missing " << Python();
  auto fields = testing::MakeFields({{"id", DataType::BigInt(false)}, {"s", DataType::String()}});
  arrow::Int64Builder ids;
  arrow::StringBuilder strings;
  for (int64_t i = 0; i < 300'000; ++i) {
    ASSERT_TRUE(ids.Append(i * 7919 % 1'000'003).ok());
    ASSERT_TRUE(strings.Append("value-" + std::to_string(i * 31 % 99'991)).ok());
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("s", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(schema, 300'000,
                                        {ids.Finish().ValueOrDie(), strings.Finish().ValueOrDie()});
  freshet::testing::TempDir dir;
  const std::string path = dir.Sub("crc.parquet");
  ASSERT_OK(testing::WriteFile(FileFormat::kParquet, path, fields, {batch}).status());
  constexpr char kVerify[] =
      " -c \"import sys, pyarrow.parquet as pq\n"
      "f = pq.ParquetFile(sys.argv[1], page_checksum_verification=True)\n"
      "print('rows', f.read().num_rows)\" ";
  std::string out = RunCommand(Python() + kVerify + path);
  EXPECT_NE(out.find("rows 300000"), std::string::npos) << out;
  // The same file with one data byte changed: pyarrow's verification is on.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() / 3] = static_cast<char>(bytes[bytes.size() / 3] ^ 0x01);
  const std::string damaged = dir.Sub("damaged.parquet");
  std::ofstream(damaged, std::ios::binary) << bytes;
  out = RunCommand(Python() + kVerify + damaged);
  EXPECT_NE(out.find("CRC"), std::string::npos) << out;
}

TEST(PyArrowCrossCheckTest, OrcCarriesPaimonIds) {
  ASSERT_TRUE(std::filesystem::exists(Python())) << "missing " << Python();
  std::vector<meta::DataField> schema = {
      Field(3, "a", DataType::Int()), Field(5, "tm", Must(DataType::Time(0))),
      Field(7, "r", DataType::Row({Field(8, "x", DataType::String())}))};
  auto batch = testing::ParseRows(R"({"a": 1, "tm": "01:00:00", "r": {"x": "y"}})"
                                  "\n",
                                  schema);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("x.orc");
  ASSERT_OK(testing::WriteFile(FileFormat::kOrc, path, schema, {batch}).status());
  std::string out =
      RunCommand(Python() +
                 " -c \"import pyarrow.orc as o,sys; f=o.ORCFile(sys.argv[1]); s=f.schema; "
                 "print([(x.name, str(x.type), x.metadata) for x in s]); print(f.compression); "
                 "print(s.field('r').type.field(0).metadata); "
                 "print(f.read().to_pylist())\" " +
                 path);
  EXPECT_NE(out.find("('a', 'int32', {b'paimon.id': b'3'})"), std::string::npos) << out;
  // TIME is an ORC INT of millis, as Java writes it.
  EXPECT_NE(out.find("('tm', 'int32', {b'paimon.id': b'5'})"), std::string::npos) << out;
  EXPECT_NE(out.find("b'paimon.id': b'8'"), std::string::npos) << out;
  EXPECT_NE(out.find("ZSTD"), std::string::npos) << out;
  EXPECT_NE(out.find("'tm': 3600000"), std::string::npos) << out;
}

}  // namespace
}  // namespace freshet::format
