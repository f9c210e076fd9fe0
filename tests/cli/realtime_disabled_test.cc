// With realtime.enabled off (the default), the files, manifests and snapshots freshet writes are
// what the build before the real-time layer wrote (commit 8300ab9): the fixture
// tests/cli/testdata/pre_realtime_table was written by that build's CLI from the same inputs
// (see testdata/README.md). Names, UUIDs and clock readings differ from run to run and are
// normalized; everything else must be equal, and data files must be byte-identical.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/json.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/process.h"
#include "testing/test_util.h"

namespace freshet::testing {
namespace {

std::string TestData(const std::string& name) {
  return std::string(FRESHET_SOURCE_DIR) + "/tests/cli/testdata/" + name;
}

// Snapshot JSON without the fields that name files or read the clock.
Json StableSnapshotFields(const std::string& path) {
  auto json = ParseJson(ReadWholeFile(path), path);
  EXPECT_TRUE(json.ok());
  Json out = *json;
  for (const char* volatile_key :
       {"uuid", "commitUser", "timeMillis", "baseManifestList", "deltaManifestList",
        "baseManifestListSize", "deltaManifestListSize"}) {
    out.erase(volatile_key);
  }
  return out;
}

meta::ManifestEntry Normalized(meta::ManifestEntry entry) {
  entry.file.file_name.clear();
  entry.file.creation_time_millis.reset();
  return entry;
}

meta::ManifestFileMeta Normalized(meta::ManifestFileMeta meta) {
  meta.file_name.clear();
  meta.file_size = 0;
  return meta;
}

struct TableContent {
  std::vector<Json> snapshots;
  std::vector<std::vector<meta::ManifestFileMeta>> manifest_lists;
  std::vector<std::vector<meta::ManifestEntry>> manifests;
  std::vector<std::string> data_files;  // bytes, in manifest order
};

TableContent Load(const std::string& table) {
  TableContent content;
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, table);
  meta::ManifestFile manifests(file_io, table);
  auto schema = meta::SchemaManager(file_io, table).LatestSchema();
  EXPECT_TRUE(schema.ok() && schema->has_value());
  auto paths = meta::DataFilePaths::Make(table, **schema);
  EXPECT_TRUE(paths.ok());
  auto ids = snapshots.ListSnapshotIds();
  EXPECT_TRUE(ids.ok());
  for (int64_t id : *ids) {
    content.snapshots.push_back(StableSnapshotFields(snapshots.SnapshotPath(id)));
    auto snapshot = snapshots.ReadSnapshot(id);
    EXPECT_TRUE(snapshot.ok());
    for (const auto& list : {snapshot->base_manifest_list, snapshot->delta_manifest_list}) {
      auto metas = manifests.ReadManifestList(list);
      EXPECT_TRUE(metas.ok());
      std::vector<meta::ManifestFileMeta> normalized;
      for (const auto& m : *metas) {
        normalized.push_back(Normalized(m));
        auto entries = manifests.ReadManifest(m.file_name);
        EXPECT_TRUE(entries.ok());
        std::vector<meta::ManifestEntry> normalized_entries;
        for (const auto& e : *entries) {
          normalized_entries.push_back(Normalized(e));
          auto path = paths->FilePath(e.partition, e.bucket, e.file);
          EXPECT_TRUE(path.ok());
          content.data_files.push_back(ReadWholeFile(*path));
        }
        content.manifests.push_back(std::move(normalized_entries));
      }
      content.manifest_lists.push_back(std::move(normalized));
    }
  }
  return content;
}

TEST(RealtimeDisabledTest, FilesManifestsAndSnapshotsAreWhatThePreRealtimeBuildWrote) {
  TempDir dir;
  std::string table = dir.Sub("wh/db.db/t");
  const std::string cli = FRESHET_CLI_PATH;
  for (const auto& argv : std::vector<std::vector<std::string>>{
           // Parquet page CRCs came later (issue 9) and change the bytes; the pinned build
           // wrote none.
           {cli, "create", table, "--schema", TestData("pre_realtime_schema.json"), "--option",
            "parquet.page.write-checksum.enabled=false"},
           {cli, "write", table, "--input", TestData("pre_realtime_rows_1.jsonl")},
           {cli, "write", table, "--input", TestData("pre_realtime_rows_2.jsonl")}}) {
    auto result = RunProcess(argv);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  TableContent expected = Load(TestData("pre_realtime_table"));
  TableContent actual = Load(table);
  ASSERT_EQ(expected.snapshots.size(), 2u);
  EXPECT_EQ(actual.snapshots, expected.snapshots);
  EXPECT_EQ(actual.manifest_lists, expected.manifest_lists);
  EXPECT_EQ(actual.manifests, expected.manifests);
  ASSERT_EQ(actual.data_files.size(), expected.data_files.size());
  for (size_t i = 0; i < expected.data_files.size(); ++i) {
    EXPECT_TRUE(actual.data_files[i] == expected.data_files[i]) << "data file " << i;
  }
  EXPECT_FALSE(std::filesystem::exists(table + "/realtime"));
}

}  // namespace
}  // namespace freshet::testing
