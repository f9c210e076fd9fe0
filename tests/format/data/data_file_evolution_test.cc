// Reading old files with a newer schema: columns are matched by field id.
#include <gtest/gtest.h>

#include "data_file_test_util.h"

namespace freshet::format {
namespace {

using meta::DataType;
using testing::Field;
using testing::Must;

class EvolutionTest : public ::testing::TestWithParam<FileFormat> {
 protected:
  std::string Write(const std::vector<meta::DataField>& schema, const std::string& rows) {
    std::string path = dir_.Sub(std::string("old.") + FileFormatName(GetParam()));
    auto result = testing::WriteFile(GetParam(), path, schema, {testing::ParseRows(rows, schema)});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return path;
  }
  freshet::testing::TempDir dir_;
};

TEST_P(EvolutionTest, AddedRenamedWidenedAndDroppedColumns) {
  std::vector<meta::DataField> old_schema = {
      Field(0, "id", DataType::Int(false)),
      Field(1, "name", DataType::String()),
      Field(2, "score", DataType::Float()),
      Field(3, "dropped", DataType::String()),
      Field(4, "amount", Must(DataType::Decimal(5, 2))),
      Field(5, "nested", DataType::Row({Field(6, "a", DataType::SmallInt())}))};
  std::string path = Write(
      old_schema,
      R"({"id": 1, "name": "x", "score": 1.5, "dropped": "d", "amount": "123.45", "nested": {"a": 7}}
{"id": 2, "name": null, "score": null, "dropped": null, "amount": null, "nested": null}
)");
  // ALTER TABLE: id INT -> BIGINT, name renamed to full_name, score FLOAT -> DOUBLE, dropped
  // removed, amount DECIMAL(5, 2) -> DECIMAL(10, 2), nested.a SMALLINT -> INT and a new nested
  // field, a new column; and a different column order.
  std::vector<meta::DataField> new_schema = {
      Field(7, "added", DataType::String()),
      Field(1, "full_name", DataType::String()),
      Field(0, "id", DataType::BigInt(false)),
      Field(2, "score", DataType::Double()),
      Field(4, "amount", Must(DataType::Decimal(10, 2))),
      Field(5, "nested",
            DataType::Row({Field(6, "a", DataType::Int()), Field(8, "b", DataType::String())}))};
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadFile(path, new_schema));
  EXPECT_EQ(
      testing::Json(*batch, new_schema),
      R"({"added": null, "full_name": "x", "id": 1, "score": 1.5, "amount": "123.45", "nested": {"a": 7, "b": null}}
{"added": null, "full_name": null, "id": 2, "score": null, "amount": null, "nested": null}
)");
  // A name that moved to another id does not match the old column of that name.
  std::vector<meta::DataField> reused_name = {Field(9, "name", DataType::String())};
  ASSERT_OK_AND_ASSIGN(auto reused, testing::ReadFile(path, reused_name));
  EXPECT_EQ(reused->column(0)->null_count(), 2);
}

TEST_P(EvolutionTest, IncompatibleTypeIsAnErrorNamingTheColumn) {
  std::vector<meta::DataField> old_schema = {
      Field(0, "r", DataType::Row({Field(1, "a", DataType::Int())}))};
  std::string path = Write(old_schema, "{\"r\": {\"a\": 1}}\n");
  std::vector<meta::DataField> bad = {Field(0, "r", DataType::Array(DataType::Int()))};
  auto read = testing::ReadFile(path, bad);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("column r"), std::string::npos)
      << read.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Formats, EvolutionTest,
                         ::testing::Values(FileFormat::kParquet, FileFormat::kOrc),
                         [](const auto& info) { return std::string(FileFormatName(info.param)); });

}  // namespace
}  // namespace freshet::format
