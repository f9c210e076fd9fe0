// The table writer hands format writers zero-copy slices of user batches (one slice per run of
// rows of a partition-bucket), so every format must honour array offsets, nested ones included.
#include <gtest/gtest.h>

#include "format/data_file_test_util.h"

namespace freshet::format {
namespace {

using testing::Field;

TEST(SlicedBatchTest, EveryFormatWritesSlicesExactly) {
  std::vector<meta::DataField> fields = {
      Field(0, "id", meta::DataType::BigInt(false)),
      Field(1, "r",
            meta::DataType::Row(
                {Field(2, "x", meta::DataType::Int()), Field(3, "y", meta::DataType::String())})),
      Field(4, "a", meta::DataType::Array(meta::DataType::Int())),
      Field(5, "s", meta::DataType::String())};
  std::string jsonl;
  for (int i = 0; i < 10; ++i) {
    jsonl += i % 3 == 1 ? R"({"id": )" + std::to_string(i) + R"(, "r": null, "a": null, "s": null})"
                        : R"({"id": )" + std::to_string(i) + R"(, "r": {"x": )" +
                              std::to_string(i) + R"(, "y": "v"}, "a": [)" + std::to_string(i) +
                              R"(, null], "s": "s)" + std::to_string(i) + R"("})";
    jsonl += "\n";
  }
  auto batch = testing::ParseRows(jsonl, fields);
  ASSERT_NE(batch, nullptr);
  for (FileFormat format : {FileFormat::kParquet, FileFormat::kOrc, FileFormat::kAvro}) {
    SCOPED_TRACE(FileFormatName(format));
    freshet::testing::TempDir dir;
    std::string path = dir.Sub(std::string("f.") + FileFormatName(format));
    // Two slices at odd offsets, as the table writer produces for interleaved buckets.
    ASSERT_OK(testing::WriteFile(format, path, fields, {batch->Slice(1, 4), batch->Slice(7, 3)})
                  .status());
    ASSERT_OK_AND_ASSIGN(auto back, testing::ReadFile(path, fields));
    std::string expected =
        testing::Json(*batch->Slice(1, 4), fields) + testing::Json(*batch->Slice(7, 3), fields);
    EXPECT_EQ(testing::Json(*back, fields), expected);
  }
}

}  // namespace
}  // namespace freshet::format
