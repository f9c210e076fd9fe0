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

// A file whose manifest entry claims the read schema is read in exact mode: what evolution would
// turn into NULLs or casts (a field id damaged on disk) is Corruption instead.
TEST_P(EvolutionTest, AFileClaimingTheReadSchemaMustMatchItExactly) {
  std::vector<meta::DataField> schema = {
      Field(0, "id", DataType::BigInt(false)), Field(1, "msg", DataType::String()),
      Field(2, "ts", Must(DataType::Timestamp(3))),
      Field(3, "r", DataType::Row({Field(4, "a", DataType::Int())})),
      Field(5, "price", Must(DataType::Decimal(10, 2)))};
  const std::string rows =
      R"({"id": 1, "msg": "x", "ts": "2026-12-01 10:00:00.123", "r": {"a": 7}, "price": "700.25"}
)";
  FormatReaderOptions exact;
  exact.exact_schema = true;
  // The same schema: exact mode reads it like evolution does.
  std::string good = Write(schema, rows);
  ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadFile(good, schema, exact));
  EXPECT_EQ(batch->num_rows(), 1);

  struct Damage {
    const char* what;
    std::vector<meta::DataField> on_disk;
  };
  std::vector<Damage> damages = {
      {"ts stored under msg's id",
       {Field(0, "id", DataType::BigInt(false)), Field(9, "msg", DataType::String()),
        Field(1, "ts", Must(DataType::Timestamp(3))),
        Field(3, "r", DataType::Row({Field(4, "a", DataType::Int())})), schema[4]}},
      {"a field id missing",
       {schema[0], schema[1], Field(7, "ts", Must(DataType::Timestamp(3))), schema[3], schema[4]}},
      {"a nested field id missing",
       {schema[0], schema[1], schema[2],
        Field(3, "r", DataType::Row({Field(8, "a", DataType::Int())})), schema[4]}},
      {"another type",
       {Field(0, "id", DataType::String()), schema[1], schema[2], schema[3], schema[4]}},
      // A footer whose decimal scale lost a digit: its unscaled integers must not be cast.
      {"another decimal scale",
       {schema[0], schema[1], schema[2], schema[3],
        Field(5, "price", Must(DataType::Decimal(10, 0)))}}};
  for (const Damage& damage : damages) {
    std::string path = dir_.Sub(std::string("damaged.") + FileFormatName(GetParam()));
    std::string damaged_rows = rows;
    if (std::string(damage.what) == "another type") {
      damaged_rows =
          R"({"id": "1", "msg": "x", "ts": "2026-12-01 10:00:00.123", "r": {"a": 7}, "price": "700.25"}
)";
    } else if (std::string(damage.what) == "another decimal scale") {
      damaged_rows =
          R"({"id": 1, "msg": "x", "ts": "2026-12-01 10:00:00.123", "r": {"a": 7}, "price": "70025"}
)";
    }
    ASSERT_TRUE(testing::WriteFile(GetParam(), path, damage.on_disk,
                                   {testing::ParseRows(damaged_rows, damage.on_disk)})
                    .ok());
    auto read = testing::ReadFile(path, schema, exact);
    ASSERT_FALSE(read.ok()) << damage.what;
    EXPECT_TRUE(read.status().IsCorruption()) << damage.what << ": " << read.status().ToString();
    EXPECT_NE(read.status().message().find("the schema it claims"), std::string::npos)
        << read.status().ToString();
    // The same file read as one of an older schema evolves without an error or fails to cast.
    auto evolved = testing::ReadFile(path, schema);
    if (evolved.ok()) {
      EXPECT_EQ((*evolved)->num_rows(), 1);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, EvolutionTest,
                         ::testing::Values(FileFormat::kParquet, FileFormat::kOrc),
                         [](const auto& info) { return std::string(FileFormatName(info.param)); });

}  // namespace
}  // namespace freshet::format
