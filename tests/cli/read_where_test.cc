// `freshet read --where EXPR` end to end on a Java-written table.
#include <gtest/gtest.h>

#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::GoldenDir;
using freshet::testing::RunProcess;

std::string EmptyPartitionTable() {
  return GoldenDir() + "/parquet/append_with_empty_partition.db/append_with_empty_partition";
}

TEST(ReadWhereTest, FiltersRowsEvenWhenTheColumnIsNotSelected) {
  FRESHET_REQUIRE_GOLDEN();
  auto run = RunProcess({FRESHET_CLI_PATH, "read", EmptyPartitionTable(), "--where",
                         "f0 = '2024' AND f1 > 100", "--select", "f1,f2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "{\"f1\": 300, \"f2\": 1}\n");

  auto nulls = RunProcess({FRESHET_CLI_PATH, "read", EmptyPartitionTable(), "--where",
                           "f0 IS NULL AND NOT (f1 IN (50, 200))", "--format", "csv"});
  ASSERT_EQ(nulls.exit_code, 0) << nulls.err;
  EXPECT_EQ(nulls.out, "f0,f1,f2,f3\n,100,2,16.1\n");
}

TEST(ReadWhereTest, ABadExpressionIsOneClearError) {
  FRESHET_REQUIRE_GOLDEN();
  auto run = RunProcess({FRESHET_CLI_PATH, "read", EmptyPartitionTable(), "--where", "f1 >"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("filter: at position 5: expected a literal"), std::string::npos)
      << run.err;
  auto typed = RunProcess({FRESHET_CLI_PATH, "read", EmptyPartitionTable(), "--where", "f1 = 'x'"});
  EXPECT_NE(typed.exit_code, 0);
  EXPECT_NE(typed.err.find("column 'f1' is INT; 'x' is not an integer"), std::string::npos)
      << typed.err;
}

}  // namespace
}  // namespace freshet
