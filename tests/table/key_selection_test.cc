// KeySelection (read/key_selection.h): the rows of the selected keys in a sorted file, found by
// binary search, against a scan of every row; and the decoded file cache's memory budget.
#include "read/key_selection.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "testing/test_util.h"

namespace freshet::testing {
namespace {

using Key = std::pair<int64_t, std::string>;

std::shared_ptr<arrow::RecordBatch> KeyBatch(const std::vector<Key>& keys) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (const auto& [id, name] : keys) {
    EXPECT_TRUE(ids.Append(id).ok());
    EXPECT_TRUE(names.Append(name).ok());
  }
  return arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())}),
      static_cast<int64_t>(keys.size()), {*ids.Finish(), *names.Finish()});
}

// Random sorted "files" (some keys repeated, as a level-0 file never has them but the search
// must not care) and random selections (duplicates, keys outside the file's range, absent keys):
// the runs found are exactly the rows whose key is selected.
TEST(KeySelectionTest, RowsOfEqualsAScanOfEveryRow) {
  const uint64_t seed = TestSeed();
  SCOPED_TRACE("FRESHET_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const char* names[] = {"", "a", "ab", "b", "\xc3\xa9"};  // byte order, not collation
  for (int round = 0; round < 200; ++round) {
    std::vector<Key> file;
    const int rows = static_cast<int>(rng() % 40);
    for (int i = 0; i < rows; ++i) {
      file.emplace_back(static_cast<int64_t>(rng() % 10) - 3, names[rng() % 5]);
    }
    std::sort(file.begin(), file.end());
    std::vector<Key> wanted;
    const int count = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < count; ++i) {
      wanted.emplace_back(static_cast<int64_t>(rng() % 14) - 5, names[rng() % 5]);
    }
    ASSERT_OK_AND_ASSIGN(auto selection, read::KeySelection::Make(KeyBatch(wanted), 1 << 20));
    ASSERT_OK_AND_ASSIGN(auto runs, selection->RowsOf(*KeyBatch(file)));
    std::vector<int64_t> found;
    for (const auto& [begin, end] : runs) {
      ASSERT_LT(begin, end);
      if (!found.empty()) {
        ASSERT_LT(found.back(), begin) << "runs ascend";
      }
      for (int64_t row = begin; row < end; ++row) found.push_back(row);
    }
    std::set<Key> selected(wanted.begin(), wanted.end());
    std::vector<int64_t> expected;
    for (int64_t row = 0; row < rows; ++row) {
      if (selected.count(file[static_cast<size_t>(row)])) expected.push_back(row);
    }
    ASSERT_EQ(found, expected) << "round " << round;
  }
}

TEST(KeySelectionTest, AFileWithoutTheKeyColumnsIsAnError) {
  ASSERT_OK_AND_ASSIGN(auto selection, read::KeySelection::Make(KeyBatch({{1, "a"}}), 1 << 20));
  arrow::Int64Builder ids;
  ASSERT_TRUE(ids.Append(1).ok());
  auto file = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), 1,
                                       {*ids.Finish()});
  auto runs = selection->RowsOf(*file);
  EXPECT_FALSE(runs.ok());
}

// The cache keeps the most recently used batches within the budget (the last one loaded stays
// even when larger), and a cached batch is not loaded again.
TEST(DecodedFileCacheTest, KeepsTheMostRecentlyUsedWithinTheBudget) {
  read::DecodedFileCache cache;
  int loads = 0;
  auto loader = [&](int64_t rows) {
    return [&loads, rows]() -> Result<std::shared_ptr<arrow::RecordBatch>> {
      ++loads;
      std::vector<Key> keys;
      for (int64_t i = 0; i < rows; ++i) keys.emplace_back(i, "x");
      return KeyBatch(keys);
    };
  };
  const int64_t one = static_cast<int64_t>(
      arrow::util::TotalBufferSize(*KeyBatch(std::vector<Key>(100, Key{1, "x"}))));
  const int64_t budget = 2 * one + one / 2;  // two batches of 100 rows fit, three do not
  ASSERT_OK(cache.GetOrLoad("a", budget, loader(100)).status());
  ASSERT_OK(cache.GetOrLoad("b", budget, loader(100)).status());
  ASSERT_OK(cache.GetOrLoad("a", budget, loader(100)).status());  // a is now the newest
  EXPECT_EQ(loads, 2);
  ASSERT_OK(cache.GetOrLoad("c", budget, loader(100)).status());  // drops b
  EXPECT_LE(cache.cached_bytes(), budget);
  ASSERT_OK(cache.GetOrLoad("a", budget, loader(100)).status());
  EXPECT_EQ(loads, 3);
  ASSERT_OK(cache.GetOrLoad("b", budget, loader(100)).status());
  EXPECT_EQ(loads, 4);
  ASSERT_OK(cache.GetOrLoad("huge", budget, loader(1000)).status());  // alone, over budget
  EXPECT_GT(cache.cached_bytes(), budget);
  ASSERT_OK(cache.GetOrLoad("huge", budget, loader(1000)).status());
  EXPECT_EQ(loads, 5);
}

}  // namespace
}  // namespace freshet::testing
