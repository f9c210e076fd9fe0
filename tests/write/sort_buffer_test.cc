// The sort of a write buffer (write/sort_buffer.h) against a model: records ordered by key, then
// `sequence.field`, then _SEQUENCE_NUMBER, for keys the sort compares in place (INT, BIGINT) and
// through the comparator (STRING, or any key with `sequence.field`).
#include "write/sort_buffer.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "mergetree/merge_function.h"
#include "testing/test_util.h"

namespace freshet::write {
namespace {

using mergetree::MergeBatch;
using mergetree::MergeLayout;

struct Record {
  int64_t key;
  int64_t user_sequence;
  int64_t sequence;
};

// Keys of `type` that order as `key` does: STRING keys zero-padded after an offset.
arrow::Status AppendKey(arrow::ArrayBuilder* builder, int64_t key) {
  switch (builder->type()->id()) {
    case arrow::Type::INT32:
      return static_cast<arrow::Int32Builder*>(builder)->Append(static_cast<int32_t>(key));
    case arrow::Type::INT64:
      return static_cast<arrow::Int64Builder*>(builder)->Append(key);
    default: {
      std::string digits = std::to_string(key + 4'000'000'000'000LL);
      return static_cast<arrow::StringBuilder*>(builder)->Append(
          std::string(16 - digits.size(), '0') + digits);
    }
  }
}

std::shared_ptr<MergeBatch> MakeBatch(const MergeLayout& layout,
                                      const std::vector<Record>& records) {
  auto key_builder = *arrow::MakeBuilder(layout.arrow_schema()->field(0)->type());
  arrow::Int64Builder user_sequences, sequences;
  arrow::Int8Builder kinds;
  for (const Record& r : records) {
    EXPECT_TRUE(AppendKey(key_builder.get(), r.key).ok());
    EXPECT_TRUE(user_sequences.Append(r.user_sequence).ok());
    EXPECT_TRUE(sequences.Append(r.sequence).ok());
    EXPECT_TRUE(kinds.Append(0).ok());
  }
  auto batch = arrow::RecordBatch::Make(
      layout.arrow_schema(), static_cast<int64_t>(records.size()),
      {*key_builder->Finish(), *user_sequences.Finish(), *sequences.Finish(), *kinds.Finish()});
  return *MergeBatch::Make(batch, layout);
}

// Sequence numbers of the sorted run, in its order.
std::vector<int64_t> SortedSequences(mergetree::MergeBatchReader* run) {
  std::vector<int64_t> out;
  while (true) {
    auto batch = run->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) break;
    for (int64_t row = 0; row < (*batch)->num_rows(); ++row) {
      out.push_back((*batch)->sequence(row));
    }
  }
  return out;
}

class SortedRunTest : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

// Random batches (keys repeated, negative and beyond 32 bits where the type holds them; sequence
// numbers unique, ascending in write order or not) sort like the model, and give the model's
// newest version of each key where the sort compares keys in place.
TEST_P(SortedRunTest, OrdersLikeTheModel) {
  const auto& [key_type_name, with_user_sequence] = GetParam();
  meta::DataTypePtr key_type = key_type_name == "INT"      ? meta::DataType::Int()
                               : key_type_name == "BIGINT" ? meta::DataType::BigInt()
                                                           : meta::DataType::String();
  const int64_t key_scale = key_type_name == "INT" ? 1 : 3'000'000'007LL;
  std::vector<meta::DataField> fields = {
      meta::DataField{0, "k", key_type, std::nullopt, std::nullopt},
      meta::DataField{1, "q", meta::DataType::BigInt(), std::nullopt, std::nullopt}};
  std::vector<std::string> user_sequence_names;
  if (with_user_sequence) user_sequence_names = {"q"};
  ASSERT_OK_AND_ASSIGN(MergeLayout layout,
                       MergeLayout::Make(fields, {"k"}, user_sequence_names, false));
  ASSERT_OK_AND_ASSIGN(RecordOrder order, RecordOrder::Make(layout));
  EXPECT_EQ(order.integer_key_width() != 0, key_type_name != "STRING" && !with_user_sequence);

  std::mt19937_64 random(testing::TestSeed());
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int num_batches = 1 + static_cast<int>(random() % 5);
    std::vector<int64_t> sequence_pool(400);
    std::iota(sequence_pool.begin(), sequence_pool.end(), 1000);
    // Odd rounds: sequence numbers out of write order, which Add never gets (the sort then
    // takes the comparator's path).
    if (round % 2 == 1) std::shuffle(sequence_pool.begin(), sequence_pool.end(), random);
    std::vector<Record> all;
    std::vector<std::shared_ptr<MergeBatch>> batches;
    for (int b = 0; b < num_batches; ++b) {
      std::vector<Record> records(random() % 80);
      for (Record& r : records) {
        r.key = (static_cast<int64_t>(random() % 41) - 20) * key_scale;
        r.user_sequence = static_cast<int64_t>(random() % 3);
        r.sequence = sequence_pool[all.size()];
        all.push_back(r);
      }
      batches.push_back(MakeBatch(layout, records));
    }
    std::sort(all.begin(), all.end(), [&](const Record& x, const Record& y) {
      int64_t xq = with_user_sequence ? x.user_sequence : 0;
      int64_t yq = with_user_sequence ? y.user_sequence : 0;
      return std::tie(x.key, xq, x.sequence) < std::tie(y.key, yq, y.sequence);
    });
    std::vector<int64_t> want;
    for (const Record& r : all) want.push_back(r.sequence);
    auto run = SortedRun(layout, order, batches, 1 + static_cast<int64_t>(random() % 64));
    EXPECT_EQ(SortedSequences(run.get()), want);

    // The newest version of each key alone, where the sort compares keys in place (a deduplicate
    // flush); no such run otherwise.
    auto newest = SortedRunOfNewestVersions(layout, order, batches, 1 + random() % 64);
    bool ascending = true;  // in write order (a shuffle may leave them so)
    for (size_t i = 1; i < all.size(); ++i)
      ascending = ascending && sequence_pool[i - 1] < sequence_pool[i];
    const bool in_place = order.integer_key_width() != 0 && ascending;
    ASSERT_EQ(newest != nullptr, in_place);
    if (!in_place) continue;
    std::vector<int64_t> want_newest;
    for (size_t i = 0; i < all.size(); ++i) {
      if (i + 1 == all.size() || all[i + 1].key != all[i].key)
        want_newest.push_back(all[i].sequence);
    }
    EXPECT_EQ(SortedSequences(newest.get()), want_newest);
  }
}

INSTANTIATE_TEST_SUITE_P(Keys, SortedRunTest,
                         ::testing::Combine(::testing::Values("INT", "BIGINT", "STRING"),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) +
                                  (std::get<1>(info.param) ? "_SequenceField" : "");
                         });

}  // namespace
}  // namespace freshet::write
