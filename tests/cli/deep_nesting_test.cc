// The deepest types a schema accepts (meta::kMaxTypeNestingDepth: 32 levels, a MAP counting two)
// can be created, written, read and printed in every file format and output format: the depth
// limit of the schema bounds every recursive printer and parser behind it, and nothing accepted
// is unusable (issue 9: a table "created but never written or read").
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "meta/schema/table_schema.h"
#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::ProcessResult;
using freshet::testing::RunProcess;
using freshet::testing::TempDir;

constexpr int kDepth = meta::kMaxTypeNestingDepth;

std::string Repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// ARRAY<ARRAY<...<INT>>> (kDepth arrays), ROW<r ROW<...<x INT>>> (kDepth rows) and
// MAP<STRING, MAP<...<STRING, INT>>> (kDepth / 2 maps).
std::string DeepSchema() {
  const std::string arrays =
      Repeat(R"({"type": "ARRAY", "element": )", kDepth) + R"("INT")" + std::string(kDepth, '}');
  const std::string rows =
      Repeat(R"({"type": "ROW", "fields": [{"name": "r", "type": )", kDepth - 1) +
      R"({"type": "ROW", "fields": [{"name": "x", "type": "INT"}]})" + Repeat("}]}", kDepth - 1);
  const std::string maps =
      Repeat(R"({"type": "MAP", "key": "STRING NOT NULL", "value": )", kDepth / 2) + R"("INT")" +
      std::string(kDepth / 2, '}');
  return R"({"fields": [{"name": "id", "type": "INT NOT NULL"}, {"name": "a", "type": )" + arrays +
         R"(}, {"name": "r", "type": )" + rows + R"(}, {"name": "m", "type": )" + maps + "}]}";
}

// One row with every level filled, one with nulls and empties inside, as `read` prints them.
std::string DeepRows() {
  const std::string array = Repeat("[", kDepth) + "1, null" + Repeat("]", kDepth);
  const std::string row = Repeat(R"({"r": )", kDepth - 1) + R"({"x": 7})" + Repeat("}", kDepth - 1);
  const std::string map = Repeat(R"([["k", )", kDepth / 2) + "5" + Repeat("]]", kDepth / 2);
  const std::string shallow_array = Repeat("[", kDepth / 2) + Repeat("]", kDepth / 2);
  const std::string shallow_row =
      Repeat(R"({"r": )", kDepth / 2) + "null" + Repeat("}", kDepth / 2);
  return R"({"id": 1, "a": )" + array + R"(, "r": )" + row + R"(, "m": )" + map + "}\n" +
         R"({"id": 2, "a": )" + shallow_array + R"(, "r": )" + shallow_row + R"(, "m": []})" + "\n";
}

class DeepNestingTest : public ::testing::TestWithParam<std::string> {
 protected:
  void Create(const std::string& table) {
    ProcessResult run = RunProcess({FRESHET_CLI_PATH, "create", table, "--schema", DeepSchema(),
                                    "--option", "file.format=" + GetParam()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  void Write(const std::string& table, const std::string& text, const std::string& format) {
    const std::string input = dir_.Sub("input." + format);
    std::ofstream(input) << text;
    ProcessResult run =
        RunProcess({FRESHET_CLI_PATH, "write", table, "--input", input, "--input-format", format});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  std::string Read(const std::string& table, const std::string& format) {
    ProcessResult run = RunProcess({FRESHET_CLI_PATH, "read", table, "--format", format});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.out;
  }
  TempDir dir_;
};

TEST_P(DeepNestingTest, TheDeepestAcceptedTypesAreWrittenReadAndPrinted) {
  const std::string table = dir_.Sub("t");
  ASSERT_NO_FATAL_FAILURE(Create(table));
  ASSERT_NO_FATAL_FAILURE(Write(table, DeepRows(), "jsonl"));
  EXPECT_EQ(Read(table, "jsonl"), DeepRows());
  EXPECT_NE(Read(table, "table").find(Repeat("[", kDepth) + "1"), std::string::npos);

  // The CSV printer's output is input for another table and comes back unchanged.
  const std::string csv = Read(table, "csv");
  const std::string copy = dir_.Sub("copy");
  ASSERT_NO_FATAL_FAILURE(Create(copy));
  ASSERT_NO_FATAL_FAILURE(Write(copy, csv, "csv"));
  EXPECT_EQ(Read(copy, "jsonl"), DeepRows());

  ProcessResult inspect = RunProcess({FRESHET_CLI_PATH, "inspect", table, "--json"});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
}

INSTANTIATE_TEST_SUITE_P(Formats, DeepNestingTest, ::testing::Values("parquet", "orc", "avro"));

}  // namespace
}  // namespace freshet
