// Tags both ways: Java Paimon lists and reads (scan.tag-name) the tags freshet created, after
// their snapshots expired and the files left the live set; freshet lists and reads the tags Java
// created, with and without a retention time, and each engine deletes the other's tags.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

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

// A retention time recorded by either engine expires the tag at the other engine's next commit
// (Java's TagTimeExpire runs in its commit; freshet's commits do the same).
TEST(TagInteropTest, RetentionTimesExpireTagsAtEitherEnginesCommits) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("t");
  const std::string cli = FreshetCliPath();
  WriteTextFile(dir.Sub("schema.json"), R"({"fields": [{"name": "id", "type": "BIGINT"}]})");
  WriteTextFile(dir.Sub("in.jsonl"), Rows(0, 3));
  Chain chain = {
      {cli, "create", table, "--schema", dir.Sub("schema.json")},
      {cli, "write", table, "--input", dir.Sub("in.jsonl")},
      {cli, "tag", "create", table, "ours-brief", "--time-retained", "1 ms"},
      {cli, "tag", "create", table, "ours-kept", "--time-retained", "1 d"},
      JavaCommand({"tag", "--table", table, "--create", "java-brief", "--time-retained", "1 ms"})};
  ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");
  // Java's commit expires both brief tags.
  ASSERT_TRUE(
      RunCommand(JavaCommand({"write", "--table", table, "--input", dir.Sub("in.jsonl")})).ok());
  auto listed = RunCommand(JavaCommand({"tag", "--table", table, "--list"}));
  ASSERT_TRUE(listed.ok()) << listed.Describe();
  EXPECT_EQ(SplitLines(listed.out), std::vector<std::string>{"ours-kept 1"});
  // And freshet's commit expires a brief tag Java made.
  ASSERT_TRUE(RunCommand(JavaCommand({"tag", "--table", table, "--create", "java-brief-2",
                                      "--time-retained", "1 ms"}))
                  .ok());
  ASSERT_TRUE(RunCommand({cli, "write", table, "--input", dir.Sub("in.jsonl")}).ok());
  ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
  ASSERT_OK_AND_ASSIGN(auto tags, opened->Tags());
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0].name, "ours-kept");
}

// freshet's rows of a read with kinds, with the kind under Java's harness key.
std::vector<std::string> KindedAsJava(const std::string& freshet_jsonl) {
  std::string text = freshet_jsonl;
  const std::string from = "\"_ROW_KIND\"";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), "\"_kind\"");
  }
  return CanonicalRows(text);
}

// Incremental diffs between tags (Java's default for two tags): random upserts and deletes into a
// primary-key table and an append table, compacted in between; Java's and freshet's diffs of
// every pair of tags agree row for row, kinds included.
TEST(TagInteropTest, IncrementalDiffsBetweenTagsMatchJava) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  const uint64_t seed = SeedFromEnv();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 random(seed);
  for (const bool primary_key : {true, false}) {
    freshet::testing::TempDir dir;
    const std::string table = dir.Sub("t");
    const std::string cli = FreshetCliPath();
    WriteTextFile(dir.Sub("schema.json"),
                  std::string(R"({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
        {"name": "v", "type": "BIGINT"}, {"name": "s", "type": "STRING"}], )") +
                      (primary_key ? R"("primaryKeys": ["id"], )" : "") +
                      R"("options": {"bucket": "2", "bucket-key": "id", "write-only": "true"}})");
    Chain chain = {{cli, "create", table, "--schema", dir.Sub("schema.json")}};
    for (int round = 1; round <= 4; ++round) {
      std::string rows;
      for (int i = 0; i < 40; ++i) {
        const int64_t id = static_cast<int64_t>(random() % 30);
        const int64_t v = static_cast<int64_t>(random() % 4);  // repeats: unchanged rows
        const bool remove = primary_key && random() % 5 == 0;
        rows +=
            std::string("{") +
            (primary_key ? (remove ? R"("_ROW_KIND": "-D", )" : R"("_ROW_KIND": "+U", )") : "") +
            R"("id": )" + std::to_string(id) + R"(, "v": )" + std::to_string(v) + R"(, "s": "s)" +
            std::to_string(v) + "\"}\n";
      }
      const std::string input = dir.Sub("in-" + std::to_string(round) + ".jsonl");
      WriteTextFile(input, rows);
      chain.push_back({cli, "write", table, "--input", input});
      if (round == 2 && primary_key) chain.push_back({cli, "compact", table, "--full"});
      if (round != 2) {
        chain.push_back({cli, "tag", "create", table, "r" + std::to_string(round)});
      }
    }
    ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");
    for (const std::string range : {"r1,r4", "r1,r3", "r3,r4", "r4,r4"}) {
      auto java =
          RunCommand(JavaCommand({"read", "--table", table, "--incremental-between", range}));
      ASSERT_TRUE(java.ok()) << java.Describe();
      auto ours =
          RunCommand({cli, "read", table, "--incremental-between", range, "--with-row-kind"});
      ASSERT_TRUE(ours.ok()) << ours.Describe();
      EXPECT_EQ(KindedAsJava(ours.out), CanonicalRows(java.out))
          << (primary_key ? "primary key " : "append ") << range << "\njava:\n"
          << java.out << "freshet:\n"
          << ours.out;
      if (range == "r1,r4") {
        EXPECT_FALSE(java.out.empty());
      }
    }
  }
}

// incremental-between-timestamp: Java and freshet resolve the same times to the same snapshots
// (start exclusive, before the first snapshot inclusive), as deltas and as diffs.
TEST(TagInteropTest, IncrementalBetweenTimestampsMatchJava) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  const std::string cli = FreshetCliPath();
  for (const std::string mode : {"auto", "diff"}) {
    freshet::testing::TempDir dir;
    const std::string table = dir.Sub("t");
    WriteTextFile(dir.Sub("schema.json"),
                  R"({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
        {"name": "v", "type": "BIGINT"}], "primaryKeys": ["id"], "options": {"bucket": "1",
        "incremental-between-scan-mode": ")" +
                      mode + R"("}})");
    Chain chain = {{cli, "create", table, "--schema", dir.Sub("schema.json")}};
    for (int commit = 0; commit < 4; ++commit) {
      const std::string input = dir.Sub("in-" + std::to_string(commit) + ".jsonl");
      std::string rows;
      for (int id = commit; id < commit + 3; ++id) {
        rows += R"({"id": )" + std::to_string(id) + R"(, "v": )" + std::to_string(commit) + "}\n";
      }
      WriteTextFile(input, rows);
      chain.push_back({cli, "write", table, "--input", input});
    }
    ASSERT_EQ(FirstFailure(RunChains({chain}, 1)), "");
    ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
    ASSERT_OK_AND_ASSIGN(auto snapshots, opened->Snapshots());
    ASSERT_EQ(snapshots.size(), 4u);
    auto time = [&](size_t i) { return snapshots[i].time_millis; };
    for (const auto& [start, end] : std::vector<std::pair<int64_t, int64_t>>{
             {time(0), time(2)}, {time(0) - 1, time(1)}, {time(1) + 1, time(3) + 1000}}) {
      const std::string range = std::to_string(start) + "," + std::to_string(end);
      auto java = RunCommand(
          JavaCommand({"read", "--table", table, "--incremental-between-timestamp", range}));
      ASSERT_TRUE(java.ok()) << java.Describe();
      auto ours = RunCommand(
          {cli, "read", table, "--incremental-between-timestamp", range, "--with-row-kind"});
      ASSERT_TRUE(ours.ok()) << ours.Describe();
      EXPECT_EQ(KindedAsJava(ours.out), CanonicalRows(java.out)) << mode << " " << range;
      EXPECT_FALSE(java.out.empty()) << mode << " " << range;
    }
  }
}

}  // namespace
}  // namespace freshet::interop
