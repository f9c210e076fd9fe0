// Deletion vectors: the portable RoaringBitmap decoder (every container kind, both cookies), the
// 64-bit layout, index-file framing, hostile inputs, and Java's own files from the golden set.
#include "format/deletion_vector.h"

#include <arrow/array/array_primitive.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "data_file_test_util.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/test_util.h"

namespace freshet::format {
namespace {

// --- A small test-only encoder, written from the RoaringFormatSpec, to build inputs. ---

enum class Kind { kArray, kBitmap, kRun };

struct TestContainer {
  uint16_t key;
  Kind kind;
  std::vector<uint32_t> values;  // ascending low 16 bits
};

void PutLe16(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>((v >> 8) & 0xFF));
}
void PutLe32(std::string* out, uint32_t v) {
  PutLe16(out, v & 0xFFFF);
  PutLe16(out, v >> 16);
}
void PutLe64(std::string* out, uint64_t v) {
  PutLe32(out, static_cast<uint32_t>(v));
  PutLe32(out, static_cast<uint32_t>(v >> 32));
}
void PutBe32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

std::string ContainerBytes(const TestContainer& c) {
  std::string out;
  if (c.kind == Kind::kArray) {
    for (uint32_t v : c.values) PutLe16(&out, v);
  } else if (c.kind == Kind::kBitmap) {
    std::vector<uint64_t> words(1024, 0);
    for (uint32_t v : c.values) words[v / 64] |= uint64_t{1} << (v % 64);
    for (uint64_t w : words) PutLe64(&out, w);
  } else {
    std::vector<std::pair<uint32_t, uint32_t>> runs;  // first, last
    for (uint32_t v : c.values) {
      if (!runs.empty() && runs.back().second + 1 == v) {
        runs.back().second = v;
      } else {
        runs.emplace_back(v, v);
      }
    }
    PutLe16(&out, static_cast<uint32_t>(runs.size()));
    for (auto [first, last] : runs) {
      PutLe16(&out, first);
      PutLe16(&out, last - first);
    }
  }
  return out;
}

// Portable 32-bit bitmap. `run_cookie` forces the cookie with run flags even without runs.
std::string Roaring32(const std::vector<TestContainer>& cs, bool run_cookie = false) {
  bool has_runs = run_cookie || std::any_of(cs.begin(), cs.end(),
                                            [](const auto& c) { return c.kind == Kind::kRun; });
  std::string out;
  if (has_runs) {
    PutLe32(&out, 12347u | (static_cast<uint32_t>(cs.size() - 1) << 16));
    std::string flags((cs.size() + 7) / 8, '\0');
    for (size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].kind == Kind::kRun) flags[i / 8] |= static_cast<char>(1 << (i % 8));
    }
    out += flags;
  } else {
    PutLe32(&out, 12346);
    PutLe32(&out, static_cast<uint32_t>(cs.size()));
  }
  for (const auto& c : cs) {
    PutLe16(&out, c.key);
    PutLe16(&out, static_cast<uint32_t>(c.values.size() - 1));
  }
  std::vector<std::string> bodies;
  for (const auto& c : cs) bodies.push_back(ContainerBytes(c));
  if (!has_runs || cs.size() >= 4) {
    uint32_t offset = static_cast<uint32_t>(out.size() + 4 * cs.size());
    for (const auto& body : bodies) {
      PutLe32(&out, offset);
      offset += static_cast<uint32_t>(body.size());
    }
  }
  for (const auto& body : bodies) out += body;
  return out;
}

std::string Payload32(const std::string& bitmap) {
  std::string out;
  PutBe32(&out, static_cast<uint32_t>(DeletionVector::kMagic32));
  return out + bitmap;
}

std::string Payload64(const std::vector<std::pair<int32_t, std::string>>& bitmaps) {
  std::string out;
  PutLe32(&out, static_cast<uint32_t>(DeletionVector::kMagic64));
  PutLe64(&out, bitmaps.size());
  for (const auto& [key, bitmap] : bitmaps) {
    PutLe32(&out, static_cast<uint32_t>(key));
    out += bitmap;
  }
  return out;
}

uint32_t Crc(const std::string& bytes) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// size int + payload + CRC, as Java frames each vector in an index file.
std::string Frame(const std::string& payload) {
  std::string out;
  PutBe32(&out, static_cast<uint32_t>(payload.size()));
  out += payload;
  PutBe32(&out, Crc(payload));
  return out;
}

std::vector<uint32_t> Range(uint32_t first, uint32_t end, uint32_t step = 1) {
  std::vector<uint32_t> v;
  for (uint32_t i = first; i < end; i += step) v.push_back(i);
  return v;
}

std::vector<int64_t> Positions(const std::vector<TestContainer>& cs, int64_t high = 0) {
  std::vector<int64_t> out;
  for (const auto& c : cs) {
    for (uint32_t v : c.values) out.push_back((high << 32) | (int64_t{c.key} << 16) | v);
  }
  return out;
}

DeletionVector MustDecode(const std::string& payload) {
  auto dv = DeletionVector::Deserialize(payload);
  EXPECT_TRUE(dv.ok()) << dv.status().ToString();
  return dv.ok() ? *dv : DeletionVector();
}

void ExpectCorrupt(const std::string& payload, const std::string& message_part) {
  auto dv = DeletionVector::Deserialize(payload);
  ASSERT_FALSE(dv.ok()) << "decoded a corrupt payload";
  EXPECT_TRUE(dv.status().IsCorruption()) << dv.status().ToString();
  EXPECT_NE(dv.status().message().find(message_part), std::string::npos) << dv.status().ToString();
}

// Every position query agrees with the expected set, around each expected position too.
void ExpectPositions(const DeletionVector& dv, const std::vector<int64_t>& expected) {
  EXPECT_EQ(dv.cardinality(), static_cast<int64_t>(expected.size()));
  EXPECT_EQ(dv.ToVector(), expected);
  std::set<int64_t> set(expected.begin(), expected.end());
  for (int64_t p : expected) {
    for (int64_t q : {p - 1, p, p + 1}) {
      EXPECT_EQ(dv.IsDeleted(q), set.count(q) > 0) << q;
    }
  }
  EXPECT_FALSE(dv.IsDeleted(-1));
}

// --- Java's bytes ---

// The two vectors of the golden table's index files, byte for byte: an array container holding 0
// (resp. 4), no run cookie.
TEST(DeletionVectorTest, DecodesJavaWrittenBytes) {
  const std::string file = std::string(
      "\x01\x00\x00\x00\x16\x5e\x43\xf2\xd0\x3a\x30\x00\x00\x01\x00\x00\x00"
      "\x00\x00\x00\x00\x10\x00\x00\x00\x04\x00\x87\x5c\xa5\xd7",
      31);
  ASSERT_OK_AND_ASSIGN(auto dv, DeletionVector::Deserialize(file.substr(5, 22)));
  EXPECT_FALSE(dv.is_64bit());
  ExpectPositions(dv, {4});

  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  ASSERT_OK(file_io->WriteFile(dir.Sub("index-0"), file));
  ASSERT_OK_AND_ASSIGN(auto read, ReadDeletionVector(*file_io, dir.Sub("index-0"), 1, 22, 1));
  ExpectPositions(read, {4});
}

// --- Container kinds ---

TEST(DeletionVectorTest, ArrayContainer) {
  std::vector<TestContainer> cs = {{0, Kind::kArray, {1, 5, 4096, 65535}}};
  ExpectPositions(MustDecode(Payload32(Roaring32(cs))), Positions(cs));
  // The same with the run cookie (no run flagged, fewer than 4 containers: no offsets).
  ExpectPositions(MustDecode(Payload32(Roaring32(cs, true))), Positions(cs));
}

TEST(DeletionVectorTest, BitmapContainer) {
  std::vector<TestContainer> cs = {{7, Kind::kBitmap, Range(0, 65536, 3)}};  // 21846 values
  auto dv = MustDecode(Payload32(Roaring32(cs)));
  ExpectPositions(dv, Positions(cs));
  EXPECT_TRUE(dv.IsDeleted((7 << 16) + 65535));
  EXPECT_FALSE(dv.IsDeleted((7 << 16) + 65534));
}

TEST(DeletionVectorTest, RunContainer) {
  std::vector<uint32_t> values = Range(10, 21);
  values.push_back(100);
  for (uint32_t v : Range(65530, 65536)) values.push_back(v);
  std::vector<TestContainer> cs = {{2, Kind::kRun, values}};
  ExpectPositions(MustDecode(Payload32(Roaring32(cs))), Positions(cs));
}

TEST(DeletionVectorTest, EmptyBitmap) {
  auto dv = MustDecode(Payload32(Roaring32({})));
  EXPECT_TRUE(dv.empty());
  EXPECT_FALSE(dv.IsDeleted(0));
  uint8_t deleted[4] = {9, 9, 9, 9};
  EXPECT_EQ(dv.MarkDeleted(0, 4, deleted), 0);
  EXPECT_EQ(std::count(deleted, deleted + 4, 0), 4);
}

// More than 65536 positions over several keys, each kind, with and without offsets.
std::vector<TestContainer> ManyContainers() {
  return {{0, Kind::kBitmap, Range(0, 65536, 2)},
          {1, Kind::kRun, Range(0, 65536)},  // a full container: 65536 positions
          {3, Kind::kArray, {0, 17, 65535}},
          {4, Kind::kRun, Range(100, 200)},
          {9, Kind::kBitmap, Range(5, 60000, 7)}};
}

TEST(DeletionVectorTest, ManyContainersAcrossKeys) {
  auto cs = ManyContainers();
  auto expected = Positions(cs);
  ASSERT_GT(expected.size(), 65536u * 1.5);
  auto dv = MustDecode(Payload32(Roaring32(cs)));  // 5 containers with runs: offsets present
  ExpectPositions(dv, expected);
  EXPECT_FALSE(dv.IsDeleted(2 << 16));
  // Without run containers, with the cookie that has no run flags (offsets always present).
  std::vector<TestContainer> no_runs = {cs[0], cs[2], cs[4]};
  ExpectPositions(MustDecode(Payload32(Roaring32(no_runs))), Positions(no_runs));
  // Runs, fewer than 4 containers: no offset header.
  std::vector<TestContainer> few = {cs[1], cs[2], cs[3]};
  ExpectPositions(MustDecode(Payload32(Roaring32(few))), Positions(few));
}

// MarkDeleted, CountDeleted and KeepMask agree with IsDeleted on windows that start and end
// anywhere, container boundaries included.
TEST(DeletionVectorTest, BatchQueriesMatchPointQueries) {
  auto dv = MustDecode(Payload32(Roaring32(ManyContainers())));
  std::mt19937_64 rng(42);
  std::vector<std::pair<int64_t, int64_t>> windows = {
      {0, 1024}, {65530, 20}, {65536 - 64, 128}, {0, 10 * 65536}, {-5, 10}, {3 * 65536 - 1, 2}};
  for (int i = 0; i < 200; ++i) {
    windows.emplace_back(static_cast<int64_t>(rng() % (11 * 65536)) - 3,
                         static_cast<int64_t>(rng() % 5000) + 1);
  }
  for (auto [start, n] : windows) {
    SCOPED_TRACE(std::to_string(start) + "+" + std::to_string(n));
    std::vector<uint8_t> deleted(n, 7);
    int64_t marked = dv.MarkDeleted(start, n, deleted.data());
    ASSERT_OK_AND_ASSIGN(auto keep, dv.KeepMask(start, n));
    ASSERT_EQ(keep->length(), n);
    int64_t expected = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool is_deleted = dv.IsDeleted(start + i);
      expected += is_deleted;
      ASSERT_EQ(deleted[i], is_deleted ? 1 : 0) << i;
      ASSERT_EQ(keep->Value(i), !is_deleted) << i;
    }
    EXPECT_EQ(marked, expected);
    EXPECT_EQ(dv.CountDeleted(start, n), expected);
  }
}

// --- 64-bit format ---

TEST(DeletionVectorTest, Bitmap64Format) {
  std::vector<TestContainer> low = {{0, Kind::kArray, {0, 3}}, {5, Kind::kRun, Range(0, 10)}};
  std::vector<TestContainer> high = {{1, Kind::kBitmap, Range(0, 65536, 5)}};
  // Java writes one bitmap per key up to the highest, empty ones included.
  auto payload = Payload64({{0, Roaring32(low)}, {1, Roaring32({})}, {2, Roaring32(high)}});
  auto dv = MustDecode(payload);
  EXPECT_TRUE(dv.is_64bit());
  auto expected = Positions(low);
  auto upper = Positions(high, 2);
  expected.insert(expected.end(), upper.begin(), upper.end());
  ExpectPositions(dv, expected);
  EXPECT_FALSE(dv.IsDeleted(int64_t{1} << 32));
  EXPECT_EQ(dv.CountDeleted(int64_t{2} << 32, int64_t{1} << 20), 13108);

  // Framed in an index file: the manifest's length covers size int + payload + CRC.
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  std::string frame = Frame(payload);
  ASSERT_OK(file_io->WriteFile(dir.Sub("index-0"), "\x01" + frame));
  ASSERT_OK_AND_ASSIGN(auto read,
                       ReadDeletionVector(*file_io, dir.Sub("index-0"), 1,
                                          static_cast<int64_t>(frame.size()), dv.cardinality()));
  ExpectPositions(read, expected);
  // The 32-bit interpretation of the length (payload only) is refused for a 64-bit vector.
  auto wrong =
      ReadDeletionVector(*file_io, dir.Sub("index-0"), 1, static_cast<int64_t>(payload.size()));
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(wrong.status().IsCorruption()) << wrong.status().ToString();
}

TEST(DeletionVectorTest, IndexFileWithSeveralVectors) {
  std::vector<std::string> payloads = {
      Payload32(Roaring32({{0, Kind::kArray, {1, 2, 3}}})),
      Payload32(Roaring32(ManyContainers())),
      Payload64({{3, Roaring32({{0, Kind::kArray, {9}}})}}),
  };
  std::string file = "\x01";
  std::vector<meta::DeletionVectorRange> ranges;
  for (size_t i = 0; i < payloads.size(); ++i) {
    bool is_64 = i == 2;
    int32_t length = static_cast<int32_t>(payloads[i].size() + (is_64 ? 8 : 0));
    ranges.push_back(
        {"data-" + std::to_string(i), static_cast<int32_t>(file.size()), length, std::nullopt});
    file += Frame(payloads[i]);
  }
  ranges[0].cardinality = 3;
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  ASSERT_OK(file_io->WriteFile(dir.Sub("index"), file));
  ASSERT_OK_AND_ASSIGN(auto vectors,
                       ReadDeletionVectorIndexFile(*file_io, dir.Sub("index"), ranges));
  ASSERT_EQ(vectors.size(), 3u);
  EXPECT_EQ(vectors[0].first, "data-0");
  EXPECT_EQ(vectors[0].second.ToVector(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(vectors[1].second.ToVector(), Positions(ManyContainers()));
  EXPECT_EQ(vectors[2].second.ToVector(), (std::vector<int64_t>{(int64_t{3} << 32) | 9}));

  // A cardinality that disagrees with the manifest.
  ranges[0].cardinality = 4;
  auto bad = ReadDeletionVectorIndexFile(*file_io, dir.Sub("index"), ranges);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsCorruption());
  EXPECT_NE(bad.status().message().find("index manifest says 4"), std::string::npos);
}

// --- Hostile input ---

TEST(DeletionVectorTest, RejectsBadMagic) {
  std::string payload = Payload32(Roaring32({{0, Kind::kArray, {1}}}));
  payload[0] ^= 1;
  ExpectCorrupt(payload, "invalid magic number");
  ExpectCorrupt("ab", "truncated");
}

TEST(DeletionVectorTest, RejectsEveryTruncation) {
  for (const std::string& payload :
       {Payload32(Roaring32(ManyContainers())),
        Payload32(Roaring32({{0, Kind::kBitmap, Range(0, 65536, 3)}, {2, Kind::kArray, {4}}})),
        Payload64({{0, Roaring32({{1, Kind::kRun, Range(3, 9)}})}, {4, Roaring32({})}})}) {
    for (size_t n = 0; n < payload.size(); ++n) {
      auto dv = DeletionVector::Deserialize(payload.substr(0, n));
      ASSERT_FALSE(dv.ok()) << n;
      ASSERT_TRUE(dv.status().IsCorruption()) << dv.status().ToString();
    }
    EXPECT_TRUE(DeletionVector::Deserialize(payload).ok());
    ExpectCorrupt(payload + "x", "unexpected bytes");
  }
}

TEST(DeletionVectorTest, RejectsAbsurdCounts) {
  std::string no_runs;
  PutLe32(&no_runs, 12346);
  PutLe32(&no_runs, 0xFFFFFFFF);
  ExpectCorrupt(Payload32(no_runs), "containers");
  std::string many;  // 65536 claimed containers with nothing behind them
  PutLe32(&many, 12346);
  PutLe32(&many, 65536);
  ExpectCorrupt(Payload32(many), "truncated");
  std::string runs;  // run cookie for 65536 containers, no flags
  PutLe32(&runs, 12347u | 0xFFFF0000u);
  ExpectCorrupt(Payload32(runs), "truncated");
  std::string wide;
  PutLe32(&wide, static_cast<uint32_t>(DeletionVector::kMagic64));
  PutLe64(&wide, uint64_t{1} << 40);
  ExpectCorrupt(wide, "claims 1099511627776");
  ExpectCorrupt(Payload32("\x01\x02\x03\x04"), "unknown roaring cookie");
}

TEST(DeletionVectorTest, RejectsInconsistentContainers) {
  // Keys out of order.
  ExpectCorrupt(Payload32(Roaring32({{3, Kind::kArray, {1}}, {2, Kind::kArray, {1}}})),
                "not ascending");
  // Duplicate array values.
  ExpectCorrupt(Payload32(Roaring32({{0, Kind::kArray, {4, 4}}})), "not ascending");
  // A bitmap whose header cardinality disagrees with its bits.
  std::string bitmap = Roaring32({{0, Kind::kBitmap, Range(0, 5000)}});
  bitmap[8 + 2] = 0;  // cardinality-1 low byte: 4999 -> 4864
  ExpectCorrupt(Payload32(bitmap), "header says");
  // A run container whose runs do not add up to its cardinality.
  std::string runs = Roaring32({{0, Kind::kRun, Range(0, 10)}});
  runs[4 + 1 + 2] = 3;  // header (after cookie and flags): card-1 = 3 instead of 9
  ExpectCorrupt(Payload32(runs), "header says");
  // A run past 65535.
  std::string past = Roaring32({{0, Kind::kRun, {65535}}});
  past[past.size() - 2] = 5;  // length-1 = 5
  ExpectCorrupt(Payload32(past), "past 65535");
  // Overlapping runs.
  std::string overlap = Roaring32({{0, Kind::kRun, {1, 2, 3, 10}}});
  overlap[overlap.size() - 4] = 2;  // second run starts at 2, inside the first
  ExpectCorrupt(Payload32(overlap), "overlap");
  // A wrong offset header.
  std::string offsets = Roaring32({{0, Kind::kArray, {1}}});
  offsets[12] = 99;
  ExpectCorrupt(Payload32(offsets), "offset");
  // 64-bit keys must be ascending and non-negative.
  ExpectCorrupt(Payload64({{2, Roaring32({})}, {1, Roaring32({})}}), "not ascending");
  ExpectCorrupt(Payload64({{-1, Roaring32({})}}), "out of range");
}

TEST(DeletionVectorTest, RejectsBadFraming) {
  std::string payload = Payload32(Roaring32({{0, Kind::kArray, {1, 2}}}));
  std::string frame = Frame(payload);
  auto size = static_cast<int64_t>(payload.size());
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  auto write_and_read = [&](const std::string& bytes, int64_t offset, int64_t length) {
    EXPECT_OK(file_io->WriteFile(dir.Sub("f"), bytes));
    return ReadDeletionVector(*file_io, dir.Sub("f"), offset, length);
  };
  ASSERT_TRUE(write_and_read("\x01" + frame, 1, size).ok());

  std::string bad_crc = "\x01" + frame;
  bad_crc.back() ^= 0x10;
  auto r = write_and_read(bad_crc, 1, size);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CRC mismatch"), std::string::npos) << r.status().ToString();

  r = write_and_read("\x02" + frame, 1, size);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("version 2"), std::string::npos) << r.status().ToString();

  r = write_and_read("\x01" + frame, 1, size + 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not match the length"), std::string::npos);

  r = write_and_read("\x01" + frame.substr(0, frame.size() - 3), 1, size);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().ToString();

  // Hostile ranges never size a buffer beyond the file.
  for (auto [offset, length] : std::vector<std::pair<int64_t, int64_t>>{
           {0, size}, {1, int64_t{1} << 40}, {1 << 30, size}, {-4, size}, {1, 0}}) {
    r = write_and_read("\x01" + frame, offset, length);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  }
  r = write_and_read("", 1, size);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

// Random corruption of valid payloads: decoding may succeed or fail, but never crashes.
TEST(DeletionVectorTest, SurvivesRandomCorruption) {
  std::mt19937_64 rng(7);
  std::vector<std::string> seeds = {
      Payload32(Roaring32(ManyContainers())),
      Payload32(Roaring32({{0, Kind::kArray, {1, 9}}, {1, Kind::kRun, {4, 5, 6}}})),
      Payload64({{0, Roaring32({{2, Kind::kArray, {1}}})}, {1, Roaring32({})}})};
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = seeds[i % seeds.size()];
    size_t limit = std::min<size_t>(bytes.size(), 200);  // headers are where it matters
    for (int flips = 0; flips < 3; ++flips) {
      bytes[4 + rng() % (limit - 4)] = static_cast<char>(rng());
    }
    auto dv = DeletionVector::Deserialize(bytes);
    if (!dv.ok()) {
      ASSERT_TRUE(dv.status().IsCorruption()) << dv.status().ToString();
      continue;
    }
    // Whatever decoded must be self-consistent.
    ASSERT_EQ(static_cast<int64_t>(dv->ToVector().size()), dv->cardinality());
  }
}

// --- Java's golden table ---

// pk_table_scan_and_read_dv: snapshot 4's compaction deleted Alice's old row (her update) and
// Tony's row (his delete) from the level-5 files of snapshot 2 (EXPECTED.md section 13). The
// index manifest of snapshot 6 lists the vectors; the rows at the deleted positions are exactly
// those, and the remaining rows of those files are the ones s4/s6 show.
TEST(DeletionVectorGoldenTest, JavaVectorsDeleteTheReplacedRows) {
  FRESHET_REQUIRE_GOLDEN();
  namespace fs = std::filesystem;
  auto file_io = io::LocalFileIO();
  std::string table = freshet::testing::GoldenDir() +
                      "/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv";
  ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, table).LatestSchema());
  ASSERT_TRUE(schema.has_value());
  ASSERT_OK_AND_ASSIGN(auto snapshot, meta::SnapshotManager(file_io, table).ReadSnapshot(6));
  ASSERT_TRUE(snapshot.index_manifest.has_value());
  meta::ManifestFile manifests(file_io, table);
  ASSERT_OK_AND_ASSIGN(auto entries, manifests.ReadIndexManifest(*snapshot.index_manifest));

  std::vector<std::string> deleted_rows;  // as JSON
  int vectors = 0;
  for (const auto& entry : entries) {
    if (entry.index_type != "DELETION_VECTORS") continue;
    ASSERT_TRUE(entry.deletion_vector_ranges.has_value());
    ASSERT_OK_AND_ASSIGN(auto dvs,
                         ReadDeletionVectorIndexFile(*file_io, table + "/index/" + entry.file_name,
                                                     *entry.deletion_vector_ranges));
    EXPECT_EQ(static_cast<int64_t>(dvs.size()), entry.row_count);
    for (const auto& [data_file, dv] : dvs) {
      ++vectors;
      std::string path;
      for (const auto& f : fs::recursive_directory_iterator(table)) {
        if (f.path().filename() == data_file) path = f.path().string();
      }
      ASSERT_FALSE(path.empty()) << data_file;
      ASSERT_OK_AND_ASSIGN(auto batch, testing::ReadFile(path, schema->fields()));
      for (int64_t position : dv.ToVector()) {
        ASSERT_LT(position, batch->num_rows());
        deleted_rows.push_back(testing::Json(*batch->Slice(position, 1), schema->fields()));
      }
    }
  }
  EXPECT_EQ(vectors, 2);
  std::sort(deleted_rows.begin(), deleted_rows.end());
  ASSERT_EQ(deleted_rows.size(), 2u);
  EXPECT_NE(deleted_rows[0].find("\"Alice\""), std::string::npos) << deleted_rows[0];
  EXPECT_NE(deleted_rows[0].find("11.1"), std::string::npos) << deleted_rows[0];
  EXPECT_NE(deleted_rows[1].find("\"Tony\""), std::string::npos) << deleted_rows[1];
  EXPECT_NE(deleted_rows[1].find("14.1"), std::string::npos) << deleted_rows[1];
}

}  // namespace
}  // namespace freshet::format
