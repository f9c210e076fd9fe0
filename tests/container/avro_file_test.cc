#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "container/avro/avro_binary.h"
#include "container/avro/avro_file.h"
#include "io/file_io.h"
#include "testing/test_util.h"

namespace freshet::container::avro {
namespace {

constexpr const char* kSchema =
    R"({"type":"record","name":"Row","namespace":"t","fields":[)"
    R"({"name":"id","type":"long"},{"name":"ok","type":"boolean"},{"name":"f","type":"float"},)"
    R"({"name":"d","type":"double"},{"name":"name","type":"string"},{"name":"raw","type":"bytes"},)"
    R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["ADD","DELETE"]}},)"
    R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},)"
    R"({"name":"tags","type":{"type":"array","items":"string"}},)"
    R"({"name":"props","type":{"type":"map","values":["null","long"]}},)"
    R"({"name":"child","type":["null",{"type":"record","name":"Child","fields":[)"
    R"({"name":"x","type":"int"},{"name":"ys","type":{"type":"array","items":["null","int"]}}]}]},)"
    R"({"name":"n","type":"null"}]})";

const SyncMarker kSync = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

AvroSchema TestSchema() { return *AvroSchema::Parse(kSchema); }

AvroValue MakeRow(const AvroSchema& schema, int i) {
  const AvroNode& root = schema.root();
  std::vector<AvroValue> tags;
  for (int t = 0; t < i % 3; ++t) tags.push_back(AvroValue::String("tag" + std::to_string(t)));
  AvroValue child = AvroValue::Union(0, AvroValue::Null());
  if (i % 2 == 1) {
    const AvroNode& child_node = *root.fields[10].type->branches[1];
    child = AvroValue::Union(
        1, AvroValue::Record(
               schema.Share(child_node),
               {AvroValue::Int(i), AvroValue::Array({AvroValue::Union(1, AvroValue::Int(i)),
                                                     AvroValue::Union(0, AvroValue())})}));
  }
  return AvroValue::Record(
      schema.root_ptr(),
      {AvroValue::Long(i * 1000003LL), AvroValue::Boolean(i % 3 == 0), AvroValue::Float(i * 0.5f),
       AvroValue::Double(i * -0.25), AvroValue::String("row-" + std::to_string(i)),
       AvroValue::Bytes(std::string(i % 5, static_cast<char>(i))),
       AvroValue::Enum(i % 2, schema.Share(*root.fields[6].type)),
       AvroValue::Fixed(std::string{static_cast<char>(i), '\xff'}),
       AvroValue::Array(std::move(tags)),
       AvroValue::Map({"a", "b"},
                      {AvroValue::Union(1, AvroValue::Long(i)), AvroValue::Union(0, AvroValue())}),
       std::move(child), AvroValue()});
}

std::vector<AvroValue> MakeRows(const AvroSchema& schema, int n) {
  std::vector<AvroValue> rows;
  for (int i = 0; i < n; ++i) rows.push_back(MakeRow(schema, i));
  return rows;
}

Result<std::string> WriteFile(const std::vector<AvroValue>& rows, AvroWriterOptions options) {
  FRESHET_ASSIGN_OR_RETURN(std::unique_ptr<AvroFileWriter> writer,
                           AvroFileWriter::Make(TestSchema(), std::move(options)));
  for (const AvroValue& row : rows) FRESHET_RETURN_NOT_OK(writer->Append(row));
  return writer->Finish();
}

AvroWriterOptions Options(AvroCodec codec, int64_t records_per_block = 0) {
  AvroWriterOptions options;
  options.codec = codec;
  options.records_per_block = records_per_block;
  options.sync_marker = kSync;
  return options;
}

size_t CountSyncMarkers(const std::string& file) {
  std::string_view sync(reinterpret_cast<const char*>(kSync.data()), kSync.size());
  size_t count = 0;
  for (size_t pos = file.find(sync); pos != std::string::npos; pos = file.find(sync, pos + 1)) {
    ++count;
  }
  return count;
}

// The byte offset where the data of block 0 starts, and its size.
std::pair<size_t, size_t> FirstBlockData(const std::string& file, AvroCodec codec) {
  std::string header = *WriteFile({}, Options(codec));
  AvroDecoder in(file, header.size());
  in.ReadLong().ValueOrDie();
  int64_t size = in.ReadLong().ValueOrDie();
  return {in.position(), static_cast<size_t>(size)};
}

Status ReadStatus(const std::string& file) {
  Result<AvroFileContents> contents = ReadAvroFile(file, "/t/manifest/m-0");
  return contents.ok() ? Status::OK() : contents.status();
}

class AvroCodecTest : public ::testing::TestWithParam<AvroCodec> {};

TEST_P(AvroCodecTest, RoundTripsManyBlocks) {
  AvroSchema schema = TestSchema();
  std::vector<AvroValue> rows = MakeRows(schema, 50);
  AvroWriterOptions options = Options(GetParam(), /*records_per_block=*/7);
  options.metadata = {{"paimon.note", "hello"}};
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(rows, options));
  EXPECT_EQ(CountSyncMarkers(file), 1u + 8u);  // header + ceil(50 / 7) blocks

  ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(file, "mem"));
  EXPECT_EQ(contents.codec, GetParam());
  EXPECT_EQ(contents.schema.ToJson(), schema.ToJson());
  ASSERT_EQ(contents.records.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(contents.records[i], rows[i]) << contents.records[i].ToString();
  }
  EXPECT_EQ(contents.records[3].GetField("child")->GetField("x")->int_value(), 3);
  EXPECT_EQ(contents.records[4].GetField("kind")->enum_symbol(), "ADD");
  ASSERT_EQ(contents.metadata.size(), 3u);
  EXPECT_EQ(contents.metadata[0].first, "avro.schema");
  EXPECT_EQ(contents.metadata[1],
            std::make_pair(std::string("avro.codec"), std::string(AvroCodecName(GetParam()))));
  EXPECT_EQ(contents.metadata[2].second, "hello");
}

// Runs of blocks, each read by a reader of its own, give the whole file's records in order; the
// runs cover the blocks without a gap and hold about equal records.
TEST_P(AvroCodecTest, RunsOfBlocksReadLikeTheWholeFile) {
  AvroSchema schema = TestSchema();
  std::vector<AvroValue> rows = MakeRows(schema, 100);
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(rows, Options(GetParam(), 7)));  // 15 blocks
  const size_t data_begin = WriteFile({}, Options(GetParam()))->size();
  for (size_t max_runs : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{15}, size_t{40}}) {
    SCOPED_TRACE(max_runs);
    ASSERT_OK_AND_ASSIGN(auto whole, AvroFileReader::Open(file, "mem"));
    ASSERT_OK_AND_ASSIGN(auto runs, whole->SplitIntoRuns(max_runs));
    ASSERT_EQ(runs.size(), std::min<size_t>(max_runs, 15));
    EXPECT_EQ(runs.front().begin, data_begin);
    EXPECT_EQ(runs.back().end, file.size());
    std::vector<AvroValue> read;
    int64_t next_block = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      if (r > 0) {
        EXPECT_EQ(runs[r].begin, runs[r - 1].end);
      }
      EXPECT_EQ(runs[r].first_block, next_block);
      // Whole blocks of 7 records, within a block of the equal share.
      const int64_t share = (100 + static_cast<int64_t>(runs.size()) - 1) / runs.size();
      if (r + 1 < runs.size()) {
        EXPECT_LT(runs[r].records, share + 7) << r;
      }
      next_block += (runs[r].records + 6) / 7;
      ASSERT_OK_AND_ASSIGN(auto part, AvroFileReader::Open(file, "mem"));
      ASSERT_OK(part->RestrictTo(runs[r]));
      ASSERT_OK_AND_ASSIGN(std::vector<AvroValue> records, part->ReadAll());
      EXPECT_EQ(static_cast<int64_t>(records.size()), runs[r].records);
      for (AvroValue& record : records) read.push_back(std::move(record));
    }
    EXPECT_EQ(next_block, 15);
    EXPECT_EQ(read, rows);
  }
  ASSERT_OK_AND_ASSIGN(auto reader, AvroFileReader::Open(file, "mem"));
  ASSERT_OK_AND_ASSIGN(auto none, reader->SplitIntoRuns(0));
  EXPECT_TRUE(none.empty());
}

TEST_P(AvroCodecTest, EmptyFileIsHeaderOnly) {
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile({}, Options(GetParam())));
  EXPECT_EQ(file.substr(0, 4), std::string("Obj\x01", 4));
  EXPECT_EQ(CountSyncMarkers(file), 1u);
  EXPECT_EQ(file.substr(file.size() - 16),
            std::string(reinterpret_cast<const char*>(kSync.data()), 16));
  ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(file, "mem"));
  EXPECT_TRUE(contents.records.empty());
}

TEST_P(AvroCodecTest, EveryPrefixIsAnErrorOrAValidPrefix) {
  AvroSchema schema = TestSchema();
  std::vector<AvroValue> rows = MakeRows(schema, 6);
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(rows, Options(GetParam(), 2)));
  int complete = 0;
  for (size_t length = 0; length < file.size(); ++length) {
    std::string prefix = file.substr(0, length);
    Result<AvroFileContents> contents = ReadAvroFile(prefix, "/t/manifest/m-0");
    if (!contents.ok()) {
      EXPECT_TRUE(contents.status().IsCorruption()) << contents.status().ToString();
      EXPECT_EQ(contents.status().message().rfind("'/t/manifest/m-0': ", 0), 0u);
      continue;
    }
    ++complete;  // the header alone, or whole blocks
    ASSERT_LE(contents->records.size(), rows.size());
    for (size_t i = 0; i < contents->records.size(); ++i) EXPECT_EQ(contents->records[i], rows[i]);
  }
  EXPECT_EQ(complete, 3);  // header only, 1 block, 2 blocks (3 blocks is the full file)
}

TEST_P(AvroCodecTest, RandomByteFlipsNeverCrash) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(MakeRows(schema, 6), Options(GetParam(), 3)));
  std::mt19937 rng(42);
  int errors = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string mutated = file;
    for (int flips = 1 + round % 3; flips > 0; --flips) {
      mutated[rng() % mutated.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    Result<AvroFileContents> contents = ReadAvroFile(mutated, "fuzz");
    if (!contents.ok()) ++errors;
  }
  EXPECT_GT(errors, 0);
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, AvroCodecTest,
                         ::testing::Values(AvroCodec::kNull, AvroCodec::kDeflate,
                                           AvroCodec::kSnappy, AvroCodec::kZstandard),
                         [](const auto& info) { return std::string(AvroCodecName(info.param)); });

TEST(AvroFileTest, BlocksAreCutByByteSize) {
  AvroSchema schema = TestSchema();
  AvroWriterOptions options = Options(AvroCodec::kNull);
  options.block_size_bytes = 200;
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(MakeRows(schema, 40), options));
  EXPECT_GT(CountSyncMarkers(file), 5u);
  ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(file, "mem"));
  EXPECT_EQ(contents.records.size(), 40u);
}

TEST(AvroFileTest, FixedSyncMarkerMakesOutputReproducible) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string a,
                       WriteFile(MakeRows(schema, 5), Options(AvroCodec::kZstandard)));
  ASSERT_OK_AND_ASSIGN(std::string b,
                       WriteFile(MakeRows(schema, 5), Options(AvroCodec::kZstandard)));
  EXPECT_EQ(a, b);
  AvroWriterOptions random = Options(AvroCodec::kZstandard);
  random.sync_marker.reset();
  ASSERT_OK_AND_ASSIGN(std::string c, WriteFile(MakeRows(schema, 5), random));
  ASSERT_OK_AND_ASSIGN(std::string d, WriteFile(MakeRows(schema, 5), random));
  EXPECT_NE(c, d);
}

// zstd contexts are reused across writers of a thread: a file's bytes do not depend on what the
// thread compressed before (another level, other rows), nor on the thread.
TEST(AvroFileTest, ZstdOutputDoesNotDependOnEarlierWriters) {
  AvroSchema schema = TestSchema();
  std::string fresh;
  std::thread([&] {
    fresh = *WriteFile(MakeRows(schema, 50), Options(AvroCodec::kZstandard));
  }).join();
  AvroWriterOptions other = Options(AvroCodec::kZstandard);
  other.compression_level = 19;
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK_AND_ASSIGN(std::string before, WriteFile(MakeRows(schema, 400), other));
    ASSERT_OK_AND_ASSIGN(std::string again,
                         WriteFile(MakeRows(schema, 50), Options(AvroCodec::kZstandard)));
    EXPECT_EQ(again, fresh) << "round " << round;
  }
}

TEST(AvroFileTest, HeaderEmbedsSchemaAndCodec) {
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile({}, Options(AvroCodec::kZstandard)));
  std::string expected("Obj\x01", 4);
  EncodeLong(2, &expected);
  EncodeBytes("avro.schema", &expected);
  EncodeBytes(TestSchema().ToJson(), &expected);
  EncodeBytes("avro.codec", &expected);
  EncodeBytes("zstandard", &expected);
  EncodeLong(0, &expected);
  expected.append(reinterpret_cast<const char*>(kSync.data()), 16);
  EXPECT_EQ(file, expected);
}

class StringOutputStream : public io::OutputStream {
 public:
  using io::OutputStream::Write;
  Status Write(const void* data, int64_t size) override {
    bytes.append(static_cast<const char*>(data), static_cast<size_t>(size));
    ++writes;
    return Status::OK();
  }
  int64_t Position() const override { return static_cast<int64_t>(bytes.size()); }
  Status Close() override { return Status::OK(); }
  const std::string& path() const override { return path_; }

  std::string bytes;
  int writes = 0;

 private:
  std::string path_ = "mem";
};

TEST(AvroFileTest, StreamsBlocksToASink) {
  AvroSchema schema = TestSchema();
  StringOutputStream sink;
  ASSERT_OK_AND_ASSIGN(auto writer,
                       AvroFileWriter::Make(schema, Options(AvroCodec::kSnappy, 4), &sink));
  for (const AvroValue& row : MakeRows(schema, 10)) ASSERT_OK(writer->Append(row));
  EXPECT_EQ(sink.writes, 3);  // header and two full blocks before Finish()
  ASSERT_OK_AND_ASSIGN(std::string rest, writer->Finish());
  EXPECT_TRUE(rest.empty());
  EXPECT_EQ(writer->num_records(), 10);
  EXPECT_EQ(writer->bytes_written(), static_cast<int64_t>(sink.bytes.size()));
  ASSERT_OK_AND_ASSIGN(std::string in_memory,
                       WriteFile(MakeRows(schema, 10), Options(AvroCodec::kSnappy, 4)));
  EXPECT_EQ(sink.bytes, in_memory);
}

TEST(AvroFileTest, WriterRejectsBadOptionsAndRecords) {
  AvroWriterOptions negative = Options(AvroCodec::kNull);
  negative.records_per_block = -1;
  EXPECT_TRUE(AvroFileWriter::Make(TestSchema(), negative).status().IsInvalid());
  AvroWriterOptions reserved = Options(AvroCodec::kNull);
  reserved.metadata = {{"avro.codec", "x"}};
  EXPECT_TRUE(AvroFileWriter::Make(TestSchema(), reserved).status().IsInvalid());
  AvroWriterOptions level = Options(AvroCodec::kZstandard);
  level.compression_level = 1000;
  EXPECT_TRUE(AvroFileWriter::Make(TestSchema(), level).status().IsInvalid());
  level.codec = AvroCodec::kDeflate;
  level.compression_level = 10;
  EXPECT_TRUE(AvroFileWriter::Make(TestSchema(), level).status().IsInvalid());

  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Make(schema, Options(AvroCodec::kNull)));
  ASSERT_OK(writer->Append(MakeRow(schema, 0)));
  AvroValue bad = MakeRow(schema, 1);
  bad.mutable_fields()[4] = AvroValue::Int(5);
  Status st = writer->Append(bad);
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_EQ(st.message(), "record 1: field 'name': cannot write an Avro int value as string");
  ASSERT_OK(writer->Append(MakeRow(schema, 1)));  // the failed record left nothing behind
  ASSERT_OK_AND_ASSIGN(std::string file, writer->Finish());
  EXPECT_TRUE(writer->Append(MakeRow(schema, 2)).IsInvalid());
  ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(file, "mem"));
  ASSERT_EQ(contents.records.size(), 2u);
  EXPECT_EQ(contents.records[1], MakeRow(schema, 1));
}

TEST(AvroFileTest, ReaderIteratesWithNext) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file,
                       WriteFile(MakeRows(schema, 5), Options(AvroCodec::kDeflate, 2)));
  ASSERT_OK_AND_ASSIGN(auto reader, AvroFileReader::Open(file, "mem"));
  EXPECT_EQ(reader->sync_marker(), kSync);
  EXPECT_EQ(reader->GetMetadata("avro.codec"), "deflate");
  EXPECT_EQ(reader->GetMetadata("nope"), std::nullopt);
  AvroValue row;
  int n = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&row));
    if (!more) break;
    EXPECT_EQ(row, MakeRow(schema, n++));
  }
  EXPECT_EQ(n, 5);
}

// --- Bad input: each case is a Status naming the file and the problem. ---

std::string HeaderWith(const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string file("Obj\x01", 4);
  EncodeLong(static_cast<int64_t>(metadata.size()), &file);
  for (const auto& [key, value] : metadata) {
    EncodeBytes(key, &file);
    EncodeBytes(value, &file);
  }
  EncodeLong(0, &file);
  file.append(reinterpret_cast<const char*>(kSync.data()), 16);
  return file;
}

void ExpectError(const std::string& file, StatusCode code, const std::string& message) {
  Status st = ReadStatus(file);
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_EQ(st.message(), message);
}

void ExpectErrorContaining(const std::string& file, StatusCode code, const std::string& part) {
  Status st = ReadStatus(file);
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(part), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().rfind("'/t/manifest/m-0': ", 0), 0u) << st.ToString();
}

TEST(AvroFileErrorTest, WrongMagic) {
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile({}, Options(AvroCodec::kNull)));
  file[3] = '\x02';
  ExpectErrorContaining(file, StatusCode::kCorruption, "not an Avro container file");
  ExpectErrorContaining("ORC\x18", StatusCode::kCorruption, "not an Avro container file");
  ExpectErrorContaining("", StatusCode::kCorruption, "file size 0");
}

TEST(AvroFileErrorTest, UnknownCodec) {
  std::string file = HeaderWith({{"avro.schema", "\"long\""}, {"avro.codec", "bzip2"}});
  ExpectError(file, StatusCode::kNotImplemented,
              "'/t/manifest/m-0': unsupported Avro codec 'bzip2' (supported: null, deflate, "
              "snappy, zstandard)");
}

TEST(AvroFileErrorTest, MissingOrInvalidSchema) {
  ExpectError(HeaderWith({{"avro.codec", "null"}}), StatusCode::kCorruption,
              "'/t/manifest/m-0': the header has no avro.schema");
  ExpectErrorContaining(HeaderWith({{"avro.schema", "{\"type\":\"recor"}}), StatusCode::kCorruption,
                        "invalid avro.schema: Avro schema is not valid JSON");
}

TEST(AvroFileErrorTest, MissingCodecMeansNull) {
  std::string file = HeaderWith({{"avro.schema", "\"long\""}});
  EncodeLong(1, &file);  // one record
  EncodeLong(1, &file);  // of one byte
  EncodeLong(-3, &file);
  file.append(reinterpret_cast<const char*>(kSync.data()), 16);
  ASSERT_OK_AND_ASSIGN(AvroFileContents contents, ReadAvroFile(file, "mem"));
  EXPECT_EQ(contents.codec, AvroCodec::kNull);
  ASSERT_EQ(contents.records.size(), 1u);
  EXPECT_EQ(contents.records[0].long_value(), -3);
}

TEST(AvroFileErrorTest, HeaderMetadataLies) {
  std::string file("Obj\x01", 4);
  EncodeLong(1000000, &file);
  ExpectErrorContaining(file, StatusCode::kCorruption, "header metadata claims 1000000 entries");
  file = std::string("Obj\x01", 4);
  EncodeLong(1, &file);
  EncodeLong(-7, &file);  // negative key length
  file.append("padding");
  ExpectErrorContaining(file, StatusCode::kCorruption, "header metadata key: byte string");
}

// A record count damaged down to 0 must not make the block's records vanish (they were a
// manifest's entries, i.e. whole data files).
TEST(AvroFileErrorTest, ZeroRecordCountWithData) {
  AvroSchema schema = TestSchema();
  for (AvroCodec codec : {AvroCodec::kNull, AvroCodec::kZstandard}) {
    ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(MakeRows(schema, 2), Options(codec, 1)));
    std::string header = *WriteFile({}, Options(codec));
    ASSERT_EQ(static_cast<uint8_t>(file[header.size()]), 0x02);  // zigzag varint of 1 record
    file[header.size()] = 0x00;
    ExpectErrorContaining(file, StatusCode::kCorruption, "block 0 claims 0 records but holds");
  }
}

TEST(AvroFileErrorTest, BadSnappyChecksum) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file,
                       WriteFile(MakeRows(schema, 3), Options(AvroCodec::kSnappy)));
  file[file.size() - 17] ^= 0x01;  // last byte of the CRC, just before the closing sync marker
  ExpectErrorContaining(file, StatusCode::kCorruption,
                        "block 0 (snappy): snappy checksum mismatch");
}

TEST(AvroFileErrorTest, CorruptZstdBlock) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file,
                       WriteFile(MakeRows(schema, 3), Options(AvroCodec::kZstandard)));
  auto [start, size] = FirstBlockData(file, AvroCodec::kZstandard);
  ASSERT_GT(size, 4u);
  std::string bad_magic = file;
  bad_magic[start] ^= 0x55;
  ExpectErrorContaining(bad_magic, StatusCode::kCorruption,
                        "block 0 (zstandard): zstd data is invalid");
  // Garbage in place of the compressed frame.
  std::string garbage = file;
  for (size_t i = start + 4; i < start + size; ++i) garbage[i] = '\xff';
  ExpectErrorContaining(garbage, StatusCode::kCorruption, "block 0");
}

TEST(AvroFileErrorTest, CorruptDeflateBlock) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file,
                       WriteFile(MakeRows(schema, 3), Options(AvroCodec::kDeflate)));
  auto [start, size] = FirstBlockData(file, AvroCodec::kDeflate);
  file[start] = '\xff';  // block type 3 does not exist
  ExpectErrorContaining(file, StatusCode::kCorruption,
                        "block 0 (deflate): deflate data is invalid");
}

TEST(AvroFileErrorTest, TruncatedBlockNamesSizes) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(MakeRows(schema, 3), Options(AvroCodec::kNull)));
  auto [start, size] = FirstBlockData(file, AvroCodec::kNull);
  std::string cut = file.substr(0, start + 10);
  ExpectError(cut, StatusCode::kCorruption,
              "'/t/manifest/m-0': block 0 is truncated (needs " + std::to_string(size + 16) +
                  " bytes, 10 left)");
}

TEST(AvroFileErrorTest, WrongSyncMarker) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(MakeRows(schema, 3), Options(AvroCodec::kNull)));
  file[file.size() - 1] ^= 0x01;
  ExpectErrorContaining(file, StatusCode::kCorruption, "block 0 ends with a wrong sync marker");
}

TEST(AvroFileErrorTest, RecordCountLies) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file, WriteFile(MakeRows(schema, 2), Options(AvroCodec::kNull)));
  std::string header = *WriteFile({}, Options(AvroCodec::kNull));
  ASSERT_EQ(file[header.size()], '\x04');  // count 2
  std::string fewer = file;
  fewer[header.size()] = '\x02';
  ExpectErrorContaining(fewer, StatusCode::kCorruption, "block 0 has ");
  ExpectErrorContaining(fewer, StatusCode::kCorruption, " unread bytes after its 1 records");
  std::string more = file;
  more[header.size()] = '\x06';
  ExpectErrorContaining(more, StatusCode::kCorruption, "block 0, record 2: ");
  std::string huge = file.substr(0, header.size());
  EncodeLong(int64_t{1} << 50, &huge);
  huge.append(file.substr(header.size() + 1));
  ExpectErrorContaining(huge, StatusCode::kCorruption, "block 0 claims 1125899906842624 records");
  std::string negative = file;
  negative[header.size()] = '\x03';
  ExpectErrorContaining(negative, StatusCode::kCorruption, "negative record count (-2)");
}

// Splitting reads the block frames and reports their damage as reading would; a restricted
// reader names blocks by their index in the file; a run must lie within the file's blocks.
TEST(AvroFileErrorTest, RunsOfBlocksReportDamageAndBadRestrictions) {
  AvroSchema schema = TestSchema();
  ASSERT_OK_AND_ASSIGN(std::string file,
                       WriteFile(MakeRows(schema, 30), Options(AvroCodec::kNull, 3)));
  std::string sync(reinterpret_cast<const char*>(kSync.data()), kSync.size());
  // The sync marker ending block 4 (the header's is the first).
  size_t at = 0;
  for (int i = 0; i < 6; ++i) at = file.find(sync, at + 1);
  std::string damaged = file;
  damaged[at] ^= 0x01;
  ASSERT_OK_AND_ASSIGN(auto reader, AvroFileReader::Open(damaged, "/t/m"));
  auto runs = reader->SplitIntoRuns(2);
  ASSERT_FALSE(runs.ok());
  EXPECT_TRUE(runs.status().IsCorruption());
  EXPECT_NE(runs.status().message().find("'/t/m': block 4 ends with a wrong sync marker"),
            std::string::npos)
      << runs.status().ToString();

  // A record damaged in the second run: the error names the block as the whole file counts it.
  ASSERT_OK_AND_ASSIGN(reader, AvroFileReader::Open(file, "/t/m"));
  ASSERT_OK_AND_ASSIGN(auto good_runs, reader->SplitIntoRuns(2));
  ASSERT_EQ(good_runs.size(), 2u);
  EXPECT_EQ(good_runs[1].first_block, 5);
  std::string bad_count = file;
  ASSERT_EQ(bad_count[good_runs[1].begin], '\x06');  // 3 records
  bad_count[good_runs[1].begin] = '\x08';            // 4
  ASSERT_OK_AND_ASSIGN(auto second, AvroFileReader::Open(bad_count, "/t/m"));
  ASSERT_OK(second->RestrictTo(good_runs[1]));
  auto read = second->ReadAll();
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("block 5, record 3"), std::string::npos)
      << read.status().ToString();

  AvroFileReader::BlockRun outside = good_runs[1];
  outside.end = file.size() + 1;
  ASSERT_OK_AND_ASSIGN(auto fresh, AvroFileReader::Open(file, "/t/m"));
  EXPECT_TRUE(fresh->RestrictTo(outside).IsInvalid());
  AvroFileReader::BlockRun in_header = good_runs[0];
  in_header.begin = 3;
  EXPECT_TRUE(fresh->RestrictTo(in_header).IsInvalid());
  AvroValue first;
  ASSERT_OK_AND_ASSIGN(bool more, fresh->Next(&first));
  EXPECT_TRUE(more);
  EXPECT_TRUE(fresh->RestrictTo(good_runs[1]).IsInvalid());  // it has read already
}

TEST(AvroFileErrorTest, DecompressionIsBounded) {
  AvroSchema schema = *AvroSchema::Parse(R"("string")");
  AvroWriterOptions options = Options(AvroCodec::kZstandard);
  ASSERT_OK_AND_ASSIGN(auto writer, AvroFileWriter::Make(schema, options));
  ASSERT_OK(writer->Append(AvroValue::String(std::string(1 << 20, 'x'))));
  ASSERT_OK_AND_ASSIGN(std::string file, writer->Finish());
  EXPECT_LT(file.size(), 1000u);
  AvroReaderOptions small;
  small.max_block_bytes = 100000;
  Result<AvroFileContents> contents = ReadAvroFile(file, "bomb", small);
  ASSERT_FALSE(contents.ok());
  EXPECT_TRUE(contents.status().IsCorruption());
  EXPECT_NE(contents.status().message().find("max_block_bytes"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(AvroFileContents full, ReadAvroFile(file, "bomb"));
  EXPECT_EQ(full.records[0].string_value().size(), size_t{1} << 20);
}

}  // namespace
}  // namespace freshet::container::avro
