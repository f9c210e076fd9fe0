// Table options freshet honours, checked against Java Paimon (docs/options.md): files freshet
// names with `data-file.prefix` are read by Java, and Java names its files with the same prefix
// in a freshet-created table, which freshet reads back.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "interop/interop_harness.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

namespace fs = std::filesystem;

// Names of the data files of the table (bucket directories), sorted.
std::vector<std::string> DataFiles(const std::string& table) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(table)) {
    if (entry.is_regular_file() &&
        entry.path().parent_path().filename().string().rfind("bucket-", 0) == 0) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Rows(int from, int to) {
  std::string jsonl;
  for (int id = from; id < to; ++id) {
    jsonl += R"({"id": )" + std::to_string(id) + R"(, "s": "row )" + std::to_string(id) + "\"}\n";
  }
  return jsonl;
}

TEST(OptionsInteropTest, DataFilePrefixIsReadByJavaAndJavaUsesIt) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("wh/db.db/t");
  const std::string cli = FreshetCliPath();
  WriteTextFile(
      dir.Sub("schema.json"),
      R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "s", "type": "STRING"}],)"
      R"( "options": {"data-file.prefix": "part-", "source.split.target-size": "1 kb"}})");
  WriteTextFile(dir.Sub("a.jsonl"), Rows(0, 10));
  WriteTextFile(dir.Sub("b.jsonl"), Rows(10, 15));
  WriteTextFile(dir.Sub("java.jsonl"), Rows(100, 104));
  auto written = RunChains({{{cli, "create", table, "--schema", dir.Sub("schema.json")},
                             {cli, "write", table, "--input", dir.Sub("a.jsonl")},
                             {cli, "write", table, "--input", dir.Sub("b.jsonl")}}},
                           1);
  ASSERT_EQ(FirstFailure(written), "");
  std::vector<std::string> files = DataFiles(table);
  ASSERT_EQ(files.size(), 2u);
  for (const std::string& name : files) {
    EXPECT_EQ(name.rfind("part-", 0), 0u) << name;
    EXPECT_TRUE(name.ends_with(".parquet")) << name;
  }

  CommandResult java_read = RunCommand(JavaCommand({"read", "--table", table}));
  ASSERT_TRUE(java_read.ok()) << java_read.Describe();
  EXPECT_EQ(CanonicalRows(java_read.out), CanonicalRows(Rows(0, 15)));

  // Java writes into the table: its file takes the prefix too, and freshet reads every row.
  CommandResult java_write =
      RunCommand(JavaCommand({"write", "--table", table, "--input", dir.Sub("java.jsonl")}));
  ASSERT_TRUE(java_write.ok()) << java_write.Describe();
  files = DataFiles(table);
  ASSERT_EQ(files.size(), 3u);
  for (const std::string& name : files) EXPECT_EQ(name.rfind("part-", 0), 0u) << name;
  CommandResult ours = RunCommand({cli, "read", table, "--format", "jsonl"});
  ASSERT_TRUE(ours.ok()) << ours.Describe();
  EXPECT_EQ(CanonicalRows(ours.out), CanonicalRows(Rows(0, 15) + Rows(100, 104)));
}

}  // namespace
}  // namespace freshet::interop
