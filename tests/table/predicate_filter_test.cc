// read::FilterBatch, the column-at-a-time row filter, against a row-by-row model: every row's
// values read as Paimon values (bridge::ArrowValueAt) and the predicate evaluated per row with
// Predicate::EvaluateLeaf. Random batches of every scalar type (nulls, NaN, -0.0, bytes above
// 0x7f, sliced arrays) and random predicate trees of every operator.
#include "read/predicate_filter.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "bridge/arrow_schema.h"
#include "bridge/arrow_value.h"

namespace freshet {
namespace {

using meta::DataField;
using meta::DataType;
using meta::Value;
using scan::Expr;

DataField Field(int32_t id, std::string name, meta::DataTypePtr type) {
  DataField field;
  field.id = id;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

std::vector<DataField> Fields() {
  std::vector<meta::DataTypePtr> types = {
      DataType::TinyInt(),    DataType::SmallInt(), DataType::Int(),     DataType::BigInt(),
      DataType::Float(),      DataType::Double(),   DataType::Boolean(), DataType::String(),
      DataType::Bytes(),      DataType::Date(),     *DataType::Time(3),  *DataType::Decimal(10, 2),
      *DataType::Timestamp(6)};
  std::vector<DataField> fields;
  for (size_t i = 0; i < types.size(); ++i) {
    fields.push_back(Field(static_cast<int32_t>(i), "c" + std::to_string(i), types[i]));
  }
  return fields;
}

struct Gen {
  std::mt19937_64 rng{20261203};
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  // A value of `type` from a small domain, so that equality and IN often hold.
  Value Pick(const DataType& type) {
    const int d = Int(-3, 3);
    switch (type.root()) {
      case meta::TypeRoot::kTinyInt:
        return Value::TinyInt(static_cast<int8_t>(d));
      case meta::TypeRoot::kSmallInt:
        return Value::SmallInt(static_cast<int16_t>(d * 1000));
      case meta::TypeRoot::kInt:
        return Value::Int(d);
      case meta::TypeRoot::kBigInt:
        return Value::BigInt(int64_t{d} << 40);
      case meta::TypeRoot::kFloat:
      case meta::TypeRoot::kDouble: {
        const double choices[] = {-1.5,
                                  -0.0,
                                  0.0,
                                  1.5,
                                  std::numeric_limits<double>::quiet_NaN(),
                                  2.0,
                                  -std::numeric_limits<double>::infinity()};
        double v = choices[Int(0, 6)];
        return type.root() == meta::TypeRoot::kFloat ? Value::Float(static_cast<float>(v))
                                                     : Value::Double(v);
      }
      case meta::TypeRoot::kBoolean:
        return Value::Boolean(d > 0);
      case meta::TypeRoot::kVarChar:
      case meta::TypeRoot::kVarBinary: {
        const char* choices[] = {"", "a", "ab", "b", "\xff", "a\xc3\xa9", "ba"};
        std::string s = choices[d + 3];
        return type.root() == meta::TypeRoot::kVarChar && s == "\xff" ? Value::String("zz")
               : type.root() == meta::TypeRoot::kVarChar              ? Value::String(s)
                                                                      : Value::Bytes(s);
      }
      case meta::TypeRoot::kDate:
        return Value::Int(19000 + d);
      case meta::TypeRoot::kTime:
        return Value::Int((d + 3) * 1000);
      case meta::TypeRoot::kDecimal:
        return Value::Dec(meta::Decimal{d * 50, 10, 2});
      default:
        return Value::Ts(meta::Timestamp{1700000000000 + d, (d + 3) * 1000});
    }
  }

  std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<DataField>& fields, int rows) {
    auto schema = *bridge::ToArrowSchema(fields);
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (int c = 0; c < schema->num_fields(); ++c) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      EXPECT_TRUE(
          arrow::MakeBuilder(arrow::default_memory_pool(), schema->field(c)->type(), &builder)
              .ok());
      for (int r = 0; r < rows; ++r) {
        Value v = Int(0, 5) == 0 ? Value::Null() : Pick(*fields[c].type);
        Status st = bridge::AppendArrowValue(builder.get(), v, *fields[c].type);
        EXPECT_TRUE(st.ok()) << st.ToString();
      }
      columns.push_back(*builder->Finish());
    }
    return arrow::RecordBatch::Make(schema, rows, columns);
  }

  scan::Predicate Leaf(const std::vector<DataField>& fields) {
    scan::Predicate leaf;
    leaf.field = fields[Int(0, static_cast<int>(fields.size()) - 1)];
    const int kind = Int(0, 9);
    auto literal = [&] { return Int(0, 7) == 0 ? Value::Null() : Pick(*leaf.field.type); };
    if (kind == 0) {
      leaf.kind = Expr::Kind::kIsNull;
    } else if (kind == 1) {
      leaf.kind = Expr::Kind::kIsNotNull;
    } else if (kind <= 3) {
      leaf.kind = Expr::Kind::kIn;
      for (int n = Int(1, 3), j = 0; j < n; ++j) leaf.literals.push_back(literal());
    } else {
      leaf.kind = Expr::Kind::kCompare;
      leaf.op = static_cast<scan::CompareOp>(Int(0, 5));
      leaf.literals.push_back(literal());
    }
    return leaf;
  }

  scan::Predicate Tree(const std::vector<DataField>& fields, int depth) {
    if (depth == 0 || Int(0, 2) == 0) return Leaf(fields);
    scan::Predicate node;
    const int kind = Int(0, 4);
    if (kind == 0) {
      node.kind = Expr::Kind::kNot;
      node.children.push_back(Tree(fields, depth - 1));
      return node;
    }
    node.kind = kind <= 2 ? Expr::Kind::kAnd : Expr::Kind::kOr;
    for (int n = Int(2, 3), j = 0; j < n; ++j) node.children.push_back(Tree(fields, depth - 1));
    return node;
  }
};

// The model: the row indices whose outcome is TRUE, one value at a time.
std::vector<int64_t> ModelRows(const scan::Predicate& predicate, const arrow::RecordBatch& batch,
                               const std::vector<DataField>& fields) {
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    scan::Outcomes outcome = predicate.Evaluate([&](const scan::Predicate& leaf) {
      const auto& array = *batch.column(leaf.field.id);
      return leaf.EvaluateLeaf(*bridge::ArrowValueAt(array, r, *fields[leaf.field.id].type));
    });
    if (outcome == scan::kTrue) rows.push_back(r);
  }
  return rows;
}

// Identifies rows by the values of every column (the batch holds a row number as its last one).
std::vector<int64_t> RowNumbers(const arrow::RecordBatch& batch) {
  const auto& numbers =
      static_cast<const arrow::Int64Array&>(*batch.column(batch.num_columns() - 1));
  return {numbers.raw_values(), numbers.raw_values() + numbers.length()};
}

TEST(PredicateFilterTest, MatchesTheRowByRowModelOnEveryTypeAndOperator) {
  Gen gen;
  std::vector<DataField> fields = Fields();
  const int kRows = 300;
  int predicates = 0;
  int nonempty = 0;
  int partial = 0;
  for (int round = 0; round < 40; ++round) {
    auto batch = gen.Batch(fields, kRows);
    std::vector<int64_t> numbering(kRows);
    for (int i = 0; i < kRows; ++i) numbering[i] = i;
    arrow::Int64Builder number_builder;
    ASSERT_TRUE(number_builder.AppendValues(numbering).ok());
    auto with_numbers = *batch->AddColumn(batch->num_columns(), "row", *number_builder.Finish());
    // Sliced batches too: arrays whose offset is not 0.
    const int64_t offset = round % 2 == 0 ? 0 : gen.Int(1, 40);
    auto input = with_numbers->Slice(offset, kRows - offset - gen.Int(0, 20));
    std::vector<DataField> all = fields;
    all.push_back(Field(static_cast<int32_t>(fields.size()), "row", DataType::BigInt()));
    for (int p = 0; p < 50; ++p, ++predicates) {
      scan::Predicate predicate = gen.Tree(fields, 3);
      std::vector<int64_t> expected = ModelRows(predicate, *input, all);
      auto kept = read::FilterBatch(predicate, input, all);
      ASSERT_TRUE(kept.ok()) << kept.status().ToString();
      std::vector<int64_t> got = RowNumbers(**kept);
      std::vector<int64_t> expected_numbers;
      for (int64_t r : expected) expected_numbers.push_back(r + offset);
      ASSERT_EQ(got, expected_numbers) << "round " << round << ", predicate " << p;
      nonempty += !expected.empty();
      partial += !expected.empty() && static_cast<int64_t>(expected.size()) < input->num_rows();
    }
  }
  // The generator exercises both outcomes, not only empty or full results.
  EXPECT_GT(nonempty, predicates / 4);
  EXPECT_GT(partial, predicates / 4);
}

}  // namespace
}  // namespace freshet
