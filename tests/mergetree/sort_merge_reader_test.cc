// The sort-merge of sorted runs against a simple model (a map from key to its versions), and the
// interval partition against the invariants Java's planner relies on.
#include "mergetree/sort_merge_reader.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "mergetree/interval_partition.h"
#include "meta/row/binary_row.h"
#include "testing/test_util.h"

namespace freshet::mergetree {
namespace {

struct Record {
  int64_t key;  // as the key column holds it (see KeyArray)
  std::string value;
  int64_t sequence;
  RowKind kind;
};

meta::TableSchema KeyValueSchema(const std::string& engine, meta::Options extra = {},
                                 meta::DataTypePtr key_type = meta::DataType::Int()) {
  meta::SchemaSpec spec;
  spec.fields = {meta::DataField{0, "k", key_type, std::nullopt, std::nullopt},
                 meta::DataField{1, "v", meta::DataType::String(), std::nullopt, std::nullopt}};
  spec.primary_keys = {"k"};
  spec.options = {{"bucket", "1"}, {"merge-engine", engine}};
  spec.options.insert(spec.options.end(), extra.begin(), extra.end());
  return *meta::TableSchema::Create(0, spec, 0);
}

// STRING keys: the number zero-padded, so that strings order as the numbers (|key| < 10^6).
std::string KeyString(int64_t key) {
  std::string digits = std::to_string(key + 1000000);
  return std::string(8 - digits.size(), '0') + digits;
}

// The key column of INT, BIGINT or STRING keys (the merge compares the first two as integers).
std::shared_ptr<arrow::Array> KeyArray(const arrow::DataType& type,
                                       const std::vector<Record>& records) {
  std::unique_ptr<arrow::ArrayBuilder> builder = *arrow::MakeBuilder(type.GetSharedPtr());
  for (const Record& r : records) {
    arrow::Status st;
    if (type.id() == arrow::Type::INT32) {
      st = static_cast<arrow::Int32Builder&>(*builder).Append(static_cast<int32_t>(r.key));
    } else if (type.id() == arrow::Type::INT64) {
      st = static_cast<arrow::Int64Builder&>(*builder).Append(r.key);
    } else {
      st = static_cast<arrow::StringBuilder&>(*builder).Append(KeyString(r.key));
    }
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  return *builder->Finish();
}

int64_t KeyAt(const arrow::Array& keys, int64_t i) {
  switch (keys.type_id()) {
    case arrow::Type::INT32:
      return static_cast<const arrow::Int32Array&>(keys).Value(i);
    case arrow::Type::INT64:
      return static_cast<const arrow::Int64Array&>(keys).Value(i);
    default:
      return std::stoll(static_cast<const arrow::StringArray&>(keys).GetString(i)) - 1000000;
  }
}

std::shared_ptr<MergeBatch> MakeBatch(const MergeLayout& layout,
                                      const std::vector<Record>& records) {
  arrow::StringBuilder values;
  arrow::Int64Builder sequences;
  arrow::Int8Builder kinds;
  for (const Record& r : records) {
    EXPECT_TRUE(values.Append(r.value).ok());
    EXPECT_TRUE(sequences.Append(r.sequence).ok());
    EXPECT_TRUE(kinds.Append(static_cast<int8_t>(r.kind)).ok());
  }
  auto batch =
      arrow::RecordBatch::Make(layout.arrow_schema(), static_cast<int64_t>(records.size()),
                               {KeyArray(*layout.arrow_schema()->field(0)->type(), records),
                                *values.Finish(), *sequences.Finish(), *kinds.Finish()});
  return *MergeBatch::Make(batch, layout);
}

// A run served in batches of `batch_rows` records.
class VectorRun : public MergeBatchReader {
 public:
  VectorRun(const MergeLayout& layout, std::vector<Record> records, size_t batch_rows)
      : layout_(layout), records_(std::move(records)), batch_rows_(batch_rows) {}
  Result<std::shared_ptr<MergeBatch>> Next() override {
    if (next_ >= records_.size()) return std::shared_ptr<MergeBatch>();
    size_t end = std::min(records_.size(), next_ + batch_rows_);
    std::vector<Record> part(records_.begin() + static_cast<ptrdiff_t>(next_),
                             records_.begin() + static_cast<ptrdiff_t>(end));
    next_ = end;
    return MakeBatch(layout_, part);
  }

 private:
  const MergeLayout& layout_;
  std::vector<Record> records_;
  size_t batch_rows_;
  size_t next_ = 0;
};

std::vector<Record> ReadAll(SortMergeReader& reader) {
  std::vector<Record> out;
  while (true) {
    auto batch = reader.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    const MergeBatch& b = **batch;
    const auto& values = static_cast<const arrow::StringArray&>(b.column(1));
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      out.push_back(Record{KeyAt(b.column(0), i), values.GetString(i), b.sequence(i), b.kind(i)});
    }
  }
  return out;
}

// Random runs (each sorted by key, one version per key, like data files) merged with
// deduplicate and first-row, compared with the model: per key, the newest or the oldest version.
// Keys are negative and positive INT, BIGINT beyond 32 bits, and STRING (the comparator's path).
TEST(SortMergeReaderTest, RandomRunsMergeLikeTheModel) {
  std::mt19937 random(7);
  const std::vector<std::pair<meta::DataTypePtr, int64_t>> key_types = {
      {meta::DataType::Int(), 1},
      {meta::DataType::BigInt(), 3000000007LL},
      {meta::DataType::String(), 1}};
  for (const auto& [key_type, key_scale] : key_types)
    for (const std::string engine : {"deduplicate", "first-row"}) {
      for (int round = 0; round < 30; ++round) {
        SCOPED_TRACE(engine + " " + key_type->ToString() + " round " + std::to_string(round));
        meta::TableSchema schema = KeyValueSchema(engine, {}, key_type);
        ASSERT_OK_AND_ASSIGN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
        int num_runs = 1 + static_cast<int>(random() % 6);
        int64_t sequence = 0;
        std::map<int64_t, std::vector<Record>> model;  // versions by key, oldest first
        std::vector<std::unique_ptr<MergeBatchReader>> runs;
        for (int r = 0; r < num_runs; ++r) {
          std::vector<Record> run;
          for (int64_t ordinal = -100; ordinal < 100; ++ordinal) {
            if (random() % 3 != 0) continue;
            const int64_t key = ordinal * key_scale;
            RowKind kind =
                engine == "deduplicate" && random() % 5 == 0 ? RowKind::kDelete : RowKind::kInsert;
            Record record{key, "r" + std::to_string(r) + "k" + std::to_string(key), sequence++,
                          kind};
            run.push_back(record);
            model[key].push_back(record);
          }
          runs.push_back(std::make_unique<VectorRun>(layout, run, 1 + random() % 17));
        }
        ASSERT_OK_AND_ASSIGN(auto merge, MakeMergeFunction(schema, layout));
        ASSERT_OK_AND_ASSIGN(
            auto reader,
            SortMergeReader::Make(layout, std::move(runs), std::move(merge), 1 + random() % 50));
        std::vector<Record> merged = ReadAll(*reader);
        ASSERT_EQ(merged.size(), model.size());
        size_t i = 0;
        for (const auto& [key, versions] : model) {
          const Record& want = engine == "deduplicate" ? versions.back() : versions.front();
          EXPECT_EQ(merged[i].key, key);
          EXPECT_EQ(merged[i].value, want.value);
          EXPECT_EQ(merged[i].sequence, want.sequence);
          EXPECT_EQ(merged[i].kind, want.kind);
          ++i;
        }
      }
    }
}

// The batches a run hands out, kept to compare buffers with the merge's output.
class RecordingRun : public MergeBatchReader {
 public:
  RecordingRun(std::unique_ptr<MergeBatchReader> run,
               std::vector<std::shared_ptr<MergeBatch>>* handed_out)
      : run_(std::move(run)), handed_out_(handed_out) {}
  Result<std::shared_ptr<MergeBatch>> Next() override {
    FRESHET_ASSIGN_OR_RETURN(auto batch, run_->Next());
    if (batch) handed_out_->push_back(batch);
    return batch;
  }

 private:
  std::unique_ptr<MergeBatchReader> run_;
  std::vector<std::shared_ptr<MergeBatch>>* handed_out_;
};

// A single run whose keys need no merge (a flushed write buffer, one file) leaves in batches cut
// where the run's batches end, each sharing its batch's buffers; a batch with two versions of a
// key is merged and copied, and every record is right either way.
TEST(SortMergeReaderTest, ARunThatNeedsNoMergeLeavesAsSlicesOfItsBatches) {
  meta::TableSchema schema = KeyValueSchema("deduplicate");
  ASSERT_OK_AND_ASSIGN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
  std::vector<Record> records;
  for (int64_t key = 0; key < 50; ++key) {
    records.push_back({key, "v" + std::to_string(key), key, RowKind::kInsert});
  }
  // Two versions of key 30 (rows 30 and 31 of the run, in its fifth batch of 7).
  records.insert(records.begin() + 31, Record{30, "newer", 100, RowKind::kUpdateAfter});
  std::vector<std::shared_ptr<MergeBatch>> inputs;
  std::vector<std::unique_ptr<MergeBatchReader>> runs;
  runs.push_back(
      std::make_unique<RecordingRun>(std::make_unique<VectorRun>(layout, records, 7), &inputs));
  ASSERT_OK_AND_ASSIGN(auto merge, MakeMergeFunction(schema, layout));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       SortMergeReader::Make(layout, std::move(runs), std::move(merge), 100));
  std::vector<Record> merged;
  int64_t sliced = 0, copied = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    const uint8_t* values = batch->column(1).data()->buffers[2]->data();
    bool shares = std::any_of(inputs.begin(), inputs.end(), [&](const auto& input) {
      return input->column(1).data()->buffers[2]->data() == values;
    });
    (shares ? sliced : copied) += 1;
    const auto& strings = static_cast<const arrow::StringArray&>(batch->column(1));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      merged.push_back(
          {KeyAt(batch->column(0), i), strings.GetString(i), batch->sequence(i), batch->kind(i)});
    }
  }
  EXPECT_EQ(sliced, 7);  // 51 records in 8 batches of 7 (the last of 2); one holds key 30 twice
  EXPECT_EQ(copied, 1);
  ASSERT_EQ(merged.size(), 50u);
  for (int64_t key = 0; key < 50; ++key) {
    const Record& r = merged[static_cast<size_t>(key)];
    EXPECT_EQ(r.key, key);
    EXPECT_EQ(r.value, key == 30 ? "newer" : "v" + std::to_string(key));
    EXPECT_EQ(r.kind, key == 30 ? RowKind::kUpdateAfter : RowKind::kInsert);
  }
}

// One run may hold several versions of a key (a write buffer, memory rows): they merge too, in
// sequence order, whatever run they come from.
TEST(SortMergeReaderTest, VersionsOfAKeyInsideOneRunMerge) {
  meta::TableSchema schema = KeyValueSchema("deduplicate");
  ASSERT_OK_AND_ASSIGN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
  std::vector<std::unique_ptr<MergeBatchReader>> runs;
  runs.push_back(std::make_unique<VectorRun>(layout,
                                             std::vector<Record>{{1, "a", 0, RowKind::kInsert},
                                                                 {1, "c", 5, RowKind::kUpdateAfter},
                                                                 {2, "x", 1, RowKind::kInsert}},
                                             2));
  runs.push_back(std::make_unique<VectorRun>(
      layout, std::vector<Record>{{1, "b", 3, RowKind::kInsert}, {2, "gone", 4, RowKind::kDelete}},
      1));
  ASSERT_OK_AND_ASSIGN(auto merge, MakeMergeFunction(schema, layout));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       SortMergeReader::Make(layout, std::move(runs), std::move(merge)));
  std::vector<Record> merged = ReadAll(*reader);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].value, "c");
  EXPECT_EQ(merged[0].kind, RowKind::kUpdateAfter);
  EXPECT_EQ(merged[1].value, "gone");
  EXPECT_EQ(merged[1].kind, RowKind::kDelete);  // readers drop it, writers keep it
}

TEST(SortMergeReaderTest, SequenceFieldOrdersVersionsBeforeTheSequenceNumber) {
  meta::SchemaSpec spec;
  spec.fields = {meta::DataField{0, "k", meta::DataType::Int(), std::nullopt, std::nullopt},
                 meta::DataField{1, "v", meta::DataType::String(), std::nullopt, std::nullopt},
                 meta::DataField{2, "ts", meta::DataType::BigInt(), std::nullopt, std::nullopt}};
  spec.primary_keys = {"k"};
  spec.options = {{"bucket", "1"}, {"sequence.field", "ts"}};
  ASSERT_OK_AND_ASSIGN(auto schema, meta::TableSchema::Create(0, spec, 0));
  ASSERT_OK_AND_ASSIGN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
  auto batch = [&](int64_t ts, const char* v, int64_t sequence) {
    return arrow::RecordBatch::Make(layout.arrow_schema(), 1,
                                    {*arrow::MakeArrayFromScalar(arrow::Int32Scalar(1), 1),
                                     *arrow::MakeArrayFromScalar(arrow::StringScalar(v), 1),
                                     *arrow::MakeArrayFromScalar(arrow::Int64Scalar(ts), 1),
                                     *arrow::MakeArrayFromScalar(arrow::Int64Scalar(sequence), 1),
                                     *arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), 1)});
  };
  struct OneBatch : MergeBatchReader {
    std::shared_ptr<MergeBatch> batch;
    Result<std::shared_ptr<MergeBatch>> Next() override { return std::exchange(batch, nullptr); }
  };
  std::vector<std::unique_ptr<MergeBatchReader>> runs;
  for (auto [ts, v, seq] :
       {std::tuple<int64_t, const char*, int64_t>{20, "newer ts", 1}, {10, "newer sequence", 2}}) {
    auto run = std::make_unique<OneBatch>();
    run->batch = *MergeBatch::Make(batch(ts, v, seq), layout);
    runs.push_back(std::move(run));
  }
  ASSERT_OK_AND_ASSIGN(auto merge, MakeMergeFunction(schema, layout));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       SortMergeReader::Make(layout, std::move(runs), std::move(merge)));
  ASSERT_OK_AND_ASSIGN(auto out, reader->Next());
  ASSERT_EQ(out->num_rows(), 1);
  EXPECT_EQ(static_cast<const arrow::StringArray&>(out->column(1)).GetString(0), "newer ts");
}

TEST(SortMergeReaderTest, FirstRowRefusesRetractsUnlessIgnoreDelete) {
  for (bool ignore : {false, true}) {
    meta::TableSchema schema =
        KeyValueSchema("first-row", {{"ignore-delete", ignore ? "true" : "false"}});
    ASSERT_OK_AND_ASSIGN(MergeLayout layout, MakeMergeLayout(schema, schema.fields()));
    std::vector<std::unique_ptr<MergeBatchReader>> runs;
    runs.push_back(
        std::make_unique<VectorRun>(layout, std::vector<Record>{{1, "a", 0, RowKind::kInsert}}, 1));
    runs.push_back(
        std::make_unique<VectorRun>(layout, std::vector<Record>{{1, "a", 1, RowKind::kDelete}}, 1));
    ASSERT_OK_AND_ASSIGN(auto merge, MakeMergeFunction(schema, layout));
    ASSERT_OK_AND_ASSIGN(auto reader,
                         SortMergeReader::Make(layout, std::move(runs), std::move(merge)));
    auto out = reader->Next();
    if (ignore) {
      ASSERT_TRUE(out.ok());
      EXPECT_EQ((*out)->num_rows(), 1);
    } else {
      ASSERT_FALSE(out.ok());
      EXPECT_NE(out.status().message().find("ignore-delete"), std::string::npos);
    }
  }
}

// Java's key order: nulls first, -0.0 < 0.0 < NaN, strings by unsigned bytes then length.
TEST(RowComparatorTest, JavaOrder) {
  std::vector<meta::DataField> fields = {
      meta::DataField{0, "d", meta::DataType::Double(), std::nullopt, std::nullopt},
      meta::DataField{1, "s", meta::DataType::String(), std::nullopt, std::nullopt}};
  ASSERT_OK_AND_ASSIGN(MergeLayout layout, MergeLayout::Make(fields, {"d", "s"}, {}));
  const int64_t n = 7;
  auto d =
      *arrow::json::ArrayFromJSONString(arrow::float64(), "[null, -0.0, 0.0, 1.5, NaN, 2.0, 2.0]");
  auto s = *arrow::json::ArrayFromJSONString(arrow::utf8(),
                                             R"(["z", "z", "z", "z", "z", "ab", "\u00e9"])");
  auto zeros = *arrow::MakeArrayFromScalar(arrow::Int64Scalar(0), n);
  auto kinds = *arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), n);
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      MergeBatch::Make(arrow::RecordBatch::Make(layout.arrow_schema(), n, {d, s, zeros, kinds}),
                       layout));
  ASSERT_OK_AND_ASSIGN(auto comparator, RowComparator::Make(*layout.arrow_schema(), {0, 1}));
  // Rows 0..4 ascend by d; 5 < 6 by s ("ab" < "é": 0x61 < 0xc3 unsigned); 3 < 5 < 4 by d.
  for (int64_t i = 0; i + 1 < 5; ++i) {
    EXPECT_LT(comparator.Compare(*batch, i, *batch, i + 1), 0) << i;
    EXPECT_GT(comparator.Compare(*batch, i + 1, *batch, i), 0) << i;
  }
  EXPECT_LT(comparator.Compare(*batch, 5, *batch, 6), 0);
  EXPECT_LT(comparator.Compare(*batch, 3, *batch, 5), 0);
  EXPECT_LT(comparator.Compare(*batch, 6, *batch, 4), 0);
  EXPECT_EQ(comparator.Compare(*batch, 4, *batch, 4), 0);
  ASSERT_OK_AND_ASSIGN(auto descending, RowComparator::Make(*layout.arrow_schema(), {0}, {true}));
  EXPECT_GT(descending.Compare(*batch, 1, *batch, 2), 0);
  EXPECT_LT(descending.Compare(*batch, 0, *batch, 3), 0);  // null still first
}

meta::DataFileMeta FileWithKeys(const std::string& name, int32_t min, int32_t max) {
  meta::DataFileMeta file;
  file.file_name = name;
  file.min_key = meta::SerializeBinaryRow(
      *meta::BuildBinaryRow({meta::DataType::Int()}, {meta::Value::Int(min)}));
  file.max_key = meta::SerializeBinaryRow(
      *meta::BuildBinaryRow({meta::DataType::Int()}, {meta::Value::Int(max)}));
  return file;
}

// Random files: sections must not overlap each other, runs inside a section must be sorted and
// disjoint, and every file must come out exactly once.
TEST(IntervalPartitionTest, SectionsAndRunsKeepJavasInvariants) {
  std::mt19937 random(11);
  for (int round = 0; round < 50; ++round) {
    std::vector<meta::DataFileMeta> files;
    std::map<std::string, std::pair<int32_t, int32_t>> ranges;
    int n = 1 + static_cast<int>(random() % 20);
    for (int i = 0; i < n; ++i) {
      int32_t a = static_cast<int32_t>(random() % 100);
      int32_t b = a + static_cast<int32_t>(random() % 15);
      std::string name = "f" + std::to_string(i);
      files.push_back(FileWithKeys(name, a, b));
      ranges[name] = {a, b};
    }
    ASSERT_OK_AND_ASSIGN(auto sections, PartitionIntoSections(files, {meta::DataType::Int()}));
    size_t seen = 0;
    int32_t previous_section_max = -1;
    for (const Section& section : sections) {
      int32_t section_min = INT32_MAX, section_max = INT32_MIN;
      for (const SortedRunFiles& run : section) {
        int32_t run_max = -1;
        for (const auto& file : run) {
          auto [a, b] = ranges.at(file.file_name);
          EXPECT_GT(a, run_max) << "overlap inside a run";
          run_max = b;
          section_min = std::min(section_min, a);
          section_max = std::max(section_max, b);
          ++seen;
        }
      }
      EXPECT_GT(section_min, previous_section_max) << "sections overlap";
      previous_section_max = section_max;
    }
    EXPECT_EQ(seen, files.size());
  }
}

TEST(IntervalPartitionTest, DisjointFilesFormOneRunPerSection) {
  ASSERT_OK_AND_ASSIGN(auto sections,
                       PartitionIntoSections({FileWithKeys("a", 0, 9), FileWithKeys("b", 10, 19),
                                              FileWithKeys("c", 5, 12)},
                                             {meta::DataType::Int()}));
  ASSERT_EQ(sections.size(), 1u);  // c overlaps both
  ASSERT_EQ(sections[0].size(), 2u);
}

TEST(IntervalPartitionTest, CorruptKeyRowsAreRefused) {
  meta::DataFileMeta file = FileWithKeys("bad", 0, 1);
  file.max_key = "xx";
  auto sections = PartitionIntoSections({file}, {meta::DataType::Int()});
  ASSERT_FALSE(sections.ok());
  EXPECT_TRUE(sections.status().IsCorruption());
}

}  // namespace
}  // namespace freshet::mergetree
