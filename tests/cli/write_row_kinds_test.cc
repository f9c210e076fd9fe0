// `freshet write` with row kinds: a `_ROW_KIND` key (JSON lines) or header column (CSV) of
// +I, -U, +U or -D upserts and deletes rows of a primary-key table; append tables take +I and +U
// only, as Java Paimon's append writer does. Also `freshet create --primary-key` with buckets.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "freshet/table.h"

namespace freshet {
namespace {

using cli_testing::ProcessResult;
using cli_testing::RunCli;
using cli_testing::TempDir;

constexpr const char* kSchema = R"json({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
  {"name": "name", "type": "STRING"}, {"name": "v", "type": "INT"}]})json";

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.insert(entry.path().string());
  }
  return files;
}

// The lines of `text`, sorted (a primary-key table reads bucket by bucket).
std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

class WriteRowKindsTest : public ::testing::Test {
 protected:
  // A table of kSchema; `extra` adds create arguments (--primary-key, --option...).
  std::string Create(const std::string& name, std::vector<std::string> extra) {
    std::string path = dir_.Sub("db.db/" + name);
    std::vector<std::string> argv = {"create", path, "--schema", kSchema};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ProcessResult run = RunCli(argv);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return path;
  }

  std::string CreatePk(const std::string& name) {
    return Create(name, {"--primary-key", "id", "--option", "bucket=2"});
  }

  ProcessResult Write(const std::string& table, const std::string& input,
                      std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {"write", table, "--input", input};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCli(argv);
  }

  std::vector<std::string> Read(const std::string& table) {
    ProcessResult run = RunCli({"read", table});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return SortedLines(run.out);
  }

  TempDir dir_;
};

const std::vector<std::string> kAfterChanges = {
    R"({"id": 1, "name": "one v2", "v": 11})",
    R"({"id": 3, "name": "three", "v": 30})",
    R"({"id": 4, "name": "four", "v": 40})",
};

TEST_F(WriteRowKindsTest, JsonUpsertsAndDeletes) {
  std::string table = CreatePk("t");
  WriteFile(dir_.Sub("first.jsonl"), R"({"id": 1, "name": "one", "v": 10}
{"_ROW_KIND": "+I", "id": 2, "name": "two", "v": 20}
{"id": 3, "name": "three", "v": 30}
)");
  ProcessResult run = Write(table, dir_.Sub("first.jsonl"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "wrote 3 rows in 1 commit(s); latest snapshot 1\n");

  // An update as -U/+U, a delete by key alone, a new row without a kind; chunks of two lines.
  WriteFile(dir_.Sub("second.jsonl"), R"({"_ROW_KIND": "-U", "id": 1, "name": "one", "v": 10}
{"_ROW_KIND": "+U", "id": 1, "name": "one v2", "v": 11}
{"id": 2, "_ROW_KIND": "-D"}
{"id": 4, "name": "four", "v": 40}
)");
  run = Write(table, dir_.Sub("second.jsonl"), {"--batch-rows", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "wrote 4 rows in 1 commit(s); latest snapshot 2\n");
  EXPECT_EQ(Read(table), kAfterChanges);

  // "_kind", the interop harnesses' key, works too; an upsert is a plain +I of the same key.
  WriteFile(dir_.Sub("third.jsonl"), R"({"_kind": "-D", "id": 3}
{"id": 4, "name": "four v2", "v": 41}
)");
  run = Write(table, dir_.Sub("third.jsonl"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Read(table), (std::vector<std::string>{R"({"id": 1, "name": "one v2", "v": 11})",
                                                   R"({"id": 4, "name": "four v2", "v": 41})"}));
}

TEST_F(WriteRowKindsTest, CsvUpsertsAndDeletes) {
  std::string table = CreatePk("t");
  WriteFile(dir_.Sub("first.csv"), "id,name,v\n1,one,10\n2,two,20\n3,three,30\n");
  ProcessResult run = Write(table, dir_.Sub("first.csv"));
  ASSERT_EQ(run.exit_code, 0) << run.err;

  // `_ROW_KIND` anywhere in the header; an empty field is +I.
  WriteFile(dir_.Sub("second.csv"),
            "id,_ROW_KIND,name,v\r\n1,-U,one,10\r\n1,+U,one v2,11\r\n2,-D,,\r\n4,,four,40\r\n");
  run = Write(table, dir_.Sub("second.csv"), {"--batch-rows", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "wrote 4 rows in 1 commit(s); latest snapshot 2\n");
  EXPECT_EQ(Read(table), kAfterChanges);

  // From standard input, with every row of a chunk a delete.
  run = RunCli({"write", table, "--input", "-", "--input-format", "csv"},
               "_ROW_KIND,id\n-D,1\n-D,4\n-D,99\n");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Read(table), (std::vector<std::string>{R"({"id": 3, "name": "three", "v": 30})"}));
}

TEST_F(WriteRowKindsTest, ABadKindIsAnErrorAndCommitsNothing) {
  std::string table = CreatePk("t");
  ASSERT_EQ(
      RunCli({"write", table, "--input", "-"}, R"({"id": 1, "name": "one", "v": 10})").exit_code,
      0);
  std::set<std::string> before = FilesUnder(table);
  struct Case {
    std::string file;
    std::string text;
    std::string error;  // after "<file>"
  };
  std::vector<Case> cases = {
      {"bad.jsonl",
       "{\"id\": 2}\n{\"_ROW_KIND\": \"-D\", \"id\": 1}\n{\"id\": 3, \"_ROW_KIND\": \"D\"}\n",
       R"(:3: "_ROW_KIND" must be one of "+I", "-U", "+U", "-D", got "D")"},
      {"bad.jsonl", "{\"_ROW_KIND\": 3, \"id\": 1}\n",
       R"(:1: "_ROW_KIND" must be one of "+I", "-U", "+U", "-D", got 3)"},
      {"bad.jsonl", "{\"_ROW_KIND\": \"-D\", \"_kind\": \"-D\", \"id\": 1}\n",
       R"(:1: both "_ROW_KIND" and "_kind" give the row kind: use one)"},
      {"bad.csv", "id,_ROW_KIND\n2,+I\n1,-D\n3,+X\n",
       R"(:4: "_ROW_KIND" must be one of "+I", "-U", "+U", "-D", got "+X")"},
      {"bad.csv", "id,_ROW_KIND,_ROW_KIND\n1,-D,-D\n", ":1: column '_ROW_KIND' appears twice"},
  };
  for (const auto& c : cases) {
    WriteFile(dir_.Sub(c.file), c.text);
    // One row per chunk: the rows before the bad one were written, and must not land.
    ProcessResult run = Write(table, dir_.Sub(c.file), {"--batch-rows", "1"});
    EXPECT_NE(run.exit_code, 0) << c.text;
    std::string prefix = "freshet write: Invalid: " + dir_.Sub(c.file) + c.error;
    EXPECT_EQ(run.err.substr(0, prefix.size()), prefix) << run.err;
    EXPECT_EQ(run.out, "");
  }
  EXPECT_EQ(FilesUnder(table), before);  // no snapshot, no manifest, no data file left
  EXPECT_EQ(Read(table), (std::vector<std::string>{R"({"id": 1, "name": "one", "v": 10})"}));
}

TEST_F(WriteRowKindsTest, AppendTablesTakeOnlyInsertsAndUpdateAfters) {
  // As Java's append writer: +I and +U are plain rows, -U and -D an error...
  std::string table = Create("append", {});
  ProcessResult run = RunCli({"write", table, "--input", "-"},
                             "{\"id\": 1, \"_ROW_KIND\": \"+I\"}\n{\"id\": 2, \"_ROW_KIND\": "
                             "\"+U\"}\n{\"id\": 3}\n");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::string> before = FilesUnder(table);
  run = RunCli({"write", table, "--input", "-", "--input-format", "csv"},
               "id,_ROW_KIND\n4,+I\n\n1,-D\n");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.err,
            "freshet write: Invalid: <stdin>:4: _ROW_KIND -D: the table has no primary key, and "
            "an append table takes only +I and +U rows (-U and -D need a primary key, or "
            "ignore-delete = true to drop them)\n");
  EXPECT_EQ(FilesUnder(table), before);
  EXPECT_EQ(Read(table), (std::vector<std::string>{R"({"id": 1, "name": null, "v": null})",
                                                   R"({"id": 2, "name": null, "v": null})",
                                                   R"({"id": 3, "name": null, "v": null})"}));

  // ... unless ignore-delete drops them.
  std::string ignoring = Create("ignoring", {"--option", "ignore-delete=true"});
  run = RunCli({"write", ignoring, "--input", "-"},
               "{\"id\": 1, \"_ROW_KIND\": \"-D\"}\n{\"id\": 2}\n{\"id\": 3, \"_ROW_KIND\": "
               "\"-U\"}\n{\"id\": 4, \"_ROW_KIND\": \"+U\"}\n{\"id\": 5, \"_ROW_KIND\": \"-D\"}\n");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "wrote 2 rows in 1 commit(s); latest snapshot 1\n");
  EXPECT_EQ(Read(ignoring), (std::vector<std::string>{R"({"id": 2, "name": null, "v": null})",
                                                      R"({"id": 4, "name": null, "v": null})"}));
}

TEST_F(WriteRowKindsTest, CreatePrimaryKeyWithBuckets) {
  std::string table = Create("t", {"--primary-key", "id", "--option", "bucket=3"});
  auto opened = Table::Open(table);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SchemaInfo schema = (*opened)->Schema();
  EXPECT_EQ(schema.primary_keys, std::vector<std::string>{"id"});
  EXPECT_NE(std::find(schema.options.begin(), schema.options.end(),
                      std::pair<std::string, std::string>{"bucket", "3"}),
            schema.options.end());
  EXPECT_EQ(schema.fields.at(0).type, "BIGINT NOT NULL");

  std::string rows;
  for (int id = 0; id < 30; ++id) rows += "{\"id\": " + std::to_string(id) + ", \"v\": 1}\n";
  ASSERT_EQ(RunCli({"write", table, "--input", "-"}, rows).exit_code, 0);
  std::string upserts;  // of the even ids
  for (int id = 0; id < 30; id += 2) {
    upserts += "{\"id\": " + std::to_string(id) + ", \"v\": 2}\n";
  }
  ASSERT_EQ(RunCli({"write", table, "--input", "-"}, upserts).exit_code, 0);
  // The rows spread over the three buckets; each id once, the even ones with v = 2.
  for (int bucket = 0; bucket < 3; ++bucket) {
    EXPECT_TRUE(std::filesystem::exists(table + "/bucket-" + std::to_string(bucket))) << bucket;
  }
  std::vector<std::string> expected;
  for (int id = 0; id < 30; ++id) {
    expected.push_back("{\"id\": " + std::to_string(id) +
                       ", \"name\": null, \"v\": " + (id % 2 == 0 ? "2" : "1") + "}");
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Read(table), expected);

  // A primary key that is no column is refused, and no table is made.
  ProcessResult run = RunCli({"create", dir_.Sub("db.db/bad"), "--schema", kSchema, "--primary-key",
                              "nope", "--option", "bucket=2"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("nope"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("db.db/bad/schema")));
}

}  // namespace
}  // namespace freshet
