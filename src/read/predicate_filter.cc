#include "read/predicate_filter.h"

#include <arrow/api.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <variant>

#include "bridge/array_gather.h"
#include "bridge/arrow_value.h"
#include "bridge/memory_pool.h"
#include "common/arrow_status.h"
#include "meta/row/value_compare.h"

namespace freshet::read {

namespace {

using scan::CompareOp;
using scan::Expr;
using scan::Outcomes;

// One outcome bit (kTrue, kFalse or kNull) per row of a batch.
using RowOutcomes = std::vector<Outcomes>;

// AND / OR of two single outcomes, looked up instead of recomputed per row.
using OutcomeTable = std::array<std::array<Outcomes, 8>, 8>;

OutcomeTable MakeCombineTable(bool is_and) {
  OutcomeTable table{};
  for (Outcomes a : {scan::kTrue, scan::kFalse, scan::kNull}) {
    for (Outcomes b : {scan::kTrue, scan::kFalse, scan::kNull}) {
      table[a][b] = scan::CombineSets(a, b, is_and);
    }
  }
  return table;
}

// Runs `body(holds)` with `holds(c)` the test of `op` on a three-way comparison, as a distinct
// type per operator so that the row loop inside `body` is compiled once per operator.
template <typename Body>
void WithCompareOp(CompareOp op, Body&& body) {
  switch (op) {
    case CompareOp::kEq:
      return body([](int c) { return c == 0; });
    case CompareOp::kNe:
      return body([](int c) { return c != 0; });
    case CompareOp::kLt:
      return body([](int c) { return c < 0; });
    case CompareOp::kLe:
      return body([](int c) { return c <= 0; });
    case CompareOp::kGt:
      return body([](int c) { return c > 0; });
    case CompareOp::kGe:
      return body([](int c) { return c >= 0; });
  }
}

// A leaf evaluated over `rows` values read by `get(i)`, compared by `compare(x, y)` (three-way)
// with the literals converted by `convert` (nullopt: not of the expected kind, so the caller
// falls back to the generic path). Null elements are patched afterwards.
template <typename T, typename Get, typename Compare, typename Convert>
bool EvaluateTyped(const scan::Predicate& leaf, int64_t rows, Get get, Compare compare,
                   Convert convert, Outcomes* out) {
  std::vector<T> literals;
  bool literal_null = false;
  for (const meta::Value& v : leaf.literals) {
    if (v.is_null()) {
      literal_null = true;
      continue;
    }
    std::optional<T> typed = convert(v);
    if (!typed) return false;
    literals.push_back(*typed);
  }
  if (leaf.kind == Expr::Kind::kCompare) {
    if (literal_null) {
      std::fill(out, out + rows, scan::kNull);
      return true;
    }
    const T literal = literals[0];
    WithCompareOp(leaf.op, [&](auto holds) {
      for (int64_t i = 0; i < rows; ++i) {
        out[i] = holds(compare(get(i), literal)) ? scan::kTrue : scan::kFalse;
      }
    });
    return true;
  }
  // IN: TRUE on a match, otherwise NULL when the list holds NULL, else FALSE.
  const Outcomes miss = literal_null ? scan::kNull : scan::kFalse;
  for (int64_t i = 0; i < rows; ++i) {
    Outcomes outcome = miss;
    const T value = get(i);
    for (const T& literal : literals) {
      if (compare(value, literal) == 0) {
        outcome = scan::kTrue;
        break;
      }
    }
    out[i] = outcome;
  }
  return true;
}

template <typename T>
int ThreeWay(T a, T b) {
  return meta::CompareThreeWay(a, b);
}

std::optional<int64_t> IntegerLiteral(const meta::Value& v) {
  return std::visit(
      [](const auto& x) -> std::optional<int64_t> {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_integral_v<X> && !std::is_same_v<X, bool>) {
          return static_cast<int64_t>(x);
        } else {
          return std::nullopt;
        }
      },
      v.storage());
}

template <typename F>
std::optional<F> FloatingLiteral(const meta::Value& v) {
  if (const F* x = v.get_if<F>()) return *x;
  return std::nullopt;
}

std::optional<bool> BooleanLiteral(const meta::Value& v) {
  if (const bool* x = v.get_if<bool>()) return *x;
  return std::nullopt;
}

std::optional<std::string_view> BytesLiteral(const meta::Value& v) {
  if (const std::string* x = v.get_if<std::string>()) return std::string_view(*x);
  return std::nullopt;
}

template <typename ArrowType>
bool EvaluateInteger(const scan::Predicate& leaf, const arrow::Array& array, Outcomes* out) {
  const auto* values =
      static_cast<const typename arrow::TypeTraits<ArrowType>::ArrayType&>(array).raw_values();
  return EvaluateTyped<int64_t>(
      leaf, array.length(), [values](int64_t i) { return static_cast<int64_t>(values[i]); },
      ThreeWay<int64_t>, IntegerLiteral, out);
}

template <typename ArrowType, typename F>
bool EvaluateFloating(const scan::Predicate& leaf, const arrow::Array& array, Outcomes* out) {
  const auto* values =
      static_cast<const typename arrow::TypeTraits<ArrowType>::ArrayType&>(array).raw_values();
  return EvaluateTyped<F>(
      leaf, array.length(), [values](int64_t i) { return values[i]; }, meta::JavaCompareFloating<F>,
      FloatingLiteral<F>, out);
}

template <typename ArrayType>
bool EvaluateBytes(const scan::Predicate& leaf, const arrow::Array& array, Outcomes* out) {
  const auto& typed = static_cast<const ArrayType&>(array);
  return EvaluateTyped<std::string_view>(
      leaf, array.length(), [&typed](int64_t i) { return typed.GetView(i); },
      [](std::string_view a, std::string_view b) {
        int c = a.compare(b);  // char_traits<char> compares as unsigned char
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      },
      BytesLiteral, out);
}

// The typed fast path of a comparison or IN leaf; false when the column's type has none.
bool EvaluateValuesTyped(const scan::Predicate& leaf, const arrow::Array& array, Outcomes* out) {
  switch (array.type_id()) {
    case arrow::Type::BOOL: {
      const auto& typed = static_cast<const arrow::BooleanArray&>(array);
      return EvaluateTyped<bool>(
          leaf, array.length(), [&typed](int64_t i) { return typed.Value(i); }, ThreeWay<bool>,
          BooleanLiteral, out);
    }
    case arrow::Type::INT8:
      return EvaluateInteger<arrow::Int8Type>(leaf, array, out);
    case arrow::Type::INT16:
      return EvaluateInteger<arrow::Int16Type>(leaf, array, out);
    case arrow::Type::INT32:
      return EvaluateInteger<arrow::Int32Type>(leaf, array, out);
    case arrow::Type::INT64:
      return EvaluateInteger<arrow::Int64Type>(leaf, array, out);
    case arrow::Type::DATE32:
      return EvaluateInteger<arrow::Date32Type>(leaf, array, out);
    case arrow::Type::TIME32:
      return EvaluateInteger<arrow::Time32Type>(leaf, array, out);
    case arrow::Type::FLOAT:
      return EvaluateFloating<arrow::FloatType, float>(leaf, array, out);
    case arrow::Type::DOUBLE:
      return EvaluateFloating<arrow::DoubleType, double>(leaf, array, out);
    case arrow::Type::STRING:
      return EvaluateBytes<arrow::StringArray>(leaf, array, out);
    case arrow::Type::BINARY:
      return EvaluateBytes<arrow::BinaryArray>(leaf, array, out);
    case arrow::Type::LARGE_STRING:
      return EvaluateBytes<arrow::LargeStringArray>(leaf, array, out);
    case arrow::Type::LARGE_BINARY:
      return EvaluateBytes<arrow::LargeBinaryArray>(leaf, array, out);
    default:
      return false;
  }
}

// The generic path: every element as a Paimon value (decimals, timestamps, ...).
Status EvaluateValuesGeneric(const scan::Predicate& leaf, const arrow::Array& array,
                             Outcomes* out) {
  for (int64_t i = 0; i < array.length(); ++i) {
    if (array.IsNull(i)) continue;  // patched by the caller
    FRESHET_ASSIGN_OR_RETURN(meta::Value value, bridge::ArrowValueAt(array, i, *leaf.field.type));
    out[i] = leaf.EvaluateLeaf(value);
  }
  return Status::OK();
}

Status EvaluateLeaf(const scan::Predicate& leaf, const arrow::Array& array, Outcomes* out) {
  const int64_t rows = array.length();
  const Outcomes on_null = leaf.EvaluateLeaf(meta::Value::Null());
  if (leaf.kind == Expr::Kind::kIsNull || leaf.kind == Expr::Kind::kIsNotNull) {
    const Outcomes on_value = scan::Not3(on_null);
    for (int64_t i = 0; i < rows; ++i) out[i] = array.IsNull(i) ? on_null : on_value;
    return Status::OK();
  }
  if (!EvaluateValuesTyped(leaf, array, out)) {
    FRESHET_RETURN_NOT_OK(EvaluateValuesGeneric(leaf, array, out));
  }
  if (array.null_count() > 0) {
    for (int64_t i = 0; i < rows; ++i) {
      if (array.IsNull(i)) out[i] = on_null;
    }
  }
  return Status::OK();
}

// Column index of a field in `fields`, by id.
Result<int> ColumnOf(const meta::DataField& field, const std::vector<meta::DataField>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].id == field.id) return static_cast<int>(i);
  }
  return Status::Invalid("filter column '", field.name, "' is not in the batch");
}

// The outcome of `predicate` for every row of `batch`, into `out` (batch.num_rows() entries).
Status EvaluateRows(const scan::Predicate& predicate, const arrow::RecordBatch& batch,
                    const std::vector<meta::DataField>& fields, Outcomes* out) {
  const int64_t rows = batch.num_rows();
  if (predicate.IsLeaf()) {
    FRESHET_ASSIGN_OR_RETURN(int column, ColumnOf(predicate.field, fields));
    return EvaluateLeaf(predicate, *batch.column(column), out);
  }
  FRESHET_RETURN_NOT_OK(EvaluateRows(predicate.children[0], batch, fields, out));
  if (predicate.kind == Expr::Kind::kNot) {
    for (int64_t i = 0; i < rows; ++i) out[i] = scan::Not3(out[i]);
    return Status::OK();
  }
  static const OutcomeTable kAnd = MakeCombineTable(true);
  static const OutcomeTable kOr = MakeCombineTable(false);
  const OutcomeTable& table = predicate.kind == Expr::Kind::kAnd ? kAnd : kOr;
  RowOutcomes other(static_cast<size_t>(rows));
  for (size_t c = 1; c < predicate.children.size(); ++c) {
    FRESHET_RETURN_NOT_OK(EvaluateRows(predicate.children[c], batch, fields, other.data()));
    for (int64_t i = 0; i < rows; ++i) out[i] = table[out[i]][other[i]];
  }
  return Status::OK();
}

// Row ranges [begin, end) of the rows that match.
Result<std::vector<RowRun>> MatchingRuns(const scan::Predicate& predicate,
                                         const arrow::RecordBatch& batch,
                                         const std::vector<meta::DataField>& fields) {
  RowOutcomes outcomes(static_cast<size_t>(batch.num_rows()));
  FRESHET_RETURN_NOT_OK(EvaluateRows(predicate, batch, fields, outcomes.data()));
  std::vector<RowRun> runs;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    if (outcomes[row] != scan::kTrue) continue;
    if (!runs.empty() && runs.back().second == row) {
      runs.back().second = row + 1;
    } else {
      runs.emplace_back(row, row + 1);
    }
  }
  return runs;
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(
    const scan::Predicate& predicate, const std::shared_ptr<arrow::RecordBatch>& batch,
    const std::vector<meta::DataField>& fields) {
  FRESHET_ASSIGN_OR_RETURN(auto runs, MatchingRuns(predicate, *batch, fields));
  if (runs.size() == 1 && runs[0].first == 0 && runs[0].second == batch->num_rows()) {
    return batch;
  }
  return SelectRowRuns(batch, runs);
}

Result<std::shared_ptr<arrow::RecordBatch>> SelectRowRuns(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<RowRun>& runs) {
  if (runs.size() == 1) return batch->Slice(runs[0].first, runs[0].second - runs[0].first);
  int64_t rows = 0;
  std::vector<bridge::RowRange> ranges;
  ranges.reserve(runs.size());
  for (const auto& [begin, end] : runs) {
    ranges.push_back(bridge::RowRange{0, begin, end - begin});
    rows += end - begin;
  }
  std::vector<std::shared_ptr<arrow::Array>> out;
  for (int c = 0; c < batch->num_columns(); ++c) {
    FRESHET_ASSIGN_OR_RETURN(
        auto column, bridge::GatherRanges(batch->column(c)->type(), {batch->column(c).get()},
                                          ranges, bridge::DataMemoryPool()));
    out.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(batch->schema(), rows, std::move(out));
}

}  // namespace freshet::read
