#include <gtest/gtest.h>

#include <filesystem>

#include "common/json.h"
#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using freshet::testing::GoldenDir;
using freshet::testing::RunProcess;

// inspect --json on every Java-written table; every data file it lists must sit exactly where
// Java's partition-path algorithm puts it, which checks partition naming against real tables.
TEST(InspectTest, EveryGoldenTableAndItsFileLocations) {
  int files = 0;
  for (const auto& table : freshet::testing::GoldenTableDirs()) {
    SCOPED_TRACE(table);
    auto run = RunProcess({FRESHET_CLI_PATH, "inspect", table, "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto report = ParseJson(run.out, "inspect output");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    const Json& r = *report;
    ASSERT_FALSE(r["schema"]["fields"].empty());
    ASSERT_FALSE(r["snapshots"].empty());
    for (const auto& snapshot : r["snapshots"]) {
      int64_t rows = 0;
      for (const auto& f : snapshot["files"]) {
        std::string partition = f["partition"].get<std::string>();
        std::string path = table + "/" + (partition.empty() ? "" : partition + "/") + "bucket-" +
                           std::to_string(f["bucket"].get<int>()) + "/" +
                           f["fileName"].get<std::string>();
        EXPECT_TRUE(fs::exists(path)) << path;
        rows += f["rowCount"].get<int64_t>();
        ++files;
      }
      EXPECT_EQ(rows, snapshot["totalRecordCount"].get<int64_t>());
    }
  }
  EXPECT_GT(files, 60);
}

TEST(InspectTest, TextOutputNamesSnapshotsAndFiles) {
  auto run =
      RunProcess({FRESHET_CLI_PATH, "inspect", GoldenDir() + "/parquet/append_09.db/append_09"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Snapshots: 5"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("#5 COMPACT"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("f1=20"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("bucket-key = f2"), std::string::npos) << run.out;
}

TEST(InspectTest, ErrorsAreOneClearLine) {
  auto missing = RunProcess({FRESHET_CLI_PATH, "inspect", "/no/such/table"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("'/no/such/table' is not a Paimon table"), std::string::npos)
      << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
  auto bad_snapshot =
      RunProcess({FRESHET_CLI_PATH, "inspect", GoldenDir() + "/parquet/append_09.db/append_09",
                  "--snapshot", "42"});
  EXPECT_NE(bad_snapshot.exit_code, 0);
  EXPECT_NE(bad_snapshot.err.find("snapshot 42"), std::string::npos) << bad_snapshot.err;
  auto bad_option = RunProcess({FRESHET_CLI_PATH, "inspect", "x", "--frobnicate"});
  EXPECT_NE(bad_option.exit_code, 0);
  EXPECT_NE(bad_option.err.find("unknown option --frobnicate"), std::string::npos);
}

}  // namespace
}  // namespace freshet
