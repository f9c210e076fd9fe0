// GatherRanges against a simple model: the same ranges sliced and concatenated by Arrow.
#include "bridge/array_gather.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace freshet::bridge {
namespace {

using Rng = std::mt19937_64;

bool Draw(Rng& rng, double probability) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < probability;
}

// `length` random values of `type` (a null with `null_probability`), appended through the
// builder's generic scalar path so that one helper serves every type of the test.
std::shared_ptr<arrow::Array> RandomArray(const std::shared_ptr<arrow::DataType>& type,
                                          int64_t length, double null_probability, Rng& rng) {
  auto builder = *arrow::MakeBuilder(type);
  for (int64_t i = 0; i < length; ++i) {
    if (Draw(rng, null_probability)) {
      EXPECT_TRUE(builder->AppendNull().ok());
      continue;
    }
    int64_t n = static_cast<int64_t>(rng() % 1000) - 500;
    std::string text(static_cast<size_t>(rng() % 12), static_cast<char>('a' + rng() % 26));
    std::shared_ptr<arrow::Scalar> scalar;
    switch (type->id()) {
      case arrow::Type::STRING:
      case arrow::Type::BINARY:
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY:
        scalar = *arrow::MakeScalar(type, text);
        break;
      case arrow::Type::FIXED_SIZE_BINARY:
        scalar = std::make_shared<arrow::FixedSizeBinaryScalar>(
            arrow::Buffer::FromString(std::string(3, static_cast<char>('a' + rng() % 26))), type);
        break;
      case arrow::Type::DECIMAL128:
        scalar = std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(n * 1000003), type);
        break;
      case arrow::Type::BOOL:
        scalar = std::make_shared<arrow::BooleanScalar>(n % 2 == 0);
        break;
      case arrow::Type::FLOAT:
      case arrow::Type::DOUBLE:
        scalar = *arrow::MakeScalar(type, static_cast<double>(n) / 7);
        break;
      case arrow::Type::LIST: {
        auto values = *arrow::MakeArrayFromScalar(arrow::Int32Scalar(static_cast<int32_t>(n)),
                                                  static_cast<int64_t>(rng() % 3));
        scalar = std::make_shared<arrow::ListScalar>(values, type);
        break;
      }
      default:
        scalar = *arrow::MakeScalar(type, n);
    }
    EXPECT_TRUE(builder->AppendScalar(*scalar).ok()) << type->ToString();
  }
  return *builder->Finish();
}

std::vector<std::shared_ptr<arrow::DataType>> TypesUnderTest() {
  return {arrow::int8(),
          arrow::int16(),
          arrow::int32(),
          arrow::int64(),
          arrow::float32(),
          arrow::float64(),
          arrow::date32(),
          arrow::timestamp(arrow::TimeUnit::MICRO),
          arrow::decimal128(20, 3),
          arrow::fixed_size_binary(3),
          arrow::utf8(),
          arrow::binary(),
          arrow::large_utf8(),
          arrow::boolean(),
          arrow::list(arrow::int32())};
}

TEST(ArrayGatherTest, EqualsSlicesConcatenatedForEveryTypeAndRangeShape) {
  Rng rng(20261203);
  for (const auto& type : TypesUnderTest()) {
    for (int round = 0; round < 40; ++round) {
      // Sources: some without nulls, some sliced (a non-zero offset), some empty.
      std::vector<std::shared_ptr<arrow::Array>> owned;
      std::vector<const arrow::Array*> sources;
      int num_sources = 1 + static_cast<int>(rng() % 4);
      for (int s = 0; s < num_sources; ++s) {
        double nulls = Draw(rng, 0.5) ? 0.0 : 0.3;
        auto array = RandomArray(type, static_cast<int64_t>(rng() % 40), nulls, rng);
        if (array->length() > 2 && Draw(rng, 0.5)) array = array->Slice(1, array->length() - 2);
        owned.push_back(array);
        sources.push_back(array.get());
      }
      std::vector<RowRange> ranges;
      arrow::ArrayVector expected_pieces;
      int num_ranges = static_cast<int>(rng() % 12);
      for (int r = 0; r < num_ranges; ++r) {
        uint32_t source = static_cast<uint32_t>(rng() % sources.size());
        int64_t size = sources[source]->length();
        int64_t start = size == 0 ? 0 : static_cast<int64_t>(rng() % size);
        int64_t length = static_cast<int64_t>(rng() % (size - start + 1));
        ranges.push_back(RowRange{source, start, length});
        expected_pieces.push_back(sources[source]->Slice(start, length));
      }
      std::shared_ptr<arrow::Array> expected = expected_pieces.empty()
                                                   ? *arrow::MakeEmptyArray(type)
                                                   : *arrow::Concatenate(expected_pieces);
      ASSERT_OK_AND_ASSIGN(auto got,
                           GatherRanges(type, sources, ranges, arrow::default_memory_pool()));
      ASSERT_TRUE(got->ValidateFull().ok()) << type->ToString() << " round " << round;
      EXPECT_EQ(got->null_count(), expected->null_count()) << type->ToString();
      ASSERT_TRUE(got->Equals(*expected))
          << type->ToString() << " round " << round << "\ngot " << got->ToString() << "\nexpected "
          << expected->ToString();
      // The builder path gives the same rows.
      auto builder = *arrow::MakeBuilder(type);
      ASSERT_OK(AppendRanges(builder.get(), sources, ranges));
      auto appended = *builder->Finish();
      ASSERT_TRUE(appended->Equals(*expected)) << type->ToString() << " round " << round;
    }
  }
}

TEST(ArrayGatherTest, RefusesRangesOutsideTheirSourceAndOtherTypes) {
  Rng rng(7);
  auto ints = RandomArray(arrow::int64(), 10, 0.2, rng);
  auto strings = RandomArray(arrow::utf8(), 10, 0.2, rng);
  auto pool = arrow::default_memory_pool();
  EXPECT_FALSE(GatherRanges(arrow::int64(), {ints.get()}, {{0, 5, 6}}, pool).ok());
  EXPECT_FALSE(GatherRanges(arrow::int64(), {ints.get()}, {{0, -1, 1}}, pool).ok());
  EXPECT_FALSE(GatherRanges(arrow::int64(), {ints.get()}, {{1, 0, 1}}, pool).ok());
  EXPECT_FALSE(GatherRanges(arrow::int64(), {ints.get(), strings.get()}, {{0, 0, 1}}, pool).ok());
  EXPECT_TRUE(GatherRanges(arrow::int64(), {ints.get()}, {{0, 4, 6}}, pool).ok());
  auto builder = *arrow::MakeBuilder(arrow::int64());
  EXPECT_FALSE(AppendRanges(builder.get(), {ints.get()}, {{0, 5, 6}}).ok());
  EXPECT_FALSE(AppendRanges(builder.get(), {strings.get()}, {{0, 0, 1}}).ok());
}

}  // namespace
}  // namespace freshet::bridge
