// Key-ordered reads of the MemIndexer plugins (primary-key tables, QuerySpec::key_order): the
// "indexed" plugin's skip list and the columnar plugin's kept sort return, for any view, exactly
// the view's rows, each segment as one run in key order, while a writer keeps appending and
// sealing on another thread.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "freshet/realtime/mem_indexer.h"
#include "meta/schema/schema_manager.h"
#include "realtime/key_order.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::testing {
namespace {

using realtime::FindMemIndexerFactory;
using realtime::MemIndexer;
using realtime::MemIndexerOptions;
using realtime::QuerySpec;
using realtime::RowBatch;

struct Fixture {
  std::shared_ptr<arrow::Schema> schema;  // dt, id, name, v
  std::shared_ptr<const realtime::KeyOrder> order;
};

Fixture MakeFixture(const TempDir& dir) {
  auto table = Table::Create(dir.Sub("t"), pk::SchemaSpec({{"bucket", "1"}}));
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  auto schema = meta::SchemaManager(io::LocalFileIO(), dir.Sub("t")).LatestSchema();
  EXPECT_TRUE(schema.ok() && schema->has_value());
  auto order = realtime::MakeKeyOrder(**schema);
  EXPECT_TRUE(order.ok()) << order.status().ToString();
  ArrowSchema c_schema;
  EXPECT_TRUE((*table)->ExportArrowSchema(&c_schema).ok());
  return Fixture{*arrow::ImportSchema(&c_schema), *order};
}

// `n` rows of partition "a" with random ids, offsets from `first`, sequence numbers = offsets.
RowBatch RandomBatch(const Fixture& f, std::mt19937_64& rng, int64_t first, int64_t n) {
  std::vector<pk::Row> rows;
  for (int64_t i = 0; i < n; ++i) {
    rows.push_back(pk::Row{"a", static_cast<int64_t>(rng() % 500), "n", first + i});
  }
  auto plain = pk::MakeBatch(rows, pk::KindColumn::kNone);
  RowBatch batch;
  batch.rows = arrow::RecordBatch::Make(f.schema, plain->num_rows(), plain->columns());
  batch.first_offset = first;
  arrow::Int64Builder sequences;
  arrow::Int8Builder kinds;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_TRUE(sequences.Append(first + i).ok());
    EXPECT_TRUE(kinds.Append(0).ok());
  }
  batch.sequence_numbers = std::static_pointer_cast<arrow::Int64Array>(*sequences.Finish());
  batch.row_kinds = std::static_pointer_cast<arrow::Int8Array>(*kinds.Finish());
  return batch;
}

class KeyOrderedIndexerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(KeyOrderedIndexerTest, EveryViewReadsItsRowsAsSortedRunsWhileWritesGoOn) {
  TempDir dir;
  const Fixture f = MakeFixture(dir);
  MemIndexerOptions options;
  options.schema = f.schema;
  options.primary_key_table = true;
  options.key_order = f.order;
  auto factory = FindMemIndexerFactory(GetParam());
  ASSERT_TRUE(factory.ok());
  auto made = (*factory)->Create(options);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  std::shared_ptr<MemIndexer> indexer = std::move(*made);
  ASSERT_TRUE(indexer->ReadsInKeyOrder());

  constexpr int64_t kBatches = 1500, kRows = 8;
  std::atomic<bool> done{false}, failed{false};
  std::atomic<int64_t> queries{0};
  auto fail = [&](const std::string& why) {
    if (!failed.exchange(true)) ADD_FAILURE() << why;
  };
  std::thread writer([&] {
    std::mt19937_64 rng(TestSeed());
    for (int64_t b = 0; b < kBatches && !failed; ++b) {
      Status st = indexer->Write(RandomBatch(f, rng, b * kRows, kRows));
      if (!st.ok()) return fail(st.ToString());
      if (b % 200 == 199) {
        auto sealed = indexer->SealForCommit();  // a new segment: one more run per view
        if (!sealed.ok()) return fail(sealed.status().ToString());
      }
    }
    done = true;
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!done && !failed) {
        auto view = indexer->AcquireReadView();
        QuerySpec spec;
        spec.columns = {0, 1, 2, 3};
        spec.from_offset = view->range().begin;
        spec.end_offset = view->range().end;
        spec.batch_size = 97;
        spec.key_order = true;
        auto runs = indexer->CreateQueryReaders(view, spec);
        if (!runs.ok()) return fail(runs.status().ToString());
        std::vector<bool> seen(static_cast<size_t>(view->range().end), false);
        int64_t rows = 0;
        for (auto& run : *runs) {
          std::optional<std::pair<int64_t, int64_t>> last;  // (id, sequence)
          while (true) {
            auto next = run->Next();
            if (!next.ok()) return fail(next.status().ToString());
            if (!*next) break;
            const RowBatch& batch = **next;
            const auto& id = static_cast<const arrow::Int64Array&>(*batch.rows->column(1));
            for (int64_t i = 0; i < batch.num_rows(); ++i) {
              int64_t offset = batch.offsets->Value(i);
              std::pair<int64_t, int64_t> key{id.Value(i), batch.sequence_numbers->Value(i)};
              if (last && *last >= key) return fail("a run is out of key order");
              if (offset < spec.from_offset || offset >= spec.end_offset) {
                return fail("a row outside the view: offset " + std::to_string(offset));
              }
              if (seen[static_cast<size_t>(offset)]) return fail("a row returned twice");
              seen[static_cast<size_t>(offset)] = true;
              last = key;
              ++rows;
            }
          }
        }
        if (rows != view->range().end - view->range().begin) {
          return fail("a view of " + std::to_string(view->range().end - view->range().begin) +
                      " rows read " + std::to_string(rows));
        }
        ++queries;
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_FALSE(failed);
  EXPECT_GT(queries.load(), 0);
  std::cout << "[ INFO     ] " << queries.load() << " key-ordered queries during the writes\n";
}

INSTANTIATE_TEST_SUITE_P(Plugins, KeyOrderedIndexerTest, ::testing::Values("indexed", "columnar"));

}  // namespace
}  // namespace freshet::testing
