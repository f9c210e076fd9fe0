#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "common/java_text.h"
#include "meta/partition/partition_path.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

DataField Field(std::string name, const char* sql) {
  DataField field;
  field.name = std::move(name);
  field.type = *ParseAtomicType(sql);
  return field;
}

std::string Path(const std::vector<DataField>& fields, const std::vector<Value>& values,
                 const PartitionNaming& naming = {}) {
  auto row = BuildBinaryRow(fields, values);
  if (!row.ok()) return "ERROR " + row.status().ToString();
  auto path = PartitionPath(*row, fields, naming);
  return path.ok() ? *path : "ERROR " + path.status().ToString();
}

// The partition directories Java created in the golden tables, from their partition values.
TEST(PartitionPathTest, GoldenTableDirectories) {
  FRESHET_REQUIRE_GOLDEN();
  const std::string golden = testing::GoldenDir();
  struct Case {
    std::string table;
    std::vector<Value> values;
  };
  std::vector<Case> cases = {
      {"orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", {Value::Int(10)}},
      {"orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor", {Value::Int(20)}},
      {"orc/pk_table_with_mor.db/pk_table_with_mor", {Value::Int(0), Value::Int(1)}},
      {"orc/pk_table_with_mor.db/pk_table_with_mor", {Value::Int(1), Value::Int(0)}},
      {"orc/multi_partition_append_table.db/multi_partition_append_table",
       {Value::Int(10), Value::Int(0)}},
      {"parquet/append_table_with_alter_table.db/append_table_with_alter_table",
       {Value::Int(1), Value::Int(1)}},
      {"parquet/append_with_empty_partition.db/append_with_empty_partition",
       {Value::String("2024")}},
      {"parquet/append_with_empty_partition.db/append_with_empty_partition", {Value::Null()}},
      {"parquet/append_with_empty_partition.db/append_with_empty_partition", {Value::String("")}},
      {"avro/append_multiple.db/append_multiple", {Value::SmallInt(11)}},
      {"avro/pk_with_multiple_type.db/pk_with_multiple_type", {Value::TinyInt(10)}},
  };
  for (const Case& c : cases) {
    std::string dir = golden + "/" + c.table;
    ASSERT_OK_AND_ASSIGN(
        TableSchema schema,
        TableSchema::FromJson(testing::ReadWholeFile(dir + "/schema/schema-0"), dir));
    ASSERT_OK_AND_ASSIGN(PartitionNaming naming, PartitionNaming::FromOptions(schema.options()));
    ASSERT_OK_AND_ASSIGN(BinaryRow row, BuildBinaryRow(schema.PartitionFields(), c.values));
    ASSERT_OK_AND_ASSIGN(std::string path, PartitionPath(row, schema.PartitionFields(), naming));
    EXPECT_TRUE(std::filesystem::is_directory(dir + "/" + path)) << dir << "/" << path;
  }
}

TEST(PartitionPathTest, EscapesEveryListedCharacter) {
  const std::string specials = "\"#%'*/:=?\\{}[]^\x7f";
  for (char c : specials) {
    char expected[4];
    std::snprintf(expected, sizeof(expected), "%%%02X", static_cast<unsigned char>(c));
    EXPECT_EQ(EscapePathName(std::string("a") + c + "b"), std::string("a") + expected + "b");
  }
  for (int c = 0; c < 0x20; ++c) {
    char expected[4];
    std::snprintf(expected, sizeof(expected), "%%%02X", c);
    EXPECT_EQ(EscapePathName(std::string(1, static_cast<char>(c))), expected);
  }
  EXPECT_EQ(EscapePathName("a b-c_d.e~f!g@h$i&j(k)l+m,n;o<p>q|r`s"),
            "a b-c_d.e~f!g@h$i&j(k)l+m,n;o<p>q|r`s");
  EXPECT_EQ(EscapePathName("caf\xc3\xa9/\xe4\xb8\xad\xe6\x96\x87"),
            "caf\xc3\xa9%2F\xe4\xb8\xad\xe6\x96\x87");
  EXPECT_EQ(Path({Field("k=1", "STRING")}, {Value::String("a/b:c")}), "k%3D1=a%2Fb%3Ac/");
}

TEST(PartitionPathTest, DefaultNameForNullEmptyAndBlank) {
  std::vector<DataField> fields = {Field("s", "STRING")};
  EXPECT_EQ(Path(fields, {Value::Null()}), "s=__DEFAULT_PARTITION__/");
  EXPECT_EQ(Path(fields, {Value::String("")}), "s=__DEFAULT_PARTITION__/");
  EXPECT_EQ(Path(fields, {Value::String(" \t\n")}), "s=__DEFAULT_PARTITION__/");
  EXPECT_EQ(Path(fields, {Value::String("\xe3\x80\x80")}), "s=__DEFAULT_PARTITION__/");  // U+3000
  EXPECT_EQ(Path(fields, {Value::String("\xc2\xa0")}), "s=\xc2\xa0/");  // NBSP is not blank
  EXPECT_EQ(Path(fields, {Value::String(" x ")}), "s= x /");
  ASSERT_OK_AND_ASSIGN(PartitionNaming naming,
                       PartitionNaming::FromOptions({{"partition.default-name", "none"}}));
  EXPECT_EQ(Path(fields, {Value::Null()}, naming), "s=none/");
  EXPECT_EQ(Path({}, {}), "");
}

TEST(PartitionPathTest, LegacyAndCastNames) {
  PartitionNaming legacy;
  PartitionNaming cast;
  cast.legacy_name = false;
  std::vector<DataField> fields = {Field("d", "DATE"), Field("t", "TIMESTAMP(3)"),
                                   Field("n", "TIMESTAMP(9)"), Field("z", "TIMESTAMP(0)")};
  std::vector<Value> values = {Value::Int(19723),
                               Value::Ts(*Timestamp::FromIsoString("2024-01-01T10:00:00")),
                               Value::Ts(*Timestamp::FromIsoString("2024-01-01T10:00:01.5")),
                               Value::Ts(*Timestamp::FromIsoString("2024-01-01T10:00:00"))};
  EXPECT_EQ(Path(fields, values, legacy),
            "d=19723/t=2024-01-01T10%3A00/n=2024-01-01T10%3A00%3A01.500/z=2024-01-01T10%3A00/");
  EXPECT_EQ(Path(fields, values, cast),
            "d=2024-01-01/t=2024-01-01 10%3A00%3A00.000/n=2024-01-01 10%3A00%3A01.500000000/"
            "z=2024-01-01 10%3A00%3A00/");

  std::vector<DataField> others = {Field("b", "BOOLEAN"),          Field("dec", "DECIMAL(10, 3)"),
                                   Field("big", "DECIMAL(30, 2)"), Field("f", "FLOAT"),
                                   Field("g", "DOUBLE"),           Field("l", "BIGINT")};
  std::vector<Value> other_values = {
      Value::Boolean(false),
      Value::Dec(*Decimal::FromString("-1.5", 10, 3)),
      Value::Dec(*Decimal::FromString("12345678901234567890.25", 30, 2)),
      Value::Float(0.1f),
      Value::Double(1e10),
      Value::BigInt(-42)};
  EXPECT_EQ(Path(others, other_values),
            "b=false/dec=-1.500/big=12345678901234567890.25/f=0.1/g=1.0E10/l=-42/");
  EXPECT_EQ(Path(others, other_values, cast),
            "b=false/dec=-1.500/big=12345678901234567890.25/f=0.1/g=1.0E10/l=-42/");

  EXPECT_EQ(Path({Field("tm", "TIME(3)")}, {Value::Int(37815250)}), "tm=37815250/");
  EXPECT_EQ(Path({Field("tm", "TIME(3)")}, {Value::Int(37815250)}, cast), "tm=10%3A30%3A15.250/");
  EXPECT_EQ(Path({Field("bin", "BYTES")}, {Value::Bytes("ab")}, cast), "bin=ab/");
  EXPECT_NE(Path({Field("bin", "BYTES")}, {Value::Bytes("ab")}).find("NotImplemented"),
            std::string::npos);
}

TEST(PartitionPathTest, JavaFloatingPointStrings) {
  EXPECT_EQ(freshet::JavaDoubleToString(1.0), "1.0");
  EXPECT_EQ(freshet::JavaDoubleToString(100.0), "100.0");
  EXPECT_EQ(freshet::JavaDoubleToString(0.001), "0.001");
  EXPECT_EQ(freshet::JavaDoubleToString(0.0001), "1.0E-4");
  EXPECT_EQ(freshet::JavaDoubleToString(1234567.0), "1234567.0");
  EXPECT_EQ(freshet::JavaDoubleToString(12345678.0), "1.2345678E7");
  EXPECT_EQ(freshet::JavaDoubleToString(-0.0), "-0.0");
  EXPECT_EQ(freshet::JavaDoubleToString(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(freshet::JavaFloatToString(0.7815346f), "0.7815346");
  EXPECT_EQ(freshet::JavaFloatToString(3.0e-5f), "3.0E-5");
  // One shortest digit: Java spends the second digit on accuracy.
  EXPECT_EQ(freshet::JavaFloatToString(1.4e-45f), "1.4E-45");
  EXPECT_EQ(freshet::JavaDoubleToString(4.9e-324), "4.9E-324");
}

TEST(PartitionPathTest, BadInput) {
  EXPECT_FALSE(PartitionNaming::FromOptions({{"partition.legacy-name", "yes"}}).ok());
  ASSERT_OK_AND_ASSIGN(BinaryRow row, BuildBinaryRow({DataType::Int()}, {Value::Int(1)}));
  EXPECT_FALSE(PartitionPath(row, {}, {}).ok());
}

}  // namespace
}  // namespace freshet::meta
