// Key-ordered reads of the MemIndexer plugins (primary-key tables, QuerySpec::key_order): the
// "indexed" plugin's skip list and the columnar plugin's kept sort return, for any view, exactly
// the view's rows, each segment as one run in key order, while a writer keeps appending and
// sealing on another thread.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "bridge/arrow_schema.h"
#include "freshet/realtime/mem_indexer.h"
#include "mergetree/merge_function.h"
#include "meta/schema/schema_manager.h"
#include "realtime/key_order.h"
#include "realtime/records.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"
#include "write/sort_buffer.h"

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

// The plugin `name`'s MemIndexer of the fixture's primary-key table.
Result<std::shared_ptr<MemIndexer>> MakeIndexer(const Fixture& f, const std::string& name) {
  MemIndexerOptions options;
  options.schema = f.schema;
  options.primary_key_table = true;
  options.key_order = f.order;
  FRESHET_ASSIGN_OR_RETURN(auto factory, FindMemIndexerFactory(name));
  FRESHET_ASSIGN_OR_RETURN(auto made, factory->Create(options));
  return std::shared_ptr<MemIndexer>(std::move(made));
}

class KeyOrderedIndexerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(KeyOrderedIndexerTest, EveryViewReadsItsRowsAsSortedRunsWhileWritesGoOn) {
  TempDir dir;
  const Fixture f = MakeFixture(dir);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<MemIndexer> indexer, MakeIndexer(f, GetParam()));
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

// Point lookups (QuerySpec::keys, a seek per key in the skip list) and key ranges
// (QuerySpec::keys_may_match) while a writer appends and seals: each returns every row of the
// view whose key was asked, whatever was inserted meanwhile (a seek that re-read its position's
// successor after descending could start at a row just inserted before the key, and find none).
TEST_P(KeyOrderedIndexerTest, SeeksFindEveryRowOfTheirKeysWhileWritesGoOn) {
  TempDir dir;
  const Fixture f = MakeFixture(dir);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<MemIndexer> indexer, MakeIndexer(f, GetParam()));

  constexpr int64_t kBatches = 3000, kRows = 8;
  const uint64_t seed = TestSeed();
  std::mt19937_64 rng(seed);
  std::vector<RowBatch> batches;
  std::vector<int64_t> id_of;  // by offset
  for (int64_t b = 0; b < kBatches; ++b) {
    batches.push_back(RandomBatch(f, rng, b * kRows, kRows));
    const auto& id = static_cast<const arrow::Int64Array&>(*batches.back().rows->column(1));
    for (int64_t i = 0; i < kRows; ++i) id_of.push_back(id.Value(i));
  }
  std::atomic<bool> done{false}, failed{false};
  std::atomic<int64_t> lookups{0};
  auto fail = [&](const std::string& why) {
    if (!failed.exchange(true)) ADD_FAILURE() << why << " (FRESHET_TEST_SEED=" << seed << ")";
  };
  std::thread writer([&] {
    for (int64_t b = 0; b < kBatches && !failed; ++b) {
      Status st = indexer->Write(batches[static_cast<size_t>(b)]);
      if (!st.ok()) return fail(st.ToString());
      if (b % 500 == 499) {
        auto sealed = indexer->SealForCommit();
        if (!sealed.ok()) return fail(sealed.status().ToString());
      }
    }
    done = true;
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937_64 pick(seed + 1 + static_cast<uint64_t>(r));
      // A few after the writes too: a slow plugin on a busy machine may see the writer finish
      // before its first query.
      for (int after = 0; after < 5 && !failed; after += done ? 1 : 0) {
        auto view = indexer->AcquireReadView();
        // Every other query is a key range (QuerySpec::keys_may_match) instead of a few keys.
        const bool range = pick() % 2 == 0;
        std::set<int64_t> wanted;
        if (range) {
          const auto low = static_cast<int64_t>(pick() % 500);
          for (int64_t id = low; id < std::min<int64_t>(500, low + 1 + pick() % 20); ++id) {
            wanted.insert(id);
          }
        } else {
          while (wanted.size() < 1 + pick() % 8) wanted.insert(static_cast<int64_t>(pick() % 500));
        }
        std::vector<pk::Row> key_rows;
        for (int64_t id : wanted) key_rows.push_back(pk::Row{"a", id, "", 0});
        auto plain = pk::MakeBatch(key_rows, pk::KindColumn::kNone);
        RowBatch keys;
        keys.rows = arrow::RecordBatch::Make(f.schema, plain->num_rows(), plain->columns());
        QuerySpec spec;
        spec.columns = {0, 1, 2, 3};
        spec.from_offset = view->range().begin;
        spec.end_offset = view->range().end;
        spec.key_order = true;
        const int64_t low = *wanted.begin(), high = *wanted.rbegin();
        if (range) {
          spec.keys_may_match = [low, high](const RowBatch& x, int64_t a, const RowBatch& y,
                                            int64_t b) {
            const auto& from = static_cast<const arrow::Int64Array&>(*x.rows->column(1));
            const auto& to = static_cast<const arrow::Int64Array&>(*y.rows->column(1));
            return from.Value(a) <= high && to.Value(b) >= low;
          };
        } else {
          spec.keys = &keys;
        }
        auto runs = indexer->CreateQueryReaders(view, spec);
        if (!runs.ok()) return fail(runs.status().ToString());
        std::set<int64_t> found;  // offsets
        for (auto& run : *runs) {
          while (true) {
            auto next = run->Next();
            if (!next.ok()) return fail(next.status().ToString());
            if (!*next) break;
            const RowBatch& batch = **next;
            for (int64_t i = 0; i < batch.num_rows(); ++i) {
              int64_t offset = batch.offsets->Value(i);
              if (offset < spec.from_offset || offset >= spec.end_offset) continue;
              if (wanted.count(id_of[static_cast<size_t>(offset)])) found.insert(offset);
            }
          }
        }
        std::set<int64_t> expected;
        for (int64_t offset = spec.from_offset; offset < spec.end_offset; ++offset) {
          if (wanted.count(id_of[static_cast<size_t>(offset)])) expected.insert(offset);
        }
        if (found != expected) {
          std::string missing;
          for (int64_t o : expected) {
            if (!found.count(o))
              missing += " " + std::to_string(o) + "(id " +
                         std::to_string(id_of[static_cast<size_t>(o)]) + ")";
          }
          return fail(std::string(range ? "a range" : "a lookup") + " of " +
                      std::to_string(wanted.size()) + " keys in a view of [" +
                      std::to_string(spec.from_offset) + ", " + std::to_string(spec.end_offset) +
                      ") found " + std::to_string(found.size()) + " of " +
                      std::to_string(expected.size()) + " rows; missing:" + missing);
        }
        ++lookups;
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_FALSE(failed);
  EXPECT_GT(lookups.load(), 0);
  std::cout << "[ INFO     ] " << lookups.load()
            << " lookups and ranges (the last 5 per reader after the writes)\n";
}

INSTANTIATE_TEST_SUITE_P(Plugins, KeyOrderedIndexerTest, ::testing::Values("indexed", "columnar"));

// The framework's KeyOrder (fast paths over ArrayData) orders rows exactly as the merge's
// RecordOrder does, for keys of every comparable kind and a descending `sequence.field`.
TEST(KeyOrderTest, AgreesWithTheMergeOrder) {
  TempDir dir;
  const std::string spec = R"json({"fields": [{"name": "d", "type": "DOUBLE"},
      {"name": "s", "type": "STRING"}, {"name": "t", "type": "TIMESTAMP(3)"},
      {"name": "m", "type": "DECIMAL(10, 2)"}, {"name": "b", "type": "BOOLEAN"},
      {"name": "q", "type": "INT"}, {"name": "v", "type": "BIGINT"}],
      "primaryKeys": ["d", "s", "t", "m", "b"],
      "options": {"bucket": "1", "sequence.field": "q",
                  "sequence.field.sort-order": "descending"}})json";
  ASSERT_TRUE(Table::Create(dir.Sub("t"), spec).ok());
  auto schema = meta::SchemaManager(io::LocalFileIO(), dir.Sub("t")).LatestSchema();
  ASSERT_TRUE(schema.ok() && schema->has_value());
  auto order = realtime::MakeKeyOrder(**schema);
  ASSERT_TRUE(order.ok()) << order.status().ToString();
  auto layout = mergetree::MakeMergeLayout(**schema, (*schema)->fields());
  ASSERT_TRUE(layout.ok());
  auto record_order = write::RecordOrder::Make(*layout);
  ASSERT_TRUE(record_order.ok());

  std::mt19937_64 rng(TestSeed());
  const std::vector<double> doubles = {-0.0, 0.0, 1.5, -2.0, std::nan(""), 1e300};
  const std::vector<std::string> strings = {"", "a", "ab", "b", "\xff", "a\x80"};
  auto fields = *bridge::ToArrowSchema((*schema)->fields());
  arrow::DoubleBuilder d;
  arrow::StringBuilder st;
  arrow::TimestampBuilder t(fields->field(2)->type(), arrow::default_memory_pool());
  arrow::Decimal128Builder m(fields->field(3)->type());
  arrow::BooleanBuilder b;
  arrow::Int32Builder q;
  arrow::Int64Builder v, sequences;
  constexpr int kRows = 300;
  for (int i = 0; i < kRows; ++i) {
    ASSERT_TRUE(d.Append(doubles[rng() % doubles.size()]).ok());
    ASSERT_TRUE(st.Append(strings[rng() % strings.size()]).ok());
    ASSERT_TRUE(t.Append(static_cast<int64_t>(rng() % 3) - 1).ok());
    ASSERT_TRUE(m.Append(arrow::Decimal128(static_cast<int64_t>(rng() % 3) - 1)).ok());
    ASSERT_TRUE(b.Append(rng() % 2 == 0).ok());
    ASSERT_TRUE((rng() % 5 == 0 ? q.AppendNull() : q.Append(static_cast<int>(rng() % 3))).ok());
    ASSERT_TRUE(v.Append(i).ok());
    ASSERT_TRUE(sequences.Append(static_cast<int64_t>(rng() % 4)).ok());
  }
  RowBatch rows;
  rows.rows = arrow::RecordBatch::Make(
      fields, kRows,
      {*d.Finish(), *st.Finish(), *t.Finish(), *m.Finish(), *b.Finish(), *q.Finish(), *v.Finish()});
  rows.sequence_numbers = std::static_pointer_cast<arrow::Int64Array>(*sequences.Finish());
  auto records = realtime::AsRecords(rows, *layout);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  int64_t disagreements = 0;
  for (int64_t x = 0; x < kRows; ++x) {
    for (int64_t y = 0; y < kRows; ++y) {
      bool less = (*order)->Compare(rows, x, rows, y) < 0;
      disagreements += less != record_order->Less(**records, x, **records, y);
    }
  }
  EXPECT_EQ(disagreements, 0);
}

}  // namespace
}  // namespace freshet::testing
