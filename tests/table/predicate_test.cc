// Predicates: parser and binder messages, evaluation against an independent row-by-row model
// over random data (every operator, many types), pruning that never loses a matching row and
// that does skip files.
#include "scan/predicate.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "bridge/arrow_value.h"
#include "freshet/table.h"
#include "meta/row/value_compare.h"
#include "meta/schema/schema_manager.h"
#include "scan/table_scan.h"
#include "testing/test_util.h"
#include "textrows/json_rows.h"

namespace freshet {
namespace {

using meta::Value;

const char* kSchema = R"json({"fields": [
  {"name": "id", "type": "BIGINT"}, {"name": "p", "type": "STRING"}, {"name": "i", "type": "INT"},
  {"name": "s", "type": "STRING"}, {"name": "d", "type": "DECIMAL(10, 2)"},
  {"name": "dt", "type": "DATE"}, {"name": "b", "type": "BOOLEAN"},
  {"name": "ts", "type": "TIMESTAMP(3)"}, {"name": "f", "type": "DOUBLE"}],
  "partitionKeys": ["p"], "options": {"file.format": "parquet"}})json";

class PredicateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto table = Table::Create(dir_.Sub("t"), kSchema);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = *table;
    meta::SchemaManager schemas(io::LocalFileIO(), dir_.Sub("t"));
    auto latest = schemas.LatestSchema();
    ASSERT_TRUE(latest.ok() && latest->has_value());
    schema_.emplace(**latest);
  }
  std::string Error(const std::string& text) {
    auto p = scan::MakePredicate(text, *schema_);
    return p.ok() ? "ok" : p.status().message();
  }
  testing::TempDir dir_;
  std::shared_ptr<Table> table_;
  std::optional<meta::TableSchema> schema_;
};

TEST_F(PredicateTest, ParsesTheGrammar) {
  for (const char* text :
       {"p = '2024-01-01' AND (d >= 10.5 OR s IN ('ada', 'grace')) AND s IS NOT NULL",
        "NOT (i < 3)", "`i` <> -4", "s = 'it''s'", "b = TRUE OR b = false", "i NOT IN (1, 2)",
        "i IS NULL", "i == 1 and not i != 2 or i <= 3", "f > 1e3", "ts >= '2024-01-01'",
        "dt = '2024-02-29'", "i = NULL"}) {
    EXPECT_EQ(Error(text), "ok") << text;
  }
  ASSERT_OK_AND_ASSIGN(auto expr, scan::ParsePredicate("a = 1 OR b = 2 AND NOT c IS NULL"));
  ASSERT_EQ(expr.kind, scan::Expr::Kind::kOr);  // AND binds tighter than OR
  ASSERT_EQ(expr.children.size(), 2u);
  EXPECT_EQ(expr.children[1].kind, scan::Expr::Kind::kAnd);
  EXPECT_EQ(expr.children[1].children[1].kind, scan::Expr::Kind::kNot);
}

TEST_F(PredicateTest, ParseErrorsNameThePositionAndWhatWasExpected) {
  EXPECT_EQ(Error(""), "filter: at position 1: expected an expression, found end of input");
  EXPECT_EQ(Error("i ="),
            "filter: at position 4: expected a literal (number, 'string', TRUE, FALSE or NULL), "
            "found end of input");
  EXPECT_EQ(Error("i 3"),
            "filter: at position 3: expected a comparison operator (=, !=, <>, <, <=, >, >=), IN, "
            "NOT IN or IS, found '3'");
  EXPECT_EQ(Error("(i = 1"), "filter: at position 7: expected ')', found end of input");
  EXPECT_EQ(Error("i = 1 i = 2"),
            "filter: at position 7: expected AND, OR or end of input, found 'i'");
  EXPECT_EQ(Error("s = 'abc"), "filter: at position 5: unterminated string");
  EXPECT_EQ(Error("i = 1 AND"),
            "filter: at position 10: expected a column name or '(', found end of input");
  EXPECT_EQ(Error("i IN ()"),
            "filter: at position 7: expected a literal (number, 'string', TRUE, FALSE or NULL), "
            "found ')'");
  EXPECT_EQ(Error("i IS 3"), "filter: at position 6: expected NULL or NOT NULL, found '3'");
  EXPECT_EQ(Error("i = 1 # 2"), "filter: at position 7: unexpected character '#'");
}

// Deep nesting is refused with an error instead of overflowing the stack (5,000 parentheses or
// 8,000 NOTs used to crash `read --where`); nesting up to the limit still works.
TEST_F(PredicateTest, NestingIsLimited) {
  auto nested = [](int levels, const std::string& open, const std::string& close) {
    std::string text;
    for (int i = 0; i < levels; ++i) text += open;
    text += "a = 1";
    for (int i = 0; i < levels; ++i) text += close;
    return text;
  };
  ASSERT_OK(scan::ParsePredicate(nested(255, "(", ")")).status());
  ASSERT_OK(scan::ParsePredicate(nested(256, "NOT ", "")).status());
  for (const std::string& deep : {nested(257, "(", ")"), nested(5000, "(", ")"),
                                  nested(8000, "NOT ", ""), nested(100000, "NOT (", ")")}) {
    auto parsed = scan::ParsePredicate(deep);
    ASSERT_FALSE(parsed.ok());
    EXPECT_TRUE(parsed.status().IsInvalid()) << parsed.status().ToString();
    EXPECT_NE(parsed.status().message().find("deeper than 256 levels"), std::string::npos)
        << parsed.status().ToString();
  }
}

TEST_F(PredicateTest, BindErrorsNameTheColumnTypeAndLiteral) {
  EXPECT_EQ(Error("d = 12.345"),
            "filter: column 'd' is DECIMAL(10, 2); 12.345 has too many digits");
  EXPECT_EQ(Error("d = '12.345'"),
            "filter: column 'd' is DECIMAL(10, 2); '12.345' has too many digits");
  EXPECT_EQ(Error("d = 'x'"), "filter: column 'd' is DECIMAL(10, 2); 'x' is not a number");
  EXPECT_EQ(Error("nope = 1"), "filter: column 'nope' does not exist");
  EXPECT_EQ(Error("i = 3.5"), "filter: column 'i' is INT; 3.5 is not an integer");
  EXPECT_EQ(Error("i = 3000000000"), "filter: column 'i' is INT; 3000000000 is out of range");
  EXPECT_EQ(Error("s = 3"), "filter: column 's' is STRING; 3 is not a quoted string");
  EXPECT_EQ(Error("dt = '2023-02-29'"),
            "filter: column 'dt' is DATE; '2023-02-29' is not a date (YYYY-MM-DD)");
  EXPECT_EQ(Error("b = 1"), "filter: column 'b' is BOOLEAN; 1 is not TRUE or FALSE");
  EXPECT_EQ(Error("i = TRUE"), "filter: column 'i' is INT; TRUE is a boolean");
}

// ---------------------------------------------------------------------------------------------
// The model: a literal SQL three-valued evaluation (nullopt = UNKNOWN) written independently.
struct Model {
  enum Kind { kCmp, kIn, kIsNull, kIsNotNull, kAnd, kOr, kNot } kind;
  std::string column;
  std::string op;
  std::vector<Value> literals;
  std::vector<Model> children;
};

std::optional<bool> Eval(const Model& m, const std::map<std::string, Value>& row) {
  switch (m.kind) {
    case Model::kAnd:
    case Model::kOr: {
      auto a = Eval(m.children[0], row), b = Eval(m.children[1], row);
      bool is_and = m.kind == Model::kAnd;
      if ((a && *a != is_and) || (b && *b != is_and)) return !is_and;
      if (!a || !b) return std::nullopt;
      return is_and;
    }
    case Model::kNot: {
      auto a = Eval(m.children[0], row);
      if (!a) return std::nullopt;
      return !*a;
    }
    default:
      break;
  }
  const Value& v = row.at(m.column);
  if (m.kind == Model::kIsNull) return v.is_null();
  if (m.kind == Model::kIsNotNull) return !v.is_null();
  if (v.is_null()) return std::nullopt;
  if (m.kind == Model::kIn) {
    bool unknown = false;
    for (const auto& l : m.literals) {
      if (l.is_null())
        unknown = true;
      else if (meta::CompareValues(v, l) == 0)
        return true;
    }
    if (unknown) return std::nullopt;
    return false;
  }
  if (m.literals[0].is_null()) return std::nullopt;
  int c = meta::CompareValues(v, m.literals[0]);
  if (m.op == "=") return c == 0;
  if (m.op == "!=") return c != 0;
  if (m.op == "<") return c < 0;
  if (m.op == "<=") return c <= 0;
  if (m.op == ">") return c > 0;
  return c >= 0;
}

// Random values per column, as JSON text for writing and filter text, and as the model's Value.
struct Gen {
  std::mt19937_64 rng{20261130};
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  // (JSON value, filter literal text, Value) for `column`, around `base` (the commit number).
  std::tuple<std::string, std::string, Value> Pick(const std::string& column, int base) {
    int k = base * 10 + Int(0, 9);
    char buf[64];
    if (column == "i") return {std::to_string(k), std::to_string(k), Value::Int(k)};
    if (column == "s") {
      std::snprintf(buf, sizeof(buf), "s%03d", k);
      return {std::string("\"") + buf + "\"", std::string("'") + buf + "'", Value::String(buf)};
    }
    if (column == "d") {
      std::snprintf(buf, sizeof(buf), "%d.%02d", k - 20, Int(0, 99));
      auto d = *meta::Decimal::FromString(buf, 10, 2);
      return {std::string("\"") + buf + "\"", buf, Value::Dec(d)};
    }
    if (column == "dt") {
      int32_t day = meta::EpochDayFromCivil(2024, 1, 1) + k;
      std::string text = meta::FormatEpochDay(day);
      return {"\"" + text + "\"", "'" + text + "'", Value::Int(day)};
    }
    if (column == "b") {
      bool b = Int(0, 1) == 1;
      return {b ? "true" : "false", b ? "TRUE" : "FALSE", Value::Boolean(b)};
    }
    if (column == "ts") {
      std::snprintf(buf, sizeof(buf), "2024-01-01 %02d:%02d:00.%03d", k / 60 % 24, k % 60,
                    Int(0, 2) * 500);
      return {std::string("\"") + buf + "\"", std::string("'") + buf + "'",
              Value::Ts(*meta::Timestamp::FromIsoString(buf))};
    }
    if (column == "p") {
      std::string p = Int(0, 1) ? "a" : "b";
      return {"\"" + p + "\"", "'" + p + "'", Value::String(p)};
    }
    double f = (k - 20) / 4.0;
    std::snprintf(buf, sizeof(buf), "%.2f", f);
    return {buf, buf, Value::Double(f)};
  }

  std::pair<std::string, Model> Leaf(int base) {
    static const char* kColumns[] = {"p", "i", "s", "d", "dt", "b", "ts", "f"};
    static const char* kOps[] = {"=", "!=", "<", "<=", ">", ">="};
    std::string column = kColumns[Int(0, 7)];
    int kind = Int(0, 9);
    if (kind == 0) return {column + " IS NULL", {Model::kIsNull, column, "", {}, {}}};
    if (kind == 1) return {column + " IS NOT NULL", {Model::kIsNotNull, column, "", {}, {}}};
    if (kind <= 3) {
      Model m{Model::kIn, column, "", {}, {}};
      std::string text = column + " IN (";
      for (int n = Int(1, 3), j = 0; j < n; ++j) {
        bool null = Int(0, 6) == 0;
        auto [json, lit, value] = Pick(column, Int(0, base));
        text += (j ? ", " : "") + (null ? std::string("NULL") : lit);
        m.literals.push_back(null ? Value::Null() : value);
      }
      return {text + ")", m};
    }
    std::string op = kOps[Int(0, 5)];
    bool null = Int(0, 30) == 0;
    auto [json, lit, value] = Pick(column, Int(0, base));
    return {column + " " + op + " " + (null ? "NULL" : lit),
            {Model::kCmp, column, op, {null ? Value::Null() : value}, {}}};
  }

  std::pair<std::string, Model> Tree(int depth, int base) {
    int kind = depth == 0 ? 0 : Int(0, 3);
    if (kind == 0) return Leaf(base);
    auto [a, ma] = Tree(depth - 1, base);
    if (kind == 1) return {"NOT (" + a + ")", {Model::kNot, "", "", {}, {ma}}};
    auto [b, mb] = Tree(depth - 1, base);
    bool is_and = kind == 2;
    return {"(" + a + (is_and ? ") AND (" : ") OR (") + b + ")",
            {is_and ? Model::kAnd : Model::kOr, "", "", {}, {ma, mb}}};
  }
};

constexpr int kCommits = 8;

// Eight commits (one file per partition each) whose values sit in disjoint ranges, so that
// statistics can prune.
// kCommits batches of 25 rows, the values of batch c around c. With `writer`, all go through it
// and only the first `committed` are committed (a real-time table keeps the others in memory);
// otherwise each batch is written and committed by a writer of its own.
void WriteRandomRows(Table& table, const meta::TableSchema& schema, Gen& gen,
                     TableWriter* writer = nullptr, int committed = kCommits) {
  int64_t id = 0;
  for (int c = 0; c < kCommits; ++c) {
    std::string jsonl;
    for (int r = 0; r < 25; ++r) {
      std::string line = "{\"id\": " + std::to_string(id++);
      for (const char* col : {"p", "i", "s", "d", "dt", "b", "ts", "f"}) {
        bool null = gen.Int(0, 6) == 0;
        line +=
            std::string(", \"") + col + "\": " + (null ? "null" : std::get<0>(gen.Pick(col, c)));
      }
      jsonl += line + "}\n";
    }
    ASSERT_OK_AND_ASSIGN(auto parsed, textrows::ParseJsonRows(jsonl, schema.fields()));
    std::unique_ptr<TableWriter> own;
    if (!writer) {
      ASSERT_OK_AND_ASSIGN(own, table.NewWriter());
    }
    TableWriter* into = writer ? writer : own.get();
    ArrowArray array;
    ArrowSchema c_schema;
    ASSERT_TRUE(arrow::ExportRecordBatch(*parsed.batch, &array, &c_schema).ok());
    ASSERT_OK(into->Write(&array, &c_schema));
    if (c >= committed) continue;
    ASSERT_OK_AND_ASSIGN(auto snapshot, into->Commit());
    ASSERT_TRUE(snapshot.has_value());
  }
}

std::vector<std::shared_ptr<arrow::RecordBatch>> ReadBatches(Table& table, ReadOptions options) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  auto reader = table.NewReader(options);
  EXPECT_TRUE(reader.ok()) << options.filter << ": " << reader.status().ToString();
  if (!reader.ok()) return out;
  ArrowSchema c_schema;
  EXPECT_OK((*reader)->ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  while (true) {
    ArrowArray array;
    auto more = (*reader)->Next(&array);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    out.push_back(*arrow::ImportRecordBatch(&array, schema));
  }
  return out;
}

// Every row of the batches as its column values, by name.
std::vector<std::map<std::string, Value>> Rows(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const meta::TableSchema& schema) {
  std::vector<std::map<std::string, Value>> rows;
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::map<std::string, Value> row;
      for (int c = 0; c < batch->num_columns(); ++c) {
        const auto& field = schema.fields()[schema.FieldIndex(batch->schema()->field(c)->name())];
        row[field.name] = *bridge::ArrowValueAt(*batch->column(c), r, *field.type);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::vector<int64_t> Ids(const std::vector<std::map<std::string, Value>>& rows) {
  std::vector<int64_t> ids;
  for (const auto& row : rows) ids.push_back(*row.at("id").get_if<int64_t>());
  std::sort(ids.begin(), ids.end());
  return ids;
}

struct PruningCounts {
  int nonempty = 0, pruned = 0, pruned_by_bucket = 0;
};

// 400 random predicates: every filtered read (with and without the filtered columns) equals the
// rows the model selects, whatever the scan pruned.
PruningCounts ExpectFilteredReadsMatchTheModel(Table& table, const meta::TableSchema& schema,
                                               Gen& gen) {
  PruningCounts counts;
  auto all = Rows(ReadBatches(table, {}), schema);
  EXPECT_EQ(all.size(), 25u * kCommits);
  for (int n = 0; n < 400; ++n) {
    auto [text, model] = gen.Tree(gen.Int(0, 3), kCommits - 1);
    SCOPED_TRACE(text);
    std::vector<std::map<std::string, Value>> expected;
    for (const auto& row : all) {
      auto v = Eval(model, row);
      if (v && *v) expected.push_back(row);
    }
    ReadOptions options;
    options.filter = text;
    options.batch_size = 7;  // many batches, so filtering splits and joins runs
    auto got = Rows(ReadBatches(table, options), schema);
    EXPECT_EQ(Ids(got), Ids(expected));
    counts.nonempty += !expected.empty();
    // The same with a projection that leaves out the filtered columns.
    options.columns = {"id"};
    auto projected = Rows(ReadBatches(table, options), schema);
    EXPECT_EQ(Ids(projected), Ids(expected));
    auto predicate = scan::MakePredicate(text, schema);
    EXPECT_TRUE(predicate.ok());
    scan::ScanOptions scan_options;
    scan_options.predicate = std::make_shared<const scan::Predicate>(*predicate);
    auto plan = scan::TableScan(io::LocalFileIO(), table.path()).Plan(scan_options);
    EXPECT_TRUE(plan.ok());
    counts.pruned += plan->files_pruned_by_stats + plan->files_pruned_by_partition > 0;
    counts.pruned_by_bucket += plan->files_pruned_by_bucket > 0;
  }
  return counts;
}

TEST_F(PredicateTest, FilteredReadsMatchTheRowModelAndPruningLosesNothing) {
  Gen gen;
  WriteRandomRows(*table_, *schema_, gen);
  PruningCounts counts = ExpectFilteredReadsMatchTheModel(*table_, *schema_, gen);
  EXPECT_GT(counts.nonempty, 100);
  EXPECT_GT(counts.pruned, 50);
}

// The same on a real-time table whose newer half is still in memory: memory batches skipped by
// their zone maps (realtime/zone_map.h) and the rows filtered column by column lose nothing.
TEST_F(PredicateTest, RealtimeMemoryRowsMatchTheRowModel) {
  std::string spec = kSchema;
  const std::string format = R"("file.format": "parquet")";
  spec.replace(spec.find(format), format.size(), format + R"(, "realtime.enabled": "true")");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir_.Sub("realtime"), spec));
  ASSERT_OK_AND_ASSIGN(auto schema,
                       meta::SchemaManager(io::LocalFileIO(), dir_.Sub("realtime")).LatestSchema());
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  Gen gen;
  WriteRandomRows(*table, *schema, gen, writer.get(), kCommits / 2);
  PruningCounts counts = ExpectFilteredReadsMatchTheModel(*table, *schema, gen);
  EXPECT_GT(counts.nonempty, 100);
}

// The same with 4 fixed buckets by `i`: predicates pinning `i` skip the other buckets' files
// (scan/bucket_pruning.h), and lose nothing.
TEST_F(PredicateTest, BucketPruningLosesNothing) {
  std::string spec = kSchema;
  const std::string format = R"("file.format": "parquet")";
  spec.replace(spec.find(format), format.size(), format + R"(, "bucket": "4", "bucket-key": "i")");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir_.Sub("bucketed"), spec));
  ASSERT_OK_AND_ASSIGN(auto schema,
                       meta::SchemaManager(io::LocalFileIO(), dir_.Sub("bucketed")).LatestSchema());
  Gen gen;
  WriteRandomRows(*table, *schema, gen);
  PruningCounts counts = ExpectFilteredReadsMatchTheModel(*table, *schema, gen);
  EXPECT_GT(counts.nonempty, 100);
  EXPECT_GT(counts.pruned_by_bucket, 2);  // random trees pin `i` now and then
  // An equality on `i` keeps one bucket; IN keeps the buckets of its values; OR keeps all.
  auto plan_for = [&](const std::string& text) {
    scan::ScanOptions options;
    if (!text.empty()) {
      options.predicate =
          std::make_shared<const scan::Predicate>(*scan::MakePredicate(text, *schema));
    }
    return *scan::TableScan(io::LocalFileIO(), dir_.Sub("bucketed")).Plan(options);
  };
  auto buckets_of = [](const scan::ScanPlan& plan) {
    std::set<int32_t> buckets;
    for (const auto& split : plan.splits) buckets.insert(split.bucket);
    return buckets;
  };
  EXPECT_EQ(buckets_of(plan_for("i = 3 AND s IS NOT NULL")).size(), 1u);
  EXPECT_LE(buckets_of(plan_for("i IN (3, 4)")).size(), 2u);
  EXPECT_EQ(buckets_of(plan_for("i = 3 OR s = 's003'")), buckets_of(plan_for("")));
  EXPECT_EQ(buckets_of(plan_for("i = 3 AND i = 4")).size(), 0u);
}

TEST_F(PredicateTest, StatisticsAndPartitionsPruneFiles) {
  Gen gen;
  WriteRandomRows(*table_, *schema_, gen);
  auto plan_for = [&](const std::string& text) {
    auto predicate = *scan::MakePredicate(text, *schema_);
    scan::ScanOptions options;
    options.predicate = std::make_shared<const scan::Predicate>(predicate);
    return *scan::TableScan(io::LocalFileIO(), dir_.Sub("t")).Plan(options);
  };
  auto count_files = [](const scan::ScanPlan& plan) {
    size_t n = 0;
    for (const auto& s : plan.splits) n += s.files.size();
    return n;
  };
  scan::ScanPlan none = plan_for("i IS NULL OR i IS NOT NULL");
  size_t total = count_files(none);
  ASSERT_GE(total, static_cast<size_t>(kCommits));
  EXPECT_EQ(none.files_pruned_by_stats + none.files_pruned_by_partition, 0);
  // i of commit c lies in [10c, 10c + 9]: only the files of commit 0 can hold i < 10.
  scan::ScanPlan low = plan_for("i < 10");
  EXPECT_LE(count_files(low), 3u);
  EXPECT_EQ(static_cast<size_t>(low.files_pruned_by_stats), total - count_files(low));
  scan::ScanPlan by_partition = plan_for("p = 'a'");
  EXPECT_GT(by_partition.files_pruned_by_partition, 0);
  EXPECT_EQ(by_partition.files_pruned_by_stats, 0);
  // A comparison with NULL is never TRUE, so no file can match; NOT keeps what may match.
  EXPECT_EQ(count_files(plan_for("i = NULL")), 0u);
  EXPECT_EQ(count_files(plan_for("NOT (i < 10) OR s < 's010'")), total);
}

}  // namespace
}  // namespace freshet
