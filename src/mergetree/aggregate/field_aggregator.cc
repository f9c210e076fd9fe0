#include "mergetree/aggregate/field_aggregator.h"

#include <arrow/api.h>

#include <algorithm>
#include <cmath>

#include "meta/options/option_registry.h"

namespace freshet::mergetree::aggregate {

namespace {

enum class Family { kValue, kNumeric, kCollection, kNotImplemented };

struct FunctionDef {
  const char* name;
  Family family;
};

// Every identifier of Java 2.0's aggregate factory package (META-INF services of paimon-core).
constexpr FunctionDef kFunctions[] = {
    {"primary-key", Family::kValue},
    {"last_value", Family::kValue},
    {"last_non_null_value", Family::kValue},
    {"first_value", Family::kValue},
    {"first_non_null_value", Family::kValue},
    {"first_not_null_value", Family::kValue},  // legacy name of first_non_null_value
    {"min", Family::kValue},
    {"max", Family::kValue},
    {"bool_and", Family::kValue},
    {"bool_or", Family::kValue},
    {"listagg", Family::kValue},
    {"sum", Family::kNumeric},
    {"product", Family::kNumeric},
    {"collect", Family::kCollection},
    {"merge_map", Family::kCollection},
    {"merge_map_with_keytime", Family::kCollection},
    {"nested_update", Family::kCollection},
    {"nested_partial_update", Family::kCollection},
    // Binary states of Java libraries (RoaringBitmap, DataSketches): unions whose bytes freshet
    // cannot reproduce exactly yet.
    {"rbm32", Family::kNotImplemented},
    {"rbm64", Family::kNotImplemented},
    {"hll_sketch", Family::kNotImplemented},
    {"theta_sketch", Family::kNotImplemented},
};

const FunctionDef* FindFunction(std::string_view name) {
  for (const FunctionDef& def : kFunctions) {
    if (name == def.name) return &def;
  }
  return nullptr;
}

std::string FunctionList() {
  std::string out;
  for (const FunctionDef& def : kFunctions) {
    if (std::string_view(def.name) == kPrimaryKeyFunction) continue;  // implied only
    if (!out.empty()) out += ", ";
    out += def.name;
  }
  return out;
}

std::string Where(const FieldContext& context) {
  std::string where = "column '" + context.field->name + "'";
  if (!context.option_key.empty()) where = "option '" + context.option_key + "' (" + where + ")";
  return where;
}

// fields.<f>.ignore-retract: retracts leave the accumulator as it is.
class IgnoreRetractAggregator : public FieldAggregator {
 public:
  IgnoreRetractAggregator(std::unique_ptr<FieldAggregator> inner, const FieldContext& context)
      : FieldAggregator(inner->function(), context), inner_(std::move(inner)) {}

  void Reset() override { inner_->Reset(); }
  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    return inner_->Agg(acc, input);
  }
  // As Java's wrapper, which does not forward aggReversed: the inner function's reversed fold
  // is its Agg with the arguments swapped, which is what the base class does too.
  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue&) override { return acc; }

 private:
  std::unique_ptr<FieldAggregator> inner_;
};

}  // namespace

FieldValue ElementOf(const KeyValueRef& kv, int column) {
  return kv.column(column).IsNull(kv.row) ? FieldValue::Null() : FieldValue::From(kv);
}

FieldAggregator::FieldAggregator(std::string function, const FieldContext& context)
    : function_(std::move(function)),
      field_name_(context.field->name),
      column_(context.column),
      arrow_type_(context.arrow_type) {}

Result<FieldValue> FieldAggregator::Retract(const FieldValue&, const FieldValue&) {
  return Status::Invalid("aggregate function '", function_, "' of column '", field_name_,
                         "' cannot retract a -U/-D record; set '",
                         FieldOptionKey(field_name_, "ignore-retract"),
                         "' = 'true' to ignore retractions");
}

std::string FieldOptionKey(std::string_view field, std::string_view suffix) {
  std::string key = "fields.";
  key += field;
  key += '.';
  key += suffix;
  return key;
}

Result<std::string> ConfiguredFunction(const meta::Options& options, const std::string& field,
                                       std::string* option_key) {
  for (std::string key : {FieldOptionKey(field, "aggregate-function"),
                          std::string("fields.default-aggregate-function")}) {
    if (auto value = meta::FindOption(options, key)) {
      *option_key = key;
      return *value;
    }
  }
  option_key->clear();
  return std::string();
}

bool IsAggregateFunctionName(std::string_view name) { return FindFunction(name) != nullptr; }

Status TypeMismatch(const std::string& function, const FieldContext& context,
                    std::string_view expected) {
  return Status::Invalid(Where(context), ": aggregate function '", function, "' needs ", expected,
                         ", not ", context.field->type->ToString());
}

Result<std::unique_ptr<FieldAggregator>> MakeFieldAggregator(const std::string& function,
                                                             const FieldContext& context) {
  const FunctionDef* def = FindFunction(function);
  if (def == nullptr) {
    return Status::Invalid(Where(context), ": unknown aggregate function '", function,
                           "'; Java Paimon 2.0 has ", FunctionList());
  }
  const meta::Options& options = *context.options;
  std::string ignore_key = FieldOptionKey(context.field->name, "ignore-retract");
  FRESHET_ASSIGN_OR_RETURN(bool ignore_retract, meta::GetBoolOption(options, ignore_key));
  FRESHET_ASSIGN_OR_RETURN(bool remove_on_delete,
                           meta::GetBoolOption(options, "aggregation.remove-record-on-delete"));
  if (ignore_retract && remove_on_delete) {
    return Status::Invalid("options 'aggregation.remove-record-on-delete' and '", ignore_key,
                           "' have conflicting behavior so should not be enabled at the same time");
  }
  std::unique_ptr<FieldAggregator> aggregator;
  switch (def->family) {
    case Family::kValue: {
      FRESHET_ASSIGN_OR_RETURN(aggregator, MakeValueAggregator(function, context));
      break;
    }
    case Family::kNumeric: {
      FRESHET_ASSIGN_OR_RETURN(aggregator, MakeNumericAggregator(function, context));
      break;
    }
    case Family::kCollection: {
      FRESHET_ASSIGN_OR_RETURN(aggregator, MakeCollectionAggregator(function, context));
      break;
    }
    case Family::kNotImplemented:
      if (context.field->type->root() != meta::TypeRoot::kVarBinary) {
        return TypeMismatch(function, context, "VARBINARY");
      }
      return Status::NotImplemented(Where(context), ": aggregate function '", function,
                                    "' (a union of Java library states whose bytes freshet "
                                    "cannot reproduce exactly yet)");
  }
  if (ignore_retract) {
    aggregator = std::make_unique<IgnoreRetractAggregator>(std::move(aggregator), context);
  }
  return aggregator;
}

}  // namespace freshet::mergetree::aggregate
