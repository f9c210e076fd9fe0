// Bytes that are not UTF-8 in a table never break the JSON the CLI prints (docs/json-rows.md,
// "Bytes that are not UTF-8"), and CSV input refuses them as JSON-lines input does.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "freshet/table.h"
#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::ProcessResult;
using freshet::testing::RunProcess;
using freshet::testing::TempDir;

constexpr const char* kSchema = R"json({"fields": [{"name": "id", "type": "BIGINT"},
  {"name": "s", "type": "STRING"}, {"name": "dt", "type": "STRING"}],
  "partitionKeys": ["dt"]})json";
const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

std::shared_ptr<arrow::Array> Strings(const std::vector<std::string>& values) {
  arrow::StringBuilder builder;  // Arrow does not check that the bytes are UTF-8
  for (const auto& v : values) EXPECT_TRUE(builder.Append(v).ok());
  return builder.Finish().ValueOrDie();
}

// One commit of rows whose strings hold bytes that are not UTF-8, through the C API (the CLI's
// inputs refuse them), as a data file written by another tool may hold them.
void WriteBadBytes(const std::string& path) {
  auto table = Table::Create(path, kSchema);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  arrow::Int64Builder ids;
  ASSERT_TRUE(ids.AppendValues({1, 2}).ok());
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8()),
                     arrow::field("dt", arrow::utf8())}),
      2,
      {ids.Finish().ValueOrDie(),
       Strings({"a\xFF"
                "b",
                "ok"}),
       Strings({"d\xFE", "d\xFE"})});
  ArrowArray array;
  ArrowSchema schema;
  ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
  auto writer = (*table)->NewWriter();
  ASSERT_TRUE(writer.ok());
  ASSERT_OK((*writer)->Write(&array, &schema));
  ASSERT_TRUE((*writer)->Commit().ok());
}

Json ParseOutput(const std::string& text) {
  auto json = ParseJson(text, "CLI output");
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  return json.ok() ? *json : Json();
}

TEST(Utf8OutputTest, ReadPrintsValidJsonLines) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t");
  WriteBadBytes(table);
  ProcessResult run = RunProcess({FRESHET_CLI_PATH, "read", table, "--format", "jsonl"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<Json> rows;
  for (size_t start = 0, end; (end = run.out.find('\n', start)) != std::string::npos;
       start = end + 1) {
    rows.push_back(ParseOutput(run.out.substr(start, end - start)));
  }
  ASSERT_EQ(rows.size(), 2u) << run.out;
  EXPECT_EQ(rows[0]["s"], "a" + kReplacement + "b");
  EXPECT_EQ(rows[0]["dt"], "d" + kReplacement);
  EXPECT_EQ(rows[1]["s"], std::string("ok"));
}

TEST(Utf8OutputTest, InspectPrintsValidJsonAndText) {
  TempDir dir;
  std::string table = dir.Sub("db.db/t\xFF");  // the path is printed too
  WriteBadBytes(table);
  ProcessResult run = RunProcess({FRESHET_CLI_PATH, "inspect", table, "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Json report = ParseOutput(run.out);
  EXPECT_EQ(report["path"], dir.Sub("db.db/t" + kReplacement));
  EXPECT_EQ(report["snapshots"][0]["files"][0]["partition"], "dt=d" + kReplacement);

  run = RunProcess({FRESHET_CLI_PATH, "inspect", table});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Snapshots: 1"), std::string::npos) << run.out;
}

class Utf8InputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProcessResult run = RunProcess({FRESHET_CLI_PATH, "create", table_, "--schema", kSchema});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  ProcessResult Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_.Sub(name), std::ios::binary) << text;
    return RunProcess({FRESHET_CLI_PATH, "write", table_, "--input", dir_.Sub(name)});
  }

  TempDir dir_;
  std::string table_ = dir_.Sub("db.db/t");
};

TEST_F(Utf8InputTest, CsvRefusesStringsThatAreNotUtf8) {
  ProcessResult run = Write("rows.csv",
                            "id,s,dt\n1,fine,x\n2,\"a\xFF"
                            "b\",x\n");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.err, "freshet write: Invalid: " + dir_.Sub("rows.csv") +
                         ":3: column 's': not valid UTF-8 (byte 0xFF at offset 1)\n");
  run = Write("partition.csv", "id,dt\n1,\xC3\n");  // a cut sequence, in a partition column
  EXPECT_EQ(run.err, "freshet write: Invalid: " + dir_.Sub("partition.csv") +
                         ":2: column 'dt': not valid UTF-8 (byte 0xC3 at offset 0)\n");
  EXPECT_FALSE(std::filesystem::exists(table_ + "/snapshot/LATEST"));
}

// Schema specs are JSON: arguments completing them must be UTF-8 too.
TEST(Utf8ArgumentsTest, CreateRefusesOptionsThatAreNotUtf8) {
  TempDir dir;
  ProcessResult run = RunProcess(
      {FRESHET_CLI_PATH, "create", dir.Sub("t"), "--schema", kSchema, "--option", "k=\xFF"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "freshet create: Invalid: --option 'k=" + kReplacement + "' is not valid UTF-8\n");
}

TEST_F(Utf8InputTest, JsonLinesRefuseStringsThatAreNotUtf8) {
  ProcessResult run = Write("rows.jsonl",
                            "{\"id\": 1, \"s\": \"a\xFF"
                            "b\", \"dt\": \"x\"}\n");
  EXPECT_NE(run.exit_code, 0);
  std::string prefix = "freshet write: Invalid: " + dir_.Sub("rows.jsonl") + ":1: invalid JSON: ";
  EXPECT_EQ(run.err.substr(0, prefix.size()), prefix) << run.err;
  EXPECT_NE(run.err.find("ill-formed UTF-8 byte"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace freshet
