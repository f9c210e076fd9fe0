#include <gtest/gtest.h>

#include <filesystem>

#include "io/file_io.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot_manager.h"
#include "snapshot_test_util.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

namespace fs = std::filesystem;
using freshet::testing::GoldenDir;
using freshet::testing::ReadWholeFile;
using freshet::testing::TempDir;

std::vector<fs::path> GoldenSnapshotFiles() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(GoldenDir())) {
    if (entry.path().parent_path().filename() == "snapshot" &&
        ParseNumberedName(entry.path().filename().string(), "snapshot-")) {
      out.push_back(entry.path());
    }
  }
  return out;
}

// Found by the snapshot_json and schema_json fuzz targets: a number too large for a double
// ("1e400") made nlohmann's parser throw out_of_range from the error path, killing the process.
TEST(SnapshotTest, NumbersOutOfRangeAreCorruptionNotAnException) {
  for (const char* text : {R"({"version" : 1e400})", R"({"id" : -4e999, "schemaId" : 0})",
                           R"([11111111111e1111111111111111111111111113])"}) {
    auto snapshot = Snapshot::FromJson(text, "snapshot-1");
    EXPECT_TRUE(snapshot.status().IsCorruption()) << text << ": " << snapshot.status().ToString();
    auto schema = TableSchema::FromJson(text, "schema-0");
    EXPECT_FALSE(schema.ok()) << text;
  }
}

TEST(SnapshotTest, ParsesEveryGoldenSnapshot) {
  FRESHET_REQUIRE_GOLDEN();
  auto files = GoldenSnapshotFiles();
  ASSERT_GE(files.size(), 30u);
  for (const auto& file : files) {
    std::string text = ReadWholeFile(file.string());
    auto parsed = Snapshot::FromJson(text, file.string());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ("snapshot-" + std::to_string(parsed->id), file.filename().string());
    EXPECT_EQ(parsed->version, 3);
    EXPECT_FALSE(parsed->commit_user.empty());
    EXPECT_TRUE(parsed->total_record_count.has_value()) << file;
    // Re-serializing keeps every field we model.
    auto again = Snapshot::FromJson(parsed->ToJson(), "re-serialized");
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    Snapshot expected = *parsed;
    expected.log_offsets.reset();  // dropped on write, as Java 1.4+ does
    expected.changelog_manifest_list.reset();
    again->changelog_manifest_list.reset();
    EXPECT_EQ(*again, expected) << file;
  }
}

TEST(SnapshotTest, Java20SnapshotRoundTripsByteForByte) {
  FRESHET_REQUIRE_GOLDEN();
  std::string path = GoldenDir() + "/parquet/pk_btree_e2e.db/pk_btree_e2e/snapshot/snapshot-1";
  std::string text = ReadWholeFile(path);
  auto parsed = Snapshot::FromJson(text, path);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->uuid.value_or(""), "67d8f6d2-d970-4968-9e30-0065cad82aaa");
  EXPECT_EQ(parsed->commit_identifier, kBatchCommitIdentifier);
  EXPECT_EQ(parsed->ToJson(), text);
}

TEST(SnapshotTest, KeepsPropertiesAndIgnoresUnknownKeys) {
  std::string text =
      R"({"version":3,"id":4,"schemaId":1,"baseManifestList":"b","deltaManifestList":"d",
    "commitUser":"u","commitIdentifier":7,"commitKind":"OVERWRITE","timeMillis":5,
    "totalRecordCount":10,"deltaRecordCount":-2,"someFutureField":{"x":[1,2]},
    "properties":{"freshet.progress":"{\"v\":1}","k":"v"}})";
  auto parsed = Snapshot::FromJson(text, "mem");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(parsed->properties.at("freshet.progress"), "{\"v\":1}");
  auto again = Snapshot::FromJson(parsed->ToJson(), "mem2");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *parsed);
}

TEST(SnapshotTest, BadInputIsAClearError) {
  struct Case {
    std::string text;
    std::string expected_fragment;
  };
  std::vector<Case> cases = {
      {"{not json", "not valid JSON"},
      {"[1,2]", "not a JSON object"},
      {R"({"version":3,"id":1})", "\"schemaId\" is missing"},
      {R"({"version":3,"id":"one","schemaId":0})", "\"id\" must be an integer"},
      {R"({"version":3,"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d",
          "commitUser":"u","commitIdentifier":1,"commitKind":"MERGE","timeMillis":1})",
       "unknown commit kind 'MERGE'"},
  };
  for (const auto& c : cases) {
    auto parsed = Snapshot::FromJson(c.text, "/t/snapshot/snapshot-1");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.expected_fragment), std::string::npos)
        << parsed.status().ToString();
    EXPECT_NE(parsed.status().message().find("/t/snapshot/snapshot-1"), std::string::npos)
        << parsed.status().ToString();
  }
}

Snapshot MakeSnapshot(int64_t id, int64_t time) {
  Snapshot s = TestSnapshot(id, time);
  s.total_record_count = id;
  s.delta_record_count = 1;
  return s;
}

TEST(SnapshotManagerTest, EmptyTableHasNoSnapshots) {
  TempDir dir;
  SnapshotManager manager(io::LocalFileIO(), dir.path());
  ASSERT_OK_AND_ASSIGN(auto latest, manager.LatestSnapshotId());
  EXPECT_FALSE(latest.has_value());
  auto missing = manager.ReadSnapshot(3);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("snapshot 3"), std::string::npos);
}

TEST(SnapshotManagerTest, PublishIsNoReplaceAndMaintainsHints) {
  TempDir dir;
  auto fs = io::LocalFileIO();
  SnapshotManager manager(fs, dir.path());
  for (int64_t id = 1; id <= 3; ++id) {
    ASSERT_OK_AND_ASSIGN(bool ok, manager.TryPublish(MakeSnapshot(id, 100 * id)));
    EXPECT_TRUE(ok);
  }
  ASSERT_OK_AND_ASSIGN(bool again, manager.TryPublish(MakeSnapshot(2, 999)));
  EXPECT_FALSE(again);
  ASSERT_OK_AND_ASSIGN(Snapshot two, manager.ReadSnapshot(2));
  EXPECT_EQ(two.time_millis, 200);
  ASSERT_OK_AND_ASSIGN(std::string hint, fs->ReadFile(dir.path() + "/snapshot/LATEST"));
  EXPECT_EQ(hint, "3");

  // A stale LATEST hint (another writer published 4 without updating it) is not trusted.
  ASSERT_OK(fs->WriteFile(manager.SnapshotPath(4), MakeSnapshot(4, 400).ToJson()));
  ASSERT_OK_AND_ASSIGN(auto latest, manager.LatestSnapshotId());
  EXPECT_EQ(latest.value_or(-1), 4);

  // A temp file left by a crashed writer is ignored by listing.
  ASSERT_OK(fs->WriteFile(io::TempPathFor(manager.SnapshotPath(5)), "garbage"));
  ASSERT_OK_AND_ASSIGN(auto ids, manager.ListSnapshotIds());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4}));

  ASSERT_OK(fs->Delete(manager.SnapshotPath(1), false));
  ASSERT_OK_AND_ASSIGN(auto earliest, manager.EarliestSnapshotId());
  EXPECT_EQ(earliest.value_or(-1), 2);
  ASSERT_OK(manager.WriteEarliestHint(3));
  ASSERT_OK_AND_ASSIGN(earliest, manager.EarliestSnapshotId());
  EXPECT_EQ(earliest.value_or(-1), 3);

  ASSERT_OK_AND_ASSIGN(auto at, manager.SnapshotAtOrBefore(250));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->id, 2);
}

TEST(SnapshotManagerTest, CorruptSnapshotIsAnErrorNotACrash) {
  TempDir dir;
  auto fs = io::LocalFileIO();
  SnapshotManager manager(fs, dir.path());
  std::string full = MakeSnapshot(1, 1).ToJson();
  for (size_t cut : {size_t{0}, size_t{1}, full.size() / 2, full.size() - 1}) {
    ASSERT_OK(fs->WriteFile(manager.SnapshotPath(1), full.substr(0, cut)));
    auto read = manager.ReadSnapshot(1);
    ASSERT_FALSE(read.ok()) << cut;
    EXPECT_TRUE(read.status().IsCorruption()) << read.status().ToString();
  }
}

}  // namespace
}  // namespace freshet::meta
