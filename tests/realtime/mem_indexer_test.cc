// Tests of the MemIndexer plugins ("columnar", "spilling"), RowBatch and the plugin registry.
#include <arrow/api.h>
#include <arrow/util/byte_size.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "freshet/realtime/mem_indexer.h"
#include "realtime/indexers/columnar_mem_indexer.h"
#include "realtime/indexers/spilling_mem_indexer.h"
#include "realtime/memory_size.h"
#include "realtime/zone_map.h"
#include "scan/predicate.h"
#include "testing/test_util.h"

namespace freshet::realtime {
namespace {

namespace fs = std::filesystem;
using ::freshet::testing::TempDir;

// ---------------------------------------------------------------------------------------------
// Rows: column "off" holds the row's offset, so that a result can be checked row by row.

std::shared_ptr<arrow::Field> FieldWithId(const std::string& name,
                                          std::shared_ptr<arrow::DataType> type, bool nullable,
                                          int id) {
  return arrow::field(name, std::move(type), nullable,
                      arrow::key_value_metadata({"PARQUET:field_id"}, {std::to_string(id)}));
}

std::shared_ptr<arrow::Schema> TestSchema() {
  static const auto schema = arrow::schema(
      {FieldWithId("off", arrow::int64(), false, 0), FieldWithId("name", arrow::utf8(), true, 1),
       FieldWithId("score", arrow::float64(), true, 2)},
      arrow::key_value_metadata({"table"}, {"t"}));
  return schema;
}

int8_t KindOf(int64_t offset) { return static_cast<int8_t>(offset % 4); }
int64_t SequenceOf(int64_t offset) { return offset * 10 + 1; }

std::shared_ptr<arrow::RecordBatch> MakeRows(const std::vector<int64_t>& offsets,
                                             std::shared_ptr<arrow::Schema> schema = TestSchema()) {
  arrow::Int64Builder off;
  arrow::StringBuilder name;
  arrow::DoubleBuilder score;
  for (int64_t o : offsets) {
    EXPECT_TRUE(off.Append(o).ok());
    EXPECT_TRUE((o % 7 == 0 ? name.AppendNull() : name.Append("row-" + std::to_string(o))).ok());
    EXPECT_TRUE((o % 5 == 0 ? score.AppendNull() : score.Append(o * 0.5)).ok());
  }
  return arrow::RecordBatch::Make(
      std::move(schema), static_cast<int64_t>(offsets.size()),
      {off.Finish().ValueOrDie(), name.Finish().ValueOrDie(), score.Finish().ValueOrDie()});
}

template <typename Builder, typename T>
auto MakeArray(const std::vector<T>& values) {
  Builder builder;
  EXPECT_TRUE(builder.AppendValues(values).ok());
  std::shared_ptr<arrow::Array> array = builder.Finish().ValueOrDie();
  return array;
}

struct Shape {
  bool explicit_offsets = false;  // else first_offset (offsets must then be contiguous)
  bool kinds = false;
  bool sequences = false;
};

RowBatch MakeBatch(const std::vector<int64_t>& offsets, Shape shape = {}) {
  RowBatch batch;
  batch.rows = MakeRows(offsets);
  batch.first_offset = offsets.empty() ? 0 : offsets.front();
  if (shape.explicit_offsets) {
    batch.offsets =
        std::static_pointer_cast<arrow::Int64Array>(MakeArray<arrow::Int64Builder>(offsets));
  }
  if (shape.kinds) {
    std::vector<int8_t> kinds;
    for (int64_t o : offsets) kinds.push_back(KindOf(o));
    batch.row_kinds =
        std::static_pointer_cast<arrow::Int8Array>(MakeArray<arrow::Int8Builder>(kinds));
  }
  if (shape.sequences) {
    std::vector<int64_t> sequences;
    for (int64_t o : offsets) sequences.push_back(SequenceOf(o));
    batch.sequence_numbers =
        std::static_pointer_cast<arrow::Int64Array>(MakeArray<arrow::Int64Builder>(sequences));
  }
  return batch;
}

std::vector<int64_t> Range(int64_t begin, int64_t end, int64_t step = 1) {
  std::vector<int64_t> out;
  for (int64_t o = begin; o < end; o += step) out.push_back(o);
  return out;
}

std::shared_ptr<arrow::Schema> Projected(const std::vector<int>& columns) {
  arrow::FieldVector fields;
  for (int c : columns) fields.push_back(TestSchema()->field(c));
  return arrow::schema(fields, TestSchema()->metadata());
}

// ---------------------------------------------------------------------------------------------
// Reading results back.

struct Collected {
  std::vector<int64_t> offsets;
  std::vector<int8_t> kinds;                      // kInsert for rows of batches without kinds
  std::vector<std::optional<int64_t>> sequences;  // nullopt where a batch had none
  std::vector<int64_t> batch_rows;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;

  int64_t rows() const { return static_cast<int64_t>(offsets.size()); }
  std::shared_ptr<arrow::Table> Table(const std::shared_ptr<arrow::Schema>& schema) const {
    return arrow::Table::FromRecordBatches(schema, batches).ValueOrDie();
  }
};

// Reads every reader in order; fails when offsets do not strictly increase or a batch is larger
// than `batch_size`.
Result<Collected> Collect(Result<RowBatchReaders> readers, int64_t batch_size = 1 << 30) {
  if (!readers.ok()) return readers.status();
  Collected out;
  for (auto& reader : *readers) {
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(std::optional<RowBatch> batch, reader->Next());
      if (!batch.has_value()) break;
      int64_t n = batch->num_rows();
      if (n == 0 || n > batch_size) {
        return Status::Internal("batch of ", n, " rows (batch size ", batch_size, ")");
      }
      if (batch->offsets != nullptr && batch->offsets->length() != n) {
        return Status::Internal("offsets of the wrong length");
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t offset = batch->OffsetAt(i);
        if (!out.offsets.empty() && offset <= out.offsets.back()) {
          return Status::Internal("offset ", offset, " after ", out.offsets.back());
        }
        out.offsets.push_back(offset);
        out.kinds.push_back(batch->row_kinds ? batch->row_kinds->Value(i) : 0);
        if (batch->sequence_numbers && batch->sequence_numbers->IsValid(i)) {
          out.sequences.push_back(batch->sequence_numbers->Value(i));
        } else {
          out.sequences.push_back(std::nullopt);
        }
      }
      out.batch_rows.push_back(n);
      out.batches.push_back(batch->rows);
    }
  }
  return out;
}

QuerySpec Spec(int64_t from, std::vector<int> columns = {0, 1, 2}, int64_t batch_size = 4096) {
  QuerySpec spec;
  spec.from_offset = from;
  spec.columns = std::move(columns);
  spec.batch_size = batch_size;
  return spec;
}

Result<Collected> Query(MemIndexer& indexer, const std::shared_ptr<const ReadView>& view,
                        const QuerySpec& spec) {
  return Collect(indexer.CreateQueryReaders(view, spec), spec.batch_size);
}

Result<Collected> QueryFrom(MemIndexer& indexer, const std::shared_ptr<const ReadView>& view,
                            int64_t from) {
  return Query(indexer, view, Spec(from));
}

// The rows of `offsets` as written by MakeBatch, projected: what a query must return.
void ExpectRows(const Collected& got, const std::vector<int64_t>& offsets,
                const std::vector<int>& columns = {0, 1, 2}, Shape shape = {}) {
  ASSERT_EQ(got.offsets, offsets);
  auto expected = MakeRows(offsets)->SelectColumns(columns).ValueOrDie();
  auto schema = Projected(columns);
  auto table = got.Table(schema);
  auto expected_table = arrow::Table::FromRecordBatches(schema, {expected}).ValueOrDie();
  EXPECT_TRUE(table->Equals(*expected_table)) << table->ToString();
  for (size_t i = 0; i < offsets.size(); ++i) {
    EXPECT_EQ(got.kinds[i], shape.kinds ? KindOf(offsets[i]) : 0);
    if (shape.sequences) {
      EXPECT_EQ(got.sequences[i], SequenceOf(offsets[i]));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// RowBatch

TEST(RowBatchTest, ContiguousOffsets) {
  RowBatch batch = MakeBatch(Range(10, 20));
  EXPECT_EQ(batch.num_rows(), 10);
  EXPECT_EQ(batch.OffsetAt(3), 13);
  EXPECT_EQ(batch.EndOffset(), 20);
  EXPECT_EQ(batch.LowerBound(0), 0);
  EXPECT_EQ(batch.LowerBound(15), 5);
  EXPECT_EQ(batch.LowerBound(25), 10);
  RowBatch slice = batch.Slice(4, 3);
  EXPECT_EQ(slice.num_rows(), 3);
  EXPECT_EQ(slice.first_offset, 14);
  EXPECT_EQ(slice.EndOffset(), 17);
  EXPECT_EQ(batch.Slice(10, 5).num_rows(), 0);
  EXPECT_EQ(batch.Slice(10, 5).EndOffset(), 20);
  RowBatch empty;
  empty.first_offset = 7;
  EXPECT_EQ(empty.num_rows(), 0);
  EXPECT_EQ(empty.EndOffset(), 7);
}

TEST(RowBatchTest, ExplicitOffsetsWithGaps) {
  RowBatch batch = MakeBatch({3, 8, 9, 20, 31}, {true, true, true});
  EXPECT_EQ(batch.EndOffset(), 32);
  EXPECT_EQ(batch.LowerBound(8), 1);
  EXPECT_EQ(batch.LowerBound(10), 3);
  EXPECT_EQ(batch.LowerBound(32), 5);
  RowBatch slice = batch.Slice(2, 2);
  EXPECT_EQ(slice.OffsetAt(0), 9);
  EXPECT_EQ(slice.OffsetAt(1), 20);
  EXPECT_EQ(slice.EndOffset(), 21);
  EXPECT_EQ(slice.row_kinds->Value(1), KindOf(20));
  EXPECT_EQ(slice.sequence_numbers->Value(0), SequenceOf(9));
  EXPECT_EQ(slice.rows->column(0)->length(), 2);
}

// ---------------------------------------------------------------------------------------------
// Registry

TEST(MemIndexerRegistryTest, BuiltInsAndUnknownNames) {
  ASSERT_OK_AND_ASSIGN(auto columnar, FindMemIndexerFactory("columnar"));
  EXPECT_EQ(columnar->name(), "columnar");
  ASSERT_OK_AND_ASSIGN(auto spilling, FindMemIndexerFactory("spilling"));
  EXPECT_EQ(spilling->name(), "spilling");
  ASSERT_OK_AND_ASSIGN(auto indexed, FindMemIndexerFactory("indexed"));
  EXPECT_EQ(indexed->name(), "indexed");
  auto missing = FindMemIndexerFactory("nope");
  ASSERT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("'nope'"), std::string::npos);
  EXPECT_NE(missing.status().message().find("columnar, indexed, spilling"), std::string::npos)
      << missing.status().ToString();
}

class NamedFactory : public MemIndexerFactory {
 public:
  explicit NamedFactory(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Result<std::unique_ptr<MemIndexer>> Create(const MemIndexerOptions&) override {
    return Status::NotImplemented("test factory");
  }

 private:
  std::string name_;
};

TEST(MemIndexerRegistryTest, RegisterCustomFactory) {
  EXPECT_TRUE(
      RegisterMemIndexerFactory(std::make_shared<NamedFactory>("columnar")).IsAlreadyExists());
  EXPECT_TRUE(RegisterMemIndexerFactory(nullptr).IsInvalid());
  ASSERT_OK(RegisterMemIndexerFactory(std::make_shared<NamedFactory>("test-custom")));
  ASSERT_OK_AND_ASSIGN(auto found, FindMemIndexerFactory("test-custom"));
  EXPECT_EQ(found->name(), "test-custom");
  EXPECT_TRUE(
      RegisterMemIndexerFactory(std::make_shared<NamedFactory>("test-custom")).IsAlreadyExists());
}

// ---------------------------------------------------------------------------------------------
// Both plugins

class MemIndexerTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string SpillDir() const { return dir_.Sub("spill"); }

  Result<std::unique_ptr<MemIndexer>> Create(int64_t start_offset = 0,
                                             std::map<std::string, std::string> options = {}) {
    MemIndexerOptions o;
    o.schema = TestSchema();
    o.partition_bucket = {"", 3};
    o.start_offset = start_offset;
    o.table_options = std::move(options);
    if (GetParam() == "spilling") o.table_options.emplace("realtime.spill.dir", SpillDir());
    FRESHET_ASSIGN_OR_RETURN(auto factory, FindMemIndexerFactory(GetParam()));
    return factory->Create(o);
  }

  size_t SpillFiles() const {
    if (!fs::exists(SpillDir())) return 0;
    return std::distance(fs::directory_iterator(SpillDir()), fs::directory_iterator());
  }

  TempDir dir_;
};

TEST_P(MemIndexerTest, SegmentRangesTileFromStartOffset) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create(100));
  {
    auto view = indexer->AcquireReadView();
    EXPECT_EQ(view->range(), (OffsetRange{100, 100}));
    EXPECT_EQ(view->num_rows(), 0);
  }
  ASSERT_OK_AND_ASSIGN(auto none, indexer->SealForCommit());
  EXPECT_EQ(none, nullptr);

  // The first row comes after a gap: the segment still begins at the start offset.
  ASSERT_OK(indexer->Write(MakeBatch(Range(103, 110))));
  ASSERT_OK(indexer->Write(MakeBatch(Range(110, 115))));
  ASSERT_OK_AND_ASSIGN(auto first, indexer->SealForCommit());
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->range(), (OffsetRange{100, 115}));
  EXPECT_EQ(first->num_rows(), 12);
  ASSERT_OK_AND_ASSIGN(none, indexer->SealForCommit());
  EXPECT_EQ(none, nullptr);

  Shape pk{true, true, true};
  ASSERT_OK(indexer->Write(MakeBatch({120, 122, 124}, pk)));
  ASSERT_OK_AND_ASSIGN(auto second, indexer->SealForCommit());
  EXPECT_EQ(second->range(), (OffsetRange{115, 125}));
  EXPECT_EQ(second->num_rows(), 3);

  ASSERT_OK(indexer->Write(MakeBatch({130})));
  auto view = indexer->AcquireReadView();
  EXPECT_EQ(view->range(), (OffsetRange{100, 131}));
  EXPECT_EQ(view->num_rows(), 16);

  ASSERT_OK_AND_ASSIGN(auto rows, Collect(indexer->CreateCommitReaders(first)));
  ExpectRows(rows, Range(103, 115));
  ASSERT_OK_AND_ASSIGN(rows, Collect(indexer->CreateCommitReaders(second)));
  ExpectRows(rows, {120, 122, 124}, {0, 1, 2}, pk);
  ASSERT_OK_AND_ASSIGN(rows, QueryFrom(*indexer, view, 100));
  std::vector<int64_t> all = Range(103, 115);
  all.insert(all.end(), {120, 122, 124, 130});
  ASSERT_EQ(rows.offsets, all);
}

TEST_P(MemIndexerTest, ViewIsImmutable) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 10))));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch(Range(10, 13))));
  auto view = indexer->AcquireReadView();
  ASSERT_OK_AND_ASSIGN(auto before, QueryFrom(*indexer, view, 0));
  ExpectRows(before, Range(0, 13));

  // More writes, a seal, a flush, a reclaim past everything the view holds, more writes.
  ASSERT_OK(indexer->Write(MakeBatch(Range(13, 20))));
  ASSERT_OK_AND_ASSIGN(auto second, indexer->SealForCommit());
  ASSERT_OK_AND_ASSIGN(auto flushed, Collect(indexer->CreateCommitReaders(sealed)));
  ASSERT_OK_AND_ASSIGN(flushed, Collect(indexer->CreateCommitReaders(second)));
  indexer->Reclaim(20);
  ASSERT_OK(indexer->Write(MakeBatch(Range(20, 30))));
  indexer->Reclaim(20);

  EXPECT_EQ(view->range(), (OffsetRange{0, 13}));
  EXPECT_EQ(view->num_rows(), 13);
  ASSERT_OK_AND_ASSIGN(auto after, QueryFrom(*indexer, view, 0));
  ExpectRows(after, Range(0, 13));
  ASSERT_OK_AND_ASSIGN(after, QueryFrom(*indexer, view, 11));
  ExpectRows(after, Range(11, 13));

  auto now = indexer->AcquireReadView();
  EXPECT_EQ(now->range(), (OffsetRange{20, 30}));
  ASSERT_OK_AND_ASSIGN(after, QueryFrom(*indexer, now, 20));
  ExpectRows(after, Range(20, 30));
}

TEST_P(MemIndexerTest, FromOffsetWithGaps) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create(5));
  Shape shape{true, false, false};
  ASSERT_OK(indexer->Write(MakeBatch({10, 20, 30}, shape)));
  ASSERT_OK(indexer->Write(MakeBatch({31, 32, 50}, shape)));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch({60, 61}, shape)));
  ASSERT_OK_AND_ASSIGN(auto flushed, Collect(indexer->CreateCommitReaders(sealed)));
  auto view = indexer->AcquireReadView();
  EXPECT_EQ(view->range(), (OffsetRange{5, 62}));

  struct Case {
    int64_t from;
    std::vector<int64_t> expected;
  };
  for (const Case& c : std::vector<Case>{{5, {10, 20, 30, 31, 32, 50, 60, 61}},
                                         {15, {20, 30, 31, 32, 50, 60, 61}},
                                         {20, {20, 30, 31, 32, 50, 60, 61}},
                                         {32, {32, 50, 60, 61}},
                                         {51, {60, 61}},
                                         {61, {61}},
                                         {62, {}},
                                         {1000, {}}}) {
    SCOPED_TRACE(c.from);
    ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, view, c.from));
    ExpectRows(rows, c.expected);
  }
  auto below = QueryFrom(*indexer, view, 4);
  ASSERT_TRUE(below.status().IsInvalid()) << below.status().ToString();
  EXPECT_NE(below.status().message().find("would miss rows"), std::string::npos);
}

TEST_P(MemIndexerTest, FromOffsetBelowReclaimedRowsIsInvalid) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 10))));
  ASSERT_OK_AND_ASSIGN(auto first, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch(Range(10, 20))));
  ASSERT_OK_AND_ASSIGN(auto second, indexer->SealForCommit());
  indexer->Reclaim(10);
  auto view = indexer->AcquireReadView();
  EXPECT_EQ(view->range(), (OffsetRange{10, 20}));
  EXPECT_TRUE(QueryFrom(*indexer, view, 9).status().IsInvalid());
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, view, 10));
  ExpectRows(rows, Range(10, 20));
  // A reclaimed segment can no longer be flushed; a live one can.
  EXPECT_TRUE(indexer->CreateCommitReaders(first).status().IsInvalid());
  ASSERT_OK_AND_ASSIGN(rows, Collect(indexer->CreateCommitReaders(second)));
  ExpectRows(rows, Range(10, 20));
}

TEST_P(MemIndexerTest, ProjectionKeepsFieldMetadata) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 8))));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK_AND_ASSIGN(auto flushed, Collect(indexer->CreateCommitReaders(sealed)));
  ASSERT_OK(indexer->Write(MakeBatch(Range(8, 12))));
  auto view = indexer->AcquireReadView();

  ASSERT_OK_AND_ASSIGN(auto rows, Query(*indexer, view, Spec(3, {2, 0})));
  ExpectRows(rows, Range(3, 12), {2, 0});
  for (const auto& batch : rows.batches) {
    ASSERT_EQ(batch->num_columns(), 2);
    EXPECT_TRUE(batch->schema()->Equals(*Projected({2, 0}), /*check_metadata=*/true));
  }
  // No columns at all: the rows still count (COUNT(*)).
  ASSERT_OK_AND_ASSIGN(rows, Query(*indexer, view, Spec(0, {})));
  EXPECT_EQ(rows.offsets, Range(0, 12));
  for (const auto& batch : rows.batches) EXPECT_EQ(batch->num_columns(), 0);
  // The same column twice is allowed; an unknown one is not.
  ASSERT_OK_AND_ASSIGN(rows, Query(*indexer, view, Spec(0, {1, 1})));
  ExpectRows(rows, Range(0, 12), {1, 1});
  EXPECT_TRUE(Query(*indexer, view, Spec(0, {3})).status().IsInvalid());
  EXPECT_TRUE(Query(*indexer, view, Spec(0, {-1})).status().IsInvalid());
}

TEST_P(MemIndexerTest, BatchSizeBoundsEveryBatch) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 100))));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK_AND_ASSIGN(auto flushed, Collect(indexer->CreateCommitReaders(sealed)));
  ASSERT_OK(indexer->Write(MakeBatch(Range(100, 130))));
  auto view = indexer->AcquireReadView();
  ASSERT_OK_AND_ASSIGN(auto rows, Query(*indexer, view, Spec(2, {0, 1, 2}, 7)));
  ExpectRows(rows, Range(2, 130));
  // 98 rows of the sealed segment, 30 of the building one: cut at 7, never across segments.
  std::vector<int64_t> expected(14, 7);
  expected.insert(expected.end(), {7, 7, 7, 7, 2});
  EXPECT_EQ(rows.batch_rows, expected);
  EXPECT_TRUE(Query(*indexer, view, Spec(0, {0}, 0)).status().IsInvalid());
}

TEST_P(MemIndexerTest, CommitReadersReturnEachSealedRowOnce) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create(1000));
  Shape pk{false, true, true};
  std::vector<std::shared_ptr<SealedSegment>> segments;
  int64_t next = 1000;
  for (int s = 0; s < 5; ++s) {
    for (int b = 0; b <= s; ++b) {
      ASSERT_OK(indexer->Write(MakeBatch(Range(next, next + 3 + b), pk)));
      next += 3 + b;
    }
    ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
    segments.push_back(sealed);
  }
  std::vector<int64_t> all;
  int64_t expected_begin = 1000;
  for (const auto& segment : segments) {
    EXPECT_EQ(segment->range().begin, expected_begin);
    expected_begin = segment->range().end;
    ASSERT_OK_AND_ASSIGN(auto rows, Collect(indexer->CreateCommitReaders(segment)));
    EXPECT_EQ(rows.rows(), segment->num_rows());
    ExpectRows(rows, Range(segment->range().begin, segment->range().end), {0, 1, 2}, pk);
    all.insert(all.end(), rows.offsets.begin(), rows.offsets.end());
  }
  EXPECT_EQ(all, Range(1000, next));

  // A segment of another indexer is refused.
  ASSERT_OK_AND_ASSIGN(auto other, Create());
  EXPECT_TRUE(other->CreateCommitReaders(segments[0]).status().IsInvalid());
  EXPECT_TRUE(other->CreateQueryReaders(indexer->AcquireReadView(), Spec(0)).status().IsInvalid());
}

TEST_P(MemIndexerTest, QueryEndOffsetBoundsTheRowsReturned) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 10))));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch({12, 15, 18}, {true})));
  auto view = indexer->AcquireReadView();
  QuerySpec spec = Spec(3);
  for (auto [end, expected] : std::vector<std::pair<int64_t, std::vector<int64_t>>>{
           {0, {}},
           {3, {}},
           {7, Range(3, 7)},
           {10, Range(3, 10)},
           {16, {3, 4, 5, 6, 7, 8, 9, 12, 15}},
           {19, {3, 4, 5, 6, 7, 8, 9, 12, 15, 18}}}) {
    spec.end_offset = end;
    ASSERT_OK_AND_ASSIGN(auto rows, Query(*indexer, view, spec));
    EXPECT_EQ(rows.offsets, expected) << "end " << end;
  }
}

TEST_P(MemIndexerTest, UndoLastWriteRemovesItsRowsButNotFromEarlierViews) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create(100));
  ASSERT_OK(indexer->Write(MakeBatch(Range(100, 110))));
  ASSERT_OK_AND_ASSIGN(auto first, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch(Range(110, 115))));
  ASSERT_OK(indexer->Write(MakeBatch({120, 125}, {true})));
  auto before = indexer->AcquireReadView();
  const MemoryUsage usage_before = indexer->Usage();
  ASSERT_OK(indexer->UndoLastWrite());
  // Only the last Write can be undone, once.
  EXPECT_TRUE(indexer->UndoLastWrite().IsInvalid());

  auto after = indexer->AcquireReadView();
  EXPECT_EQ(after->range(), (OffsetRange{100, 115}));
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, after, 100));
  ExpectRows(rows, Range(100, 115));
  ASSERT_OK_AND_ASSIGN(rows, QueryFrom(*indexer, before, 100));  // a view never changes
  EXPECT_EQ(rows.offsets.size(), 17u);
  EXPECT_EQ(rows.offsets.back(), 125);
  EXPECT_GE(usage_before.rows, 17);

  // The undone offsets are free again; the segment seals with what stayed plus what came next.
  ASSERT_OK(indexer->Write(MakeBatch({115, 116}, {true})));
  ASSERT_OK_AND_ASSIGN(auto second, indexer->SealForCommit());
  EXPECT_EQ(second->range(), (OffsetRange{110, 117}));
  EXPECT_EQ(second->num_rows(), 7);
  ASSERT_OK_AND_ASSIGN(rows, Collect(indexer->CreateCommitReaders(second)));
  ExpectRows(rows, Range(110, 117));
  // Nothing to undo after a seal; an undo of an empty building segment's Write is a no-op.
  EXPECT_TRUE(indexer->UndoLastWrite().IsInvalid());
  ASSERT_OK(indexer->Write(MakeBatch({})));
  ASSERT_OK(indexer->UndoLastWrite());
  EXPECT_EQ(indexer->AcquireReadView()->range(), (OffsetRange{100, 117}));

  before.reset();
  after.reset();
  indexer->Reclaim(117);
  EXPECT_EQ(indexer->Usage().bytes, 0);
  EXPECT_EQ(indexer->Usage().rows, 0);
}

// Small Writes are copied into larger blocks as they accumulate (append tables): every view,
// taken before or after a copy, still returns exactly its rows, memory stays close to the rows'
// own size, and an undo of the Write that triggered a copy removes only that Write's rows.
TEST_P(MemIndexerTest, SmallWritesAreCoalescedWithoutChangingAnyView) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  constexpr int kWrites = 3000;
  std::vector<int64_t> written;
  std::vector<std::pair<std::shared_ptr<const ReadView>, size_t>> views;  // view, rows it saw
  int64_t next = 0;
  for (int w = 0; w < kWrites; ++w) {
    // Explicit offsets with gaps every third Write, implicit contiguous ones otherwise.
    const bool gaps = w % 3 == 0;
    std::vector<int64_t> offsets = Range(next, next + (gaps ? 20 : 10), gaps ? 2 : 1);
    ASSERT_OK(indexer->Write(MakeBatch(offsets, {gaps})));
    written.insert(written.end(), offsets.begin(), offsets.end());
    next = offsets.back() + 1 + (gaps ? 3 : 0);
    if (w % 250 == 0) views.emplace_back(indexer->AcquireReadView(), written.size());
  }
  auto last = indexer->AcquireReadView();
  views.emplace_back(last, written.size());
  for (const auto& [view, rows] : views) {
    ASSERT_OK_AND_ASSIGN(auto got, QueryFrom(*indexer, view, 0));
    std::vector<int64_t> expected(written.begin(), written.begin() + rows);
    ASSERT_NO_FATAL_FAILURE(ExpectRows(got, expected)) << "view of " << rows << " rows";
  }
  // The copies run in the background: soon the rows come back in far fewer batches than were
  // written, and memory holds about what the same rows and offsets take as one batch, plus the
  // small Writes not coalesced yet (the views above pin some more: dropped first).
  views.clear();
  const int64_t one_batch =
      HeldBytes(*MakeRows(written)) + HeldBytes(MakeArray<arrow::Int64Builder>(written));
  size_t batches = 0;
  for (int wait_ms = 0; wait_ms < 20'000; wait_ms += 10) {
    ASSERT_OK_AND_ASSIGN(auto all, Query(*indexer, indexer->AcquireReadView(), Spec(0)));
    batches = all.batch_rows.size();
    if (batches < kWrites / 20 &&
        indexer->Usage().bytes < one_batch * 11 / 10 + MemChunks::kCoalescedBlockBytes) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_LT(batches, static_cast<size_t>(kWrites / 20));
  EXPECT_LT(indexer->Usage().bytes, one_batch * 11 / 10 + MemChunks::kCoalescedBlockBytes);
  EXPECT_EQ(indexer->Usage().rows, static_cast<int64_t>(written.size()));

  // Undo the last Write (it may have started a new block): the rest stays, in every view.
  ASSERT_OK(indexer->UndoLastWrite());
  std::vector<int64_t> kept(written.begin(), written.end() - 10);
  ASSERT_OK_AND_ASSIGN(auto undone, QueryFrom(*indexer, indexer->AcquireReadView(), 0));
  ASSERT_NO_FATAL_FAILURE(ExpectRows(undone, kept));
  ASSERT_OK_AND_ASSIGN(auto still, QueryFrom(*indexer, last, 0));
  EXPECT_EQ(still.offsets, written);

  last.reset();
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK_AND_ASSIGN(auto committed, Collect(indexer->CreateCommitReaders(sealed)));
  ASSERT_NO_FATAL_FAILURE(ExpectRows(committed, kept));
  indexer->Reclaim(sealed->range().end);
  EXPECT_EQ(indexer->Usage().bytes, 0);
  EXPECT_EQ(indexer->Usage().rows, 0);
}

TEST_P(MemIndexerTest, ReclaimIsMonotonicAndIdempotent) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  for (int s = 0; s < 3; ++s) {
    ASSERT_OK(indexer->Write(MakeBatch(Range(s * 10, s * 10 + 10))));
    ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  }
  ASSERT_OK(indexer->Write(MakeBatch(Range(30, 35))));
  auto begin = [&] { return indexer->AcquireReadView()->range().begin; };
  EXPECT_EQ(begin(), 0);
  indexer->Reclaim(15);  // [0, 10) goes; [10, 20) is only partly committed and stays whole
  EXPECT_EQ(begin(), 10);
  indexer->Reclaim(5);  // lower: ignored
  EXPECT_EQ(begin(), 10);
  indexer->Reclaim(15);
  EXPECT_EQ(begin(), 10);
  auto view = indexer->AcquireReadView();
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, view, 10));
  ExpectRows(rows, Range(10, 35));
  indexer->Reclaim(20);
  EXPECT_EQ(begin(), 20);
  indexer->Reclaim(1000);  // the building segment is never reclaimed
  EXPECT_EQ(indexer->AcquireReadView()->range(), (OffsetRange{30, 35}));
  ASSERT_OK_AND_ASSIGN(rows, QueryFrom(*indexer, indexer->AcquireReadView(), 30));
  ExpectRows(rows, Range(30, 35));
  // `view` pins [10, 30) in memory; the spilling plugin moved it to files at Reclaim(15).
  EXPECT_EQ(indexer->Usage().rows, GetParam() == "columnar" ? 25 : 5);
  view.reset();
  indexer->Reclaim(1000);
  EXPECT_EQ(indexer->Usage().rows, 5);
}

TEST_P(MemIndexerTest, MemoryReturnsToZeroAfterReclaimReleaseAndDrain) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  EXPECT_EQ(indexer->Usage().bytes, 0);
  auto batch = MakeBatch(Range(0, 50));
  ASSERT_OK(indexer->Write(batch));
  MemoryUsage usage = indexer->Usage();
  EXPECT_EQ(usage.rows, 50);
  EXPECT_GE(usage.bytes, arrow::util::TotalBufferSize(*batch.rows));
  EXPECT_EQ(usage.segments, 1);

  auto view = indexer->AcquireReadView();
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch(Range(50, 60))));
  ASSERT_OK_AND_ASSIGN(auto more, indexer->SealForCommit());
  indexer->Reclaim(60);
  // The view pins the first segment: its memory is still held.
  EXPECT_EQ(indexer->Usage().rows, 50);
  EXPECT_GT(indexer->Usage().bytes, 0);
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, view, 0));
  ExpectRows(rows, Range(0, 50));
  rows = {};
  view.reset();
  // Released on this (query) thread, but freed only by the next Reclaim.
  EXPECT_EQ(indexer->Usage().rows, 50);
  indexer->Reclaim(60);
  usage = indexer->Usage();
  EXPECT_EQ(usage.bytes, 0);
  EXPECT_EQ(usage.rows, 0);
  EXPECT_EQ(usage.segments, 0);
  EXPECT_EQ(usage.spilled_bytes, 0);
  EXPECT_EQ(SpillFiles(), 0u);
}

TEST_P(MemIndexerTest, RejectedWritesLeaveStateUnchanged) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create(10));
  ASSERT_OK(indexer->Write(MakeBatch(Range(10, 20))));
  MemoryUsage before = indexer->Usage();

  std::vector<std::pair<std::string, RowBatch>> bad;
  bad.emplace_back("offset not above the last one", MakeBatch(Range(19, 25)));
  RowBatch not_increasing = MakeBatch({30, 32, 31}, {true, false, false});
  bad.emplace_back("offsets not increasing", not_increasing);
  RowBatch short_offsets = MakeBatch({30, 31, 32}, {true, false, false});
  short_offsets.offsets =
      std::static_pointer_cast<arrow::Int64Array>(short_offsets.offsets->Slice(0, 2));
  bad.emplace_back("offsets of the wrong length", short_offsets);
  RowBatch bad_kind = MakeBatch({30, 31}, {false, true, false});
  bad_kind.row_kinds = std::static_pointer_cast<arrow::Int8Array>(
      MakeArray<arrow::Int8Builder>(std::vector<int8_t>{0, 9}));
  bad.emplace_back("unknown row kind", bad_kind);
  RowBatch other_schema = MakeBatch({30});
  other_schema.rows = MakeRows({30}, arrow::schema({arrow::field("off", arrow::int64(), false),
                                                    arrow::field("name", arrow::utf8()),
                                                    arrow::field("x", arrow::float64())}));
  bad.emplace_back("other schema", other_schema);
  RowBatch no_rows;
  bad.emplace_back("no rows", no_rows);
  ASSERT_OK_AND_ASSIGN(auto fresh, Create(10));
  EXPECT_TRUE(fresh->Write(MakeBatch(Range(5, 12))).IsInvalid());
  EXPECT_EQ(fresh->Usage().rows, 0);

  for (const auto& [what, batch] : bad) {
    SCOPED_TRACE(what);
    Status st = indexer->Write(batch);
    EXPECT_TRUE(st.IsInvalid()) << st.ToString();
    EXPECT_EQ(indexer->Usage().rows, before.rows);
    EXPECT_EQ(indexer->Usage().bytes, before.bytes);
  }
  auto view = indexer->AcquireReadView();
  EXPECT_EQ(view->range(), (OffsetRange{10, 20}));
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, view, 10));
  ExpectRows(rows, Range(10, 20));
  // The next valid write goes on from where the rejected ones left nothing.
  ASSERT_OK(indexer->Write(MakeBatch(Range(20, 22))));
  ASSERT_OK(indexer->Write(MakeBatch(Range(22, 22))));  // empty: accepted, nothing stored
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  EXPECT_EQ(sealed->range(), (OffsetRange{10, 22}));
}

// The framework's RowFilter of an append query (realtime/zone_map.h) over TestSchema's columns.
std::shared_ptr<PredicateRowFilter> FilterOf(const std::string& text) {
  meta::SchemaSpec spec;
  const std::vector<meta::DataTypePtr> types = {meta::DataType::BigInt(false),
                                                meta::DataType::String(), meta::DataType::Double()};
  for (int i = 0; i < 3; ++i) {
    meta::DataField field;
    field.id = i;
    field.name = TestSchema()->field(i)->name();
    field.type = types[i];
    spec.fields.push_back(field);
  }
  auto schema = meta::TableSchema::Create(0, spec, 0).ValueOrDie();
  auto predicate = scan::MakePredicate(text, schema);
  EXPECT_TRUE(predicate.ok()) << predicate.status().ToString();
  return std::make_shared<PredicateRowFilter>(
      std::make_shared<const scan::Predicate>(*predicate), schema,
      std::make_shared<const std::vector<meta::DataField>>(schema.fields()));
}

// Written batches a filter rules out by their value ranges are not returned; the others are
// returned whole (the framework filters rows). Bounds come from every kind of column: integers
// and strings exactly, null counts for IS NULL, none for DOUBLE (whose bounds are never used).
TEST_P(MemIndexerTest, ZoneMapsSkipWrittenBatchesTheFilterRulesOut) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  for (int b = 0; b < 10; ++b) ASSERT_OK(indexer->Write(MakeBatch(Range(b * 10, b * 10 + 10))));
  auto view = indexer->AcquireReadView();
  auto query = [&](const std::string& text) {
    auto filter = FilterOf(text);
    QuerySpec spec = Spec(0);
    spec.filter = filter.get();
    return Query(*indexer, view, spec).ValueOrDie().offsets;
  };
  EXPECT_EQ(query("off >= 57 AND off < 63"), Range(50, 70));
  std::vector<int64_t> first_and_last = Range(0, 10);
  for (int64_t o : Range(90, 100)) first_and_last.push_back(o);
  EXPECT_EQ(query("off IN (3, 95)"), first_and_last);
  // Strings compare as bytes: 'row-1'..'row-9' (batch 0) and 'row-30'..'row-39' hold 'row-33'.
  std::vector<int64_t> first_and_fourth = Range(0, 10);
  for (int64_t o : Range(30, 40)) first_and_fourth.push_back(o);
  EXPECT_EQ(query("name = 'row-33'"), first_and_fourth);
  EXPECT_EQ(query("name > 'row-99'"), std::vector<int64_t>{});
  EXPECT_EQ(query("off < 0 OR score IS NULL"), Range(0, 100));  // every batch has a multiple of 5
  EXPECT_EQ(query("score > 1000"), Range(0, 100));
  EXPECT_EQ(query("off > 30 AND name IS NOT NULL AND NOT off >= 40"), Range(30, 40));
  // Zone maps are kept: asked again (and by racing queries), the same answers.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < 50; ++n) {
        const int b = (t + n) % 10;
        std::string text =
            "off >= " + std::to_string(b * 10 + 2) + " AND off <= " + std::to_string(b * 10 + 3);
        if (query(text) != Range(b * 10, b * 10 + 10)) ++wrong;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Plugins, MemIndexerTest, ::testing::Values("columnar", "spilling"),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------------
// Spilling plugin

class SpillingTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<SpillingMemIndexer>> Create(std::map<std::string, std::string> options) {
    MemIndexerOptions o;
    o.schema = TestSchema();
    o.partition_bucket = {"", 1};
    o.table_options = std::move(options);
    return SpillingMemIndexer::Make(o);
  }
  size_t Files() const {
    if (!fs::exists(dir_.Sub("spill"))) return 0;
    return std::distance(fs::directory_iterator(dir_.Sub("spill")), fs::directory_iterator());
  }
  TempDir dir_;
};

TEST_F(SpillingTest, OptionsAreChecked) {
  auto missing = Create({});
  ASSERT_TRUE(missing.status().IsInvalid());
  EXPECT_NE(missing.status().message().find("realtime.spill.dir"), std::string::npos);
  auto bad = Create({{"realtime.spill.dir", dir_.Sub("spill")},
                     {"realtime.spill.memory-threshold", "12 parsecs"}});
  ASSERT_TRUE(bad.status().IsInvalid());
  EXPECT_NE(bad.status().message().find("realtime.spill.memory-threshold"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto factory, FindMemIndexerFactory("spilling"));
  MemIndexerOptions o;
  o.schema = TestSchema();
  EXPECT_TRUE(factory->Create(o).status().IsInvalid());
  EXPECT_FALSE(fs::exists(dir_.Sub("spill")));  // made on the first spill only
}

TEST_F(SpillingTest, SpillsOnFlushServesNewViewsFromFileAndDeletesFiles) {
  ASSERT_OK_AND_ASSIGN(auto indexer, Create({{"realtime.spill.dir", dir_.Sub("spill")}}));
  Shape pk{true, true, true};
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 40, 2), pk)));
  ASSERT_OK(indexer->Write(MakeBatch(Range(40, 60), pk)));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());
  ASSERT_OK(indexer->Write(MakeBatch(Range(60, 65), pk)));
  auto old_view = indexer->AcquireReadView();
  int64_t bytes_before = indexer->Usage().bytes;
  EXPECT_EQ(Files(), 0u);  // sealing does no I/O

  ASSERT_OK_AND_ASSIGN(auto flushed, Collect(indexer->CreateCommitReaders(sealed)));
  std::vector<int64_t> sealed_rows = Range(0, 40, 2);
  for (int64_t o : Range(40, 60)) sealed_rows.push_back(o);
  ExpectRows(flushed, sealed_rows, {0, 1, 2}, pk);
  EXPECT_EQ(Files(), 1u);
  EXPECT_OK(indexer->last_spill_status());
  MemoryUsage usage = indexer->Usage();
  EXPECT_GT(usage.spilled_bytes, 0);
  EXPECT_EQ(usage.bytes, bytes_before);  // the old view still pins the arrays

  auto new_view = indexer->AcquireReadView();
  std::vector<int64_t> all = sealed_rows;
  for (int64_t o : Range(60, 65)) all.push_back(o);
  for (const auto& view : {old_view, new_view}) {
    ASSERT_OK_AND_ASSIGN(auto rows, Query(*indexer, view, Spec(0, {0, 1, 2}, 6)));
    ExpectRows(rows, all, {0, 1, 2}, pk);
    ASSERT_OK_AND_ASSIGN(rows, Query(*indexer, view, Spec(33, {1})));
    std::vector<int64_t> tail(all.begin() + 17, all.end());
    ExpectRows(rows, tail, {1}, pk);
  }
  old_view.reset();
  indexer->Reclaim(0);  // drains: the in-memory copy of the spilled segment is freed
  EXPECT_LT(indexer->Usage().bytes, bytes_before);
  EXPECT_EQ(indexer->Usage().rows, 5);

  indexer->Reclaim(60);
  EXPECT_EQ(Files(), 1u);  // new_view pins the file
  new_view.reset();
  indexer->Reclaim(60);
  EXPECT_EQ(Files(), 0u);
  EXPECT_EQ(indexer->Usage().spilled_bytes, 0);
}

TEST_F(SpillingTest, ReclaimSpillsOnlyAboveThreshold) {
  ASSERT_OK_AND_ASSIGN(auto roomy, Create({{"realtime.spill.dir", dir_.Sub("spill")},
                                           {"realtime.spill.memory-threshold", "1 gb"}}));
  ASSERT_OK(roomy->Write(MakeBatch(Range(0, 100))));
  ASSERT_OK_AND_ASSIGN(auto sealed, roomy->SealForCommit());
  ASSERT_OK_AND_ASSIGN(auto flushed, Collect(roomy->CreateCommitReaders(sealed)));
  roomy->Reclaim(0);
  EXPECT_EQ(Files(), 0u);

  ASSERT_OK_AND_ASSIGN(auto tight, Create({{"realtime.spill.dir", dir_.Sub("spill")},
                                           {"realtime.spill.memory-threshold", "1 kb"}}));
  for (int s = 0; s < 4; ++s) {
    ASSERT_OK(tight->Write(MakeBatch(Range(s * 100, s * 100 + 100))));
    ASSERT_OK_AND_ASSIGN(sealed, tight->SealForCommit());
  }
  tight->Reclaim(0);
  EXPECT_GE(Files(), 3u);
  EXPECT_LE(tight->Usage().bytes, 1024);
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*tight, tight->AcquireReadView(), 0));
  ExpectRows(rows, Range(0, 400));
}

TEST_F(SpillingTest, UnwritableDirectoryKeepsRowsInMemory) {
  // A directory below a regular file cannot be made, whoever runs the test.
  std::ofstream(dir_.Sub("file")) << "x";
  std::string dir = dir_.Sub("file") + "/spill";
  ASSERT_OK_AND_ASSIGN(auto indexer, Create({{"realtime.spill.dir", dir}}));
  ASSERT_OK(indexer->Write(MakeBatch(Range(0, 30))));
  ASSERT_OK_AND_ASSIGN(auto sealed, indexer->SealForCommit());

  auto readers = indexer->CreateCommitReaders(sealed);
  ASSERT_TRUE(readers.status().IsIOError()) << readers.status().ToString();
  EXPECT_NE(readers.status().message().find("realtime.spill.dir"), std::string::npos);
  indexer->Reclaim(0);
  EXPECT_TRUE(indexer->last_spill_status().IsIOError());
  EXPECT_EQ(indexer->Usage().spilled_bytes, 0);
  EXPECT_EQ(indexer->Usage().rows, 30);
  ASSERT_OK_AND_ASSIGN(auto rows, QueryFrom(*indexer, indexer->AcquireReadView(), 0));
  ExpectRows(rows, Range(0, 30));
  ASSERT_OK(indexer->Write(MakeBatch(Range(30, 31))));
}

// ---------------------------------------------------------------------------------------------
// Differential: the same random operations on the columnar plugin and on spilling ones must give
// identical results, and both must match a model of the written rows.

class Differential {
 public:
  Differential(uint32_t seed, Shape shape, bool gaps, std::vector<std::unique_ptr<MemIndexer>> all)
      : rng_(seed), shape_(shape), gaps_(gaps), indexers_(std::move(all)) {}

  void Run(int steps) {
    for (int step = 0; step < steps && !::testing::Test::HasFatalFailure(); ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      int op = Uniform(0, 99);
      if (op < 40) {
        Write();
      } else if (op < 50) {
        Seal();
      } else if (op < 58) {
        Flush();
      } else if (op < 64) {
        Reclaim();
      } else if (op < 76) {
        Acquire();
      } else if (op < 95) {
        QueryRandomView();
      } else {
        ReleaseRandomView();
      }
    }
  }

 private:
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  void Write() {
    if (Uniform(0, 19) == 0 && !written_.empty()) {  // offsets going back: refused by all
      RowBatch batch = MakeBatch({written_.back()});
      for (auto& indexer : indexers_) EXPECT_TRUE(indexer->Write(batch).IsInvalid());
      return;
    }
    int64_t n = Uniform(0, 40);
    Shape shape = shape_;
    shape.explicit_offsets = gaps_ || Uniform(0, 3) == 0;
    std::vector<int64_t> offsets;
    int64_t next = next_;
    for (int64_t i = 0; i < n; ++i) {
      next += shape.explicit_offsets && gaps_ ? Uniform(0, 3) : 0;
      offsets.push_back(next++);
    }
    RowBatch batch = MakeBatch(offsets, shape);
    if (n == 0) batch.first_offset = next_;
    for (auto& indexer : indexers_) ASSERT_OK(indexer->Write(batch));
    written_.insert(written_.end(), offsets.begin(), offsets.end());
    next_ = next;
  }

  void Seal() {
    std::vector<std::shared_ptr<SealedSegment>> sealed;
    for (auto& indexer : indexers_) {
      ASSERT_OK_AND_ASSIGN(auto s, indexer->SealForCommit());
      if (!sealed.empty()) {
        ASSERT_EQ(s == nullptr, sealed[0] == nullptr);
        if (s) {
          ASSERT_EQ(s->range(), sealed[0]->range());
        }
      }
      sealed.push_back(std::move(s));
    }
    if (sealed[0] == nullptr) return;
    ASSERT_EQ(sealed[0]->range().begin, sealed_end_);
    sealed_end_ = sealed[0]->range().end;
    sealed_.push_back(std::move(sealed));
  }

  std::vector<int64_t> Expected(int64_t from, int64_t end) const {
    std::vector<int64_t> out;
    for (int64_t o : written_) {
      if (o >= from && o < end) out.push_back(o);
    }
    return out;
  }

  void CompareAll(const std::vector<Collected>& results, const std::vector<int64_t>& expected,
                  const std::vector<int>& columns) {
    for (size_t i = 0; i < results.size(); ++i) {
      SCOPED_TRACE("indexer " + std::to_string(i));
      ExpectRows(results[i], expected, columns, shape_);
      EXPECT_EQ(results[i].kinds, results[0].kinds);
      EXPECT_EQ(results[i].sequences, results[0].sequences);
    }
  }

  void Flush() {
    if (sealed_.empty()) return;
    auto& segments = sealed_[Uniform(0, sealed_.size() - 1)];
    OffsetRange range = segments[0]->range();
    bool reclaimed = range.end <= reclaimed_;
    std::vector<Collected> results;
    for (size_t i = 0; i < indexers_.size(); ++i) {
      auto collected = Collect(indexers_[i]->CreateCommitReaders(segments[i]));
      if (reclaimed) {
        EXPECT_TRUE(collected.status().IsInvalid());
        continue;
      }
      ASSERT_OK(collected.status());
      results.push_back(*collected);
    }
    if (!reclaimed) CompareAll(results, Expected(range.begin, range.end), {0, 1, 2});
  }

  void Reclaim() {
    // Like the framework: up to the end of a sealed segment (sometimes lower: ignored).
    if (sealed_.empty()) return;
    int64_t end = sealed_[Uniform(0, sealed_.size() - 1)][0]->range().end;
    for (auto& indexer : indexers_) indexer->Reclaim(end);
    reclaimed_ = std::max(reclaimed_, end);
  }

  void Acquire() {
    std::vector<std::shared_ptr<const ReadView>> views;
    for (auto& indexer : indexers_) views.push_back(indexer->AcquireReadView());
    for (const auto& view : views) {
      ASSERT_EQ(view->range(), views[0]->range());
      ASSERT_EQ(view->num_rows(), views[0]->num_rows());
    }
    EXPECT_EQ(views[0]->range().end, written_.empty() ? 0 : written_.back() + 1);
    views_.push_back(std::move(views));
    if (views_.size() > 6) ReleaseRandomView();
  }

  void ReleaseRandomView() {
    if (views_.empty()) return;
    views_.erase(views_.begin() + Uniform(0, views_.size() - 1));
  }

  void QueryRandomView() {
    if (views_.empty()) return;
    const auto& views = views_[Uniform(0, views_.size() - 1)];
    OffsetRange range = views[0]->range();
    std::vector<int> columns = {0, 1, 2};
    std::shuffle(columns.begin(), columns.end(), rng_);
    columns.resize(Uniform(0, 3));
    if (columns.empty() || Uniform(0, 4) == 0) columns.push_back(0);  // to check values
    int64_t batch_size = Uniform(1, 50);
    if (range.begin > 0 && Uniform(0, 9) == 0) {
      for (size_t i = 0; i < indexers_.size(); ++i) {
        auto readers = indexers_[i]->CreateQueryReaders(views[i], Spec(range.begin - 1, columns));
        EXPECT_TRUE(readers.status().IsInvalid());
      }
      return;
    }
    int64_t from = Uniform(range.begin, range.end + 2);
    std::vector<Collected> results;
    for (size_t i = 0; i < indexers_.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(auto collected,
                           Query(*indexers_[i], views[i], Spec(from, columns, batch_size)));
      results.push_back(std::move(collected));
    }
    CompareAll(results, Expected(from, range.end), columns);
  }

  std::mt19937 rng_;
  const Shape shape_;
  const bool gaps_;
  std::vector<std::unique_ptr<MemIndexer>> indexers_;
  std::vector<int64_t> written_;
  int64_t next_ = 0;
  int64_t sealed_end_ = 0;
  int64_t reclaimed_ = 0;
  std::vector<std::vector<std::shared_ptr<SealedSegment>>> sealed_;
  std::vector<std::vector<std::shared_ptr<const ReadView>>> views_;
};

TEST(MemIndexerDifferentialTest, SpillingMatchesColumnar) {
  TempDir dir;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Shape shape{false, seed % 2 == 0, seed % 2 == 0};  // primary-key rows on even seeds
    bool gaps = seed % 3 == 0;
    std::vector<std::unique_ptr<MemIndexer>> indexers;
    for (const char* threshold : {"", "0", "3 kb"}) {
      MemIndexerOptions o;
      o.schema = TestSchema();
      o.primary_key_table = shape.kinds;
      const char* plugin = std::string(threshold).empty() ? "columnar" : "spilling";
      if (std::string(plugin) == "spilling") {
        o.table_options = {{"realtime.spill.dir", dir.Sub("spill-" + std::to_string(seed))},
                           {"realtime.spill.memory-threshold", threshold}};
      }
      ASSERT_OK_AND_ASSIGN(auto factory, FindMemIndexerFactory(plugin));
      ASSERT_OK_AND_ASSIGN(auto indexer, factory->Create(o));
      indexers.push_back(std::move(indexer));
    }
    Differential run(seed, shape, gaps, std::move(indexers));
    run.Run(400);
    if (HasFatalFailure()) return;
  }
  // Every indexer is gone: so are their spill files.
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    EXPECT_FALSE(entry.is_regular_file()) << entry.path();
  }
}

// ---------------------------------------------------------------------------------------------
// Concurrency: one writer (with seals), one flusher (commit readers + Reclaim), three readers.
// Offsets are contiguous, so every query must return exactly [from, view end).

class MemIndexerConcurrencyTest : public MemIndexerTest {};

TEST_P(MemIndexerConcurrencyTest, ReadersSeeContiguousPrefixes) {
  constexpr int64_t kRows = 200'000;
  ASSERT_OK_AND_ASSIGN(auto indexer, Create());
  std::atomic<bool> done{false};
  std::atomic<int64_t> queries{0};
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<SealedSegment>> to_flush;
  bool writer_done = false;

  auto fail = [&](const std::string& what) {
    ADD_FAILURE() << what;
    done = true;
  };

  std::thread writer([&] {
    std::mt19937 rng(7);
    int64_t next = 0;
    int batches = 0;
    while (next < kRows && !done) {
      int64_t n = std::uniform_int_distribution<int64_t>(1, 32)(rng);
      Status st = indexer->Write(MakeBatch(Range(next, next + n)));
      if (!st.ok()) return fail(st.ToString());
      next += n;
      // Short segments first, then long ones, whose small Writes are coalesced into blocks
      // while readers hold views of them.
      if (++batches % (next < kRows / 2 ? 40 : 1500) == 0) {
        auto sealed = indexer->SealForCommit();
        if (!sealed.ok()) return fail(sealed.status().ToString());
        std::lock_guard lock(mu);
        to_flush.push_back(*sealed);
        cv.notify_one();
      }
    }
    std::lock_guard lock(mu);
    writer_done = true;
    cv.notify_one();
  });

  std::thread flusher([&] {
    int64_t expected_begin = 0;
    while (true) {
      std::shared_ptr<SealedSegment> segment;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return writer_done || !to_flush.empty(); });
        if (to_flush.empty()) return;
        segment = to_flush.front();
        to_flush.pop_front();
      }
      if (segment->range().begin != expected_begin) return fail("segments do not tile");
      expected_begin = segment->range().end;
      auto rows = Collect(indexer->CreateCommitReaders(segment));
      if (!rows.ok()) return fail(rows.status().ToString());
      if (rows->offsets != Range(segment->range().begin, segment->range().end)) {
        return fail("commit readers returned other rows");
      }
      indexer->Reclaim(segment->range().end);
    }
  });

  auto read = [&](int seed) {
    std::mt19937 rng(seed);
    while (!done) {
      auto view = indexer->AcquireReadView();
      OffsetRange range = view->range();
      if (view->num_rows() != range.end - range.begin) {  // offsets have no gaps here
        return fail("view [" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                    ") counts " + std::to_string(view->num_rows()) + " rows");
      }
      int64_t from = std::uniform_int_distribution<int64_t>(range.begin, range.end)(rng);
      auto rows = Query(*indexer, view, Spec(from, {0, 1}, 64));
      if (!rows.ok()) return fail(rows.status().ToString());
      if (rows->offsets != Range(from, range.end)) {
        return fail("view [" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                    ") from " + std::to_string(from) + " returned " + std::to_string(rows->rows()) +
                    " rows");
      }
      int64_t i = from;
      for (const auto& batch : rows->batches) {
        const auto& off = static_cast<const arrow::Int64Array&>(*batch->column(0));
        const auto& name = static_cast<const arrow::StringArray&>(*batch->column(1));
        for (int64_t r = 0; r < batch->num_rows(); ++r, ++i) {
          if (off.Value(r) != i) return fail("column value does not match the offset");
          if (name.IsNull(r) != (i % 7 == 0) ||
              (i % 7 != 0 && name.GetView(r) != "row-" + std::to_string(i))) {
            return fail("name of row " + std::to_string(i) + " is not the one written");
          }
        }
      }
      ++queries;
    }
  };
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) readers.emplace_back(read, 100 + r);

  writer.join();
  flusher.join();
  done = true;
  for (auto& reader : readers) reader.join();
  EXPECT_GT(queries.load(), 0);

  auto view = indexer->AcquireReadView();
  int64_t end = view->range().end;
  EXPECT_GE(end, kRows);
  ASSERT_OK_AND_ASSIGN(auto rest, QueryFrom(*indexer, view, view->range().begin));
  EXPECT_EQ(rest.offsets, Range(view->range().begin, end));
  view.reset();
  ASSERT_OK_AND_ASSIGN(auto last, indexer->SealForCommit());
  EXPECT_EQ(last == nullptr ? end : last->range().end, end);
  indexer->Reclaim(end);
  EXPECT_EQ(indexer->Usage().bytes, 0);
  EXPECT_EQ(indexer->Usage().rows, 0);
  EXPECT_EQ(SpillFiles(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Plugins, MemIndexerConcurrencyTest,
                         ::testing::Values("columnar", "spilling"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace freshet::realtime
