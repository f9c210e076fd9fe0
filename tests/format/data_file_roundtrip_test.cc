// Writes every Paimon type through each data-file format and reads it back.
#include <arrow/adapters/orc/adapter.h>
#include <arrow/io/file.h>
#include <arrow/util/thread_pool.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "bridge/arrow_schema.h"
#include "data_file_test_util.h"
#include "testing/fault_injecting_file_io.h"

namespace freshet::format {
namespace {

using meta::DataType;
using testing::Field;
using testing::Must;
using testing::WriteFile;

std::vector<meta::DataField> AllTypesSchema(bool with_nanos) {
  std::vector<meta::DataField> fields = {
      Field(0, "b", DataType::Boolean()),
      Field(1, "ti", DataType::TinyInt()),
      Field(2, "si", DataType::SmallInt()),
      Field(3, "i", DataType::Int()),
      Field(4, "bi", DataType::BigInt()),
      Field(5, "f", DataType::Float()),
      Field(6, "d", DataType::Double()),
      Field(7, "dec9", Must(DataType::Decimal(9, 2))),
      Field(8, "dec18", Must(DataType::Decimal(18, 4))),
      Field(9, "dec38", Must(DataType::Decimal(38, 10))),
      Field(10, "c", Must(DataType::Char(5))),
      Field(11, "vc", Must(DataType::VarChar(10))),
      Field(12, "s", DataType::String()),
      Field(13, "bin", Must(DataType::Binary(3))),
      Field(14, "vb", DataType::Bytes()),
      Field(15, "dt", DataType::Date()),
      Field(16, "tm", Must(DataType::Time(0))),
      Field(17, "ts3", Must(DataType::Timestamp(3))),
      Field(18, "ts6", Must(DataType::Timestamp(6))),
      Field(20, "ltz3", Must(DataType::TimestampLtz(3))),
      Field(21, "ltz6", Must(DataType::TimestampLtz(6))),
      Field(23, "arr", DataType::Array(DataType::Int())),
      Field(24, "m", DataType::Map(DataType::String(false), DataType::BigInt())),
      Field(25, "ms", DataType::Multiset(DataType::String())),
      Field(26, "r",
            DataType::Row({Field(27, "x", DataType::Int()),
                           Field(28, "y", DataType::Array(DataType::String()))})),
      Field(29, "nn", DataType::Int(false)),
      Field(30, "arr_row", DataType::Array(DataType::Row({Field(31, "z", DataType::String())}))),
  };
  if (with_nanos) {
    fields.push_back(Field(19, "ts9", Must(DataType::Timestamp(9))));
    fields.push_back(Field(22, "ltz9", Must(DataType::TimestampLtz(9))));
  }
  return fields;
}

// Arrow's ORC reader decodes timestamps as nanoseconds, so ORC values must stay within 1677-2262.
std::string AllTypesRows(bool with_nanos, bool pre_epoch_fractions, bool narrow_timestamps) {
  std::string ts_low = pre_epoch_fractions ? "1969-12-31 23:59:59.999" : "1900-01-01 00:00:00";
  std::string rows =
      R"({"b": true, "ti": -128, "si": -32768, "i": -2147483648, "bi": -9223372036854775808, "f": -3.4028235E38, "d": -1.7976931348623157E308, "dec9": "-9999999.99", "dec18": "-99999999999999.9999", "dec38": "-9999999999999999999999999999.9999999999", "c": "abcde", "vc": "0123456789", "s": "héllo wörld ✓ 😀", "bin": "AAEC", "vb": "", "dt": "0001-01-01", "tm": "00:00:00", "ts3": ")" +
      ts_low +
      R"(", "ts6": "2024-02-29 23:59:59.999999", "ltz3": "1970-01-01 00:00:00Z", "ltz6": "2038-01-19 03:14:08.000001Z", "arr": [1, null, 3], "m": [["k1", 1], ["k2", null]], "ms": [["a", 2], ["b", 1]], "r": {"x": 7, "y": ["p", null, ""]}, "nn": 0, "arr_row": [{"z": "q"}, null]__NANOS1__}
{"b": false, "ti": 127, "si": 32767, "i": 2147483647, "bi": 9223372036854775807, "f": 1.4E-45, "d": 4.9E-324, "dec9": "9999999.99", "dec18": "99999999999999.9999", "dec38": "9999999999999999999999999999.9999999999", "c": "", "vc": "", "s": "", "bin": "////", "vb": "AP8=", "dt": "9999-12-31", "tm": "23:59:59", "ts3": "9999-12-31 23:59:59.999", "ts6": "1970-01-01 00:00:00.000001", "ltz3": "2024-01-01 10:00:00.123Z", "ltz6": "1969-07-20 20:17:40.000000Z", "arr": [], "m": [], "ms": [], "r": {"x": null, "y": []}, "nn": -1, "arr_row": []__NANOS2__}
{"nn": 42, "f": "NaN", "d": "-Infinity"}
)";
  auto replace = [&](const std::string& key, const std::string& value) {
    rows.replace(rows.find(key), key.size(), with_nanos ? value : "");
  };
  if (narrow_timestamps) {
    rows.replace(rows.find("9999-12-31 23:59:59.999"), 23, "2200-12-31 23:59:59.999");
  }
  replace("__NANOS1__",
          R"(, "ts9": "2024-01-01 10:00:00.123456789", "ltz9": "1969-12-31 23:59:59.999999999Z")");
  replace("__NANOS2__",
          R"(, "ts9": "1677-09-22 00:12:43.145224193", "ltz9": "2262-04-11 23:47:16.854775807Z")");
  return rows;
}

class RoundTripTest : public ::testing::TestWithParam<FileFormat> {
 protected:
  std::string PathFor(const std::string& name) const {
    return dir_.Sub(name + "." + FileFormatName(GetParam()));
  }
  // Avro cannot hold TIMESTAMP(7..9) (Java rejects it too).
  bool WithNanos() const { return GetParam() != FileFormat::kAvro; }
  bool IsOrc() const { return GetParam() == FileFormat::kOrc; }

  freshet::testing::TempDir dir_;
};

TEST_P(RoundTripTest, AllTypesWithNullsAndExtremes) {
  auto schema = AllTypesSchema(WithNanos());
  // Pre-1970 values with a sub-second part round-trip exactly through freshet in every format
  // (ORC included; Java cannot read such ORC values, see docs/data-files.md).
  bool pre_epoch = true;
  auto batch = testing::ParseRows(AllTypesRows(WithNanos(), pre_epoch, IsOrc()), schema);
  ASSERT_NE(batch, nullptr);
  std::string path = PathFor("all");
  ASSERT_OK_AND_ASSIGN(auto result, testing::WriteFile(GetParam(), path, schema, {batch, batch}));
  EXPECT_EQ(result.row_count, 6);
  EXPECT_EQ(result.file_size, io::LocalFileIO()->GetFileInfo(path)->size);
  ASSERT_OK_AND_ASSIGN(auto read, testing::ReadFile(path, schema));
  ASSERT_TRUE(read->schema()->Equals(*batch->schema(), /*check_metadata=*/true))
      << read->schema()->ToString(true) << "\nvs\n"
      << batch->schema()->ToString(true);
  EXPECT_EQ(testing::Json(*read, schema),
            testing::Json(*batch, schema) + testing::Json(*batch, schema));
}

TEST_P(RoundTripTest, SmallBatchesAndProjection) {
  auto schema = AllTypesSchema(WithNanos());
  auto batch = testing::ParseRows(AllTypesRows(WithNanos(), false, IsOrc()), schema);
  ASSERT_NE(batch, nullptr);
  std::string path = PathFor("projection");
  ASSERT_OK(testing::WriteFile(GetParam(), path, schema, {batch}).status());
  std::vector<meta::DataField> projection = {schema[12], schema[26], schema[3]};
  ASSERT_OK_AND_ASSIGN(auto size, io::LocalFileIO()->GetFileInfo(path));
  FormatReaderOptions two_rows_a_batch;
  two_rows_a_batch.batch_size = 2;
  ASSERT_OK_AND_ASSIGN(auto reader, FormatReader::Open(*io::LocalFileIO(), path, size.size,
                                                       projection, two_rows_a_batch));
  EXPECT_EQ(reader->num_rows(), 3);
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAllBatches(reader.get()));
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0]->num_rows(), 2);
  EXPECT_EQ(batches[1]->num_rows(), 1);
  auto expected = batch->SelectColumns({12, 26, 3}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto all, testing::ReadFile(path, projection));
  EXPECT_EQ(testing::Json(*all, projection), testing::Json(*expected, projection));
}

TEST_P(RoundTripTest, EmptyFileAndNoColumnsRequested) {
  auto schema = AllTypesSchema(WithNanos());
  std::string path = PathFor("empty");
  ASSERT_OK_AND_ASSIGN(auto result, testing::WriteFile(GetParam(), path, schema, {}));
  EXPECT_EQ(result.row_count, 0);
  ASSERT_OK_AND_ASSIGN(auto read, testing::ReadFile(path, schema));
  EXPECT_EQ(read->num_rows(), 0);

  auto batch = testing::ParseRows(AllTypesRows(WithNanos(), false, IsOrc()), schema);
  std::string rows_path = PathFor("rows");
  ASSERT_OK(testing::WriteFile(GetParam(), rows_path, schema, {batch}).status());
  std::vector<meta::DataField> only_new = {Field(99, "added", DataType::Int())};
  ASSERT_OK_AND_ASSIGN(auto nulls, testing::ReadFile(rows_path, only_new));
  EXPECT_EQ(nulls->num_rows(), 3);
  EXPECT_EQ(nulls->column(0)->null_count(), 3);
}

TEST_P(RoundTripTest, RejectsWrongBatches) {
  auto schema = AllTypesSchema(WithNanos());
  ASSERT_OK_AND_ASSIGN(auto out, io::LocalFileIO()->OpenForWrite(PathFor("wrong")));
  ASSERT_OK_AND_ASSIGN(auto writer, FormatWriter::Open(GetParam(), std::move(out), schema));
  std::vector<meta::DataField> other = {Field(0, "b", DataType::Int())};
  auto wrong = testing::ParseRows("{\"b\": 1}\n", other);
  Status status = writer->Write(*wrong);
  EXPECT_TRUE(status.IsInvalid()) << status.ToString();
  EXPECT_NE(status.message().find(PathFor("wrong")), std::string::npos) << status.ToString();
}

TEST_P(RoundTripTest, MissingTruncatedAndCorruptFilesAreErrors) {
  auto schema = AllTypesSchema(WithNanos());
  auto batch = testing::ParseRows(AllTypesRows(WithNanos(), false, IsOrc()), schema);
  std::string path = PathFor("good");
  ASSERT_OK(testing::WriteFile(GetParam(), path, schema, {batch}).status());
  std::string bytes = freshet::testing::ReadWholeFile(path);

  auto missing = testing::ReadFile(PathFor("missing"), schema, {}, 100);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing"), std::string::npos);

  for (size_t keep : {size_t{0}, size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    std::string truncated = PathFor("truncated" + std::to_string(keep));
    ASSERT_OK(io::LocalFileIO()->WriteFile(truncated, bytes.substr(0, keep)));
    auto read = testing::ReadFile(truncated, schema);
    EXPECT_FALSE(read.ok()) << "kept " << keep << " bytes";
    if (!read.ok()) {
      EXPECT_NE(read.status().message().find(truncated), std::string::npos)
          << read.status().ToString();
    }
  }
  // The size from the manifest is larger than the file: an error, not a crash.
  auto too_long = testing::ReadFile(path, schema, {}, static_cast<int64_t>(bytes.size()) + 100);
  EXPECT_FALSE(too_long.ok());

  std::string garbage = PathFor("garbage");
  std::string corrupt = bytes;
  for (size_t i = corrupt.size() / 4; i < corrupt.size() * 3 / 4; ++i) corrupt[i] ^= 0x5A;
  ASSERT_OK(io::LocalFileIO()->WriteFile(garbage, corrupt));
  auto read = testing::ReadFile(garbage, schema);  // must not crash; may or may not detect
  if (!read.ok()) {
    EXPECT_NE(read.status().message().find(garbage), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTripTest,
                         ::testing::Values(FileFormat::kParquet, FileFormat::kOrc,
                                           FileFormat::kAvro),
                         [](const auto& info) { return std::string(FileFormatName(info.param)); });

TEST(FileFormatTest, FromPathAndName) {
  EXPECT_EQ(*FileFormatFromPath("/t/bucket-0/data-1-0.parquet"), FileFormat::kParquet);
  EXPECT_EQ(*FileFormatFromPath("data-1-0.orc"), FileFormat::kOrc);
  EXPECT_EQ(*FileFormatFromPath("data-1-0.avro"), FileFormat::kAvro);
  EXPECT_FALSE(FileFormatFromPath("data-1-0").ok());
  EXPECT_FALSE(FileFormatFromPath("data-1-0.csv").ok());
  EXPECT_EQ(*ParseFileFormat("PARQUET"), FileFormat::kParquet);
}

TEST(FormatWriterOptionsTest, FromTableOptions) {
  std::vector<meta::DataField> fields = {Field(0, "a", DataType::Int()),
                                         Field(1, "b", DataType::String())};
  ASSERT_OK_AND_ASSIGN(auto options, FormatWriterOptions::FromTableOptions(
                                         fields, {{"file.compression", "SNAPPY"},
                                                  {"file.compression.zstd-level", "3"},
                                                  {"metadata.stats-mode", "full"},
                                                  {"fields.b.stats-mode", "truncate(4)"}}));
  EXPECT_EQ(options.compression, "snappy");
  EXPECT_EQ(options.zstd_level, 3);
  ASSERT_EQ(options.stats_modes.size(), 2u);
  EXPECT_EQ(options.stats_modes[0].ToString(), "full");
  EXPECT_EQ(options.stats_modes[1].ToString(), "truncate(4)");
  EXPECT_FALSE(
      FormatWriterOptions::FromTableOptions(fields, {{"file.compression", "brotli9"}}).ok());
  EXPECT_FALSE(
      FormatWriterOptions::FromTableOptions(fields, {{"metadata.stats-mode", "truncate(x)"}}).ok());
}

// Rows 0..n-1: a distinct id, a value from 8 repeating strings.
std::shared_ptr<arrow::RecordBatch> IdsAndLabels(int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder labels;
  for (int64_t i = first; i < first + n; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(labels.Append("label-" + std::to_string(i % 8)).ok());
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("label", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, n, {*ids.Finish(), *labels.Finish()});
}

TEST(FormatWriterOptionsTest, RowGroupStripeAndDictionaryOptionsShapeTheFiles) {
  freshet::testing::TempDir dir;
  std::vector<meta::DataField> fields = {Field(0, "id", DataType::BigInt(false)),
                                         Field(1, "label", DataType::String())};
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int64_t b = 0; b < 20; ++b) batches.push_back(IdsAndLabels(b * 1000, 1000));

  ASSERT_OK_AND_ASSIGN(auto options,
                       FormatWriterOptions::FromTableOptions(
                           fields, {{"parquet.block.size", "64 kb"}, {"orc.stripe.size", "1 mb"}}));
  EXPECT_EQ(options.parquet_row_group_bytes, 64 << 10);
  EXPECT_EQ(options.orc_stripe_bytes, 1 << 20);
  EXPECT_FALSE(FormatWriterOptions::FromTableOptions(fields, {{"parquet.block.size", "0"}}).ok());
  options.parquet_plain_columns = {"id"};

  // Parquet: 20 batches of about 17 KB of Arrow data each, a row group per 64 KiB of them; the
  // id column without a dictionary, the label column with one.
  std::string parquet_path = dir.Sub("x.parquet");
  ASSERT_OK(WriteFile(FileFormat::kParquet, parquet_path, fields, batches, options).status());
  auto metadata = parquet::ParquetFileReader::OpenFile(parquet_path)->metadata();
  EXPECT_EQ(metadata->num_rows(), 20000);
  EXPECT_GE(metadata->num_row_groups(), 4);
  EXPECT_LE(metadata->num_row_groups(), 7);
  for (int g = 0; g < metadata->num_row_groups(); ++g) {
    EXPECT_FALSE(metadata->RowGroup(g)->ColumnChunk(0)->has_dictionary_page()) << g;
    EXPECT_TRUE(metadata->RowGroup(g)->ColumnChunk(1)->has_dictionary_page()) << g;
  }
  ASSERT_OK_AND_ASSIGN(auto parquet_rows, testing::ReadFile(parquet_path, fields));
  EXPECT_EQ(parquet_rows->num_rows(), 20000);

  // Without the options: one row group, dictionaries everywhere.
  std::string default_path = dir.Sub("default.parquet");
  ASSERT_OK(WriteFile(FileFormat::kParquet, default_path, fields, batches).status());
  auto default_metadata = parquet::ParquetFileReader::OpenFile(default_path)->metadata();
  EXPECT_EQ(default_metadata->num_row_groups(), 1);
  EXPECT_TRUE(default_metadata->RowGroup(0)->ColumnChunk(0)->has_dictionary_page());

  // ORC: the smaller the stripe size, the more stripes.
  auto stripes = [&](int64_t stripe_bytes, const std::string& name) -> int64_t {
    FormatWriterOptions orc_options;
    orc_options.orc_stripe_bytes = stripe_bytes;
    std::vector<std::shared_ptr<arrow::RecordBatch>> many;
    for (int64_t b = 0; b < 200; ++b) many.push_back(IdsAndLabels(b * 1000, 1000));
    EXPECT_TRUE(WriteFile(FileFormat::kOrc, dir.Sub(name), fields, many, orc_options).ok());
    auto file = arrow::io::ReadableFile::Open(dir.Sub(name)).ValueOrDie();
    auto reader =
        arrow::adapters::orc::ORCFileReader::Open(file, arrow::default_memory_pool()).ValueOrDie();
    return reader->NumberOfStripes();
  };
  EXPECT_EQ(stripes(64 << 20, "big.orc"), 1);
  EXPECT_GT(stripes(64 << 10, "small.orc"), 1);
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// parquet.write.parallel-columns encodes a row group's columns on freshet's pool: the file is the
// same, byte for byte, as one encoded on the writer's thread, whichever threads the writers run
// on. Writers running as tasks of Arrow's own CPU pool (as in an Acero plan) must not wait for
// column tasks queued behind themselves on that pool: all of them finish.
TEST(FormatWriterOptionsTest, ParallelColumnsWriteTheSameBytesFromAnyThread) {
  freshet::testing::TempDir dir;
  const std::vector<meta::DataField> fields = AllTypesSchema(true);
  std::string rows;
  for (int i = 0; i < 300; ++i) rows += AllTypesRows(true, false, false);
  const auto batch = testing::ParseRows(rows, fields);
  ASSERT_NE(batch, nullptr);
  const std::vector<std::shared_ptr<arrow::RecordBatch>> batches(40, batch);
  FormatWriterOptions options;
  options.parquet_row_group_bytes = 256 << 10;  // several row groups

  options.parquet_parallel_columns = false;
  const std::string serial_path = dir.Sub("serial.parquet");
  ASSERT_OK(WriteFile(FileFormat::kParquet, serial_path, fields, batches, options).status());
  const std::string serial = FileBytes(serial_path);
  EXPECT_GT(parquet::ParquetFileReader::OpenFile(serial_path)->metadata()->num_row_groups(), 2);

  options.parquet_parallel_columns = true;
  auto write = [&](const std::string& name) {
    return WriteFile(FileFormat::kParquet, dir.Sub(name), fields, batches, options).status();
  };
  constexpr int kPoolWriters = 6;
  std::vector<arrow::Future<Status>> on_arrow_pool;
  for (int i = 0; i < kPoolWriters; ++i) {
    auto submitted = arrow::internal::GetCpuThreadPool()->Submit(
        write, "pool-" + std::to_string(i) + ".parquet");
    ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
    on_arrow_pool.push_back(*submitted);
  }
  Status from_thread;
  std::thread other([&] { from_thread = write("thread.parquet"); });
  ASSERT_OK(write("caller.parquet"));
  other.join();
  ASSERT_OK(from_thread);
  for (int i = 0; i < kPoolWriters; ++i) {
    auto written = on_arrow_pool[static_cast<size_t>(i)].result();
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    ASSERT_OK(*written);
  }
  for (const std::string name : {"caller", "thread", "pool-0", "pool-5"}) {
    EXPECT_TRUE(FileBytes(dir.Sub(name + ".parquet")) == serial) << name;
  }
  ASSERT_OK_AND_ASSIGN(auto back, testing::ReadFile(dir.Sub("pool-3.parquet"), fields));
  EXPECT_EQ(back->num_rows(), batch->num_rows() * 40);
}

// A large Parquet file's flat columns are decoded on several threads (format/parquet_format.cc,
// kParallelDecodeMin*): whatever the batch size and projection, a read returns exactly the rows
// written, from any number of threads at once; a nested column among the selected ones takes
// Arrow's reader, with the same rows.
TEST(ParquetReadTest, ColumnsDecodedInParallelGiveTheRowsWritten) {
  freshet::testing::TempDir dir;
  const std::vector<meta::DataField> fields = {
      Field(0, "id", DataType::BigInt()),
      Field(1, "k", DataType::Int()),
      Field(2, "s", DataType::String()),
      Field(3, "d", DataType::Double()),
      Field(4, "arr", DataType::Array(DataType::Int())),
  };
  constexpr int64_t kRows = 150'000;
  arrow::Int64Builder ids;
  arrow::Int32Builder ks;
  arrow::StringBuilder strings;
  arrow::DoubleBuilder doubles;
  auto values = std::make_shared<arrow::Int32Builder>();
  arrow::ListBuilder arrays(arrow::default_memory_pool(), values);
  std::mt19937_64 random(7);
  for (int64_t i = 0; i < kRows; ++i) {
    ASSERT_TRUE(ids.Append(i).ok());
    ASSERT_TRUE((i % 11 == 0 ? ks.AppendNull() : ks.Append(static_cast<int32_t>(random()))).ok());
    std::string text(20 + random() % 40, ' ');
    for (char& c : text) c = static_cast<char>('!' + random() % 90);  // ~6 MB that zstd keeps
    ASSERT_TRUE((i % 13 == 0 ? strings.AppendNull() : strings.Append(text)).ok());
    ASSERT_TRUE(doubles.Append(static_cast<double>(random() % 1000) / 8).ok());
    ASSERT_TRUE(arrays.Append().ok());
    ASSERT_TRUE(values->Append(static_cast<int32_t>(i)).ok());
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(5);
  ASSERT_TRUE(ids.Finish(&columns[0]).ok());
  ASSERT_TRUE(ks.Finish(&columns[1]).ok());
  ASSERT_TRUE(strings.Finish(&columns[2]).ok());
  ASSERT_TRUE(doubles.Finish(&columns[3]).ok());
  ASSERT_TRUE(arrays.Finish(&columns[4]).ok());
  ASSERT_OK_AND_ASSIGN(auto arrow_schema, bridge::ToArrowSchema(fields));
  const auto written = arrow::RecordBatch::Make(arrow_schema, kRows, columns);
  FormatWriterOptions options;
  options.parquet_row_group_bytes = 2 << 20;  // several row groups, batches across their ends
  const std::string path = dir.Sub("large.parquet");
  std::vector<std::shared_ptr<arrow::RecordBatch>> slices;
  for (int64_t first = 0; first < kRows; first += 10'000)
    slices.push_back(written->Slice(first, 10'000));
  ASSERT_OK(WriteFile(FileFormat::kParquet, path, fields, slices, options).status());
  ASSERT_GT(parquet::ParquetFileReader::OpenFile(path)->metadata()->num_row_groups(), 2);

  auto expect_rows = [&](const std::vector<int>& picked, int64_t batch_size, bool parallel = true) {
    std::vector<meta::DataField> read_fields;
    std::vector<std::shared_ptr<arrow::Array>> expected;
    for (int c : picked) {
      read_fields.push_back(fields[static_cast<size_t>(c)]);
      expected.push_back(columns[static_cast<size_t>(c)]);
    }
    FormatReaderOptions read_options;
    read_options.batch_size = batch_size;
    read_options.parallel_decode = parallel;
    auto back = testing::ReadFile(path, read_fields, read_options);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ((*back)->num_rows(), kRows) << batch_size;
    for (size_t i = 0; i < picked.size(); ++i) {
      EXPECT_TRUE((*back)->column(static_cast<int>(i))->Equals(*expected[i]))
          << "column " << picked[i] << ", batches of " << batch_size;
    }
  };
  for (int64_t batch_size : {777, 4096, 100'000, 1'000'000}) expect_rows({0, 1, 2, 3}, batch_size);
  expect_rows({2, 0}, 4096);  // projected, in another order
  expect_rows({0, 1, 2, 3}, 4096, /*parallel=*/false);
  expect_rows({3, 4, 1}, 5000);  // a nested column: Arrow's reader
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) readers.emplace_back([&] { expect_rows({1, 2, 3, 0}, 3000); });
  for (auto& reader : readers) reader.join();

  // A damaged page in the middle of the file: the same error from a column's thread as from the
  // reading thread, no crash.
  std::string bytes = FileBytes(path);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  const std::string damaged = dir.Sub("damaged.parquet");
  std::ofstream(damaged, std::ios::binary) << bytes;
  FormatReaderOptions serial;
  serial.parallel_decode = false;
  std::vector<Status> errors;
  for (const auto& options : {FormatReaderOptions{}, serial}) {
    auto back = testing::ReadFile(damaged, {fields[0], fields[1], fields[2], fields[3]}, options);
    ASSERT_FALSE(back.ok());
    EXPECT_NE(back.status().message().find("CRC"), std::string::npos) << back.status().ToString();
    // The bytes are wrong, not their reading: not an IOError, which a caller might retry.
    EXPECT_TRUE(back.status().IsCorruption()) << back.status().ToString();
    errors.push_back(back.status());
  }
  EXPECT_EQ(errors[0].code(), errors[1].code()) << "the parallel and the serial path differ";

  // A read that fails once the file is open: the file system's error, on both paths.
  for (const auto& options : {FormatReaderOptions{}, serial}) {
    auto faulty = std::make_shared<io::FaultInjectingFileIO>(io::LocalFileIO());
    ASSERT_OK_AND_ASSIGN(auto info, faulty->GetFileInfo(path));
    ASSERT_OK_AND_ASSIGN(
        auto reader,
        FormatReader::Open(*faulty, path, info.size, {fields[0], fields[1], fields[2]}, options));
    faulty->FailWhen([](io::FileOp op, const std::string&) { return op == io::FileOp::kRead; });
    auto batches = ReadAllBatches(reader.get());
    ASSERT_FALSE(batches.ok());
    EXPECT_TRUE(batches.status().IsIOError()) << batches.status().ToString();
    EXPECT_GT(faulty->injected_failures(), 0);
  }
}

}  // namespace
}  // namespace freshet::format
