// Every data file read must deliver exactly the rows its manifest entry counts: a damaged footer
// or page index can make a format library return fewer rows without an error, which would be
// silent row loss.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/schema/schema_manager.h"
#include "read/table_read.h"
#include "scan/table_scan.h"
#include "table/table_test_util.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::TempDir;
using freshet::testing::WriteIds;

// Reads every row of `splits` and returns the count, or the first error.
Result<int64_t> CountRows(const read::TableRead& read, std::vector<scan::DataSplit> splits) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, read.CreateReader(std::move(splits)));
  int64_t rows = 0;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) return rows;
    rows += batch->num_rows();
  }
}

class DataFileCheckTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DataFileCheckTest, RowsDeliveredMustEqualTheManifestRowCount) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table::Create(path, R"({"fields": [{"name": "id", "type": )"
                                           R"("BIGINT"}], "options": {"file.format": ")" +
                                               GetParam() + R"("}})"));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteIds(*writer, 0, 360));
  ASSERT_OK(writer->Commit().status());

  auto file_io = io::LocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(file_io, path).LatestSchema());
  ASSERT_OK_AND_ASSIGN(auto read, read::TableRead::Make(file_io, path, *schema));
  ASSERT_OK_AND_ASSIGN(auto plan, scan::TableScan(file_io, path).Plan({}));
  ASSERT_EQ(plan.splits.size(), 1u);
  ASSERT_OK_AND_ASSIGN(int64_t rows, CountRows(read, plan.splits));
  EXPECT_EQ(rows, 360);

  for (int64_t claimed : {int64_t{359}, int64_t{361}, int64_t{0}}) {
    auto splits = plan.splits;
    splits[0].files[0].row_count = claimed;
    auto counted = CountRows(read, splits);
    ASSERT_FALSE(counted.ok()) << "a manifest entry claiming " << claimed << " rows";
    EXPECT_TRUE(counted.status().IsCorruption()) << counted.status().ToString();
    EXPECT_NE(counted.status().message().find("its manifest entry says " + std::to_string(claimed)),
              std::string::npos)
        << counted.status().ToString();
    EXPECT_NE(counted.status().message().find(splits[0].files[0].file_name), std::string::npos)
        << counted.status().ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, DataFileCheckTest, ::testing::Values("parquet", "orc", "avro"));

}  // namespace
}  // namespace freshet

namespace freshet {
namespace {

// A manifest that lost an entry (or whose entry's kind flipped to DELETE) holds fewer rows than the
// snapshot's totalRecordCount says: the read is a Corruption error, not a silent loss of rows.
TEST(ManifestTotalCheckTest, LiveFilesMustHoldTheSnapshotsTotal) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, R"({"fields": [{"name": "id", "type": )"
                                                       R"("BIGINT"}]})"));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteIds(*writer, 0, 120));
  ASSERT_OK(writer->Commit().status());

  const std::string snapshot_file = path + "/snapshot/snapshot-1";
  std::string text = freshet::testing::ReadWholeFile(snapshot_file);
  const std::string total = "\"totalRecordCount\" : 120";
  ASSERT_NE(text.find(total), std::string::npos) << text;
  text.replace(text.find(total), total.size(), "\"totalRecordCount\" : 240");
  std::ofstream(snapshot_file, std::ios::trunc) << text;

  ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(path));
  auto reader = reopened->NewReader();
  Status status = reader.ok() ? Status::OK() : reader.status();
  if (reader.ok()) {
    ArrowArray array;
    auto next = (*reader)->Next(&array);
    status = next.ok() ? Status::OK() : next.status();
    if (next.ok() && *next) array.release(&array);
  }
  ASSERT_TRUE(status.IsCorruption()) << status.ToString();
  EXPECT_NE(status.message().find("totalRecordCount 240 but its live data files hold 120 rows"),
            std::string::npos)
      << status.ToString();
}

}  // namespace
}  // namespace freshet

namespace freshet {
namespace {

// Parquet pages carry a CRC (as parquet-mr writes them) that reads verify: a flipped bit in a data
// page is an error, not another value. Without the CRCs (the option off) the same damage reads
// back as other values, which is why they are on by default.
TEST(ParquetPageChecksumTest, ADamagedPageIsAnErrorNotOtherValues) {
  for (bool checksums : {true, false}) {
    TempDir dir;
    const std::string path = dir.Sub("t");
    ASSERT_OK_AND_ASSIGN(
        auto table,
        Table::Create(path, std::string(R"({"fields": [{"name": "id", "type": "BIGINT"}], )") +
                                R"("options": {"file.compression": "none", )" +
                                R"("parquet.page.write-checksum.enabled": ")" +
                                (checksums ? "true" : "false") + R"("}})"));
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    const int64_t first = 0x1122334455660000;
    ASSERT_OK(WriteIds(*writer, first, 16));
    ASSERT_OK(writer->Commit().status());

    std::string data_file;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.path().extension() == ".parquet") data_file = entry.path().string();
    }
    std::string bytes = freshet::testing::ReadWholeFile(data_file);
    const int64_t target = first + 5;  // a plain-encoded value in the data page
    const size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&target), 8));
    ASSERT_NE(at, std::string::npos);
    bytes[at] ^= 0x01;
    std::ofstream(data_file, std::ios::binary | std::ios::trunc) << bytes;

    ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader());
    std::vector<int64_t> ids;
    Status status;
    while (status.ok()) {
      ArrowArray array;
      auto next = reader->Next(&array);
      if (!next.ok()) status = next.status();
      if (!next.ok() || !*next) break;
      auto batch =
          arrow::ImportRecordBatch(&array, arrow::schema({arrow::field("id", arrow::int64())}));
      ASSERT_TRUE(batch.ok());
      auto column = std::static_pointer_cast<arrow::Int64Array>((*batch)->column(0));
      for (int64_t i = 0; i < column->length(); ++i) ids.push_back(column->Value(i));
    }
    if (checksums) {
      EXPECT_FALSE(status.ok()) << "read " << ids.size() << " rows from a damaged page";
      EXPECT_NE(status.ToString().find(".parquet"), std::string::npos) << status.ToString();
    } else {
      ASSERT_OK(status);
      ASSERT_EQ(ids.size(), 16u);
      EXPECT_EQ(ids[5], target ^ 0x01);  // the damage, undetected
    }
  }
}

}  // namespace
}  // namespace freshet
