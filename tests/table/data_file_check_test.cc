// Every data file read must deliver exactly the rows its manifest entry counts: a damaged footer
// or page index can make a format library return fewer rows without an error, which would be
// silent row loss.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/schema/schema_manager.h"
#include "read/table_read.h"
#include "scan/table_scan.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using freshet::testing::TempDir;

Status WriteIds(TableWriter& writer, int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  for (int64_t i = first; i < first + n; ++i) (void)ids.Append(i);
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), n,
                                        {*ids.Finish()});
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  return writer.Write(&array, &schema);
}

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
