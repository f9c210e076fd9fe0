// freshet reads the metadata of tables that Java Paimon (and pypaimon) create and write: every
// snapshot, schema, manifest list and manifest, with data files exactly where freshet's
// partition-path algorithm says, and `freshet inspect --json` on each table.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

// Rows are generated per commit; each row reports its partition label, so that the live-record
// count of every snapshot can be predicted (an overwrite replaces the partitions it writes to).
struct WrittenTable {
  std::string name;
  std::string spec_json;
  std::string format;               // expected data file extension
  std::vector<int> commit_sizes;    // rows per commit
  std::set<int> overwrite_commits;  // commits written with --overwrite
  bool primary_key = false;         // live records = all records written (no compaction)
  std::function<std::string(int commit, int i, std::string* partition)> row;
};

std::vector<WrittenTable> JavaMatrix() {
  std::vector<WrittenTable> tables;
  auto pick = [](int i, std::vector<std::string> values) { return values[i % values.size()]; };

  // Parquet, partitioned by (dt, hr) with escaping and null partition values, bucket 4,
  // three appends and a dynamic-partition overwrite.
  tables.push_back(
      {"parquet_partitioned_bucket4",
       R"json({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "name", "type": "STRING"},
           {"name": "v", "type": "DOUBLE"}, {"name": "ts", "type": "TIMESTAMP(6)"},
           {"name": "dt", "type": "STRING"}, {"name": "hr", "type": "INT"}],
          "partitionKeys": ["dt", "hr"],
          "options": {"bucket": "4", "bucket-key": "id", "file.format": "parquet"}})json",
       "parquet",
       {20, 15, 10, 6},
       {3},
       false,
       [pick](int commit, int i, std::string* partition) {
         std::string dt = pick(i + commit, {"2024-01-01", "a b/c=d:e", "ünï"});
         std::string hr = commit == 3 ? "1" : pick(i, {"0", "1", "null"});
         *partition = dt + "|" + hr;
         return R"({"id": )" + std::to_string(commit * 1000 + i) + R"(, "name": "n)" +
                std::to_string(i) + R"(", "v": )" + std::to_string(i) + R"(.5, "ts": "2024-01-0)" +
                std::to_string(commit + 1) + R"( 10:00:00.00000)" + std::to_string(i % 10) +
                R"(", "dt": ")" + dt + R"(", "hr": )" + hr + "}";
       }});
  // ORC, unpartitioned, bucket -1 (unaware), two appends and an overwrite of the whole table.
  tables.push_back(
      {"orc_unaware",
       R"json({"fields": [{"name": "id", "type": "INT"}, {"name": "s", "type": "STRING"},
           {"name": "d", "type": "DECIMAL(20, 4)"}],
          "options": {"bucket": "-1", "file.format": "orc"}})json",
       "orc",
       {10, 12, 3},
       {2},
       false,
       [](int commit, int i, std::string* partition) {
         *partition = "";
         return R"({"id": )" + std::to_string(i) + R"(, "s": "row )" + std::to_string(commit) +
                "-" + std::to_string(i) + R"(", "d": ")" + std::to_string(i) + R"(.1234"})";
       }});
  // Parquet, partitioned by a DATE (legacy partition names are day numbers), bucket 1.
  tables.push_back({"parquet_date_partition_bucket1",
                    R"json({"fields": [{"name": "id", "type": "INT"}, {"name": "d", "type": "DATE"},
           {"name": "ts", "type": "TIMESTAMP(3)"}, {"name": "v", "type": "STRING"}],
          "partitionKeys": ["d"],
          "options": {"bucket": "1", "bucket-key": "id", "file.format": "parquet"}})json",
                    "parquet",
                    {8, 5},
                    {},
                    false,
                    [pick](int commit, int i, std::string* partition) {
                      std::string d = pick(i, {"2024-01-01", "1969-12-31", "2000-02-29"});
                      *partition = d;
                      return R"({"id": )" + std::to_string(commit * 100 + i) + R"(, "d": ")" + d +
                             R"(", "ts": "2024-01-01 00:00:00.123", "v": "x"})";
                    }});
  // Parquet, partitioned by TIMESTAMP and BOOLEAN (LocalDateTime.toString names, ':' escaped),
  // bucket -1.
  tables.push_back(
      {"parquet_timestamp_partition_unaware",
       R"json({"fields": [{"name": "id", "type": "INT"}, {"name": "ts", "type": "TIMESTAMP(3)"},
           {"name": "flag", "type": "BOOLEAN"}, {"name": "v", "type": "STRING"}],
          "partitionKeys": ["ts", "flag"],
          "options": {"bucket": "-1", "file.format": "parquet"}})json",
       "parquet",
       {6, 4},
       {},
       false,
       [pick](int commit, int i, std::string* partition) {
         std::string ts = pick(
             i, {"2024-01-01 10:00:00.000", "2024-01-01 10:00:05.120", "1999-12-31 23:59:59.999"});
         std::string flag = pick(i / 3, {"true", "false"});
         *partition = ts + "|" + flag;
         return R"({"id": )" + std::to_string(i) + R"(, "ts": ")" + ts + R"(", "flag": )" + flag +
                R"(, "v": "v"})";
       }});
  // ORC primary-key table, partitioned, bucket 2; the second write deletes, updates and inserts.
  tables.push_back(
      {"orc_primary_key_bucket2",
       R"json({"fields": [{"name": "dt", "type": "STRING"}, {"name": "id", "type": "INT"},
           {"name": "v", "type": "STRING"}],
          "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"],
          "options": {"bucket": "2", "file.format": "orc"}})json",
       "orc",
       {10, 7},
       {},
       true,
       [](int commit, int i, std::string* partition) {
         std::string dt = i % 2 == 0 ? "2024-01-01" : "2024-01-02";
         *partition = dt;
         std::string kind;
         int id = i;
         if (commit == 1) {
           if (i < 3) kind = R"("_kind": "-D", )";  // deletes keys 0..2
           if (i >= 5) id = 100 + i;                // new keys; 3..4 are updates
         }
         return "{" + kind + R"("dt": ")" + dt + R"(", "id": )" + std::to_string(id) +
                R"(, "v": "c)" + std::to_string(commit) + "\"}";
       }});
  return tables;
}

// pypaimon: Parquet, partitioned, bucket 2 with a bucket key, two appends and an overwrite.
WrittenTable PypaimonTable() {
  return {"pypaimon_partitioned_bucket2",
          R"json({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "s", "type": "STRING"},
              {"name": "ts", "type": "TIMESTAMP(6)"}, {"name": "dt", "type": "STRING"}],
             "partitionKeys": ["dt"],
             "options": {"bucket": "2", "bucket-key": "id", "file.format": "parquet"}})json",
          "parquet",
          {9, 6, 2},
          {2},
          false,
          [](int commit, int i, std::string* partition) {
            std::string dt = i % 3 == 0 ? "2024-01-01" : (i % 3 == 1 ? "x y/z" : "2024-01-03");
            if (commit == 2) dt = "2024-01-01";
            *partition = dt;
            return R"({"id": )" + std::to_string(commit * 100 + i) + R"(, "s": "s)" +
                   std::to_string(i) + R"(", "ts": "2024-01-01 00:00:00.000001", "dt": ")" + dt +
                   "\"}";
          }};
}

// Writes each table through the harness (one chain of JVM / Python runs per table), then checks
// every table with freshet's readers and its CLI.
void WriteAndCheck(const std::vector<WrittenTable>& tables, bool java) {
  freshet::testing::TempDir tmp;
  std::vector<Chain> chains;
  std::vector<TableExpectation> expectations;
  std::vector<std::string> paths;
  for (const auto& t : tables) {
    std::string path = tmp.Sub("wh/interop.db/" + t.name);
    std::string spec_path = tmp.Sub(t.name + ".schema.json");
    WriteTextFile(spec_path, t.spec_json);
    auto cmd = [&](std::vector<std::string> args) {
      return java ? JavaCommand(std::move(args)) : PythonCommand(std::move(args));
    };
    Chain chain = {cmd({"create", "--table", path, "--schema", spec_path})};
    TableExpectation expected;
    expected.file_format = t.format;
    expected.schema_bytes_identical = java;
    std::map<std::string, int64_t> live_by_partition;
    int64_t written = 0;
    for (int k = 0; k < static_cast<int>(t.commit_sizes.size()); ++k) {
      std::string rows;
      std::map<std::string, int64_t> commit_rows;
      for (int i = 0; i < t.commit_sizes[k]; ++i) {
        std::string partition;
        rows += t.row(k, i, &partition) + "\n";
        ++commit_rows[partition];
      }
      std::string input = tmp.Sub(t.name + ".commit" + std::to_string(k) + ".jsonl");
      WriteTextFile(input, rows);
      std::vector<std::string> args = {"write", "--table", path, "--input", input};
      bool overwrite = t.overwrite_commits.count(k) > 0;
      if (overwrite) args.push_back("--overwrite");
      chain.push_back(cmd(args));
      // Dynamic partition overwrite: the partitions written to are replaced.
      for (const auto& [partition, n] : commit_rows) {
        if (overwrite) live_by_partition[partition] = 0;
      }
      for (const auto& [partition, n] : commit_rows) live_by_partition[partition] += n;
      written += t.commit_sizes[k];
      int64_t live = 0;
      for (const auto& [partition, n] : live_by_partition) live += n;
      expected.live_records[k + 1] = t.primary_key ? written : live;
    }
    expected.num_snapshots = static_cast<int64_t>(t.commit_sizes.size());
    chains.push_back(chain);
    expectations.push_back(expected);
    paths.push_back(path);
  }
  auto results = RunChains(chains);
  ASSERT_EQ(FirstFailure(results), "");
  for (size_t i = 0; i < tables.size(); ++i) {
    SCOPED_TRACE(tables[i].name);
    auto problems = CheckTableWithFreshet(paths[i], expectations[i]);
    EXPECT_TRUE(problems.empty()) << ListProblems(problems);
    auto cli_problems = CheckInspectCli(paths[i]);
    EXPECT_TRUE(cli_problems.empty()) << ListProblems(cli_problems);
  }
}

TEST(JavaCreatedTablesInteropTest, FreshetReadsEverySnapshotOfJavaWrittenMatrix) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  WriteAndCheck(JavaMatrix(), /*java=*/true);
}

TEST(JavaCreatedTablesInteropTest, FreshetReadsEverySnapshotOfPypaimonWrittenTable) {
  ASSERT_EQ(PythonHarnessProblem(), "");
  WriteAndCheck({PypaimonTable()}, /*java=*/false);
}

}  // namespace
}  // namespace freshet::interop
