// `freshet write` end to end: CSV input (docs/json-rows.md, "CSV input"), round trips with
// `freshet read`, errors, the progress line, and the refusal of tables with ORC manifests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::ProcessResult;
using freshet::testing::RunProcess;
using freshet::testing::TempDir;

constexpr const char* kSchema = R"json({"fields": [
  {"name": "id", "type": "BIGINT NOT NULL"},
  {"name": "b", "type": "BOOLEAN"},
  {"name": "t", "type": "TINYINT"},
  {"name": "s", "type": "SMALLINT"},
  {"name": "i", "type": "INT"},
  {"name": "f", "type": "FLOAT"},
  {"name": "d", "type": "DOUBLE"},
  {"name": "dec", "type": "DECIMAL(9, 2)"},
  {"name": "c", "type": "CHAR(3)"},
  {"name": "str", "type": "STRING"},
  {"name": "vc", "type": "VARCHAR(20)"},
  {"name": "bin", "type": "BINARY(2)"},
  {"name": "bytes", "type": "BYTES"},
  {"name": "day", "type": "DATE"},
  {"name": "tm", "type": "TIME(3)"},
  {"name": "ts3", "type": "TIMESTAMP(3)"},
  {"name": "ts6", "type": "TIMESTAMP(6)"},
  {"name": "ltz", "type": "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
  {"name": "arr", "type": {"type": "ARRAY", "element": "INT"}},
  {"name": "m", "type": {"type": "MAP", "key": "STRING", "value": "BIGINT"}},
  {"name": "r", "type": {"type": "ROW", "fields": [{"name": "x", "type": "INT"},
                                                   {"name": "y", "type": "STRING"}]}}]})json";

// The rows as `freshet read --format jsonl` prints them.
const std::string kJsonRows =
    R"({"id": 1, "b": true, "t": -128, "s": 32767, "i": -2147483648, "f": 1.5, "d": -0.0, "dec": "1234567.89", "c": "abc", "str": "say \"hi\", bye\nnext", "vc": "", "bin": "AAE=", "bytes": "", "day": "2024-02-29", "tm": "12:34:56.789", "ts3": "2024-01-01 10:00:05.120", "ts6": "1969-12-31 23:59:59.999999", "ltz": "2024-06-30 23:59:59.001Z", "arr": [1, null, 3], "m": [["a,b", 1], ["q\"", null]], "r": {"x": 1, "y": "p"}})"
    "\n"
    R"({"id": 2, "b": null, "t": null, "s": null, "i": null, "f": null, "d": null, "dec": null, "c": null, "str": null, "vc": null, "bin": null, "bytes": null, "day": null, "tm": null, "ts3": null, "ts6": null, "ltz": null, "arr": null, "m": null, "r": null})"
    "\n"
    R"({"id": 3, "b": false, "t": 127, "s": -32768, "i": 0, "f": "NaN", "d": "-Infinity", "dec": "-0.05", "c": "x", "str": "é中😀", "vc": "null", "bin": "//8=", "bytes": "SGVsbG8=", "day": "1970-01-01", "tm": "00:00:00.000", "ts3": "0001-01-01 00:00:00.000", "ts6": "2024-01-01 00:00:00.000001", "ltz": "1970-01-01 00:00:00.000Z", "arr": [], "m": [], "r": {"x": null, "y": null}})"
    "\n";

// The same rows as hand-written CSV: columns in another order, CRLF line ends, lenient forms.
const std::string kCsvRows =
    "str,id,b,t,s,i,f,d,dec,c,vc,bin,bytes,day,tm,ts3,ts6,ltz,arr,m,r\r\n"
    R"("say ""hi"", bye)"
    "\n"
    R"(next",1,true,-128,32767,-2147483648,1.5,-0.0,1234567.89,abc,"",AAE=,"",2024-02-29,12:34:56.789,2024-01-01 10:00:05.12,1969-12-31T23:59:59.999999,2024-06-30 23:59:59.001Z,"[1, null, 3]","[[""a,b"", 1], [""q\"""", null]]","{""x"": 1, ""y"": ""p""}")"
    "\r\n"
    ",2,,,,,,,,,,,,,,,,,,,\r\n"
    R"(é中😀,3,FALSE,127,-32768,0,NaN,-Infinity,-0.050,x,null,//8=,SGVsbG8=,1970-01-01,00:00,0001-01-01 00:00:00,2024-01-01 00:00:00.000001,1970-01-01T02:00:00+02:00,[],{},"[null, null]")"
    "\r\n";

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// The regular files under `dir` (an aborted write may leave an empty bucket directory).
std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.insert(entry.path().string());
  }
  return files;
}

class WriteCsvTest : public ::testing::Test {
 protected:
  std::string CreateTable(const std::string& name, std::vector<std::string> extra = {}) {
    std::string path = dir_.Sub("db.db/" + name);
    std::vector<std::string> argv = {FRESHET_CLI_PATH, "create", path, "--schema", kSchema};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ProcessResult run = RunProcess(argv);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return path;
  }

  ProcessResult Write(const std::string& table, std::vector<std::string> args,
                      const std::string& stdin_data = "") {
    std::vector<std::string> argv = {FRESHET_CLI_PATH, "write", table};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, stdin_data);
  }

  std::string Read(const std::string& table, const std::string& format = "jsonl") {
    ProcessResult run = RunProcess({FRESHET_CLI_PATH, "read", table, "--format", format});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.out;
  }

  TempDir dir_;
};

TEST_F(WriteCsvTest, CsvWritesTheSameRowsAsJsonLines) {
  std::string from_json = CreateTable("from_json");
  std::string from_csv = CreateTable("from_csv");
  WriteFile(dir_.Sub("rows.jsonl"), kJsonRows);
  WriteFile(dir_.Sub("rows.CSV"), kCsvRows);
  ProcessResult json = Write(from_json, {"--input", dir_.Sub("rows.jsonl")});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  // Small chunks: records (and a quoted field's line break) cross chunk boundaries.
  ProcessResult csv = Write(from_csv, {"--input", dir_.Sub("rows.CSV"), "--batch-rows", "2"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out, "wrote 3 rows in 1 commit(s); latest snapshot 1\n");
  EXPECT_EQ(csv.err, "");  // not a terminal: no progress line
  EXPECT_EQ(Read(from_json), kJsonRows);
  EXPECT_EQ(Read(from_csv), kJsonRows);
}

TEST_F(WriteCsvTest, ReadCsvOutputWritesBackTheSameRows) {
  std::string first = CreateTable("first");
  WriteFile(dir_.Sub("rows.jsonl"), kJsonRows);
  ASSERT_EQ(Write(first, {"--input", dir_.Sub("rows.jsonl")}).exit_code, 0);
  std::string csv = Read(first, "csv");
  WriteFile(dir_.Sub("out.csv"), csv);

  std::string second = CreateTable("second");
  ProcessResult run = Write(second, {"--input", dir_.Sub("out.csv")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Read(second), kJsonRows);
  EXPECT_EQ(Read(second, "csv"), csv);

  // Standard input needs --input-format csv.
  std::string third = CreateTable("third");
  run = Write(third, {"--input", "-", "--input-format", "csv", "--batch-rows", "1"}, csv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Read(third), kJsonRows);
}

TEST_F(WriteCsvTest, AnErrorIsOneLineAndCommitsNothing) {
  std::string table = CreateTable("t");
  std::set<std::string> before = FilesUnder(table);
  struct Case {
    std::string csv;
    std::string error;
  };
  std::vector<Case> cases = {
      {"id,i\n1,2\n2,abc\n", ":3: column 'i': expected an integer for INT, got \"abc\""},
      {"id,zz\n1,2\n", ":1: unknown column 'zz' in the header (the table's columns: id, b, t"},
      {"id,i,id\n1,2,3\n", ":1: column 'id' appears twice in the header"},
      {"id,i\n1,2\n2,3,4\n", ":3: 3 fields, but the header has 2"},
      {"id,str\n1,a\n2,\"open\n3,x\n",
       ":3: unterminated quoted field (the input ends inside quotes)"},
      {"i\n1\n", ":1: the header has no column 'id', which is NOT NULL"},
      {"", ": the input is empty; CSV needs a header line naming the columns"},
  };
  for (const auto& c : cases) {
    WriteFile(dir_.Sub("bad.csv"), c.csv);
    ProcessResult run = Write(table, {"--input", dir_.Sub("bad.csv"), "--batch-rows", "1"});
    EXPECT_NE(run.exit_code, 0) << c.csv;
    std::string prefix = "freshet write: Invalid: " + dir_.Sub("bad.csv") + c.error;
    EXPECT_EQ(run.err.substr(0, prefix.size()), prefix) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_EQ(run.out, "");
  }
  // JSON lines errors name the file and the line too, counted across chunks.
  WriteFile(dir_.Sub("bad.jsonl"), "{\"id\": 1}\n{\"id\": 2}\n\n{\"id\": \"x\"}\n");
  ProcessResult run = Write(table, {"--input", dir_.Sub("bad.jsonl"), "--batch-rows", "2"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.err, "freshet write: Invalid: " + dir_.Sub("bad.jsonl") +
                         ":4: column 'id': expected an integer for BIGINT, got \"x\"\n");
  EXPECT_EQ(FilesUnder(table), before);  // no snapshot, no manifest, no data file left
  EXPECT_FALSE(std::filesystem::exists(table + "/snapshot"));

  run = Write(table, {"--input", "-", "--input-format", "xml"});
  EXPECT_EQ(run.err, "freshet write: Invalid: --input-format must be jsonl or csv, not 'xml'\n");
}

// On a terminal the write shows one progress line, redrawn in place and erased at the end.
TEST_F(WriteCsvTest, ProgressLineOnlyOnATerminal) {
  if (std::system("script -qec true /dev/null >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "util-linux `script` is not available to run under a terminal";
  }
  std::string table = CreateTable("t");
  WriteFile(dir_.Sub("rows.csv"), kCsvRows);
  std::string command =
      std::string(FRESHET_CLI_PATH) + " write " + table + " --input " + dir_.Sub("rows.csv");
  ProcessResult run = RunProcess({"script", "-qec", command, "/dev/null"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  // "\rwriting: 3 rows[, N rows/s], 1234 B of 1234 B (100%)", erased by "\r" + erase-line.
  std::string bytes = std::to_string(kCsvRows.size());
  EXPECT_NE(run.out.find("\rwriting: 3 rows, "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(bytes + " B of " + bytes + " B (100%)\x1b[K\r\x1b[K"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("wrote 3 rows in 1 commit(s); latest snapshot 1"), std::string::npos);
}

TEST_F(WriteCsvTest, RefusesTablesWithOrcManifests) {
  std::string table = CreateTable("orc_manifests", {"--option", "manifest.format=orc"});
  std::set<std::string> before = FilesUnder(table);
  WriteFile(dir_.Sub("rows.jsonl"), kJsonRows);
  ProcessResult run = Write(table, {"--input", dir_.Sub("rows.jsonl")});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.err.rfind("freshet write: NotImplemented: table option manifest.format=orc: "
                          "freshet writes Avro manifests only",
                          0),
            0u)
      << run.err;
  EXPECT_EQ(FilesUnder(table), before);
}

}  // namespace
}  // namespace freshet
