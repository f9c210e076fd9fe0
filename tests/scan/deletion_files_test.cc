// Deletion files of a snapshot: live DELETION_VECTORS entries of the index manifest, where their
// index files are, and Java's golden table.
#include "scan/deletion_files.h"

#include <gtest/gtest.h>

#include <set>

#include "meta/manifest/manifest_file.h"
#include "meta/path/data_file_paths.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/test_util.h"

namespace freshet::scan {
namespace {

using meta::FileKind;
using meta::IndexManifestEntry;

std::string Partition(int32_t value) {
  auto row = meta::BuildBinaryRow(std::vector<meta::DataTypePtr>{meta::DataType::Int()},
                                  {meta::Value::Int(value)});
  return meta::SerializeBinaryRow(*row);
}

IndexManifestEntry DvEntry(FileKind kind, int32_t bucket, const std::string& index_file,
                           std::vector<std::string> data_files) {
  IndexManifestEntry e;
  e.kind = kind;
  e.partition = Partition(10);
  e.bucket = bucket;
  e.index_type = kDeletionVectorsIndexType;
  e.file_name = index_file;
  std::vector<meta::DeletionVectorRange> ranges;
  int32_t offset = 1;
  for (auto& name : data_files) {
    ranges.push_back({std::move(name), offset, 22, 1});
    offset += 30;
  }
  e.row_count = static_cast<int64_t>(ranges.size());
  e.deletion_vector_ranges = std::move(ranges);
  return e;
}

TEST(DeletionFilesTest, AddsMinusDeletesOfDeletionVectorsOnly) {
  IndexManifestEntry hash = DvEntry(FileKind::kAdd, 0, "index-hash", {});
  hash.index_type = "HASH";
  hash.deletion_vector_ranges.reset();
  std::vector<IndexManifestEntry> entries = {
      DvEntry(FileKind::kAdd, 0, "index-a", {"data-1", "data-2"}),
      hash,
      DvEntry(FileKind::kAdd, 1, "index-b", {"data-3"}),
      DvEntry(FileKind::kDelete, 0, "index-a", {"data-1", "data-2"}),
      DvEntry(FileKind::kAdd, 0, "index-c", {"data-2"}),
      // A DELETE before its ADD cancels it.
      DvEntry(FileKind::kDelete, 1, "index-d", {"data-4"}),
      DvEntry(FileKind::kAdd, 1, "index-d", {"data-4"}),
  };
  ASSERT_OK_AND_ASSIGN(auto live, LiveIndexEntries(entries, kDeletionVectorsIndexType));
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].file_name, "index-b");
  EXPECT_EQ(live[1].file_name, "index-c");

  ASSERT_OK_AND_ASSIGN(auto files, DeletionFilesOf(entries, IndexFileLocation{"/t"}));
  ASSERT_EQ(files.size(), 2u);
  const DeletionFile& data2 = files.at({Partition(10), 0, "data-2"});
  EXPECT_EQ(data2, (DeletionFile{"/t/index/index-c", 1, 22, 1}));
  EXPECT_EQ(files.at({Partition(10), 1, "data-3"}).path, "/t/index/index-b");
  EXPECT_EQ(files.count({Partition(10), 0, "data-1"}), 0u);
}

TEST(DeletionFilesTest, ResolvesExternalAndBucketDirectoryPaths) {
  IndexManifestEntry external = DvEntry(FileKind::kAdd, 0, "index-x", {"data-1"});
  external.external_path = "s3://bucket/ext/index-x";
  ASSERT_OK_AND_ASSIGN(auto files, DeletionFilesOf({external}, IndexFileLocation{"/t"}));
  EXPECT_EQ(files.begin()->second.path, "s3://bucket/ext/index-x");

  // index-file-in-data-file-dir: the index file sits beside the bucket's data files.
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  meta::SchemaSpec spec;
  spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
  spec.fields.push_back({0, "f1", meta::DataType::Int(), std::nullopt, std::nullopt});
  spec.partition_keys = {"f1"};
  spec.options = {{"bucket", "2"}, {"bucket-key", "id"}};
  ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, dir.path()).CreateTable(spec, 0));
  ASSERT_OK_AND_ASSIGN(auto paths, meta::DataFilePaths::Make(dir.path(), schema));
  IndexFileLocation in_buckets{dir.path(), &paths};
  ASSERT_OK_AND_ASSIGN(files,
                       DeletionFilesOf({DvEntry(FileKind::kAdd, 1, "index-y", {"d"})}, in_buckets));
  EXPECT_EQ(files.begin()->second.path, dir.path() + "/f1=10/bucket-1/index-y");
}

TEST(DeletionFilesTest, RejectsDuplicatesAndBadRanges) {
  auto twice = DeletionFilesOf({DvEntry(FileKind::kAdd, 0, "index-a", {"data-1"}),
                                DvEntry(FileKind::kAdd, 0, "index-a", {"data-1"})},
                               IndexFileLocation{"/t"});
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(twice.status().IsCorruption()) << twice.status().ToString();

  auto two_vectors = DeletionFilesOf({DvEntry(FileKind::kAdd, 0, "index-a", {"data-1"}),
                                      DvEntry(FileKind::kAdd, 0, "index-b", {"data-1"})},
                                     IndexFileLocation{"/t"});
  ASSERT_FALSE(two_vectors.ok());
  EXPECT_NE(two_vectors.status().message().find("more than one deletion vector"),
            std::string::npos);

  IndexManifestEntry bad = DvEntry(FileKind::kAdd, 0, "index-a", {"data-1"});
  (*bad.deletion_vector_ranges)[0].offset = 0;  // would read the version byte as a size
  auto r = DeletionFilesOf({bad}, IndexFileLocation{"/t"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

// Through a real index manifest file.
TEST(DeletionFilesTest, ReadsTheSnapshotsIndexManifest) {
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  meta::ManifestFile manifests(file_io, dir.path());
  std::vector<IndexManifestEntry> entries = {
      DvEntry(FileKind::kAdd, 0, "index-a", {"data-1", "data-2"})};
  ASSERT_OK_AND_ASSIGN(auto written, manifests.WriteIndexManifest(entries));
  meta::Snapshot snapshot;
  ASSERT_OK_AND_ASSIGN(auto none,
                       ReadDeletionFiles(file_io, snapshot, IndexFileLocation{dir.path()}));
  EXPECT_TRUE(none.empty());
  snapshot.index_manifest = written.name;
  ASSERT_OK_AND_ASSIGN(auto files,
                       ReadDeletionFiles(file_io, snapshot, IndexFileLocation{dir.path()}));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files.at({Partition(10), 0, "data-2"}),
            (DeletionFile{dir.path() + "/index/index-a", 31, 22, 1}));
}

// Java's pk_table_scan_and_read_dv (EXPECTED.md section 13): no vectors before the COMPACT
// snapshot 4; from then on one vector per compacted bucket of partition f1=10, each deleting one
// row (Alice's old version in bucket 1 of f2=1's file, Tony in f2=0's), in `index/`.
TEST(DeletionFilesGoldenTest, JavaTableHasTwoVectorsFromSnapshotFour) {
  FRESHET_REQUIRE_GOLDEN();
  auto file_io = io::LocalFileIO();
  std::string table = freshet::testing::GoldenDir() +
                      "/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv";
  meta::SnapshotManager snapshots(file_io, table);
  for (int64_t id = 1; id <= 6; ++id) {
    SCOPED_TRACE(id);
    ASSERT_OK_AND_ASSIGN(auto snapshot, snapshots.ReadSnapshot(id));
    ASSERT_OK_AND_ASSIGN(auto files, ReadDeletionFiles(file_io, snapshot, {table}));
    if (id < 4) {
      EXPECT_TRUE(files.empty());
      continue;
    }
    ASSERT_EQ(files.size(), 2u);
    std::set<int32_t> buckets;
    for (const auto& [key, file] : files) {
      EXPECT_EQ(key.partition, Partition(10));
      buckets.insert(key.bucket);
      EXPECT_EQ(key.data_file_name.rfind("data-", 0), 0u) << key.data_file_name;
      EXPECT_EQ(file.path.rfind(table + "/index/index-", 0), 0u) << file.path;
      EXPECT_EQ(file.offset, 1);
      EXPECT_EQ(file.length, 22);
      EXPECT_EQ(file.cardinality, 1);
      ASSERT_OK_AND_ASSIGN(auto exists, file_io->Exists(file.path));
      EXPECT_TRUE(exists) << file.path;
    }
    EXPECT_EQ(buckets, (std::set<int32_t>{0, 1}));
  }
}

}  // namespace
}  // namespace freshet::scan
