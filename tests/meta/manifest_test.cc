#include <gtest/gtest.h>

#include <filesystem>

#include "io/file_io.h"
#include "meta/manifest/manifest_codec.h"
#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

namespace fs = std::filesystem;
using freshet::testing::GoldenDir;
using freshet::testing::TempDir;

// Finds the bucket directory holding a data file (partition paths are checked in the partition
// tests; here only the manifest content is under test).
std::optional<fs::path> FindDataFile(const std::string& table, const std::string& name) {
  for (const auto& e : fs::recursive_directory_iterator(table)) {
    if (e.path().filename() == name) return e.path();
  }
  return std::nullopt;
}

TEST(ManifestGoldenTest, EverySnapshotsManifestsAddUpToItsRecordCounts) {
  FRESHET_REQUIRE_GOLDEN();
  auto tables = freshet::testing::GoldenTableDirs();
  ASSERT_GE(tables.size(), 19u);
  int snapshots_checked = 0;
  int files_checked = 0;
  for (const auto& table : tables) {
    SnapshotManager snapshots(io::LocalFileIO(), table);
    ManifestFile manifests(io::LocalFileIO(), table);
    ASSERT_OK_AND_ASSIGN(auto ids, snapshots.ListSnapshotIds());
    for (int64_t id : ids) {
      SCOPED_TRACE(table + " snapshot " + std::to_string(id));
      ASSERT_OK_AND_ASSIGN(Snapshot snapshot, snapshots.ReadSnapshot(id));
      ASSERT_OK_AND_ASSIGN(auto live, ReadLiveEntries(manifests, snapshot));
      int64_t total = 0;
      for (const auto& entry : live) {
        EXPECT_EQ(entry.kind, FileKind::kAdd);
        total += entry.file.row_count;
        auto path = FindDataFile(table, entry.file.file_name);
        ASSERT_TRUE(path.has_value()) << entry.file.file_name;
        EXPECT_EQ(static_cast<int64_t>(fs::file_size(*path)), entry.file.file_size);
        ++files_checked;
      }
      EXPECT_EQ(total, snapshot.total_record_count.value_or(-1));
      ASSERT_OK_AND_ASSIGN(auto delta,
                           ReadEntriesOfLists(manifests, {snapshot.delta_manifest_list}));
      int64_t delta_count = 0;
      for (const auto& entry : delta) {
        delta_count += entry.kind == FileKind::kAdd ? entry.file.row_count : -entry.file.row_count;
      }
      if (snapshot.delta_record_count) {
        EXPECT_EQ(delta_count, *snapshot.delta_record_count);
      }
      if (snapshot.index_manifest) {
        ASSERT_OK_AND_ASSIGN(auto index, manifests.ReadIndexManifest(*snapshot.index_manifest));
        for (const auto& e : index) {
          EXPECT_TRUE(fs::exists(table + "/index/" + e.file_name)) << e.file_name;
        }
      }
      ++snapshots_checked;
    }
  }
  EXPECT_GE(snapshots_checked, 40);
  EXPECT_GE(files_checked, 60);
}

TEST(ManifestGoldenTest, Append09LatestSnapshotHasThreePartitionBuckets) {
  FRESHET_REQUIRE_GOLDEN();
  std::string table = GoldenDir() + "/parquet/append_09.db/append_09";
  SnapshotManager snapshots(io::LocalFileIO(), table);
  ManifestFile manifests(io::LocalFileIO(), table);
  ASSERT_OK_AND_ASSIGN(Snapshot s5, snapshots.ReadSnapshot(5));
  ASSERT_OK_AND_ASSIGN(auto live, ReadLiveEntries(manifests, s5));
  std::set<std::pair<std::string, int32_t>> pbs;
  for (const auto& e : live) {
    pbs.insert({e.partition, e.bucket});
    EXPECT_EQ(e.total_buckets, 2);
  }
  EXPECT_EQ(pbs.size(), 3u);
}

ManifestEntry SampleEntry(int i) {
  ManifestEntry e;
  e.kind = i % 3 == 0 ? FileKind::kDelete : FileKind::kAdd;
  e.partition =
      std::string("\0\0\0\1", 4) + std::string(8, '\0') + std::string("\x05\0\0\0\0\0\0\0", 8);
  e.bucket = i % 4;
  e.total_buckets = 4;
  DataFileMeta& f = e.file;
  f.file_name = "data-" + std::to_string(i) + ".parquet";
  f.file_size = 1000 + i;
  f.row_count = 10 * i;
  f.min_key = EmptySerializedRow();
  f.max_key = EmptySerializedRow();
  f.key_stats = SimpleStats::Empty();
  f.value_stats =
      SimpleStats{"min\x01", "max\x02", std::vector<std::optional<int64_t>>{0, std::nullopt, 3}};
  f.min_sequence_number = i;
  f.max_sequence_number = i + 9;
  f.schema_id = 1;
  f.level = i % 2;
  f.extra_files = i % 2 ? std::vector<std::string>{"x.index"} : std::vector<std::string>{};
  f.creation_time_millis = 1700000000000 + i;
  f.delete_row_count = i % 2 ? std::optional<int64_t>(1) : std::nullopt;
  f.file_source = 0;
  if (i % 2) f.value_stats_cols = std::vector<std::string>{"a", "b"};
  if (i == 4) f.external_path = "/elsewhere/data-4.parquet";
  if (i == 5) f.write_cols = std::vector<std::string>{"a"};
  return e;
}

TEST(ManifestFileTest, RoundTripsEveryFieldInEveryCodec) {
  for (auto compression : {"zstd", "snappy", "deflate", "none"}) {
    TempDir dir;
    ASSERT_OK_AND_ASSIGN(auto options, ManifestWriteOptions::FromCompression(compression, 1));
    ManifestFile manifests(io::LocalFileIO(), dir.path(), options);
    std::vector<ManifestEntry> entries;
    for (int i = 0; i < 7; ++i) entries.push_back(SampleEntry(i));
    ASSERT_OK_AND_ASSIGN(ManifestFileMeta meta,
                         manifests.WriteManifest(entries, 0, SimpleStats::Empty()));
    EXPECT_EQ(meta.num_added_files, 4);
    EXPECT_EQ(meta.num_deleted_files, 3);
    EXPECT_EQ(meta.min_bucket.value_or(-1), 0);
    EXPECT_EQ(meta.max_bucket.value_or(-1), 3);
    EXPECT_EQ(meta.schema_id, 1);
    EXPECT_EQ(meta.file_size,
              static_cast<int64_t>(fs::file_size(manifests.PathOf(meta.file_name))));
    ASSERT_OK_AND_ASSIGN(auto back, manifests.ReadManifest(meta.file_name));
    EXPECT_EQ(back, entries) << compression;

    ASSERT_OK_AND_ASSIGN(WrittenFile list, manifests.WriteManifestList({meta, meta}));
    EXPECT_EQ(list.name.rfind("manifest-list-", 0), 0u);
    ASSERT_OK_AND_ASSIGN(auto metas, manifests.ReadManifestList(list.name));
    ASSERT_EQ(metas.size(), 2u);
    EXPECT_EQ(metas[0], meta);

    IndexManifestEntry index;
    index.partition = EmptySerializedRow();
    index.index_type = "DELETION_VECTORS";
    index.file_name = "index-x-0";
    index.file_size = 99;
    index.row_count = 2;
    index.deletion_vector_ranges = std::vector<DeletionVectorRange>{
        {"data-a.parquet", 1, 22, 3}, {"data-b.parquet", 31, 8, std::nullopt}};
    ASSERT_OK_AND_ASSIGN(WrittenFile index_file, manifests.WriteIndexManifest({index}));
    ASSERT_OK_AND_ASSIGN(auto index_back, manifests.ReadIndexManifest(index_file.name));
    ASSERT_EQ(index_back.size(), 1u);
    EXPECT_EQ(index_back[0], index);
  }
}

TEST(ManifestFileTest, MergeCancelsDeletesAndRejectsDoubleAdds) {
  std::vector<ManifestEntry> entries;
  for (int i = 1; i <= 3; ++i) {
    ManifestEntry e = SampleEntry(i);
    e.kind = FileKind::kAdd;
    entries.push_back(e);
  }
  ManifestEntry del = entries[1];
  del.kind = FileKind::kDelete;
  del.file.min_sequence_number = 12345;  // not part of the identity
  entries.push_back(del);
  ASSERT_OK_AND_ASSIGN(auto live, MergeManifestEntries(entries));
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].file.file_name, "data-1.parquet");
  EXPECT_EQ(live[1].file.file_name, "data-3.parquet");

  entries.push_back(entries[0]);
  auto twice = MergeManifestEntries(entries);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("added twice"), std::string::npos);
}

// Only ADD entries (a full read after manifest compaction) take another path: still every entry
// in order, a file added twice refused, the same name in another bucket or level a new file.
TEST(ManifestFileTest, AddsOnlyKeepOrderAndRejectDoubleAdds) {
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 5000; ++i) {
    ManifestEntry e = SampleEntry(i % 7);
    e.kind = FileKind::kAdd;
    e.file.file_name = "data-" + std::to_string(i) + ".parquet";
    entries.push_back(e);
  }
  ManifestEntry same_name = entries[10];
  same_name.bucket += 1;
  entries.push_back(same_name);
  same_name.bucket -= 1;
  same_name.file.level += 1;
  entries.push_back(same_name);
  ASSERT_OK_AND_ASSIGN(auto live, MergeManifestEntries(entries));
  EXPECT_EQ(live, entries);

  for (size_t twice : {size_t{0}, size_t{2500}, entries.size() - 1}) {
    auto doubled = entries;
    doubled.push_back(entries[twice]);
    auto merged = MergeManifestEntries(doubled);
    ASSERT_FALSE(merged.ok());
    EXPECT_NE(merged.status().message().find("added twice"), std::string::npos);
    EXPECT_NE(merged.status().message().find(entries[twice].file.file_name), std::string::npos);
  }
}

// Enough ADD entries to be checked on several threads (shards of the hashes): the same outcome,
// the rows of the kept entries counted, and of two files added twice the first in order named.
TEST(ManifestFileTest, ManyAddsAreCheckedInShardsAsInOneTable) {
  std::vector<ManifestEntry> entries;
  int64_t rows = 0;
  for (int64_t i = 0; i < 2 * kParallelDecodeEntries; ++i) {
    ManifestEntry e = SampleEntry(static_cast<int>(i % 7));
    e.kind = FileKind::kAdd;
    e.file.file_name = "data-" + std::to_string(i) + ".parquet";
    e.file.row_count = i % 13;
    rows += e.file.row_count;
    entries.push_back(e);
  }
  std::vector<ManifestEntry*> pointers;
  for (ManifestEntry& e : entries) pointers.push_back(&e);
  auto never = [](size_t) -> const ManifestEntry& { std::abort(); };
  ASSERT_OK_AND_ASSIGN(ResolvedChanges resolved, ResolveChanges(0, never, pointers));
  ASSERT_EQ(resolved.kept.size(), entries.size());
  for (size_t i = 0; i < resolved.kept.size(); ++i) ASSERT_EQ(resolved.kept[i], i);
  EXPECT_EQ(resolved.kept_rows, rows);

  // Pairs of doubled files in either order, so that both shards' finds come first somewhere.
  const size_t n = entries.size();
  const std::vector<std::pair<size_t, size_t>> pairs = {{3, 30001}, {30001, 3},   {17, 18},
                                                        {18, 17},   {39000, 123}, {123, 39000},
                                                        {n - 1, 0}, {0, n - 1}};
  for (auto [first, second] : pairs) {
    auto doubled = pointers;
    doubled.push_back(pointers[first]);
    doubled.push_back(pointers[second]);
    auto twice = ResolveChanges(0, never, doubled);
    ASSERT_FALSE(twice.ok());
    EXPECT_NE(twice.status().message().find("'" + entries[first].file.file_name + "'"),
              std::string::npos)
        << twice.status().ToString();
  }

  // A DELETE among them takes the general path: its file gone, the rest kept, rows counted.
  ManifestEntry gone = entries[5];
  gone.kind = FileKind::kDelete;
  auto with_delete = pointers;
  with_delete.push_back(&gone);
  ASSERT_OK_AND_ASSIGN(resolved, ResolveChanges(0, never, with_delete));
  EXPECT_EQ(resolved.kept.size(), n - 1);
  EXPECT_EQ(resolved.kept_rows, rows - entries[5].file.row_count);
}

// A manifest of kSplitManifestEntries entries or more is decoded in runs of its blocks on
// several threads: the entries of the lists come out as reading every manifest whole gives them,
// and a damaged run is reported as reading that manifest whole reports it.
TEST(ManifestFileTest, LargeManifestsAreDecodedInRunsAsWhole) {
  TempDir dir;
  ManifestFile manifests(io::LocalFileIO(), dir.path());
  auto write = [&](int64_t count, int64_t first) {
    std::vector<ManifestEntry> entries;
    for (int64_t i = first; i < first + count; ++i) {
      ManifestEntry e = SampleEntry(static_cast<int>(i % 7));
      e.kind = FileKind::kAdd;
      e.file.file_name = "data-" + std::to_string(i) + ".parquet";
      entries.push_back(std::move(e));
    }
    return manifests.WriteManifest(entries, 0, SimpleStats::Empty()).ValueOrDie();
  };
  const std::vector<ManifestFileMeta> metas = {write(3, 0), write(kSplitManifestEntries, 3),
                                               write(5, kSplitManifestEntries + 3)};
  ASSERT_OK_AND_ASSIGN(WrittenFile list, manifests.WriteManifestList(metas));
  std::vector<ManifestEntry> whole;
  for (const ManifestFileMeta& meta : metas) {
    ASSERT_OK_AND_ASSIGN(auto entries, manifests.ReadManifest(meta.file_name));
    whole.insert(whole.end(), entries.begin(), entries.end());
  }
  for (size_t threads : {size_t{1}, size_t{2}, size_t{3}, size_t{8}}) {
    SCOPED_TRACE(threads);
    ASSERT_OK_AND_ASSIGN(auto parts, ReadManifestsOfLists(manifests, {list.name}, threads));
    // The large manifest in one run per thread, the small ones whole.
    EXPECT_EQ(parts.size(), threads == 1 ? 3u : 2u + threads);
    std::vector<ManifestEntry> joined;
    for (auto& part : parts) joined.insert(joined.end(), part.begin(), part.end());
    EXPECT_EQ(joined, whole);
  }

  // Damage in the large manifest's last block: the error of reading it whole, on every path.
  const std::string path = manifests.PathOf(metas[1].file_name);
  std::string bytes = freshet::testing::ReadWholeFile(path);
  bytes[bytes.size() - 40] ^= 0x5a;
  ASSERT_OK(io::LocalFileIO()->WriteFile(path, bytes));
  const Status alone = manifests.ReadManifest(metas[1].file_name).status();
  ASSERT_FALSE(alone.ok());
  for (size_t threads : {size_t{1}, size_t{2}, size_t{4}}) {
    auto parts = ReadManifestsOfLists(manifests, {list.name}, threads);
    ASSERT_FALSE(parts.ok());
    EXPECT_EQ(parts.status().ToString(), alone.ToString()) << threads;
  }
}

TEST(ManifestFileTest, CorruptManifestsAreClearErrors) {
  TempDir dir;
  ManifestFile manifests(io::LocalFileIO(), dir.path());
  ASSERT_OK_AND_ASSIGN(ManifestFileMeta meta,
                       manifests.WriteManifest({SampleEntry(1)}, 0, SimpleStats::Empty()));
  std::string path = manifests.PathOf(meta.file_name);
  std::string bytes = freshet::testing::ReadWholeFile(path);
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    ASSERT_OK(io::LocalFileIO()->WriteFile(path, bytes.substr(0, cut)));
    auto read = manifests.ReadManifest(meta.file_name);
    EXPECT_FALSE(read.ok()) << "cut at " << cut;
    if (!read.ok()) {
      EXPECT_NE(read.status().message().find(meta.file_name), std::string::npos);
    }
  }
  // A manifest list where a manifest was expected: a clear error about the missing field.
  ASSERT_OK_AND_ASSIGN(WrittenFile list, manifests.WriteManifestList({meta}));
  auto wrong = manifests.ReadManifest(list.name);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("lacks required field"), std::string::npos)
      << wrong.status().ToString();
  EXPECT_TRUE(manifests.ReadManifest("manifest-missing-0").status().IsNotFound());
}

}  // namespace
}  // namespace freshet::meta
