// `freshet get`: point lookups by primary key, one JSON line per key (null for a missing key),
// with --select, --keys-file and clear errors for bad keys and append tables.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli/cli_test_util.h"

namespace freshet {
namespace {

using cli_testing::CreateTable;
using cli_testing::RunCli;
using cli_testing::TempDir;

constexpr const char* kSchema = R"json({"fields": [{"name": "dt", "type": "STRING"},
  {"name": "id", "type": "BIGINT"}, {"name": "name", "type": "STRING"}],
  "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"], "options": {"bucket": "2"}})json";

TEST(GetCommandTest, PrintsTheLiveRowOfEachKeyInOrder) {
  TempDir dir;
  const std::string table = dir.Sub("t");
  ASSERT_EQ(CreateTable(table, kSchema).exit_code, 0);
  auto written = RunCli({"write", table, "--input", "-"},
                        "{\"dt\": \"a\", \"id\": 1, \"name\": \"x\"}\n"
                        "{\"dt\": \"a\", \"id\": 2, \"name\": \"y\"}\n"
                        "{\"dt\": \"b\", \"id\": 1, \"name\": \"z\"}\n");
  ASSERT_EQ(written.exit_code, 0) << written.err;
  auto deleted = RunCli({"write", table, "--input", "-"},
                        "{\"dt\": \"a\", \"id\": 2, \"name\": \"y\", \"_ROW_KIND\": \"-D\"}\n"
                        "{\"dt\": \"b\", \"id\": 1, \"name\": \"w\", \"_ROW_KIND\": \"+U\"}\n");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;

  auto got = RunCli({"get", table, "--key", R"({"id": 1, "dt": "b"})", "--key",
                     R"({"dt": "a", "id": 2})", "--key", R"({"dt": "a", "id": 1})"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out,
            "{\"dt\": \"b\", \"id\": 1, \"name\": \"w\"}\nnull\n"
            "{\"dt\": \"a\", \"id\": 1, \"name\": \"x\"}\n");

  std::ofstream(dir.Sub("keys.jsonl"))
      << "{\"dt\": \"a\", \"id\": 1}\n{\"dt\": \"c\", \"id\": 9}\n";
  auto from_file = RunCli({"get", table, "--keys-file", dir.Sub("keys.jsonl"), "--select", "name"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(from_file.out, "{\"name\": \"x\"}\nnull\n");
}

TEST(GetCommandTest, BadKeysAndAppendTablesAreClearErrors) {
  TempDir dir;
  const std::string table = dir.Sub("t");
  ASSERT_EQ(CreateTable(table, kSchema).exit_code, 0);
  auto unknown = RunCli({"get", table, "--key", R"({"dt": "a", "idx": 1})"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown column 'idx'"), std::string::npos) << unknown.err;
  auto partial = RunCli({"get", table, "--key", R"({"dt": "a"})"});
  EXPECT_EQ(partial.exit_code, 1);
  EXPECT_NE(partial.err.find("'id'"), std::string::npos) << partial.err;
  auto none = RunCli({"get", table});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("--key"), std::string::npos) << none.err;
  const std::string append = dir.Sub("append");
  ASSERT_EQ(CreateTable(append).exit_code, 0);
  auto not_pk = RunCli({"get", append, "--key", R"({"id": 1})"});
  EXPECT_EQ(not_pk.exit_code, 1);
  EXPECT_NE(not_pk.err.find("no primary key"), std::string::npos) << not_pk.err;
}

}  // namespace
}  // namespace freshet
