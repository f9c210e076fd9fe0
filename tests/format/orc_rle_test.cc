// ORC unsigned integer RLE: the specification's worked examples for RLE v1 and every RLE v2
// sub-encoding, hand-built edge cases (deprecated widths, 64-bit values, wrapping arithmetic, gap
// fillers), malformed runs, truncations, random and mutated inputs, and early stop.
#include "format/orc_rle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace freshet::format {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

struct Decoded {
  bool ok;
  std::vector<uint64_t> values;
};

Decoded Decode(std::string_view stream, OrcRleVersion version) {
  Decoded d{false, {}};
  d.ok = DecodeUnsignedOrcRle(stream, version, [&](uint64_t v) {
    d.values.push_back(v);
    return true;
  });
  return d;
}

std::vector<uint64_t> Repeat(uint64_t value, size_t count) {
  return std::vector<uint64_t>(count, value);
}

bool IsPrefix(const std::vector<uint64_t>& prefix, const std::vector<uint64_t>& full) {
  return prefix.size() <= full.size() && std::equal(prefix.begin(), prefix.end(), full.begin());
}

struct Example {
  const char* name;
  OrcRleVersion version;
  std::string stream;  // exactly one run
  std::vector<uint64_t> expected;
};

std::vector<uint64_t> Descending(uint64_t from, uint64_t to) {
  std::vector<uint64_t> out;
  for (uint64_t v = from; v >= to; --v) out.push_back(v);
  return out;
}

// The worked examples of the ORC specification ("Run Length Encoding" section), one run each.
std::vector<Example> SpecExamples() {
  return {
      {"v1 run of 7s", OrcRleVersion::kV1, Bytes({0x61, 0x00, 0x07}), Repeat(7, 100)},
      {"v1 descending run", OrcRleVersion::kV1, Bytes({0x61, 0xff, 0x64}), Descending(100, 1)},
      {"v1 literals",
       OrcRleVersion::kV1,
       Bytes({0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b}),
       {2, 3, 6, 7, 11}},
      {"v2 short repeat", OrcRleVersion::kV2, Bytes({0x0a, 0x27, 0x10}), Repeat(10000, 5)},
      {"v2 direct",
       OrcRleVersion::kV2,
       Bytes({0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}),
       {23713, 43806, 57005, 48879}},
      {"v2 patched base",
       OrcRleVersion::kV2,
       Bytes({0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
              0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8}),
       {2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
        2100, 2110, 2120, 2130,    2140, 2150, 2160, 2170, 2180, 2190}},
      {"v2 delta",
       OrcRleVersion::kV2,
       Bytes({0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}),
       {2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
  };
}

// A PATCHED_BASE run of 300 one-bit values whose only patch is 265 values in, so its gap needs a
// (255, 0) filler entry: W = 1, base 0 in 1 byte, patch width 1, gap width 8, 2 entries of 9 bits.
std::string PatchedWithFiller(bool drop_last_entry) {
  std::string s = Bytes({0x81, 0x2b, 0x00, drop_last_entry ? 0xe1 : 0xe2, 0x00});
  std::string data(38, '\0');         // 300 bits
  data[0] = static_cast<char>(0x80);  // value 0 is 1
  s += data;
  // Entries 1111 1111|0 (gap 255, patch 0) and 0000 1010|1 (gap 10, patch 1), MSB first.
  s += drop_last_entry ? Bytes({0xff, 0x00}) : Bytes({0xff, 0x05, 0x40});
  return s;
}

TEST(OrcRleTest, SpecificationExamples) {
  for (const Example& e : SpecExamples()) {
    SCOPED_TRACE(e.name);
    Decoded d = Decode(e.stream, e.version);
    EXPECT_TRUE(d.ok);
    EXPECT_EQ(d.values, e.expected);
  }
}

TEST(OrcRleTest, EmptyStreamHasNoValues) {
  for (OrcRleVersion version : {OrcRleVersion::kV1, OrcRleVersion::kV2}) {
    Decoded d = Decode("", version);
    EXPECT_TRUE(d.ok);
    EXPECT_TRUE(d.values.empty());
  }
}

TEST(OrcRleTest, ConcatenatedRunsDecodeInOrder) {
  for (OrcRleVersion version : {OrcRleVersion::kV1, OrcRleVersion::kV2}) {
    std::string stream;
    std::vector<uint64_t> expected;
    for (const Example& e : SpecExamples()) {
      if (e.version != version) continue;
      stream += e.stream;
      expected.insert(expected.end(), e.expected.begin(), e.expected.end());
    }
    Decoded d = Decode(stream, version);
    EXPECT_TRUE(d.ok);
    EXPECT_EQ(d.values, expected);
  }
}

TEST(OrcRleTest, V1Runs) {
  // Longest run (127 + 3), and the most negative delta.
  EXPECT_EQ(Decode(Bytes({0x7f, 0x00, 0x05}), OrcRleVersion::kV1).values, Repeat(5, 130));
  EXPECT_EQ(Decode(Bytes({0x00, 0x80, 0x80, 0x02}), OrcRleVersion::kV1).values,
            (std::vector<uint64_t>{256, 128, 0}));
  // Runs wrap modulo 2^64 in both directions.
  Decoded up =
      Decode(Bytes({0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
             OrcRleVersion::kV1);
  EXPECT_TRUE(up.ok);
  EXPECT_EQ(up.values, (std::vector<uint64_t>{kMax, 0, 1}));
  Decoded down = Decode(Bytes({0x00, 0xfe, 0x01}), OrcRleVersion::kV1);
  EXPECT_TRUE(down.ok);
  EXPECT_EQ(down.values, (std::vector<uint64_t>{1, kMax, kMax - 2}));
}

TEST(OrcRleTest, V1LiteralsAndVarints) {
  // The specification's varint table: 128 = 80 01, 16384 = 80 80 01; non-minimal 80 00 is 0.
  Decoded d = Decode(Bytes({0xfd, 0x80, 0x01, 0x80, 0x80, 0x01, 0x80, 0x00}), OrcRleVersion::kV1);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.values, (std::vector<uint64_t>{128, 16384, 0}));
  // The longest literal group (header 0x80 = 128 values).
  std::string longest = Bytes({0x80}) + std::string(128, '\x2a');
  EXPECT_EQ(Decode(longest, OrcRleVersion::kV1).values, Repeat(42, 128));
}

TEST(OrcRleTest, VarintLimits) {
  // Ten bytes reach exactly 2^64 - 1.
  Decoded max = Decode(Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
                       OrcRleVersion::kV1);
  EXPECT_TRUE(max.ok);
  EXPECT_EQ(max.values, (std::vector<uint64_t>{kMax}));
  // A 10th digit above 1 would need bit 64; an 11th byte is never valid.
  EXPECT_FALSE(Decode(Bytes({0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}),
                      OrcRleVersion::kV1)
                   .ok);
  EXPECT_FALSE(
      Decode(Bytes({0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}),
             OrcRleVersion::kV1)
          .ok);
  // Same limit for the DELTA base and delta base.
  EXPECT_FALSE(Decode(Bytes({0xc0, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                             0x00, 0x00}),
                      OrcRleVersion::kV2)
                   .ok);
}

TEST(OrcRleTest, V2ShortRepeatWidestValue) {
  // Width 8 bytes, count 7 + 3.
  Decoded d =
      Decode(Bytes({0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), OrcRleVersion::kV2);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.values, Repeat(kMax, 10));
}

TEST(OrcRleTest, V2DirectWidths) {
  // Deprecated 3-bit width (code 2): 001 101 111, padded to two bytes.
  Decoded three = Decode(Bytes({0x44, 0x02, 0x37, 0x80}), OrcRleVersion::kV2);
  EXPECT_TRUE(three.ok);
  EXPECT_EQ(three.values, (std::vector<uint64_t>{1, 5, 7}));
  // 64-bit values (code 31).
  Decoded wide = Decode(Bytes({0x7e, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                               0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}),
                        OrcRleVersion::kV2);
  EXPECT_TRUE(wide.ok);
  EXPECT_EQ(wide.values, (std::vector<uint64_t>{kMax, 0x0123456789abcdefULL}));
  // The longest run, 512 one-bit values: 0101...
  std::string longest = Bytes({0x41, 0xff}) + std::string(64, '\x55');
  Decoded d = Decode(longest, OrcRleVersion::kV2);
  EXPECT_TRUE(d.ok);
  ASSERT_EQ(d.values.size(), 512u);
  for (size_t i = 0; i < d.values.size(); ++i) EXPECT_EQ(d.values[i], i % 2) << i;
}

TEST(OrcRleTest, V2PatchedBaseNegativeBase) {
  // W = 8, 2 values (10, 20), base 0x85 = -5 in 1 byte, patch width 8, gap width 1, 1 entry
  // (gap 1, patch 1) in 9 bits.
  Decoded d =
      Decode(Bytes({0x8e, 0x01, 0x07, 0x01, 0x85, 0x0a, 0x14, 0x80, 0x80}), OrcRleVersion::kV2);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.values, (std::vector<uint64_t>{5, (20 | (1 << 8)) - 5}));
  // A base of -5 below a zero value wraps like the Java reader's long arithmetic.
  Decoded wrapped =
      Decode(Bytes({0x8e, 0x01, 0x07, 0x01, 0x85, 0x00, 0x14, 0x80, 0x80}), OrcRleVersion::kV2);
  EXPECT_TRUE(wrapped.ok);
  EXPECT_EQ(wrapped.values, (std::vector<uint64_t>{kMax - 4, (20 | (1 << 8)) - 5}));
}

TEST(OrcRleTest, V2PatchedBaseGapFiller) {
  Decoded d = Decode(PatchedWithFiller(false), OrcRleVersion::kV2);
  EXPECT_TRUE(d.ok);
  std::vector<uint64_t> expected(300, 0);
  expected[0] = 1;
  expected[265] = 1 << 1;
  EXPECT_EQ(d.values, expected);
  // A list ending inside a filler chain has no patch to apply (the C++ reader reads past it).
  EXPECT_FALSE(Decode(PatchedWithFiller(true), OrcRleVersion::kV2).ok);
}

TEST(OrcRleTest, V2PatchedBaseMalformed) {
  // Empty patch list.
  EXPECT_FALSE(Decode(Bytes({0x8e, 0x00, 0x07, 0x00, 0x00, 0x0a}), OrcRleVersion::kV2).ok);
  // Patch width 64 + gap width 1 > 64.
  EXPECT_FALSE(Decode(Bytes({0x8e, 0x00, 0x1f, 0x01, 0x00, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
                      OrcRleVersion::kV2)
                   .ok);
  // A patch aimed past the run (gap 1 in a 1-value run) is never applied.
  EXPECT_FALSE(
      Decode(Bytes({0x8e, 0x00, 0x07, 0x01, 0x00, 0x0a, 0x80, 0x80}), OrcRleVersion::kV2).ok);
  // A zero gap after the first patch points back at an index already passed.
  EXPECT_FALSE(Decode(Bytes({0x8e, 0x01, 0x07, 0x02, 0x00, 0x0a, 0x14, 0x00, 0x80, 0x40}),
                      OrcRleVersion::kV2)
                   .ok);
  // W = 64 leaves no room for patch bits: a nonzero patch (gap 0, patch 1 in 2 bits) is rejected,
  // a zero one is harmless.
  const std::string wide_data = std::string(7, '\0') + Bytes({0x09});
  EXPECT_FALSE(
      Decode(Bytes({0xbe, 0x00, 0x00, 0x01, 0x00}) + wide_data + Bytes({0x40}), OrcRleVersion::kV2)
          .ok);
  Decoded zero_patch =
      Decode(Bytes({0xbe, 0x00, 0x00, 0x01, 0x00}) + wide_data + Bytes({0x00}), OrcRleVersion::kV2);
  EXPECT_TRUE(zero_patch.ok);
  EXPECT_EQ(zero_patch.values, (std::vector<uint64_t>{9}));
  // W = 56 with a 16-bit patch whose top bits would fall off 64 bits (gap 0, patch 0x0100).
  const std::string data56 = std::string(7, '\0');
  EXPECT_FALSE(Decode(Bytes({0xbc, 0x00, 0x0f, 0x01, 0x00}) + data56 + Bytes({0x00, 0x80, 0x00}),
                      OrcRleVersion::kV2)
                   .ok);
  // The same with patch 0xff fits exactly.
  Decoded top = Decode(Bytes({0xbc, 0x00, 0x0f, 0x01, 0x00}) + data56 + Bytes({0x00, 0x7f, 0x80}),
                       OrcRleVersion::kV2);
  EXPECT_TRUE(top.ok);
  EXPECT_EQ(top.values, (std::vector<uint64_t>{0xffULL << 56}));
}

TEST(OrcRleTest, V2DeltaFixed) {
  // Width code 0: fixed delta +2 (zigzag 4) from 5.
  Decoded up = Decode(Bytes({0xc0, 0x04, 0x05, 0x04}), OrcRleVersion::kV2);
  EXPECT_TRUE(up.ok);
  EXPECT_EQ(up.values, (std::vector<uint64_t>{5, 7, 9, 11, 13}));
  // Fixed delta -1 (zigzag 1) from 0 wraps.
  Decoded wrap = Decode(Bytes({0xc0, 0x02, 0x00, 0x01}), OrcRleVersion::kV2);
  EXPECT_TRUE(wrap.ok);
  EXPECT_EQ(wrap.values, (std::vector<uint64_t>{0, kMax, kMax - 1}));
  // A single-value fixed run, and the longest one.
  EXPECT_EQ(Decode(Bytes({0xc0, 0x00, 0x07, 0x00}), OrcRleVersion::kV2).values,
            (std::vector<uint64_t>{7}));
  Decoded longest = Decode(Bytes({0xc1, 0xff, 0x01, 0x02}), OrcRleVersion::kV2);
  EXPECT_TRUE(longest.ok);
  ASSERT_EQ(longest.values.size(), 512u);
  for (size_t i = 0; i < 512; ++i) EXPECT_EQ(longest.values[i], i + 1);
}

TEST(OrcRleTest, V2DeltaPacked) {
  // Width 2 (code 1), base 100, delta base -10 (zigzag 19), magnitudes 1, 2, 3 take its sign.
  Decoded down = Decode(Bytes({0xc2, 0x04, 0x64, 0x13, 0x6c}), OrcRleVersion::kV2);
  EXPECT_TRUE(down.ok);
  EXPECT_EQ(down.values, (std::vector<uint64_t>{100, 90, 89, 87, 84}));
  // Two values need no packed deltas at all.
  Decoded two = Decode(Bytes({0xc2, 0x01, 0x64, 0x13}), OrcRleVersion::kV2);
  EXPECT_TRUE(two.ok);
  EXPECT_EQ(two.values, (std::vector<uint64_t>{100, 90}));
  // A packed run of one value has no room for its delta base.
  EXPECT_FALSE(Decode(Bytes({0xc2, 0x00, 0x01, 0x02}), OrcRleVersion::kV2).ok);
}

TEST(OrcRleTest, EveryTruncationFailsWithAPrefix) {
  for (const Example& e : SpecExamples()) {
    SCOPED_TRACE(e.name);
    for (size_t n = 1; n < e.stream.size(); ++n) {
      Decoded d = Decode(std::string_view(e.stream).substr(0, n), e.version);
      // Each example is a single run, so any cut leaves it incomplete.
      EXPECT_FALSE(d.ok) << n;
      EXPECT_TRUE(IsPrefix(d.values, e.expected)) << n;
    }
  }
  // Cutting a multi-run stream at a run boundary is a valid shorter stream; elsewhere it fails.
  std::string stream = SpecExamples()[3].stream + SpecExamples()[6].stream;
  for (size_t n = 0; n <= stream.size(); ++n) {
    Decoded d = Decode(std::string_view(stream).substr(0, n), OrcRleVersion::kV2);
    EXPECT_EQ(d.ok, n == 0 || n == 3 || n == stream.size()) << n;
  }
}

TEST(OrcRleTest, VisitReturningFalseStops) {
  for (const Example& e : SpecExamples()) {
    SCOPED_TRACE(e.name);
    for (size_t stop = 1; stop <= e.expected.size(); ++stop) {
      size_t calls = 0;
      bool ok = DecodeUnsignedOrcRle(e.stream, e.version, [&](uint64_t v) {
        EXPECT_EQ(v, e.expected[calls]);
        return ++calls < stop;
      });
      EXPECT_FALSE(ok);
      EXPECT_EQ(calls, stop);
    }
  }
}

// The most values a valid stream of `bytes` bytes can hold. v1: a run group is >= 3 bytes for
// <= 130 values, a literal group 1 + n bytes for n values. v2: the densest run is DELTA with a
// fixed delta, 4 bytes (2 header, 2 one-byte varints) for <= 512 values; SHORT_REPEAT gives <= 10
// values per 2 bytes, DIRECT and PATCHED_BASE spend >= 1 bit per value plus a >= 2 byte header.
size_t MaxValues(OrcRleVersion version, size_t bytes) {
  return version == OrcRleVersion::kV1 ? bytes * 130 / 3 : bytes * 128;
}

void CheckArbitraryInput(const std::string& stream, OrcRleVersion version) {
  size_t count = 0;
  DecodeUnsignedOrcRle(stream, version, [&](uint64_t) {
    ++count;
    return true;
  });
  EXPECT_LE(count, MaxValues(version, stream.size())) << stream.size();
}

TEST(OrcRleTest, RandomBytesNeverCrash) {
  for (OrcRleVersion version : {OrcRleVersion::kV1, OrcRleVersion::kV2}) {
    std::mt19937_64 rng(version == OrcRleVersion::kV1 ? 1 : 2);
    for (int iteration = 0; iteration < 20000; ++iteration) {
      std::string stream(rng() % 65, '\0');
      for (char& c : stream) c = static_cast<char>(rng());
      CheckArbitraryInput(stream, version);
    }
  }
}

TEST(OrcRleTest, MutatedExamplesNeverCrash) {
  // Random bytes rarely form a long run; mutating real runs reaches the deeper checks.
  std::mt19937_64 rng(3);
  const std::vector<Example> examples = SpecExamples();
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const Example& e = examples[rng() % examples.size()];
    std::string stream = e.stream + examples[rng() % examples.size()].stream;
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations; ++m) {
      stream[rng() % stream.size()] ^= static_cast<char>(1u << (rng() % 8));
    }
    if (rng() % 4 == 0) stream.resize(rng() % (stream.size() + 1));
    CheckArbitraryInput(stream, e.version);
  }
}

}  // namespace
}  // namespace freshet::format
