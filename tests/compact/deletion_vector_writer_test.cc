// The deletion-vector writer (format/deletion_vector_writer.h) against the reader
// (format/deletion_vector.h) and the bytes Java writes.
#include <gtest/gtest.h>

#include <random>

#include "format/deletion_vector.h"
#include "format/deletion_vector_writer.h"
#include "io/file_io.h"
#include "testing/test_util.h"

namespace freshet::format {
namespace {

DeletionBitmap BitmapOf(const std::vector<int64_t>& positions) {
  DeletionBitmap bitmap;
  for (int64_t p : positions) bitmap.Add(p);
  return bitmap;
}

void ExpectRoundTrip(const std::vector<int64_t>& positions, bool bitmap64) {
  DeletionBitmap bitmap = BitmapOf(positions);
  ASSERT_OK_AND_ASSIGN(std::string payload, bitmap.SerializePayload(bitmap64));
  ASSERT_OK_AND_ASSIGN(DeletionVector read, DeletionVector::Deserialize(payload));
  EXPECT_EQ(read.is_64bit(), bitmap64);
  EXPECT_EQ(read.ToVector(), bitmap.ToVector());
  EXPECT_EQ(read.cardinality(), bitmap.cardinality());
}

TEST(DeletionVectorWriterTest, OnePositionAsJavaWritesIt) {
  // A Java file of one deleted position starts 01 00000016 5e43f2d0 3a300000 (format notes).
  DeletionBitmap bitmap = BitmapOf({3});
  ASSERT_OK_AND_ASSIGN(auto file, EncodeDeletionVectorFile({{"data-1.parquet", &bitmap}}, false));
  const std::string& bytes = file.first;
  ASSERT_EQ(bytes.size(), 1u + 4 + 22 + 4);
  EXPECT_EQ(bytes.substr(0, 13),
            std::string("\x01\x00\x00\x00\x16\x5e\x43\xf2\xd0\x3a\x30\x00\x00", 13));
  ASSERT_EQ(file.second.size(), 1u);
  EXPECT_EQ(file.second[0].offset, 1);
  EXPECT_EQ(file.second[0].length, 22);
  EXPECT_EQ(file.second[0].cardinality, 1);
}

TEST(DeletionVectorWriterTest, RoundTripsThroughTheReader) {
  std::mt19937_64 rng(11);
  for (bool bitmap64 : {false, true}) {
    ExpectRoundTrip({}, bitmap64);
    ExpectRoundTrip({0, 1, 2, 65535, 65536, 70000}, bitmap64);
    std::vector<int64_t> dense;  // a bitmap container (> 4096 values) and long runs
    for (int64_t p = 0; p < 10000; ++p) dense.push_back(p);
    for (int64_t p = 200000; p < 260000; p += 3) dense.push_back(p);
    ExpectRoundTrip(dense, bitmap64);
    std::vector<int64_t> random;
    for (int i = 0; i < 5000; ++i) random.push_back(static_cast<int64_t>(rng() % 3000000));
    ExpectRoundTrip(random, bitmap64);
  }
  ExpectRoundTrip({1, int64_t{5} << 32, (int64_t{5} << 32) + 9}, true);
}

TEST(DeletionVectorWriterTest, RefusesPositionsBeyond32BitsInThe32BitFormat) {
  DeletionBitmap bitmap = BitmapOf({int64_t{1} << 33});
  auto payload = bitmap.SerializePayload(false);
  ASSERT_FALSE(payload.ok());
  EXPECT_NE(payload.status().ToString().find("deletion-vectors.bitmap64"), std::string::npos);
}

TEST(DeletionVectorWriterTest, IndexFileReadsBackEveryVector) {
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  for (bool bitmap64 : {false, true}) {
    DeletionVectorFileWriter writer(file_io, dir.Sub("index"), bitmap64);
    DeletionBitmap a = BitmapOf({1, 5, 9});
    DeletionBitmap b = BitmapOf({0, 100000});
    ASSERT_OK_AND_ASSIGN(auto written, writer.Write({{"data-a", &a}, {"data-b", &b}}));
    ASSERT_OK_AND_ASSIGN(
        auto vectors,
        ReadDeletionVectorIndexFile(*file_io, io::JoinPath(dir.Sub("index"), written.file_name),
                                    written.ranges));
    ASSERT_EQ(vectors.size(), 2u);
    EXPECT_EQ(vectors[0].first, "data-a");
    EXPECT_EQ(vectors[0].second.ToVector(), a.ToVector());
    EXPECT_EQ(vectors[1].second.ToVector(), b.ToVector());
    meta::IndexManifestEntry entry = written.ToEntry();
    EXPECT_EQ(entry.row_count, 2);
    EXPECT_EQ(entry.index_type, "DELETION_VECTORS");
  }
}

}  // namespace
}  // namespace freshet::format
