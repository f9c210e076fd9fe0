// Primary-key tables through the public API: what create refuses (options freshet cannot honour,
// named in the error), and filtered reads that must see the merged rows, never an older version.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "freshet/table.h"
#include "testing/reader_batches.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

std::string Spec(const std::string& options, const std::string& extra_fields = "") {
  return R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "v", "type": "BIGINT"},
      {"name": "s", "type": "STRING"})" +
         extra_fields + R"(], "primaryKeys": ["id"], "options": {)" + options + "}}";
}

// Every way a create may be refused: the error names the option.
TEST(PrimaryKeyTableTest, CreateRefusesWhatFreshetCannotHonourNamingTheOption) {
  testing::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("bucket": "-1", "dynamic-bucket.max-buckets": "0")", "'dynamic-bucket.max-buckets'"},
      {R"("bucket": "-2")", "'bucket'"},
      {R"("bucket": "2", "merge-engine": "first-row", "changelog-producer": "input")",
       "'changelog-producer'"},
      {R"("bucket": "2", "merge-engine": "aggregation", "fields.v.aggregate-function": "nope")",
       "fields.v.aggregate-function"},
      {R"("bucket": "2", "merge-engine": "aggregation", "fields.s.aggregate-function": "sum")",
       "'sum'"},
      {R"("bucket": "2", "sequence.field": "missing")", "'sequence.field'"},
      {R"("bucket": "2", "rowkind.field": "v")", "'rowkind.field'"},
      {R"("bucket": "2", "merge-engine": "partial-update", "fields.v.sequence-group": "nope")",
       "nope"},
  };
  int n = 0;
  for (const auto& [options, named] : cases) {
    SCOPED_TRACE(options);
    std::string path = dir.Sub("t" + std::to_string(n++));
    auto created = Table::Create(path, Spec(options));
    ASSERT_FALSE(created.ok());
    EXPECT_NE(created.status().message().find(named), std::string::npos)
        << created.status().ToString();
    EXPECT_FALSE(std::filesystem::exists(path + "/schema/schema-0"));
  }
  EXPECT_TRUE(Table::Create(dir.Sub("ok"), Spec(R"("bucket": "2", "rowkind.field": "s")")).ok());
  EXPECT_TRUE(Table::Create(dir.Sub("dynamic"), Spec(R"("bucket": "-1")")).ok());
}

Status WriteRows(TableWriter& writer, const std::vector<int64_t>& ids, int64_t v,
                 const char* kind) {
  arrow::Int64Builder id_builder, v_builder;
  arrow::StringBuilder s_builder, kind_builder;
  for (int64_t id : ids) {
    (void)id_builder.Append(id);
    (void)v_builder.Append(v);
    (void)s_builder.Append("s" + std::to_string(id));
    (void)kind_builder.Append(kind);
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("v", arrow::int64()),
                     arrow::field("s", arrow::utf8()), arrow::field("_ROW_KIND", arrow::utf8())}),
      static_cast<int64_t>(ids.size()),
      {*id_builder.Finish(), *v_builder.Finish(), *s_builder.Finish(), *kind_builder.Finish()});
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  return writer.Write(&array, &schema);
}

std::multiset<std::string> Read(const Table& table, const std::string& filter) {
  ReadOptions options;
  options.filter = filter;
  auto reader = table.NewReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::multiset<std::string> rows;
  if (!reader.ok()) return rows;
  testing::ForEachBatch(**reader, [&](const arrow::RecordBatch& batch) {
    const auto& id = static_cast<const arrow::Int64Array&>(*batch.column(0));
    const auto& v = static_cast<const arrow::Int64Array&>(*batch.column(1));
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      rows.insert(std::to_string(id.Value(i)) + "=" + std::to_string(v.Value(i)));
    }
  });
  return rows;
}

// Commit 1 writes ids 0..9 with v = 1, commit 2 updates them to v = 100 and deletes id 9. A
// filter on v must be applied to the merged rows: pruning the newer file by its statistics (or
// filtering before the merge) would bring back the old versions.
TEST(PrimaryKeyTableTest, FiltersSeeMergedRowsOnly) {
  testing::TempDir dir;
  for (const char* format : {"parquet", "orc"}) {
    SCOPED_TRACE(format);
    ASSERT_OK_AND_ASSIGN(
        auto table, Table::Create(dir.Sub(format), Spec(std::string(R"("bucket": "1", )") +
                                                        R"("file.format": ")" + format + "\"")));
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    std::vector<int64_t> ids = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    ASSERT_OK(WriteRows(*writer, ids, 1, "+I"));
    ASSERT_OK(writer->Commit().status());
    ASSERT_OK(WriteRows(*writer, {0, 1, 2, 3, 4, 5, 6, 7, 8}, 100, "+U"));
    ASSERT_OK(WriteRows(*writer, {9}, 100, "-D"));
    ASSERT_OK(writer->Commit().status());

    EXPECT_TRUE(Read(*table, "v = 1").empty());
    EXPECT_EQ(Read(*table, "v = 100").size(), 9u);
    // Key-only predicates may prune files by statistics: every version of a key shares it.
    EXPECT_EQ(Read(*table, "id >= 7"), (std::multiset<std::string>{"7=100", "8=100"}));
    EXPECT_EQ(Read(*table, "id = 9"), std::multiset<std::string>{});
  }
}

}  // namespace
}  // namespace freshet
