// Table::Lookup on primary-key tables without the real-time layer: the committed row of each key,
// merged as a read merges it; and the errors of bad keys. (The real-time union is checked in
// tests/realtime/realtime_primary_key_test.cc.)
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <random>

#include "freshet/table.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::testing {
namespace {

using pk::KindColumn;
using pk::Row;

class LookupDifferentialTest : public ::testing::TestWithParam<std::string> {};

// Random commits of upserts (and deletes): after each one, lookups of random keys (some never
// written, some repeated) equal the model, whatever the files' levels.
TEST_P(LookupDifferentialTest, LookupsEqualTheModelAfterEveryCommit) {
  const std::string engine = GetParam();
  TempDir dir;
  auto options = pk::EngineOptions(engine);
  options["bucket"] = "3";
  options["num-sorted-run.compaction-trigger"] = "3";
  auto table = Table::Create(dir.Sub("t"), pk::SchemaSpec(options));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const uint64_t seed = TestSeed();
  SCOPED_TRACE("FRESHET_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  pk::Model model(engine);
  for (int commit = 0; commit < 12; ++commit) {
    auto writer = (*table)->NewWriter();
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    auto rows = pk::RandomRows(rng, pk::EngineKinds(engine), 40, 60, &model);
    ASSERT_TRUE(pk::WriteRows(writer->get(), pk::MakeBatch(rows, KindColumn::kInt8)).ok());
    ASSERT_TRUE((*writer)->Commit().ok());
    if (engine == "first-row") continue;  // batch semantics: level-0 rows show once compacted
    std::vector<std::pair<std::string, int64_t>> keys;
    std::vector<std::string> expected;
    for (int i = 0; i < 20; ++i) {
      keys.emplace_back(rng() % 2 ? "a" : "b", static_cast<int64_t>(rng() % 80));
      expected.push_back(model.Lookup(keys.back().first, keys.back().second));
    }
    keys.push_back(keys.front());  // a repeated key gets its row again
    expected.push_back(expected.front());
    ASSERT_EQ(pk::LookupTexts(**table, keys), expected) << "after commit " << commit;
  }
  ASSERT_TRUE((*table)->Compact(CompactOptions{true, {}}).ok());
  std::vector<std::pair<std::string, int64_t>> keys;
  std::vector<std::string> expected;
  for (int64_t id = 0; id < 80; ++id) {
    keys.emplace_back("a", id);
    expected.push_back(model.Lookup("a", id));
  }
  EXPECT_EQ(pk::LookupTexts(**table, keys), expected) << "after a full compaction";
}

INSTANTIATE_TEST_SUITE_P(Engines, LookupDifferentialTest,
                         ::testing::Values("deduplicate", "partial-update", "aggregation",
                                           "first-row"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// The status of a Lookup with the given key columns.
Status LookupWith(const Table& table, const std::shared_ptr<arrow::RecordBatch>& keys) {
  return pk::LookupBatch(table, keys).status();
}

TEST(LookupTest, ProjectionAndBadKeys) {
  TempDir dir;
  auto table = Table::Create(dir.Sub("t"), pk::SchemaSpec({{"bucket", "2"}}));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto writer = (*table)->NewWriter();
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(
      pk::WriteRows(writer->get(), pk::MakeBatch({Row{"a", 1, "x", 7}}, KindColumn::kNone)).ok());
  ASSERT_TRUE((*writer)->Commit().ok());

  arrow::StringBuilder dt;
  arrow::Int64Builder id;
  ASSERT_TRUE(dt.AppendValues({"a", "a"}).ok());
  ASSERT_TRUE(id.AppendValues({2, 1}).ok());
  auto keys = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("dt", arrow::utf8()), arrow::field("id", arrow::int64())}), 2,
      {*dt.Finish(), *id.Finish()});
  // Projection: only `v`, then _FOUND.
  LookupOptions projected;
  projected.columns = {"v"};
  auto looked_up = pk::LookupBatch(**table, keys, projected);
  ASSERT_TRUE(looked_up.ok()) << looked_up.status().ToString();
  const auto& result = *looked_up;
  ASSERT_EQ(result->num_columns(), 2);
  EXPECT_EQ(result->schema()->field(0)->name(), "v");
  EXPECT_EQ(result->schema()->field(1)->name(), kLookupFoundColumn);
  const auto& v = static_cast<const arrow::Int64Array&>(*result->column(0));
  const auto& found = static_cast<const arrow::BooleanArray&>(*result->column(1));
  EXPECT_FALSE(found.Value(0));
  EXPECT_TRUE(v.IsNull(0));
  EXPECT_TRUE(found.Value(1));
  EXPECT_EQ(v.Value(1), 7);

  // A missing key column, a mistyped one, a null key, an append table: Invalid, naming it.
  Status missing = LookupWith(**table, *keys->RemoveColumn(0));
  EXPECT_TRUE(missing.IsInvalid()) << missing.ToString();
  EXPECT_NE(missing.ToString().find("'dt'"), std::string::npos) << missing.ToString();
  arrow::Int32Builder narrow;
  ASSERT_TRUE(narrow.AppendValues({1, 2}).ok());
  auto mistyped = *keys->SetColumn(1, arrow::field("id", arrow::int32()), *narrow.Finish());
  Status typed = LookupWith(**table, mistyped);
  EXPECT_TRUE(typed.IsInvalid()) << typed.ToString();
  EXPECT_NE(typed.ToString().find("int32"), std::string::npos) << typed.ToString();
  arrow::Int64Builder with_null;
  ASSERT_TRUE(with_null.Append(1).ok());
  ASSERT_TRUE(with_null.AppendNull().ok());
  auto null_key = *keys->SetColumn(1, arrow::field("id", arrow::int64()), *with_null.Finish());
  Status null_status = LookupWith(**table, null_key);
  EXPECT_TRUE(null_status.IsInvalid()) << null_status.ToString();
  EXPECT_NE(null_status.ToString().find("null in row 1"), std::string::npos)
      << null_status.ToString();
  auto append = Table::Create(dir.Sub("append"), R"({"fields": [{"name": "id", "type": "BIGINT"}],
                                                     "options": {}})");
  ASSERT_TRUE(append.ok()) << append.status().ToString();
  Status not_pk = LookupWith(**append, keys);
  EXPECT_TRUE(not_pk.IsInvalid()) << not_pk.ToString();
}

}  // namespace
}  // namespace freshet::testing
