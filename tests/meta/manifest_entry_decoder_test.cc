// The direct manifest-entry decoder (meta/manifest/manifest_entry_decoder.h) against the generic
// path it stands in for (an AvroValue per entry, DecodeManifestEntry): on random entries in every
// codec, on manifests Java wrote (the fuzz corpus), on a writer schema unlike ours, and on damaged
// bytes, whenever the direct decoder succeeds the generic path must succeed with the same entries.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "container/avro/avro_file.h"
#include "container/orc/orc_records.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_codec.h"
#include "meta/manifest/manifest_entry_decoder.h"
#include "meta/manifest/manifest_file.h"
#include "testing/test_util.h"

namespace freshet::meta {
namespace {

namespace fs = std::filesystem;
using container::avro::AvroFileWriter;
using container::avro::AvroSchema;
using container::avro::AvroValue;
using freshet::testing::TempDir;

Result<std::vector<ManifestEntry>> DecodeGeneric(const std::string& content) {
  FRESHET_ASSIGN_OR_RETURN(auto file, container::avro::ReadAvroFile(content, "m"));
  std::vector<ManifestEntry> entries;
  for (const AvroValue& record : file.records) {
    FRESHET_ASSIGN_OR_RETURN(ManifestEntry entry, DecodeManifestEntry(record, "m"));
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Whenever the direct decoder takes `content`, the generic path reads the same entries.
void ExpectNoDisagreement(const std::string& content, const std::string& what) {
  auto direct = DecodeManifestEntriesDirect(content, "m");
  if (!direct.ok()) return;
  auto generic = DecodeGeneric(content);
  ASSERT_TRUE(generic.ok()) << what << ": the direct decoder took what the generic one refuses: "
                            << generic.status().ToString();
  EXPECT_EQ(*direct, *generic) << what;
}

std::string RandomBytes(std::mt19937* random, size_t max_size) {
  std::string s(static_cast<size_t>((*random)() % (max_size + 1)), '\0');
  for (char& c : s) c = static_cast<char>((*random)() % 256);
  return s;
}

std::vector<std::string> RandomStrings(std::mt19937* random) {
  std::vector<std::string> out(static_cast<size_t>((*random)() % 3));
  for (auto& s : out) s = RandomBytes(random, 12);
  return out;
}

SimpleStats RandomStats(std::mt19937* random) {
  SimpleStats stats{RandomBytes(random, 40), RandomBytes(random, 40), std::nullopt};
  if ((*random)() % 4 != 0) {
    stats.null_counts.emplace();
    for (uint32_t i = (*random)() % 5; i > 0; --i) {
      stats.null_counts->push_back((*random)() % 3 == 0 ? std::nullopt
                                                        : std::optional<int64_t>((*random)()));
    }
  }
  return stats;
}

ManifestEntry RandomEntry(std::mt19937* random) {
  auto maybe = [&] { return (*random)() % 2 == 0; };
  auto big = [&] { return static_cast<int64_t>((uint64_t{(*random)()} << 32) | (*random)()); };
  ManifestEntry e;
  e.kind = maybe() ? FileKind::kAdd : FileKind::kDelete;
  e.partition = RandomBytes(random, 24);
  e.bucket = static_cast<int32_t>((*random)());
  e.total_buckets = static_cast<int32_t>((*random)() % 64) - 2;
  DataFileMeta& f = e.file;
  f.file_name = "data-" + std::to_string((*random)()) + ".parquet";
  f.file_size = big();
  f.row_count = big();
  f.min_key = RandomBytes(random, 16);
  f.max_key = RandomBytes(random, 16);
  f.key_stats = RandomStats(random);
  f.value_stats = RandomStats(random);
  f.min_sequence_number = big();
  f.max_sequence_number = big();
  f.schema_id = (*random)() % 8;
  f.level = static_cast<int32_t>((*random)() % 6);
  f.extra_files = RandomStrings(random);
  if (maybe()) f.creation_time_millis = big();
  if (maybe()) f.delete_row_count = big();
  if (maybe()) f.embedded_index = RandomBytes(random, 30);
  if (maybe()) f.file_source = static_cast<int32_t>((*random)() % 2);
  if (maybe()) f.value_stats_cols = RandomStrings(random);
  if (maybe()) f.external_path = "/elsewhere/" + RandomBytes(random, 8);
  if (maybe()) f.first_row_id = big();
  if (maybe()) f.write_cols = RandomStrings(random);
  return e;
}

TEST(ManifestEntryDecoderTest, RandomEntriesInEveryCodecDecodeAsTheGenericPathDoes) {
  std::mt19937 random(20261203);
  for (auto compression : {"zstd", "snappy", "deflate", "none"}) {
    TempDir dir;
    ASSERT_OK_AND_ASSIGN(auto options, ManifestWriteOptions::FromCompression(compression, 1));
    ManifestFile manifests(io::LocalFileIO(), dir.path(), options);
    std::vector<ManifestEntry> entries;
    for (int i = 0; i < 300; ++i) entries.push_back(RandomEntry(&random));
    ASSERT_OK_AND_ASSIGN(ManifestFileMeta meta,
                         manifests.WriteManifest(entries, 0, SimpleStats::Empty()));
    std::string content = freshet::testing::ReadWholeFile(manifests.PathOf(meta.file_name));
    ASSERT_OK_AND_ASSIGN(auto direct, DecodeManifestEntriesDirect(content, "m"));
    EXPECT_EQ(direct, entries) << compression;
    ASSERT_OK_AND_ASSIGN(auto generic, DecodeGeneric(content));
    EXPECT_EQ(generic, entries) << compression;
  }
}

// Manifests Java Paimon and freshet wrote (tests/fuzz/corpus): the direct decoder takes every
// one, and reads what the generic path reads.
std::vector<fs::path> CorpusManifests() {
  std::vector<fs::path> out;
  for (const auto& e :
       fs::directory_iterator(std::string(FRESHET_SOURCE_DIR) + "/tests/fuzz/corpus/manifest")) {
    std::string name = e.path().filename().string();
    if (name.find("-manifest-") == std::string::npos || name.find("manifest-list") != name.npos ||
        name.find("index-manifest") != name.npos) {
      continue;
    }
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ManifestEntryDecoderTest, TakesEveryManifestJavaAndFreshetWrote) {
  auto paths = CorpusManifests();
  int java = 0;
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.filename().string());
    std::string content = freshet::testing::ReadWholeFile(path.string());
    if (container::LooksLikeOrc(content)) continue;
    ASSERT_OK_AND_ASSIGN(auto direct, DecodeManifestEntriesDirect(content, "m"));
    ASSERT_OK_AND_ASSIGN(auto generic, DecodeGeneric(content));
    EXPECT_FALSE(direct.empty());
    EXPECT_EQ(direct, generic);
    java += path.filename().string().rfind("java-", 0) == 0;
  }
  EXPECT_GE(java, 6);
}

TEST(ManifestEntryDecoderTest, DamagedManifestsNeverDecodeDifferently) {
  std::mt19937 random(7);
  int taken = 0, refused = 0;
  for (const fs::path& path : CorpusManifests()) {
    std::string original = freshet::testing::ReadWholeFile(path.string());
    if (container::LooksLikeOrc(original)) continue;
    for (int round = 0; round < 150; ++round) {
      std::string bytes = original;
      if (round % 3 == 0) {
        bytes.resize(random() % bytes.size());
      } else {
        for (int flips = 1 + static_cast<int>(random() % 3); flips > 0; --flips) {
          bytes[random() % bytes.size()] ^= static_cast<char>(1 + random() % 255);
        }
      }
      ExpectNoDisagreement(bytes, path.filename().string() + " round " + std::to_string(round));
      if (DecodeManifestEntriesDirect(bytes, "m").ok()) {
        ++taken;
      } else {
        ++refused;
      }
    }
  }
  // Both outcomes happen (flips in names and statistics still decode).
  EXPECT_GT(taken, 0);
  EXPECT_GT(refused, 0);
}

// A writer schema unlike freshet's: fields in another order, fields nobody reads (a map, a record,
// an array), _FILE and the statistics in unions, ints where longs are expected, strings where
// bytes are, null items in string lists' unions, optional fields missing. The generic path reads
// these by name; the direct decoder must read them the same.
constexpr const char* kOtherSchema = R"({"type":"record","name":"entry","fields":[
  {"name":"_EXTRA_ENTRY","type":{"type":"map","values":"long"}},
  {"name":"_FILE","type":["null",{"type":"record","name":"file","fields":[
    {"name":"_LEVEL","type":"int"},
    {"name":"_FILE_NAME","type":"bytes"},
    {"name":"_FILE_SIZE","type":"int"},
    {"name":"_ROW_COUNT","type":["null","int","long"]},
    {"name":"_UNREAD","type":{"type":"record","name":"unread","fields":[
      {"name":"a","type":"int"},{"name":"b","type":{"type":"array","items":"string"}}]}},
    {"name":"_MIN_KEY","type":"string"},
    {"name":"_MAX_KEY","type":{"type":"fixed","name":"key16","size":4}},
    {"name":"_VALUE_STATS","type":["null",{"type":"record","name":"stats","fields":[
      {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","int"]}]},
      {"name":"_MAX_VALUES","type":"string"},
      {"name":"_MIN_VALUES","type":"bytes"}]}]},
    {"name":"_MIN_SEQUENCE_NUMBER","type":"long"},
    {"name":"_MAX_SEQUENCE_NUMBER","type":"long"},
    {"name":"_SCHEMA_ID","type":"int"},
    {"name":"_EXTRA_FILES","type":["null",{"type":"array","items":["null","string"]}]},
    {"name":"_CREATION_TIME","type":["null","long"]},
    {"name":"_FILE_SOURCE","type":["null","int"]}]}]},
  {"name":"_BUCKET","type":"int"},
  {"name":"_PARTITION","type":"string"},
  {"name":"_KIND","type":"int"},
  {"name":"_VERSION","type":["null","int"]},
  {"name":"_TOTAL_BUCKETS","type":"int"}]})";

TEST(ManifestEntryDecoderTest, ReadsAnotherWriterSchemaAsTheGenericPathDoes) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(kOtherSchema));
  const auto& root = schema.root();
  const auto& file = *root.fields[1].type->branches[1];
  const auto& unread = *file.fields[4].type;
  const auto& stats = *file.fields[7].type->branches[1];
  std::mt19937 random(11);
  ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Make(schema));
  std::vector<ManifestEntry> expected;
  for (int i = 0; i < 200; ++i) {
    ManifestEntry e;
    e.kind = i % 3 == 0 ? FileKind::kDelete : FileKind::kAdd;
    e.partition = "p" + std::to_string(i % 7);
    e.bucket = i % 5;
    e.total_buckets = 5;
    DataFileMeta& f = e.file;
    f.level = i % 4;
    f.file_name = "data-" + std::to_string(i);
    f.file_size = 1000 + i;
    f.row_count = i % 2 ? int64_t{1} << 40 : i;
    f.min_key = "k" + std::to_string(i);
    f.max_key = "abcd";
    f.key_stats = SimpleStats::Empty();  // the writer has no _KEY_STATS
    f.value_stats = i % 4 == 0 ? SimpleStats::Empty()
                               : SimpleStats{"min" + std::to_string(i), "max", std::nullopt};
    if (i % 4 == 2) f.value_stats.null_counts = std::vector<std::optional<int64_t>>{1, {}, 3};
    f.min_sequence_number = i;
    f.max_sequence_number = i + 1;
    f.schema_id = i % 3;
    if (i % 2) f.extra_files = {"x-" + std::to_string(i)};
    if (i % 5) f.creation_time_millis = 1'700'000'000'000 + i;
    if (i % 3) f.file_source = 1;
    expected.push_back(e);

    AvroValue counts = AvroValue::Union(0, {});
    if (f.value_stats.null_counts) {
      std::vector<AvroValue> items;
      for (const auto& n : *f.value_stats.null_counts) {
        items.push_back(n ? AvroValue::Union(1, AvroValue::Int(static_cast<int32_t>(*n)))
                          : AvroValue::Union(0, {}));
      }
      counts = AvroValue::Union(1, AvroValue::Array(std::move(items)));
    }
    AvroValue value_stats =
        i % 4 == 0 ? AvroValue::Union(0, {})
                   : AvroValue::Union(
                         1, AvroValue::Record(schema.Share(stats),
                                              {counts, AvroValue::String(f.value_stats.max_values),
                                               AvroValue::Bytes(f.value_stats.min_values)}));
    AvroValue extra_files = AvroValue::Union(0, {});
    if (!f.extra_files.empty()) {
      extra_files = AvroValue::Union(
          1, AvroValue::Array({AvroValue::Union(1, AvroValue::String(f.extra_files[0]))}));
    }
    AvroValue row_count = i % 2 ? AvroValue::Union(2, AvroValue::Long(f.row_count))
                                : AvroValue::Union(1, AvroValue::Int(static_cast<int32_t>(i)));
    AvroValue file_value = AvroValue::Record(
        schema.Share(file),
        {AvroValue::Int(f.level), AvroValue::Bytes(f.file_name),
         AvroValue::Int(static_cast<int32_t>(f.file_size)), row_count,
         AvroValue::Record(schema.Share(unread),
                           {AvroValue::Int(i), AvroValue::Array({AvroValue::String("u")})}),
         AvroValue::String(f.min_key), AvroValue::Fixed(f.max_key), value_stats,
         AvroValue::Long(f.min_sequence_number), AvroValue::Long(f.max_sequence_number),
         AvroValue::Int(static_cast<int32_t>(f.schema_id)), extra_files,
         f.creation_time_millis ? AvroValue::Union(1, AvroValue::Long(*f.creation_time_millis))
                                : AvroValue::Union(0, {}),
         f.file_source ? AvroValue::Union(1, AvroValue::Int(*f.file_source))
                       : AvroValue::Union(0, {})});
    ASSERT_OK(writer->Append(AvroValue::Record(
        schema.root_ptr(),
        {AvroValue::Map({"a", "b"}, {AvroValue::Long(i), AvroValue::Long(-i)}),
         AvroValue::Union(1, std::move(file_value)), AvroValue::Int(e.bucket),
         AvroValue::String(e.partition), AvroValue::Int(static_cast<int32_t>(e.kind)),
         i % 2 ? AvroValue::Union(1, AvroValue::Int(kManifestEntryVersion))
               : AvroValue::Union(0, {}),
         AvroValue::Int(e.total_buckets)})));
  }
  ASSERT_OK_AND_ASSIGN(std::string content, writer->Finish());
  ASSERT_OK_AND_ASSIGN(auto generic, DecodeGeneric(content));
  EXPECT_EQ(generic, expected);
  ASSERT_OK_AND_ASSIGN(auto direct, DecodeManifestEntriesDirect(content, "m"));
  EXPECT_EQ(direct, expected);
}

// What the generic path refuses, the direct one refuses too (ReadManifest then reports the
// generic error): an unknown _KIND, another _VERSION. (Damaged bytes are the test above.)
TEST(ManifestEntryDecoderTest, RefusesWhatTheGenericPathRefuses) {
  ASSERT_OK_AND_ASSIGN(AvroSchema ours, AvroSchema::Parse(ManifestEntryAvroSchema().ToJson()));
  auto encode = [&](AvroValue record) -> std::string {
    auto writer = AvroFileWriter::Make(ours);
    EXPECT_TRUE(writer.ok());
    EXPECT_TRUE((*writer)->Append(record).ok());
    auto content = (*writer)->Finish();
    EXPECT_TRUE(content.ok());
    return *content;
  };
  std::mt19937 random(3);
  ManifestEntry entry = RandomEntry(&random);
  const AvroValue good = EncodeManifestEntry(entry);
  ASSERT_OK(DecodeManifestEntriesDirect(encode(good), "m").status());

  auto with_field = [&](const AvroValue& record, const std::string& name, AvroValue value) {
    AvroValue copy = record;
    *copy.MutableField(name) = std::move(value);
    return copy;
  };
  std::vector<std::pair<std::string, AvroValue>> bad{
      {"_KIND 2", with_field(good, "_KIND", AvroValue::Int(2))},
      {"_VERSION 1", with_field(good, "_VERSION", AvroValue::Int(1))},
  };
  for (const auto& [what, record] : bad) {
    std::string content = encode(record);
    EXPECT_FALSE(DecodeGeneric(content).ok()) << what;
    EXPECT_FALSE(DecodeManifestEntriesDirect(content, "m").ok()) << what;
  }
}

}  // namespace
}  // namespace freshet::meta
