// The data-file index (meta/fileindex/file_index.h, format/file_index_writer.h): Java's bloom
// filter, hashes and container, checked here against values computed independently of this code
// and for robustness; tests/interop/file_index_interop_test.cc compares bytes with Java's.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "format/file_index_writer.h"
#include "meta/fileindex/file_index.h"
#include "meta/schema/table_schema.h"

namespace freshet {
namespace {

using meta::BloomFilter64;

TEST(BloomHashTest, ThomasWangHashAsJavaComputesIt) {
  // Java: FastHash.getLongHash with wrapping long arithmetic and signed shifts (values from an
  // independent model of that code).
  EXPECT_EQ(meta::BloomHashOfLong(0), 0);
  EXPECT_EQ(meta::BloomHashOfLong(1), 6614235796240398542LL);
  EXPECT_EQ(meta::BloomHashOfLong(-1), 6614246905173314819LL);
  EXPECT_EQ(meta::BloomHashOfLong(42), 1098236396662648698LL);
  EXPECT_EQ(meta::BloomHashOfLong(1LL << 40), 6024996419662910741LL);
}

TEST(BloomHashTest, BytesHashIsXxHash64WithSeedZero) {
  // The published XXH64 test vector of the empty input.
  EXPECT_EQ(static_cast<uint64_t>(meta::BloomHashOfBytes("")), 0xEF46DB3751D8E999ULL);
}

TEST(BloomHashTest, ValuesHashByTheirJavaRepresentation) {
  auto int_type = meta::DataType::Int();
  auto big = meta::DataType::BigInt();
  // An INT hashes as the long it widens to.
  EXPECT_EQ(*meta::BloomHashOf(meta::Value::Int(-7), *int_type),
            *meta::BloomHashOf(meta::Value::BigInt(-7), *big));
  // Every NaN is Java's canonical NaN.
  auto dbl = meta::DataType::Double();
  EXPECT_EQ(*meta::BloomHashOf(meta::Value::Double(std::nan("1")), *dbl),
            *meta::BloomHashOf(meta::Value::Double(std::nan("2")), *dbl));
  // TIMESTAMP(3) hashes millis, TIMESTAMP(6) micros.
  meta::Timestamp ts{1000, 5000};
  EXPECT_EQ(*meta::BloomHashOf(meta::Value::Ts(ts), **meta::DataType::Timestamp(3)),
            meta::BloomHashOfLong(1000));
  EXPECT_EQ(*meta::BloomHashOf(meta::Value::Ts(ts), **meta::DataType::Timestamp(6)),
            meta::BloomHashOfLong(1000005));
  EXPECT_FALSE(meta::BloomHashOf(meta::Value::Boolean(true), *meta::DataType::Boolean()).ok());
}

TEST(BloomFilter64Test, SizedAsJavaSizesIt) {
  // Java's defaults (1,000,000 items, fpp 0.1): 4,792,536 bits, 3 hash functions.
  BloomFilter64 filter = BloomFilter64::ForItems(1'000'000, 0.1);
  EXPECT_EQ(filter.num_bits(), 4792536);
  EXPECT_EQ(filter.num_hash_functions(), 3);
  EXPECT_EQ(filter.Serialize().size(), 4u + 4792536 / 8);
  // 100 items at 1%: (int)(958.5) = 958 bits -> 960, round(960 / 100 * ln 2) = 7.
  BloomFilter64 small = BloomFilter64::ForItems(100, 0.01);
  EXPECT_EQ(small.num_bits(), 960);
  EXPECT_EQ(small.num_hash_functions(), 7);
}

TEST(BloomFilter64Test, NoFalseNegativesAndFewFalsePositives) {
  std::mt19937_64 random(7);
  BloomFilter64 filter = BloomFilter64::ForItems(1000, 0.05);
  std::set<int64_t> added;
  for (int i = 0; i < 1000; ++i) {
    int64_t v = static_cast<int64_t>(random());
    added.insert(v);
    filter.AddHash(meta::BloomHashOfLong(v));
  }
  for (int64_t v : added) EXPECT_TRUE(filter.TestHash(meta::BloomHashOfLong(v)));
  int positives = 0;
  for (int i = 0; i < 10000; ++i) {
    int64_t v = static_cast<int64_t>(random());
    if (!added.count(v) && filter.TestHash(meta::BloomHashOfLong(v))) ++positives;
  }
  EXPECT_LT(positives, 1000);  // about 5% expected
  // Serialized and parsed back, it answers alike.
  auto parsed = BloomFilter64::Parse(filter.Serialize());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  for (int64_t v : added) EXPECT_TRUE(parsed->TestHash(meta::BloomHashOfLong(v)));
  EXPECT_EQ(parsed->Serialize(), filter.Serialize());
  // Tested in place, each value answers as the filter does.
  const std::string serialized = filter.Serialize();
  for (int i = 0; i < 2000; ++i) {
    int64_t hash = meta::BloomHashOfLong(static_cast<int64_t>(random()));
    EXPECT_EQ(*BloomFilter64::TestSerialized(serialized, hash), filter.TestHash(hash));
  }
}

TEST(FileIndexContainerTest, RoundTripsAndLaysOutAsJava) {
  std::vector<meta::FileIndexEntry> entries = {
      {"id", "bloom-filter", std::string("\x00\x00\x00\x01\xff", 5)},
      {"name", "bloom-filter", std::nullopt},
  };
  std::string bytes = meta::SerializeFileIndex(entries);
  // magic 1493475289347502 big-endian, version 1.
  EXPECT_EQ(bytes.substr(0, 12),
            std::string("\x00\x05\x4e\x4e\xd0\x1a\x35\xae\x00\x00\x00\x01", 12));
  // Head: 8+4+4+4 + (2+2 "id" + 4 + 2+12 "bloom-filter" + 8) + (2+4 "name" + 4 + 2+12 + 8) + 4.
  const int head = 20 + 30 + 32 + 4;
  EXPECT_EQ(static_cast<int>(bytes.size()), head + 5);
  auto parsed = meta::FileIndexContents::Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const auto* id = parsed->Find("id", "bloom-filter");
  ASSERT_NE(id, nullptr);
  ASSERT_TRUE(id->has_value());
  EXPECT_EQ(std::string(**id), std::string("\x00\x00\x00\x01\xff", 5));
  const auto* name = parsed->Find("name", "bloom-filter");
  ASSERT_NE(name, nullptr);
  EXPECT_FALSE(name->has_value());
  EXPECT_EQ(parsed->Find("other", "bloom-filter"), nullptr);
}

TEST(FileIndexContainerTest, HostileBytesAreErrors) {
  std::string good =
      meta::SerializeFileIndex({{"id", "bloom-filter", std::string("\x00\x00\x00\x01\xff", 5)}});
  // Every truncation is an error or a shorter valid prefix; none reads out of bounds.
  for (size_t n = 0; n < good.size(); ++n) {
    auto parsed = meta::FileIndexContents::Parse(good.substr(0, n));
    EXPECT_FALSE(parsed.ok()) << n;
  }
  std::string bad_magic = good;
  bad_magic[0] = 1;
  EXPECT_FALSE(meta::FileIndexContents::Parse(bad_magic).ok());
  std::string bad_version = good;
  bad_version[11] = 2;
  EXPECT_TRUE(meta::FileIndexContents::Parse(bad_version).status().IsNotImplemented());
  // Every single-byte corruption parses or fails cleanly (ASan checks the "cleanly").
  for (size_t at = 0; at < good.size(); ++at) {
    for (int value : {0x00, 0x7f, 0x80, 0xff}) {
      std::string corrupt = good;
      corrupt[at] = static_cast<char>(value);
      auto parsed = meta::FileIndexContents::Parse(corrupt);
      if (!parsed.ok()) continue;
      for (const auto& e : parsed->Entries()) {
        if (e.bytes) (void)BloomFilter64::Parse(*e.bytes);
      }
    }
  }
  EXPECT_FALSE(BloomFilter64::Parse(std::string("\x00\x00\x00\x00\x01", 5)).ok());
  EXPECT_FALSE(BloomFilter64::Parse(std::string("\x00\x00\x00\x01", 4)).ok());
}

TEST(FileIndexContainerTest, ColumnsInJavaHashMapOrder) {
  // String.hashCode: "id" 3355 -> bucket 11, "name" 3373707 -> bucket 8, "a" -> 1, "zz" -> 0.
  EXPECT_EQ(meta::JavaHashMapOrder({"id", "name", "a", "zz"}), (std::vector<size_t>{3, 2, 1, 0}));
}

meta::TableSchema SchemaWith(meta::Options options) {
  std::vector<meta::DataField> fields = {{0, "id", meta::DataType::BigInt(), "", {}},
                                         {1, "name", meta::DataType::String(), "", {}},
                                         {2, "flag", meta::DataType::Boolean(), "", {}}};
  return *meta::TableSchema::Create(0, meta::SchemaSpec{fields, {}, {}, std::move(options), {}}, 0);
}

TEST(FileIndexSpecTest, ReadsJavasOptions) {
  auto spec =
      meta::FileIndexSpec::FromSchema(SchemaWith({{"file-index.bloom-filter.columns", "name, id"},
                                                  {"file-index.bloom-filter.id.items", "100"},
                                                  {"file-index.bloom-filter.id.fpp", "0.01"},
                                                  {"file-index.in-manifest-threshold", "1 kb"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->bloom_filter_columns.size(), 2u);
  EXPECT_EQ(spec->bloom_filter_columns[0].name, "name");  // bucket 8 before bucket 11
  EXPECT_EQ(spec->bloom_filter_columns[1].name, "id");
  EXPECT_EQ(spec->bloom_filter_columns[1].items, 100);
  EXPECT_DOUBLE_EQ(spec->bloom_filter_columns[1].fpp, 0.01);
  EXPECT_EQ(spec->in_manifest_threshold, 1024);
  EXPECT_TRUE(spec->read_enabled);
}

TEST(FileIndexSpecTest, RefusesWhatItCannotIndex) {
  auto message = [](meta::Options options) {
    return meta::FileIndexSpec::FromSchema(SchemaWith(std::move(options))).status().message();
  };
  EXPECT_NE(message({{"file-index.bloom-filter.columns", "nope"}}).find("does not have"),
            std::string::npos);
  EXPECT_NE(message({{"file-index.bloom-filter.columns", "flag"}}).find("cannot hash"),
            std::string::npos);
  EXPECT_NE(message({{"file-index.bloom-filter.columns", "id,,name"}}).find("empty column"),
            std::string::npos);
  EXPECT_NE(message({{"file-index.bitmap.columns", "id"}}).find("only the bloom-filter"),
            std::string::npos);
  EXPECT_NE(message({{"file-index.bloom-filter.columns", "id"},
                     {"file-index.bloom-filter.name.fpp", "0.1"}})
                .find("not declared"),
            std::string::npos);
  EXPECT_NE(message({{"file-index.bloom-filter.columns", "id"},
                     {"file-index.bloom-filter.id.fpp", "1.5"}})
                .find("between 0 and 1"),
            std::string::npos);
}

TEST(FileIndexWriterTest, IndexesTheNamedColumnsOfArrowBatches) {
  auto spec =
      meta::FileIndexSpec::FromSchema(SchemaWith({{"file-index.bloom-filter.columns", "id,name"},
                                                  {"file-index.bloom-filter.id.items", "50"},
                                                  {"file-index.bloom-filter.name.items", "50"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto schema = SchemaWith({});
  auto writer = format::FileIndexWriter::Make(*spec, schema.fields());
  ASSERT_TRUE(writer.ok() && *writer != nullptr);
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  arrow::BooleanBuilder flags;
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(ids.Append(i * 2).ok());
    ASSERT_TRUE(i % 5 == 0 ? names.AppendNull().ok() : names.Append("n" + std::to_string(i)).ok());
    ASSERT_TRUE(flags.Append(i % 2 == 0).ok());
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                     arrow::field("flag", arrow::boolean())}),
      40, {*ids.Finish(), *names.Finish(), *flags.Finish()});
  ASSERT_TRUE((*writer)->Add(*batch).ok());
  auto contents = meta::FileIndexContents::Parse((*writer)->Finish());
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  auto filter_of = [&](const std::string& column) {
    const auto* bytes = contents->Find(column, "bloom-filter");
    EXPECT_TRUE(bytes != nullptr && bytes->has_value());
    return *BloomFilter64::Parse(**bytes);
  };
  BloomFilter64 id_filter = filter_of("id");
  BloomFilter64 name_filter = filter_of("name");
  int absent_positives = 0;
  for (int i = 0; i < 40; ++i) {
    EXPECT_TRUE(id_filter.TestHash(
        *meta::BloomHashOf(meta::Value::BigInt(i * 2), *meta::DataType::BigInt())));
    if (id_filter.TestHash(
            *meta::BloomHashOf(meta::Value::BigInt(i * 2 + 1), *meta::DataType::BigInt()))) {
      ++absent_positives;
    }
    if (i % 5 != 0) {
      EXPECT_TRUE(name_filter.TestHash(meta::BloomHashOfBytes("n" + std::to_string(i))));
    }
  }
  EXPECT_LT(absent_positives, 20);
  EXPECT_EQ(format::FileIndexWriter::Make(meta::FileIndexSpec{}, schema.fields())->get(), nullptr);
}

}  // namespace
}  // namespace freshet
