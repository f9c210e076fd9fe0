// Statistics of written data files: brute force over random rows, truncation edge cases, modes,
// and the values Java 1.4.2 writes for the same rows (checked once with the Java harness; see
// docs/data-files.md).
#include <gtest/gtest.h>

#include <random>

#include "bridge/arrow_value.h"
#include "data_file_test_util.h"
#include "format/data_file_stats.h"
#include "meta/row/binary_row.h"

namespace freshet::format {
namespace {

using meta::DataType;
using meta::Value;
using testing::Field;
using testing::Must;

struct ReadStats {
  meta::BinaryRow min;
  meta::BinaryRow max;
};

ReadStats Decode(const meta::SimpleStats& stats) {
  return {*meta::DeserializeBinaryRow(stats.min_values),
          *meta::DeserializeBinaryRow(stats.max_values)};
}

std::string RandomString(std::mt19937_64& rng) {
  static const std::vector<std::string> pieces = {"a", "b", "z", "é", "✓", "😀", " ", "A"};
  std::string out;
  int length = static_cast<int>(rng() % 24);
  for (int i = 0; i < length; ++i) out += pieces[rng() % pieces.size()];
  return out;
}

std::string RandomRow(std::mt19937_64& rng) {
  auto maybe_null = [&](const std::string& value) { return rng() % 5 == 0 ? "null" : value; };
  std::string row = "{";
  row += "\"i\": " + maybe_null(std::to_string(static_cast<int32_t>(rng())));
  row += ", \"bi\": " + maybe_null(std::to_string(static_cast<int64_t>(rng())));
  row += ", \"d\": " +
         maybe_null(std::to_string(static_cast<double>(static_cast<int32_t>(rng())) / 7));
  row += ", \"s\": " + maybe_null("\"" + RandomString(rng) + "\"");
  row += ", \"dec\": " +
         maybe_null("\"" + std::to_string(static_cast<int32_t>(rng() % 100000)) + ".5\"");
  row += ", \"ts\": " + maybe_null("\"2024-01-0" + std::to_string(1 + rng() % 9) + " 10:00:00." +
                                   std::to_string(100000 + rng() % 900000) + "\"");
  row += ", \"arr\": " + maybe_null("[1, 2]");
  row += "}\n";
  return row;
}

std::vector<meta::DataField> RandomSchema() {
  return {Field(0, "i", DataType::Int()),
          Field(1, "bi", DataType::BigInt()),
          Field(2, "d", DataType::Double()),
          Field(3, "s", DataType::String()),
          Field(4, "dec", Must(DataType::Decimal(30, 1))),
          Field(5, "ts", Must(DataType::Timestamp(6))),
          Field(6, "arr", DataType::Array(DataType::Int()))};
}

class StatsTest : public ::testing::TestWithParam<FileFormat> {
 protected:
  freshet::testing::TempDir dir_;
};

TEST_P(StatsTest, MatchesBruteForceOverRandomRows) {
  auto schema = RandomSchema();
  std::mt19937_64 rng(42);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int b = 0; b < 5; ++b) {
    std::string rows;
    for (int r = 0; r < 200; ++r) rows += RandomRow(rng);
    batches.push_back(testing::ParseRows(rows, schema));
  }
  FormatWriterOptions options;
  options.stats_modes.assign(schema.size(), StatsMode{StatsMode::Kind::kFull, 0});
  options.stats_modes[3] = StatsMode{StatsMode::Kind::kTruncate, 5};
  std::string path = dir_.Sub(std::string("random.") + FileFormatName(GetParam()));
  ASSERT_OK_AND_ASSIGN(auto result, testing::WriteFile(GetParam(), path, schema, batches, options));
  EXPECT_EQ(result.row_count, 1000);

  // Parquet (as Java) leaves nested columns out; the others keep them with null bounds.
  bool parquet = GetParam() == FileFormat::kParquet;
  size_t stats_arity = parquet ? schema.size() - 1 : schema.size();
  if (parquet) {
    ASSERT_TRUE(result.stats_columns.has_value());
    EXPECT_EQ(*result.stats_columns, (std::vector<std::string>{"i", "bi", "d", "s", "dec", "ts"}));
  } else {
    EXPECT_FALSE(result.stats_columns.has_value());
  }
  auto stats = Decode(result.stats);
  ASSERT_EQ(stats.min.arity(), static_cast<int32_t>(stats_arity));
  ASSERT_EQ(result.stats.null_counts->size(), stats_arity);
  for (size_t c = 0; c < stats_arity; ++c) {
    const auto& type = *schema[c].type;
    Value min;
    Value max;
    int64_t nulls = 0;
    for (const auto& batch : batches) {
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        if (type.IsComposite()) {
          nulls += batch->column(static_cast<int>(c))->IsNull(r);
          continue;
        }
        ASSERT_OK_AND_ASSIGN(Value v,
                             bridge::ArrowValueAt(*batch->column(static_cast<int>(c)), r, type));
        if (v.is_null()) {
          ++nulls;
          continue;
        }
        if (min.is_null() || CompareStatsValues(v, min) < 0) min = v;
        if (max.is_null() || CompareStatsValues(max, v) < 0) max = v;
      }
    }
    if (c == 3) {
      min = Value::String(TruncateStringMin(*min.get_if<std::string>(), 5));
      auto truncated = TruncateStringMax(*max.get_if<std::string>(), 5);
      max = truncated ? Value::String(*truncated) : Value::Null();
    }
    SCOPED_TRACE(schema[c].name);
    EXPECT_EQ((*result.stats.null_counts)[c], nulls);
    int32_t pos = static_cast<int32_t>(c);
    EXPECT_EQ(*stats.min.GetValue(pos, type), type.IsComposite() ? Value::Null() : min);
    EXPECT_EQ(*stats.max.GetValue(pos, type), type.IsComposite() ? Value::Null() : max);
  }
}

// The rows /tmp Java check used: the same stats Java 1.4.2 wrote for them (docs/data-files.md).
TEST_P(StatsTest, DefaultModeMatchesJavaForStringsBinaryAndNaN) {
  std::vector<meta::DataField> schema = {
      Field(0, "s", DataType::String()), Field(1, "f", DataType::Float()),
      Field(2, "bin", DataType::Bytes()), Field(3, "ts3", Must(DataType::Timestamp(3))),
      Field(4, "c", Must(DataType::Char(5)))};
  std::string rows =
      R"({"s": "abcdefghijklmnopqrstuvwxyz", "f": "NaN", "bin": "AAEC", "ts3": "2024-01-01 10:00:00.123", "c": "ab"}
{"s": "abcdefghijklmnopÿzz", "f": 1.0, "bin": "AQ==", "ts3": "2024-01-01 10:00:00.124", "c": "abcde"}
{"s": "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀zz", "f": 2.0}
)";
  auto batch = testing::ParseRows(rows, schema);
  std::string path = dir_.Sub(std::string("java.") + FileFormatName(GetParam()));
  ASSERT_OK_AND_ASSIGN(auto result, testing::WriteFile(GetParam(), path, schema, {batch}));
  EXPECT_FALSE(result.stats_columns.has_value());
  auto stats = Decode(result.stats);
  // Java: min = first 16 code points, max = 16 code points with the last one incremented.
  EXPECT_EQ(*stats.min.GetBinary(0), "abcdefghijklmnop");
  EXPECT_EQ(*stats.max.GetBinary(0), "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😁");
  // Java writes NaN bounds here (Parquet: min 1.0 / max NaN; ORC drops NaN rows from the range);
  // freshet writes unknown bounds, which can never exclude a matching row.
  EXPECT_TRUE(stats.min.IsNullAt(1));
  EXPECT_TRUE(stats.max.IsNullAt(1));
  // Binary bounds: null in Java's Parquet and ORC stats.
  EXPECT_TRUE(stats.min.IsNullAt(2));
  EXPECT_EQ(*stats.min.GetTimestamp(3, 3), (meta::Timestamp{1704103200123, 0}));
  EXPECT_EQ(*stats.max.GetTimestamp(3, 3), (meta::Timestamp{1704103200124, 0}));
  EXPECT_EQ(*stats.min.GetBinary(4), "ab");
  EXPECT_EQ(*stats.max.GetBinary(4), "abcde");
  EXPECT_EQ(*result.stats.null_counts, (std::vector<std::optional<int64_t>>{0, 0, 1, 1, 1}));
}

TEST_P(StatsTest, ModesNoneCountsAndPerField) {
  std::vector<meta::DataField> schema = {Field(0, "a", DataType::Int()),
                                         Field(1, "b", DataType::String()),
                                         Field(2, "c", DataType::Int())};
  auto batch = testing::ParseRows(
      "{\"a\": 1, \"b\": \"x\", \"c\": 5}\n{\"a\": null, \"b\": \"y\"}\n", schema);
  ASSERT_OK_AND_ASSIGN(auto options, FormatWriterOptions::FromTableOptions(
                                         schema, {{"metadata.stats-mode", "counts"},
                                                  {"fields.b.stats-mode", "full"},
                                                  {"fields.c.stats-mode", "none"}}));
  std::string path = dir_.Sub(std::string("modes.") + FileFormatName(GetParam()));
  ASSERT_OK_AND_ASSIGN(auto result, testing::WriteFile(GetParam(), path, schema, {batch}, options));
  ASSERT_TRUE(result.stats_columns.has_value());
  EXPECT_EQ(*result.stats_columns, (std::vector<std::string>{"a", "b"}));
  auto stats = Decode(result.stats);
  EXPECT_TRUE(stats.min.IsNullAt(0));
  EXPECT_EQ(*stats.min.GetBinary(1), "x");
  EXPECT_EQ(*stats.max.GetBinary(1), "y");
  EXPECT_EQ(*result.stats.null_counts, (std::vector<std::optional<int64_t>>{1, 0}));

  ASSERT_OK_AND_ASSIGN(
      auto none, FormatWriterOptions::FromTableOptions(schema, {{"metadata.stats-mode", "NONE"}}));
  ASSERT_OK_AND_ASSIGN(auto empty,
                       testing::WriteFile(GetParam(), path + "2", schema, {batch}, none));
  EXPECT_EQ(*empty.stats_columns, std::vector<std::string>{});
  EXPECT_EQ(Decode(empty.stats).min.arity(), 0);
  EXPECT_TRUE(empty.stats.null_counts->empty());
}

INSTANTIATE_TEST_SUITE_P(Formats, StatsTest,
                         ::testing::Values(FileFormat::kParquet, FileFormat::kOrc),
                         [](const auto& info) { return std::string(FileFormatName(info.param)); });

TEST(StringTruncationTest, MultiByteAndOverflow) {
  EXPECT_EQ(TruncateStringMin("abc", 16), "abc");
  EXPECT_EQ(*TruncateStringMax("abc", 16), "abc");
  EXPECT_EQ(TruncateStringMin("abcdef", 3), "abc");
  EXPECT_EQ(*TruncateStringMax("abcdef", 3), "abd");
  // Code points, not bytes: 3 characters of 2, 3 and 4 bytes.
  EXPECT_EQ(TruncateStringMin("é✓😀x", 3), "é✓😀");
  EXPECT_EQ(*TruncateStringMax("é✓😀x", 3), "é✓😁");
  EXPECT_EQ(*TruncateStringMax("éé", 1), "ê");
  // Incrementing crosses UTF-8 length boundaries.
  EXPECT_EQ(*TruncateStringMax("\x7F"
                               "a",
                               1),
            "\xC2\x80");
  EXPECT_EQ(*TruncateStringMax("\xDF\xBF"
                               "a",
                               1),
            "\xE0\xA0\x80");
  EXPECT_EQ(*TruncateStringMax("\xEF\xBF\xBF"
                               "a",
                               1),
            "\xF0\x90\x80\x80");
  // U+D7FF is followed by U+E000 (surrogates are skipped).
  EXPECT_EQ(*TruncateStringMax("\xED\x9F\xBF"
                               "a",
                               1),
            "\xEE\x80\x80");
  // U+10FFFF cannot be incremented: no max.
  EXPECT_FALSE(TruncateStringMax("a\xF4\x8F\xBF\xBF"
                                 "b",
                                 2)
                   .has_value());
  EXPECT_EQ(*TruncateStringMax("a\xF4\x8F\xBF\xBF", 2), "a\xF4\x8F\xBF\xBF");
}

// The first smallest and first largest valid element, one element at a time: the model the
// column scans (runs of validity bits, values kept, byte strings by their first eight bytes) must
// agree with.
template <typename Less>
std::pair<int64_t, int64_t> ModelArgMinMax(const arrow::Array& array, Less less) {
  int64_t lo = -1;
  int64_t hi = -1;
  for (int64_t i = 0; i < array.length(); ++i) {
    if (array.IsNull(i)) continue;
    if (lo < 0) {
      lo = hi = i;
      continue;
    }
    if (less(i, lo)) lo = i;
    if (less(hi, i)) hi = i;
  }
  return {lo, hi};
}

// Byte strings that share prefixes of every length around eight bytes, hold zero bytes and 0xFF,
// and are empty, so that the eight-byte prefix decides some comparisons and not others.
std::string RandomBytes(std::mt19937_64& rng) {
  static const std::string alphabet = std::string("ab\0\xFF", 4);
  std::string out = rng() % 2 ? "prefix-0" : "";
  const int length = static_cast<int>(rng() % 12);
  for (int i = 0; i < length; ++i) out += alphabet[rng() % alphabet.size()];
  return out;
}

TEST(ColumnArgMinMaxTest, AgreesWithOneElementAtATimeOnSlicesWithNulls) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const int length = static_cast<int>(rng() % 80);
    const int null_percent = static_cast<int>(rng() % 4) * 30;  // 0, 30, 60, 90
    arrow::Int64Builder ints;
    arrow::DoubleBuilder doubles;
    arrow::BinaryBuilder bytes;
    arrow::BooleanBuilder bools;
    for (int i = 0; i < length; ++i) {
      if (static_cast<int>(rng() % 100) < null_percent) {
        ASSERT_TRUE(ints.AppendNull().ok() && doubles.AppendNull().ok() &&
                    bytes.AppendNull().ok() && bools.AppendNull().ok());
        continue;
      }
      const int64_t value = static_cast<int64_t>(rng() % 7) - 3;
      ASSERT_TRUE(ints.Append(value).ok() && doubles.Append(value * 0.5).ok() &&
                  bytes.Append(RandomBytes(rng)).ok() && bools.Append(value > 0).ok());
    }
    std::vector<std::shared_ptr<arrow::Array>> columns(4);
    ASSERT_TRUE(ints.Finish(&columns[0]).ok() && doubles.Finish(&columns[1]).ok() &&
                bytes.Finish(&columns[2]).ok() && bools.Finish(&columns[3]).ok());
    const int64_t offset = length == 0 ? 0 : static_cast<int64_t>(rng() % (length + 1));
    for (auto& column : columns) {
      const auto slice = column->Slice(offset);
      std::pair<int64_t, int64_t> expected;
      switch (slice->type_id()) {
        case arrow::Type::INT64: {
          const auto& a = static_cast<const arrow::Int64Array&>(*slice);
          expected =
              ModelArgMinMax(*slice, [&](int64_t x, int64_t y) { return a.Value(x) < a.Value(y); });
          break;
        }
        case arrow::Type::DOUBLE: {
          const auto& a = static_cast<const arrow::DoubleArray&>(*slice);
          expected =
              ModelArgMinMax(*slice, [&](int64_t x, int64_t y) { return a.Value(x) < a.Value(y); });
          break;
        }
        case arrow::Type::BINARY: {
          const auto& a = static_cast<const arrow::BinaryArray&>(*slice);
          expected = ModelArgMinMax(
              *slice, [&](int64_t x, int64_t y) { return a.GetView(x) < a.GetView(y); });
          break;
        }
        default: {
          const auto& a = static_cast<const arrow::BooleanArray&>(*slice);
          expected =
              ModelArgMinMax(*slice, [&](int64_t x, int64_t y) { return a.Value(x) < a.Value(y); });
        }
      }
      bool has_nan = false;
      auto actual = ColumnArgMinMax(*slice, &has_nan);
      ASSERT_TRUE(actual.ok()) << actual.status().ToString();
      EXPECT_EQ(*actual, expected)
          << slice->type()->ToString() << " round " << round << ": " << slice->ToString();
      EXPECT_FALSE(has_nan);
    }
  }
}

TEST(ColumnArgMinMaxTest, NaNOnlyInValidSlotsCounts) {
  arrow::DoubleBuilder builder;
  ASSERT_TRUE(builder.Append(1.0).ok() && builder.AppendNull().ok() && builder.Append(2.0).ok());
  std::shared_ptr<arrow::Array> array;
  ASSERT_TRUE(builder.Finish(&array).ok());
  // A NaN under the null slot is not a value.
  auto data = array->data()->Copy();
  auto values = *arrow::AllocateBuffer(3 * sizeof(double));
  double* raw = reinterpret_cast<double*>(values->mutable_data());
  raw[0] = 1.0;
  raw[1] = std::nan("");
  raw[2] = 2.0;
  data->buffers[1] = std::move(values);
  bool has_nan = false;
  auto hidden = ColumnArgMinMax(*arrow::MakeArray(data), &has_nan);
  ASSERT_TRUE(hidden.ok());
  EXPECT_FALSE(has_nan);
  EXPECT_EQ(*hidden, std::make_pair(int64_t{0}, int64_t{2}));
  data->buffers[0] = nullptr;
  data->null_count = 0;
  ASSERT_TRUE(ColumnArgMinMax(*arrow::MakeArray(data), &has_nan).ok());
  EXPECT_TRUE(has_nan);
}

TEST(StatsModeTest, Parse) {
  EXPECT_EQ(StatsMode::Parse("truncate(16)")->length, 16);
  EXPECT_EQ(StatsMode::Parse("Full")->kind, StatsMode::Kind::kFull);
  EXPECT_EQ(StatsMode::Parse("counts")->kind, StatsMode::Kind::kCounts);
  EXPECT_FALSE(StatsMode::Parse("truncate(0)").ok());
  EXPECT_FALSE(StatsMode::Parse("truncate()").ok());
  EXPECT_FALSE(StatsMode::Parse("all").ok());
}

}  // namespace
}  // namespace freshet::format
