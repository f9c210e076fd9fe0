// Decodes every Avro manifest that Java Paimon wrote into the golden tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "container/avro/avro_file.h"
#include "testing/test_util.h"

namespace freshet::container::avro {
namespace {

namespace fs = std::filesystem;

// Manifest directories also hold ORC manifests (older tables); only files with the Avro magic
// count.
std::vector<std::string> GoldenAvroManifests() {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(testing::GoldenDir())) {
    if (!entry.is_regular_file() || entry.path().parent_path().filename() != "manifest") continue;
    std::string content = testing::ReadWholeFile(entry.path().string());
    if (content.rfind(std::string("Obj\x01", 4), 0) == 0) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::string StringField(const AvroValue& record, std::string_view name) {
  const AvroValue* field = record.GetField(name);
  if (field == nullptr) return "<missing " + std::string(name) + ">";
  Result<std::string_view> value = field->GetString();
  return value.ok() ? std::string(*value) : "<" + value.status().message() + ">";
}

// _VERSION is checked only where the writer schema has it (old manifests may not).
void ExpectVersion(const AvroValue& record, int expected, const std::string& path) {
  const AvroValue* version = record.GetField("_VERSION");
  if (version == nullptr) return;
  Result<int32_t> v = version->GetInt();
  ASSERT_TRUE(v.ok()) << path << ": " << v.status().ToString();
  EXPECT_EQ(*v, expected) << path;
}

void CheckManifestList(const AvroFileContents& contents, const std::string& path) {
  for (const AvroValue& record : contents.records) {
    ExpectVersion(record, 2, path);
    EXPECT_TRUE(StartsWith(StringField(record, "_FILE_NAME"), "manifest-"))
        << path << ": " << record.ToString();
    ASSERT_OK_AND_ASSIGN(int64_t size, record.GetField("_FILE_SIZE")->GetLong());
    EXPECT_GT(size, 0) << path;
    const AvroValue* stats = record.GetField("_PARTITION_STATS");
    ASSERT_NE(stats, nullptr) << path;
    EXPECT_TRUE(stats->GetField("_MIN_VALUES")->GetBytes().ok()) << path;
  }
}

void CheckDataManifest(const AvroFileContents& contents, const std::string& path) {
  for (const AvroValue& record : contents.records) {
    ExpectVersion(record, 2, path);
    ASSERT_OK_AND_ASSIGN(int32_t kind, record.GetField("_KIND")->GetInt());
    EXPECT_TRUE(kind == 0 || kind == 1) << path;
    ASSERT_OK_AND_ASSIGN(std::string_view partition, record.GetField("_PARTITION")->GetBytes());
    EXPECT_GE(partition.size(), 4u) << path;  // 4-byte arity, then the BinaryRow
    const AvroValue* file = record.GetField("_FILE");
    ASSERT_NE(file, nullptr) << path;
    EXPECT_TRUE(StartsWith(StringField(*file, "_FILE_NAME"), "data-"))
        << path << ": " << record.ToString();
    ASSERT_OK_AND_ASSIGN(int64_t rows, file->GetField("_ROW_COUNT")->GetLong());
    EXPECT_GT(rows, 0) << path;
    // The creation time is a nullable timestamp-millis long; Java wrote it for these files.
    const AvroValue* created = file->GetField("_CREATION_TIME");
    if (!IsNullOrMissing(created)) {
      EXPECT_GT(created->long_value(), 1600000000000LL) << path;
    }
  }
}

void CheckIndexManifest(const AvroFileContents& contents, const std::string& path) {
  for (const AvroValue& record : contents.records) {
    ExpectVersion(record, 1, path);
    EXPECT_FALSE(StringField(record, "_INDEX_TYPE").empty()) << path;
    EXPECT_FALSE(StringField(record, "_FILE_NAME").empty()) << path;
  }
}

TEST(AvroGoldenTest, EveryJavaWrittenAvroManifestDecodes) {
  FRESHET_REQUIRE_GOLDEN();
  std::vector<std::string> paths = GoldenAvroManifests();
  ASSERT_FALSE(paths.empty()) << "no Avro manifests under " << testing::GoldenDir();
  std::map<std::string, int> by_codec;
  std::map<std::string, int> by_kind;
  size_t records = 0;
  for (const std::string& path : paths) {
    std::string content = testing::ReadWholeFile(path);
    Result<AvroFileContents> contents = ReadAvroFile(content, path);
    ASSERT_TRUE(contents.ok()) << contents.status().ToString();
    ++by_codec[AvroCodecName(contents->codec)];
    records += contents->records.size();
    EXPECT_EQ(contents->schema.root().FullName(), "org.apache.paimon.avro.generated.record");
    std::string name = fs::path(path).filename().string();
    if (StartsWith(name, "manifest-list-")) {
      ++by_kind["manifest list"];
      CheckManifestList(*contents, path);
    } else if (StartsWith(name, "index-manifest-")) {
      ++by_kind["index manifest"];
      CheckIndexManifest(*contents, path);
    } else if (StartsWith(name, "manifest-")) {
      ++by_kind["manifest"];
      CheckDataManifest(*contents, path);
    } else {
      ADD_FAILURE() << "unexpected manifest-directory file " << path;
    }
  }
  for (const auto& [codec, count] : by_codec)
    std::cout << "codec " << codec << ": " << count << "\n";
  for (const auto& [kind, count] : by_kind) std::cout << kind << ": " << count << "\n";
  std::cout << paths.size() << " files, " << records << " records\n";
  // Java Paimon's default manifest compression is zstd.
  EXPECT_GT(by_codec["zstandard"], 0);
  EXPECT_GT(by_kind["manifest list"], 0);
  EXPECT_GT(by_kind["manifest"], 0);
}

// Re-encoding a Java manifest with our writer (its schema, codec and sync marker, default block
// size and zstd level) reproduces the file byte for byte: schema JSON, header layout, block cuts
// and zstd frames all match what Java Paimon writes.
TEST(AvroGoldenTest, RewritingJavaManifestsIsByteIdentical) {
  FRESHET_REQUIRE_GOLDEN();
  std::vector<std::string> paths = GoldenAvroManifests();
  ASSERT_FALSE(paths.empty());
  for (const std::string& path : paths) {
    std::string content = testing::ReadWholeFile(path);
    ASSERT_OK_AND_ASSIGN(auto reader, AvroFileReader::Open(content, path));
    ASSERT_OK_AND_ASSIGN(std::vector<AvroValue> records, reader->ReadAll());
    AvroWriterOptions options;
    options.codec = reader->codec();
    options.sync_marker = reader->sync_marker();
    ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Make(reader->schema(), options));
    for (const AvroValue& record : records) ASSERT_OK(writer->Append(record));
    ASSERT_OK_AND_ASSIGN(std::string rewritten, writer->Finish());
    EXPECT_EQ(reader->schema().ToJson(), *reader->GetMetadata("avro.schema")) << path;
    EXPECT_TRUE(rewritten == content)
        << path << ": " << rewritten.size() << " bytes vs " << content.size();
  }
}

}  // namespace
}  // namespace freshet::container::avro
