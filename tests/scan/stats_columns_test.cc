// StatsColumns against EvaluateFileStats, file by file: random statistics (unknown null counts,
// NULL bounds, all-NULL files, columns without statistics, columns added or retyped since the
// file was written, undecodable rows) and random predicates over integral and other columns; and
// columns carried over to an advanced live set decode only the entries it added.
#include "scan/stats_columns.h"

#include <gtest/gtest.h>

#include <random>

#include "meta/row/binary_row.h"
#include "meta/row/value_compare.h"

namespace freshet::scan {
namespace {

using meta::Value;

// Schema 0: i INT, s STRING, dt DATE. Schema 1 retypes i to BIGINT (field 0 keeps its id, so
// schema-0 files' statistics of it are not usable) and adds id BIGINT (field 3) and f DOUBLE.
meta::TableSchema Schema(int id) {
  std::string fields =
      id == 0 ? R"([{"id": 0, "name": "i", "type": "INT"}, {"id": 1, "name": "s", "type": "STRING"},
                   {"id": 2, "name": "dt", "type": "DATE"}])"
              : R"([{"id": 0, "name": "i", "type": "BIGINT"},
                   {"id": 1, "name": "s", "type": "STRING"}, {"id": 2, "name": "dt", "type": "DATE"},
                   {"id": 3, "name": "id", "type": "BIGINT NOT NULL"},
                   {"id": 4, "name": "f", "type": "DOUBLE"}])";
  std::string text = R"({"version": 3, "id": )" + std::to_string(id) + R"(, "fields": )" + fields +
                     R"(, "highestFieldId": 4, "partitionKeys": [], "primaryKeys": [],
                     "options": {}, "timeMillis": 0})";
  auto schema = meta::TableSchema::FromJson(text);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return *schema;
}

class StatsColumnsTest : public ::testing::Test {
 protected:
  StatsColumnsTest() : schemas_{Schema(0), Schema(1)} {}

  Value RandomValue(const meta::DataType& type) {
    if (rng_() % 6 == 0) return Value::Null();
    const int32_t v = static_cast<int32_t>(rng_() % 41) - 20;
    switch (type.root()) {
      case meta::TypeRoot::kInt:
        return Value::Int(v);
      case meta::TypeRoot::kDate:
        return Value::Int(v + 19000);
      case meta::TypeRoot::kBigInt:
        return Value::BigInt(int64_t{v} * 1000000007LL);
      case meta::TypeRoot::kDouble:
        return Value::Double(v / 4.0);
      default:
        return Value::String(std::string(1, static_cast<char>('a' + (v + 20) % 8)));
    }
  }

  std::shared_ptr<const meta::ManifestEntry> RandomEntry() {
    auto entry = std::make_shared<meta::ManifestEntry>();
    meta::DataFileMeta& file = entry->file;
    file.file_name = "data-" + std::to_string(next_file_++);
    file.schema_id = rng_() % 2;
    file.row_count = 1 + rng_() % 5;
    const auto& fields = schemas_[file.schema_id].fields();
    std::vector<meta::DataField> stats_fields;
    if (rng_() % 4 == 0) {  // statistics of some columns only
      file.value_stats_cols.emplace();
      for (const auto& f : fields) {
        if (rng_() % 2) {
          stats_fields.push_back(f);
          file.value_stats_cols->push_back(f.name);
        }
      }
    } else {
      stats_fields = fields;
    }
    std::vector<Value> mins, maxs;
    std::vector<std::optional<int64_t>> nulls;
    for (const auto& f : stats_fields) {
      Value a = RandomValue(*f.type), b = RandomValue(*f.type);
      if (!a.is_null() && !b.is_null() && meta::CompareValues(b, a) < 0) std::swap(a, b);
      mins.push_back(a);
      maxs.push_back(b);
      if (rng_() % 5 == 0) {
        nulls.push_back(std::nullopt);
      } else {
        nulls.push_back(static_cast<int64_t>(rng_() % (file.row_count + 1)));
      }
    }
    file.value_stats.min_values =
        meta::SerializeBinaryRow(*meta::BuildBinaryRow(stats_fields, mins));
    file.value_stats.max_values =
        meta::SerializeBinaryRow(*meta::BuildBinaryRow(stats_fields, maxs));
    if (rng_() % 6 != 0) file.value_stats.null_counts = nulls;
    if (rng_() % 40 == 0) file.value_stats.min_values = "\x01";  // undecodable
    return entry;
  }

  std::string RandomLeaf() {
    static const char* kColumns[] = {"i", "s", "dt", "id", "f"};
    static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
    const std::string column = kColumns[rng_() % 5];
    auto literal = [&]() -> std::string {
      if (rng_() % 12 == 0) return "NULL";
      const int v = static_cast<int>(rng_() % 45) - 22;
      if (column == "s") return "'" + std::string(1, static_cast<char>('a' + (v + 22) % 9)) + "'";
      if (column == "dt") return "'" + meta::FormatEpochDay(v + 19000) + "'";
      if (column == "id") return std::to_string(int64_t{v} * 1000000007LL);
      if (column == "f") return std::to_string(v / 4.0);
      return std::to_string(v);
    };
    switch (rng_() % 5) {
      case 0:
        return column + " IS NULL";
      case 1:
        return column + " IS NOT NULL";
      case 2:
        return column + " IN (" + literal() + ", " + literal() + ", " + literal() + ")";
      default:
        return column + " " + kOps[rng_() % 6] + " " + literal();
    }
  }

  std::string RandomPredicate(int depth) {
    if (depth == 0 || rng_() % 3 == 0) return RandomLeaf();
    switch (rng_() % 3) {
      case 0:
        return "NOT (" + RandomPredicate(depth - 1) + ")";
      case 1:
        return "(" + RandomPredicate(depth - 1) + ") AND (" + RandomPredicate(depth - 1) + ")";
      default:
        return "(" + RandomPredicate(depth - 1) + ") OR (" + RandomPredicate(depth - 1) + ")";
    }
  }

  StatsColumn::SchemaOf SchemaOf() {
    return [this](int64_t id) -> Result<const meta::TableSchema*> { return &schemas_[id]; };
  }

  // Every entry of `live`, tested by the columns and by EvaluateFileStats, for `predicates`
  // random predicates; returns how many files the predicates pruned.
  int CheckAgainstFileByFile(const std::string& table, const meta::LiveEntries& live,
                             int predicates) {
    int pruned = 0;
    for (int p = 0; p < predicates; ++p) {
      const std::string text = RandomPredicate(3);
      auto predicate = MakePredicate(text, schemas_[1]);
      if (!predicate.ok()) continue;  // e.g. a date literal the parser refuses
      auto columns = StatsColumns::Make(table, *predicate, live, SchemaOf());
      EXPECT_TRUE(columns.ok()) << columns.status().ToString();
      EXPECT_TRUE(columns->has_value()) << text;
      if (!columns.ok() || !columns->has_value()) continue;
      // Entry by entry, and every entry at once (EvaluateAll), as a plan uses them.
      StatsColumns all_at_once = **columns;
      all_at_once.EvaluateAll();
      for (size_t i = 0; i < live->size(); ++i) {
        const meta::DataFileMeta& file = (*live)[i]->file;
        auto expected = EvaluateFileStats(*predicate, file, schemas_[file.schema_id]);
        const Outcomes got = (*columns)->Evaluate(i);
        EXPECT_EQ(all_at_once.Evaluate(i), got) << text << " file " << i;
        if (!expected.ok()) {
          EXPECT_EQ(got, 0) << text << " file " << i;
          continue;
        }
        EXPECT_EQ(got, *expected) << text << " file " << i;
        pruned += !(*expected & kTrue);
      }
      ExpectCandidatesHoldEveryPossibleMatch(text, *predicate, **columns, live);
    }
    return pruned;
  }

  // Every entry outside the predicate's candidate ranges (if it has them) cannot match by its
  // statistics; returns how many entries the ranges left out.
  size_t ExpectCandidatesHoldEveryPossibleMatch(const std::string& text, const Predicate& predicate,
                                                const StatsColumns& columns,
                                                const meta::LiveEntries& live) {
    std::optional<StatsColumns::EntryRanges> ranges = columns.CandidateRanges();
    if (!ranges) return 0;
    std::vector<bool> candidate(live->size(), false);
    uint32_t last_end = 0;
    for (const auto& [begin, end] : *ranges) {
      EXPECT_LT(begin, end) << text;
      EXPECT_LE(end, live->size()) << text;
      EXPECT_TRUE(begin == 0 || begin > last_end) << text << ": ranges not apart and in order";
      last_end = end;
      for (uint32_t i = begin; i < end && i < live->size(); ++i) candidate[i] = true;
    }
    size_t left_out = 0;
    for (size_t i = 0; i < live->size(); ++i) {
      if (candidate[i]) continue;
      ++left_out;
      const meta::DataFileMeta& file = (*live)[i]->file;
      auto expected = EvaluateFileStats(predicate, file, schemas_[file.schema_id]);
      EXPECT_TRUE(expected.ok()) << text << " file " << i << " left out, its test fails";
      EXPECT_FALSE(expected.ok() && (*expected & kTrue))
          << text << " file " << i << " left out, may match";
    }
    return left_out;
  }

  // A schema-1 file whose `id` lies in [lo, hi], or, by `shape`: 1 NULL bounds with an unknown
  // null count, 2 all NULL, 3 undecodable statistics, 4 no statistics of `id`; other columns
  // without bounds.
  std::shared_ptr<const meta::ManifestEntry> IdRangeEntry(int64_t lo, int64_t hi, int shape) {
    auto entry = std::make_shared<meta::ManifestEntry>();
    meta::DataFileMeta& file = entry->file;
    file.file_name = "data-" + std::to_string(next_file_++);
    file.schema_id = 1;
    file.row_count = 10;
    std::vector<meta::DataField> fields = schemas_[1].fields();
    std::vector<Value> mins(fields.size(), Value::Null()), maxs(fields.size(), Value::Null());
    std::vector<std::optional<int64_t>> nulls(fields.size(), std::nullopt);
    if (shape == 0) {
      mins[3] = Value::BigInt(lo);
      maxs[3] = Value::BigInt(hi);
      nulls[3] = 0;
    } else if (shape == 2) {
      nulls[3] = file.row_count;
    } else if (shape == 4) {
      fields.erase(fields.begin() + 3);
      mins.pop_back();
      maxs.pop_back();
      nulls.pop_back();
      file.value_stats_cols.emplace();
      for (const auto& f : fields) file.value_stats_cols->push_back(f.name);
    }
    file.value_stats.min_values = meta::SerializeBinaryRow(*meta::BuildBinaryRow(fields, mins));
    file.value_stats.max_values = meta::SerializeBinaryRow(*meta::BuildBinaryRow(fields, maxs));
    file.value_stats.null_counts = nulls;
    if (shape == 3) file.value_stats.min_values = "\x01";
    return entry;
  }

  std::mt19937_64 rng_{20261204};
  meta::TableSchema schemas_[2];
  int next_file_ = 0;
};

TEST_F(StatsColumnsTest, EveryFileTestedAsEvaluateFileStatsTestsIt) {
  std::vector<std::shared_ptr<const meta::ManifestEntry>> entries;
  for (int i = 0; i < 400; ++i) entries.push_back(RandomEntry());
  auto live = std::make_shared<const std::vector<std::shared_ptr<const meta::ManifestEntry>>>(
      std::move(entries));
  const int pruned = CheckAgainstFileByFile("/tables/random", live, 300);
  EXPECT_GT(pruned, 1000);  // the predicates do prune: the comparison is not all "keep"
}

TEST_F(StatsColumnsTest, AdvancedLiveSetDecodesOnlyItsAddedEntries) {
  std::vector<std::shared_ptr<const meta::ManifestEntry>> first;
  for (int i = 0; i < 100; ++i) first.push_back(RandomEntry());
  auto live1 =
      std::make_shared<const std::vector<std::shared_ptr<const meta::ManifestEntry>>>(first);
  auto predicate = MakePredicate("id = 1000000007 AND s >= 'c'", schemas_[1]);
  ASSERT_TRUE(predicate.ok()) << predicate.status().ToString();
  const std::string table = "/tables/advanced";
  const int64_t before = StatsColumn::DecodedEntries();
  ASSERT_TRUE(StatsColumns::Make(table, *predicate, live1, SchemaOf()).ok());
  EXPECT_EQ(StatsColumn::DecodedEntries() - before, 200);  // two columns

  // The next live set: every third entry removed (a compaction), 20 added.
  std::vector<std::shared_ptr<const meta::ManifestEntry>> second;
  for (size_t i = 0; i < first.size(); ++i) {
    if (i % 3 != 0) second.push_back(first[i]);
  }
  for (int i = 0; i < 20; ++i) second.push_back(RandomEntry());
  auto live2 =
      std::make_shared<const std::vector<std::shared_ptr<const meta::ManifestEntry>>>(second);
  const int64_t middle = StatsColumn::DecodedEntries();
  ASSERT_TRUE(StatsColumns::Make(table, *predicate, live2, SchemaOf()).ok());
  EXPECT_EQ(StatsColumn::DecodedEntries() - middle, 40);
  // The same live set again: nothing decoded.
  ASSERT_TRUE(StatsColumns::Make(table, *predicate, live2, SchemaOf()).ok());
  EXPECT_EQ(StatsColumn::DecodedEntries() - middle, 40);
  // The carried columns test as freshly decoded ones.
  CheckAgainstFileByFile(table, live2, 200);
}

// Files listed in the order of their ids (as a live set lists files by commit), with a few whose
// statistics are not plain bounds: comparisons of `id` with literals on and around the files'
// and blocks' bounds leave out whole blocks, and never a file that may match.
TEST_F(StatsColumnsTest, CandidateRangesLeaveOutOnlyFilesThatCannotMatch) {
  std::vector<std::shared_ptr<const meta::ManifestEntry>> entries;
  for (int64_t k = 0; k < 1000; ++k) {
    const int shape = rng_() % 50 == 0 ? 1 + static_cast<int>(rng_() % 4) : 0;
    const int64_t lo = 10 * k + static_cast<int64_t>(rng_() % 15) - 5;
    entries.push_back(IdRangeEntry(lo, lo + static_cast<int64_t>(rng_() % 12), shape));
  }
  auto live = std::make_shared<const std::vector<std::shared_ptr<const meta::ManifestEntry>>>(
      std::move(entries));
  static const char* kOps[] = {"=", "<", "<=", ">", ">="};
  size_t left_out = 0;
  int with_ranges = 0;
  for (int q = 0; q < 600; ++q) {
    // Literals on a block's edge (ids near 640 k), a file's, and anywhere, past both ends too.
    const int64_t base = q % 3 == 0 ? 640 * static_cast<int64_t>(rng_() % 17)
                                    : 10 * static_cast<int64_t>(rng_() % 1010) - 50;
    const int64_t literal = base + static_cast<int64_t>(rng_() % 25) - 12;
    std::string text = std::string("id ") + kOps[rng_() % 5] + " " + std::to_string(literal);
    if (q % 4 == 1) text = "i IS NULL AND " + text;
    if (q % 4 == 2) text += " AND s < 'c'";
    SCOPED_TRACE(text);
    auto predicate = MakePredicate(text, schemas_[1]);
    ASSERT_TRUE(predicate.ok()) << predicate.status().ToString();
    auto columns = StatsColumns::Make("/tables/ordered", *predicate, live, SchemaOf());
    ASSERT_TRUE(columns.ok() && columns->has_value());
    with_ranges += (*columns)->CandidateRanges().has_value();
    left_out += ExpectCandidatesHoldEveryPossibleMatch(text, *predicate, **columns, live);
  }
  EXPECT_EQ(with_ranges, 600);
  EXPECT_GT(left_out, 600u * 300);  // most of the files, most of the time
  // OR, NOT and <> have none.
  for (const char* text : {"id = 5 OR id = 7", "NOT (id < 5)", "id <> 5", "s = 'a'"}) {
    auto predicate = MakePredicate(text, schemas_[1]);
    ASSERT_TRUE(predicate.ok());
    auto columns = StatsColumns::Make("/tables/ordered", *predicate, live, SchemaOf());
    ASSERT_TRUE(columns.ok() && columns->has_value());
    EXPECT_FALSE((*columns)->CandidateRanges().has_value()) << text;
  }
}

TEST_F(StatsColumnsTest, LargeLiveSetsAreTestedFileByFile) {
  auto entry = RandomEntry();
  auto live = std::make_shared<const std::vector<std::shared_ptr<const meta::ManifestEntry>>>(
      StatsColumns::kMaxEntries + 1, entry);
  auto predicate = MakePredicate("id = 1", schemas_[1]);
  ASSERT_TRUE(predicate.ok());
  auto columns = StatsColumns::Make("/tables/large", *predicate, live, SchemaOf());
  ASSERT_TRUE(columns.ok());
  EXPECT_FALSE(columns->has_value());
}

}  // namespace
}  // namespace freshet::scan
