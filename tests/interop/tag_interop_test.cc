// Tags both ways: Java Paimon lists and reads (scan.tag-name) the tags freshet created, after
// their snapshots expired and the files left the live set; freshet lists and reads the tags Java
// created, with and without a retention time, and each engine deletes the other's tags.
#include <gtest/gtest.h>

#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

std::string Rows(int from, int to) {
  std::string out;
  for (int id = from; id < to; ++id) out += R"({"id": )" + std::to_string(id) + "}\n";
  return out;
}

// A table where each commit expires the snapshots before it, with three commits: 0..4 (tagged
// "first"), then an overwrite with 10..14 (tagged "second", retained 2 h, when `tag_second`),
// then 20..24 appended.
void WriteThreeCommits(const freshet::testing::TempDir& dir, const std::string& format,
                       const std::string& table, bool tag_second, Chain* chain) {
  WriteTextFile(dir.Sub("schema.json"), R"({"fields": [{"name": "id", "type": "BIGINT"}],
      "options": {"file.format": ")" + format +
                                            R"(", "snapshot.num-retained.min": "1",
      "snapshot.time-retained": "0 ms"}})");
  const std::string cli = FreshetCliPath();
  chain->push_back({cli, "create", table, "--schema", dir.Sub("schema.json")});
  for (int i = 0; i < 3; ++i) {
    const std::string input = dir.Sub("in-" + std::to_string(i) + ".jsonl");
    WriteTextFile(input, Rows(i * 10, i * 10 + 5));
    chain->push_back({cli, "write", table, "--input", input});
    if (i == 1) chain->back().push_back("--overwrite");
    if (i == 0) chain->push_back({cli, "tag", "create", table, "first"});
    if (i == 1 && tag_second) {
      chain->push_back({cli, "tag", "create", table, "second", "--time-retained", "2 h"});
    }
  }
}

TEST(TagInteropTest, JavaReadsFreshetsTagsAfterTheirSnapshotsExpired) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  for (const std::string format : {"parquet", "orc"}) {
    freshet::testing::TempDir dir;
    const std::string table = dir.Sub("t");
    Chain chain;
    WriteThreeCommits(dir, format, table, /*tag_second=*/true, &chain);
    const std::string cli = FreshetCliPath();
    ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");

    auto snapshots = RunCommand(JavaCommand({"snapshots", "--table", table}));
    ASSERT_TRUE(snapshots.ok()) << snapshots.Describe();
    EXPECT_EQ(SplitLines(snapshots.out), std::vector<std::string>{"3 APPEND"}) << format;

    auto tags = RunCommand(JavaCommand({"tag", "--table", table, "--list"}));
    ASSERT_TRUE(tags.ok()) << tags.Describe();
    EXPECT_EQ(SplitLines(tags.out), (std::vector<std::string>{"first 1", "second 2"}));
    for (const auto& [tag, rows] : std::vector<std::pair<std::string, std::string>>{
             {"first", Rows(0, 5)}, {"second", Rows(10, 15)}}) {
      auto java = RunCommand(JavaCommand({"read", "--table", table, "--tag", tag}));
      ASSERT_TRUE(java.ok()) << java.Describe();
      EXPECT_EQ(CanonicalRows(java.out), CanonicalRows(rows)) << format << " " << tag;
      auto ours = RunCommand({cli, "read", table, "--tag", tag});
      ASSERT_TRUE(ours.ok()) << ours.Describe();
      EXPECT_EQ(CanonicalRows(ours.out), CanonicalRows(rows)) << format << " " << tag;
    }
    // Java deletes a tag freshet made: freshet no longer lists it.
    ASSERT_TRUE(RunCommand(JavaCommand({"tag", "--table", table, "--delete", "second"})).ok());
    ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
    ASSERT_OK_AND_ASSIGN(auto listed, opened->Tags());
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].name, "first");
  }
}

TEST(TagInteropTest, FreshetReadsJavasTagsWithAndWithoutRetention) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("t");
  Chain chain;
  WriteThreeCommits(dir, "parquet", table, /*tag_second=*/false, &chain);
  ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");
  // Snapshot 3 is the only one left; Java tags it twice, once with a retention time.
  Chain java = {JavaCommand({"tag", "--table", table, "--create", "plain"}),
                JavaCommand({"tag", "--table", table, "--create", "kept", "--snapshot", "3",
                             "--time-retained", "1 d"}),
                JavaCommand({"tag", "--table", table, "--create", "old", "--snapshot", "1"})};
  ASSERT_EQ(FirstFailure(RunChains({java}, 1)), "");

  ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
  ASSERT_OK_AND_ASSIGN(auto tags, opened->Tags());
  ASSERT_EQ(tags.size(), 4u);
  EXPECT_EQ(tags[0].name, "first");
  EXPECT_EQ(tags[1].name, "old");  // Java found expired snapshot 1 through freshet's tag
  EXPECT_EQ(tags[1].snapshot.id, 1);
  EXPECT_EQ(tags[2].name, "kept");
  EXPECT_EQ(tags[2].snapshot.id, 3);
  ASSERT_TRUE(tags[2].time_retained.has_value());
  EXPECT_EQ(std::stod(*tags[2].time_retained), 86400.0) << *tags[2].time_retained;
  ASSERT_TRUE(tags[2].create_time.has_value());
  EXPECT_EQ(tags[2].create_time->front(), '[') << *tags[2].create_time;
  EXPECT_EQ(tags[3].name, "plain");
  EXPECT_FALSE(tags[3].time_retained.has_value());

  const std::string cli = FreshetCliPath();
  for (const auto& [tag, rows] : std::vector<std::pair<std::string, std::string>>{
           {"old", Rows(0, 5)}, {"kept", Rows(10, 15) + Rows(20, 25)}}) {
    auto ours = RunCommand({cli, "read", table, "--tag", tag});
    ASSERT_TRUE(ours.ok()) << ours.Describe();
    EXPECT_EQ(CanonicalRows(ours.out), CanonicalRows(rows)) << tag;
  }
  // freshet deletes a tag Java made: Java no longer lists it.
  ASSERT_TRUE(RunCommand({cli, "tag", "delete", table, "kept"}).ok());
  auto listed = RunCommand(JavaCommand({"tag", "--table", table, "--list"}));
  ASSERT_TRUE(listed.ok()) << listed.Describe();
  EXPECT_EQ(SplitLines(listed.out), (std::vector<std::string>{"first 1", "old 1", "plain 3"}));
}

}  // namespace
}  // namespace freshet::interop
