// A table whose old snapshots freshet expired (after every commit, with tiny retention) is read
// row-exact by Java Paimon at its latest snapshot, and its remaining snapshots check clean.
#include <gtest/gtest.h>

#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

std::string Rows(int from, int to, const std::string& dt) {
  std::string out;
  for (int id = from; id < to; ++id) {
    out += R"({"id": )" + std::to_string(id) + R"(, "dt": ")" + dt + "\"}\n";
  }
  return out;
}

TEST(ExpirationInteropTest, JavaReadsLatestSnapshotOfExpiredTable) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  for (const std::string format : {"parquet", "orc"}) {
    freshet::testing::TempDir dir;
    std::string table = dir.Sub("t");
    WriteTextFile(
        dir.Sub("schema.json"),
        R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "dt", "type": "STRING"}],
                      "partitionKeys": ["dt"], "options": {"file.format": ")" +
            format + R"(", "snapshot.num-retained.min": "2",
                      "snapshot.num-retained.max": "3", "snapshot.time-retained": "0 ms"}})");
    std::string cli = FreshetCliPath();
    Chain chain = {{cli, "create", table, "--schema", dir.Sub("schema.json")}};
    std::string expected_a, expected_b;
    for (int i = 0; i < 6; ++i) {
      std::string dt = i % 2 ? "a" : "b";
      std::string rows = Rows(i * 10, i * 10 + 5, dt);
      std::string input = dir.Sub("in-" + std::to_string(i) + ".jsonl");
      WriteTextFile(input, rows);
      bool overwrite = i == 3;  // replaces partition "a"
      chain.push_back({cli, "write", table, "--input", input});
      if (overwrite) chain.back().push_back("--overwrite");
      std::string& expected = dt == "a" ? expected_a : expected_b;
      expected = overwrite ? rows : expected + rows;
    }
    ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");

    auto java = RunCommand(JavaCommand({"read", "--table", table}));
    ASSERT_TRUE(java.ok()) << java.Describe();
    EXPECT_EQ(CanonicalRows(java.out), CanonicalRows(expected_a + expected_b)) << format;
    auto snapshots = RunCommand(JavaCommand({"snapshots", "--table", table}));
    ASSERT_TRUE(snapshots.ok()) << snapshots.Describe();
    EXPECT_EQ(SplitLines(snapshots.out), (std::vector<std::string>{"5 APPEND", "6 APPEND"}));
    EXPECT_EQ(freshet::testing::ReadWholeFile(table + "/snapshot/EARLIEST"), "5");
    TableExpectation expectation;
    expectation.num_snapshots = 2;
    expectation.file_format = format;
    auto problems = CheckTableWithFreshet(table, expectation);
    EXPECT_TRUE(problems.empty()) << ListProblems(problems);
  }
}

}  // namespace
}  // namespace freshet::interop
