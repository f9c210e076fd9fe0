// Aggregate functions whose result is one of their inputs (primary-key, last/first values, min,
// max, bool_and, bool_or), and listagg. The former never allocate: they hand back a reference.
#include <arrow/api.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "mergetree/aggregate/field_aggregator.h"
#include "meta/options/option_registry.h"

namespace freshet::mergetree::aggregate {

namespace {

using meta::TypeRoot;

// primary-key: the key columns are equal in every version; the input is kept.
class PrimaryKeyAggregator : public FieldAggregator {
 public:
  explicit PrimaryKeyAggregator(const FieldContext& context)
      : FieldAggregator(kPrimaryKeyFunction, context) {}
  Result<FieldValue> Agg(const FieldValue&, const FieldValue& input) override { return input; }
  Result<FieldValue> Retract(const FieldValue&, const FieldValue& input) override { return input; }
};

class LastValueAggregator : public FieldAggregator {
 public:
  explicit LastValueAggregator(const FieldContext& context)
      : FieldAggregator(kLastValueFunction, context) {}
  Result<FieldValue> Agg(const FieldValue&, const FieldValue& input) override { return input; }
  Result<FieldValue> Retract(const FieldValue&, const FieldValue&) override {
    return FieldValue::Null();
  }
};

class LastNonNullValueAggregator : public FieldAggregator {
 public:
  explicit LastNonNullValueAggregator(const FieldContext& context)
      : FieldAggregator(kLastNonNullValueFunction, context) {}
  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    return IsNull(input) ? acc : input;
  }
  // A retracted non-null value was the last one; nothing older is known, so the field is null.
  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input) override {
    return IsNull(input) ? acc : FieldValue::Null();
  }
};

// first_value / first_non_null_value: the first input (non-null one) of the key wins; the flag,
// not the accumulator, says whether it came already (a first null value stays).
class FirstValueAggregator : public FieldAggregator {
 public:
  FirstValueAggregator(std::string function, const FieldContext& context, bool skip_nulls)
      : FieldAggregator(std::move(function), context), skip_nulls_(skip_nulls) {}
  void Reset() override { initialized_ = false; }
  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (initialized_ || (skip_nulls_ && IsNull(input))) return acc;
    initialized_ = true;
    return input;
  }

 private:
  const bool skip_nulls_;
  bool initialized_ = false;
};

// min / max over Java's ordering of the column type. The accumulator is always one of the
// inputs, so both sides are references.
class ExtremeAggregator : public FieldAggregator {
 public:
  ExtremeAggregator(std::string function, const FieldContext& context, ElementCompare compare,
                    bool max)
      : FieldAggregator(std::move(function), context), compare_(compare), max_(max) {}
  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) || IsNull(input)) return IsNull(acc) ? input : acc;
    if (acc.batch == nullptr || input.batch == nullptr) {
      return Status::Internal("aggregate function '", function_, "' got a computed value");
    }
    int c = compare_(acc.batch->column(column_), acc.row, input.batch->column(column_), input.row);
    // Ties keep the accumulator for max and take the input for min, as Java does.
    if (max_) return c < 0 ? input : acc;
    return c < 0 ? acc : input;
  }

 private:
  const ElementCompare compare_;
  const bool max_;
};

bool BoolOf(const FieldValue& value, int column) {
  if (value.batch != nullptr) {
    return static_cast<const arrow::BooleanArray&>(value.batch->column(column)).Value(value.row);
  }
  return static_cast<const arrow::BooleanScalar&>(*value.scalar).value;
}

// bool_and / bool_or: the result equals one of the two inputs, which is returned.
class BoolAggregator : public FieldAggregator {
 public:
  BoolAggregator(std::string function, const FieldContext& context, bool is_and)
      : FieldAggregator(std::move(function), context), is_and_(is_and) {}
  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) || IsNull(input)) return IsNull(acc) ? input : acc;
    // AND: a false accumulator decides; OR: a true one does. Otherwise the input decides.
    return BoolOf(acc, column_) != is_and_ ? acc : input;
  }

 private:
  const bool is_and_;
};

std::string_view StringOf(const FieldValue& value, int column) {
  if (value.batch != nullptr) {
    return static_cast<const arrow::StringArray&>(value.batch->column(column)).GetView(value.row);
  }
  return static_cast<const arrow::StringScalar&>(*value.scalar).view();
}

// Java's splitByWholeSeparatorPreserveAllTokens: empty tokens between (and after) separators are
// kept; an empty separator splits on single spaces.
std::vector<std::string_view> SplitTokens(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> tokens;
  if (text.empty()) return tokens;
  if (separator.empty()) separator = " ";
  size_t begin = 0;
  while (true) {
    size_t at = text.find(separator, begin);
    if (at == std::string_view::npos) {
      tokens.push_back(text.substr(begin));
      return tokens;
    }
    tokens.push_back(text.substr(begin, at - begin));
    begin = at + separator.size();
  }
}

// listagg: non-empty strings joined by fields.<f>.list-agg-delimiter; with fields.<f>.distinct
// an input token already in the accumulator (or empty) is skipped. Empty, not blank: Java checks
// the byte size, so whitespace-only strings and tokens are joined like any other (checked with
// Java Paimon 1.4.2: "a" then "  " then "b" gives "a,  ,b").
class ListaggAggregator : public FieldAggregator {
 public:
  ListaggAggregator(const FieldContext& context, std::string delimiter, bool distinct)
      : FieldAggregator("listagg", context),
        delimiter_(std::move(delimiter)),
        distinct_(distinct) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    // Nulls first, as Java: a null accumulator takes even an empty input.
    if (IsNull(acc) || IsNull(input)) return IsNull(acc) ? input : acc;
    if (StringOf(input, column_).empty()) return acc;
    if (StringOf(acc, column_).empty()) return input;
    std::string_view left = StringOf(acc, column_);
    std::string_view right = StringOf(input, column_);
    std::string joined(left);
    if (distinct_) {
      std::vector<std::string_view> left_tokens = SplitTokens(left, delimiter_);
      std::unordered_set<std::string_view> seen(left_tokens.begin(), left_tokens.end());
      bool added = false;
      for (std::string_view token : SplitTokens(right, delimiter_)) {
        if (token.empty() || !seen.insert(token).second) continue;
        joined.append(delimiter_).append(token);
        added = true;
      }
      if (!added) return acc;
    } else {
      joined.append(delimiter_).append(right);
    }
    return FieldValue::Of(std::make_shared<arrow::StringScalar>(std::move(joined)));
  }

 private:
  const std::string delimiter_;
  const bool distinct_;
};

// Java's InternalRowUtils.compare orders these roots; max/min of others fail in Java at the
// first comparison, here when the table is checked.
bool JavaOrders(TypeRoot root) {
  switch (root) {
    case TypeRoot::kBoolean:
    case TypeRoot::kArray:
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
    case TypeRoot::kRow:
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
      return false;
    default:
      return true;
  }
}

}  // namespace

Result<std::unique_ptr<FieldAggregator>> MakeValueAggregator(const std::string& function,
                                                             const FieldContext& context) {
  const meta::DataType& type = *context.field->type;
  if (function == kPrimaryKeyFunction) return NewAggregator<PrimaryKeyAggregator>(context);
  if (function == kLastValueFunction) return NewAggregator<LastValueAggregator>(context);
  if (function == kLastNonNullValueFunction) {
    return NewAggregator<LastNonNullValueAggregator>(context);
  }
  if (function == "first_value" || function == "first_non_null_value" ||
      function == "first_not_null_value") {
    return NewAggregator<FirstValueAggregator>(function, context, function != "first_value");
  }
  if (function == "min" || function == "max") {
    if (!JavaOrders(type.root())) return TypeMismatch(function, context, "an orderable type");
    FRESHET_ASSIGN_OR_RETURN(ElementCompare compare, ElementCompareFor(*context.arrow_type));
    return NewAggregator<ExtremeAggregator>(function, context, compare, function == "max");
  }
  if (function == "bool_and" || function == "bool_or") {
    if (type.root() != TypeRoot::kBoolean) return TypeMismatch(function, context, "BOOLEAN");
    return NewAggregator<BoolAggregator>(function, context, function == "bool_and");
  }
  if (function == "listagg") {
    if (type.root() != TypeRoot::kVarChar || type.length() != meta::DataType::kMaxLength) {
      return TypeMismatch(function, context, "STRING (unbounded VARCHAR)");
    }
    const meta::Options& options = *context.options;
    const std::string& name = context.field->name;
    FRESHET_ASSIGN_OR_RETURN(
        std::string delimiter,
        meta::GetStringOption(options, FieldOptionKey(name, "list-agg-delimiter")));
    FRESHET_ASSIGN_OR_RETURN(bool distinct,
                             meta::GetBoolOption(options, FieldOptionKey(name, "distinct")));
    return NewAggregator<ListaggAggregator>(context, std::move(delimiter), distinct);
  }
  return Status::Internal("no value aggregator '", function, "'");
}

}  // namespace freshet::mergetree::aggregate
