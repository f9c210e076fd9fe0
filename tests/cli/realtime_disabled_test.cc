// With realtime.enabled off (the default), the files, manifests and snapshots freshet writes are
// what the builds before the real-time layer wrote: the fixtures in tests/cli/testdata were
// written by those builds' CLIs from the same inputs (see testdata/README.md):
// pre_realtime_table (an append table) before the append layer (commit 8300ab9),
// pre_realtime_pk_table (a primary-key table) before the primary-key layer (commit b585b7a).
// Names, UUIDs and clock readings differ from run to run and are normalized; everything else
// must be equal, and data and changelog files must be byte-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/json.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "realtime/progress.h"
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
        "baseManifestListSize", "deltaManifestListSize", "changelogManifestList",
        "changelogManifestListSize"}) {
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
  // Per snapshot: its base, delta and (when it has one) changelog manifest list, in that order.
  std::vector<std::vector<meta::ManifestFileMeta>> manifest_lists;
  std::vector<std::vector<meta::ManifestEntry>> manifests;
  std::vector<std::string> data_files;  // bytes (changelog files too), in manifest order
  bool realtime_progress = false;       // some snapshot has the real-time progress property
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
    content.realtime_progress |= snapshot->properties.contains(realtime::kProgressProperty);
    std::vector<std::string> lists = {snapshot->base_manifest_list, snapshot->delta_manifest_list};
    if (snapshot->changelog_manifest_list) lists.push_back(*snapshot->changelog_manifest_list);
    for (const auto& list : lists) {
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

void RunCli(const std::vector<std::vector<std::string>>& commands) {
  for (const auto& argv : commands) {
    auto result = RunProcess(argv);
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
}

// `table`, written by today's CLI, is the fixture `expected` (normalized as Load does) and has
// nothing of the real-time layer.
void ExpectSameTable(const std::string& table, const TableContent& expected) {
  TableContent actual = Load(table);
  EXPECT_EQ(actual.snapshots, expected.snapshots);
  EXPECT_EQ(actual.manifest_lists, expected.manifest_lists);
  EXPECT_EQ(actual.manifests, expected.manifests);
  EXPECT_EQ(actual.data_files.size(), expected.data_files.size());
  for (size_t i = 0; i < std::min(actual.data_files.size(), expected.data_files.size()); ++i) {
    EXPECT_TRUE(actual.data_files[i] == expected.data_files[i]) << "data file " << i;
  }
  EXPECT_FALSE(std::filesystem::exists(table + "/realtime"));
  EXPECT_FALSE(actual.realtime_progress);
}

TEST(RealtimeDisabledTest, FilesManifestsAndSnapshotsAreWhatThePreRealtimeBuildWrote) {
  TempDir dir;
  std::string table = dir.Sub("wh/db.db/t");
  const std::string cli = FRESHET_CLI_PATH;
  ASSERT_NO_FATAL_FAILURE(RunCli(
      {// Parquet page CRCs came later (issue 9) and change the bytes; the pinned build wrote none.
       {cli, "create", table, "--schema", TestData("pre_realtime_schema.json"), "--option",
        "parquet.page.write-checksum.enabled=false"},
       {cli, "write", table, "--input", TestData("pre_realtime_rows_1.jsonl")},
       {cli, "write", table, "--input", TestData("pre_realtime_rows_2.jsonl")}}));
  TableContent expected = Load(TestData("pre_realtime_table"));
  ASSERT_EQ(expected.snapshots.size(), 2u);
  ExpectSameTable(table, expected);
}

// The same for a primary-key table: upserts and deletes of the same keys across three commits,
// changelog files (changelog-producer = input) and the writer's compactions (a sorted-run trigger
// of 2: each later write compacts, and its commit waits for that, adding a COMPACT snapshot).
TEST(RealtimeDisabledTest, APrimaryKeyTableIsWhatThePreRealtimeBuildWrote) {
  TempDir dir;
  std::string table = dir.Sub("wh/db.db/t");
  const std::string cli = FRESHET_CLI_PATH;
  // The pinned build wrote page CRCs already: no option to turn them off.
  ASSERT_NO_FATAL_FAILURE(
      RunCli({{cli, "create", table, "--schema", TestData("pre_realtime_pk_schema.json")},
              {cli, "write", table, "--input", TestData("pre_realtime_pk_rows_1.jsonl")},
              {cli, "write", table, "--input", TestData("pre_realtime_pk_rows_2.jsonl")},
              {cli, "write", table, "--input", TestData("pre_realtime_pk_rows_3.jsonl")}}));
  TableContent expected = Load(TestData("pre_realtime_pk_table"));
  // APPEND 1; APPEND 2 and its COMPACT 3; APPEND 4 and its COMPACT 5. Each snapshot has a base
  // and a delta manifest list, and each APPEND a changelog one.
  ASSERT_EQ(expected.snapshots.size(), 5u);
  ASSERT_EQ(expected.manifest_lists.size(), 13u);
  ExpectSameTable(table, expected);
}

}  // namespace
}  // namespace freshet::testing
