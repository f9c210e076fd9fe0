// TableReader::ExportArrowStream: the rows of a read as an Arrow C stream, consumed here by Arrow
// C++'s importer as any stream consumer would; errors of the read reach get_last_error().
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "freshet/table.h"
#include "table/table_test_util.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::TempDir;
using freshet::testing::WriteIds;

class ArrowStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(table_, Table::Create(dir_.Sub("t"), R"({"fields": [{"name": "id", )"
                                                              R"("type": "BIGINT"}]})"));
    for (int commit = 0; commit < 3; ++commit) {
      ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
      ASSERT_OK(WriteIds(*writer, commit * 100, 100));
      ASSERT_OK(writer->Commit().status());
    }
  }
  // A stream of a new reader of the latest snapshot, imported by Arrow C++.
  std::shared_ptr<arrow::RecordBatchReader> Stream(int64_t batch_size = 4096) {
    ReadOptions options;
    options.batch_size = batch_size;
    auto reader = table_->NewReader(options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    ArrowArrayStream stream;
    EXPECT_OK(TableReader::ExportArrowStream(std::move(*reader), &stream));
    auto imported = arrow::ImportRecordBatchReader(&stream);
    EXPECT_TRUE(imported.ok()) << imported.status().ToString();
    return *imported;
  }

  TempDir dir_;
  std::shared_ptr<Table> table_;
};

TEST_F(ArrowStreamTest, DeliversEveryRowThenEnds) {
  auto stream = Stream(/*batch_size=*/64);
  EXPECT_EQ(stream->schema()->ToString(), "id: int64");
  auto all = stream->ToTable();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ((*all)->num_rows(), 300);
  std::vector<int64_t> ids;
  for (const auto& chunk : (*all)->column(0)->chunks()) {
    auto values = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < values->length(); ++i) ids.push_back(values->Value(i));
  }
  std::sort(ids.begin(), ids.end());
  for (int64_t i = 0; i < 300; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i);
}

TEST_F(ArrowStreamTest, ReleasedBeforeTheEndFreesTheRead) {
  auto stream = Stream(/*batch_size=*/10);
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_TRUE(stream->ReadNext(&batch).ok());
  ASSERT_NE(batch, nullptr);
  stream.reset();  // the C stream's release; ASan builds check that nothing leaks
}

TEST_F(ArrowStreamTest, AReadErrorReachesTheConsumer) {
  // Every data file truncated: the read fails, and the stream says why.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.Sub("t"))) {
    if (entry.path().extension() == ".parquet") std::filesystem::resize_file(entry.path(), 10);
  }
  auto stream = Stream();
  std::shared_ptr<arrow::RecordBatch> batch;
  arrow::Status status = stream->ReadNext(&batch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(".parquet"), std::string::npos) << status.ToString();
}

// The C interface itself, as a consumer without Arrow C++ drives it: a failed call is an errno
// with get_last_error() giving the Status text, and LastStreamError() gives the Status whole.
TEST_F(ArrowStreamTest, AFailedCallKeepsTheReadersStatus) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.Sub("t"))) {
    if (entry.path().extension() == ".parquet") std::filesystem::resize_file(entry.path(), 10);
  }
  ASSERT_OK_AND_ASSIGN(auto reader, table_->NewReader());
  ArrowArrayStream stream;
  ASSERT_OK(TableReader::ExportArrowStream(std::move(reader), &stream));
  EXPECT_OK(TableReader::LastStreamError(&stream));
  ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  schema.release(&schema);
  ArrowArray array;
  int error = stream.get_next(&stream, &array);
  EXPECT_EQ(error, EIO);
  Status status = TableReader::LastStreamError(&stream);
  EXPECT_TRUE(status.IsCorruption() || status.IsIOError()) << status.ToString();
  EXPECT_NE(status.message().find(".parquet"), std::string::npos) << status.ToString();
  EXPECT_EQ(std::string(stream.get_last_error(&stream)), status.ToString());
  EXPECT_EQ(stream.get_next(&stream, &array), error);  // sticky
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

TEST_F(ArrowStreamTest, EndsWithAReleasedArray) {
  ASSERT_OK_AND_ASSIGN(auto reader, table_->NewReader());
  ArrowArrayStream stream;
  ASSERT_OK(TableReader::ExportArrowStream(std::move(reader), &stream));
  int64_t rows = 0;
  while (true) {
    ArrowArray array;
    ASSERT_EQ(stream.get_next(&stream, &array), 0);
    if (array.release == nullptr) break;
    rows += array.length;
    array.release(&array);
  }
  EXPECT_EQ(rows, 300);
  EXPECT_EQ(stream.get_last_error(&stream), nullptr);
  stream.release(&stream);
}

}  // namespace
}  // namespace freshet
