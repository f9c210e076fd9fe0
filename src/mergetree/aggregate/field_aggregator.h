// Field aggregators: how one column of a primary-key table merges under the aggregation engine,
// and inside sequence groups of the partial-update engine (docs/merge-engines.md). Internal to
// mergetree.
//
// An aggregator folds the versions of a key, oldest first, into an accumulator: Agg(acc, input)
// for an added version, Retract(acc, input) for a -U/-D version (when the function can undo an
// input), AggReversed(acc, input) for a version older than the accumulator (partial-update
// sequence groups). Values are FieldValues of the aggregator's column: a reference to a version's
// element, a computed scalar of the column's Arrow type, or null. A reference never points at a
// null element (ElementOf gives Null for those), so IsNull() needs no array access.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "mergetree/key_value.h"
#include "mergetree/merge_function.h"
#include "mergetree/row_comparator.h"
#include "meta/schema/table_schema.h"

namespace freshet::mergetree::aggregate {

inline bool IsNull(const FieldValue& value) {
  return value.batch == nullptr && value.scalar == nullptr;
}

// Column `column` of version `kv`: a reference to the element, or Null when it is null.
FieldValue ElementOf(const KeyValueRef& kv, int column);

// Where a column's aggregator comes from.
struct FieldContext {
  const meta::Options* options = nullptr;  // the table's options
  const meta::DataField* field = nullptr;
  int column = 0;                               // in the MergeLayout
  std::shared_ptr<arrow::DataType> arrow_type;  // of the column
  // The option that named the function ("fields.<f>.aggregate-function",
  // "fields.default-aggregate-function"), for error messages; empty for implied functions.
  std::string option_key;
};

class FieldAggregator {
 public:
  virtual ~FieldAggregator() = default;

  // Starts a new key (functions such as first_value remember whether they saw an input).
  virtual void Reset() {}
  virtual Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) = 0;
  // `input` is older than `acc`: by default the same as folding acc onto input.
  virtual Result<FieldValue> AggReversed(const FieldValue& acc, const FieldValue& input) {
    return Agg(input, acc);
  }
  // Undoes `input`. By default a function cannot, which is an error naming the way out
  // (fields.<f>.ignore-retract), as in Java.
  virtual Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input);

  const std::string& function() const { return function_; }
  const std::string& field_name() const { return field_name_; }

 protected:
  FieldAggregator(std::string function, const FieldContext& context);

  const std::string function_;
  const std::string field_name_;
  const int column_;
  const std::shared_ptr<arrow::DataType> arrow_type_;
};

// The aggregator of `function` for a column: Invalid (naming context.option_key) for a name Java
// does not know or a function that does not fit the column's type, NotImplemented for a function
// freshet cannot do exactly. Wrapped to ignore retracts when fields.<f>.ignore-retract is set.
Result<std::unique_ptr<FieldAggregator>> MakeFieldAggregator(const std::string& function,
                                                             const FieldContext& context);

// Whether `name` is one of the aggregate functions of Java Paimon 2.0 (including those freshet
// refuses with NotImplemented, and the legacy first_not_null_value).
bool IsAggregateFunctionName(std::string_view name);

// Names of the implied functions.
inline constexpr char kPrimaryKeyFunction[] = "primary-key";
inline constexpr char kLastValueFunction[] = "last_value";
inline constexpr char kLastNonNullValueFunction[] = "last_non_null_value";

// "fields.<field>.<suffix>".
std::string FieldOptionKey(std::string_view field, std::string_view suffix);

// The function configured for a column: fields.<f>.aggregate-function, else
// fields.default-aggregate-function, else empty. `option_key` receives the key it came from.
Result<std::string> ConfiguredFunction(const meta::Options& options, const std::string& field,
                                       std::string* option_key);

// Java's ordering of elements (mergetree/row_comparator.h).
using mergetree::ElementCompare;
using mergetree::ElementCompareFor;

// The makers of each family of functions (value_aggregators.cc, numeric_aggregators.cc,
// collection_aggregators.cc); each checks the column type.
Result<std::unique_ptr<FieldAggregator>> MakeValueAggregator(const std::string& function,
                                                             const FieldContext& context);
Result<std::unique_ptr<FieldAggregator>> MakeNumericAggregator(const std::string& function,
                                                               const FieldContext& context);
Result<std::unique_ptr<FieldAggregator>> MakeCollectionAggregator(const std::string& function,
                                                                  const FieldContext& context);

// A new aggregator as the makers return it.
template <typename T, typename... Args>
Result<std::unique_ptr<FieldAggregator>> NewAggregator(Args&&... args) {
  return std::unique_ptr<FieldAggregator>(new T(std::forward<Args>(args)...));
}

// Invalid: `function` does not fit the column's type; `expected` says what it needs.
Status TypeMismatch(const std::string& function, const FieldContext& context,
                    std::string_view expected);

}  // namespace freshet::mergetree::aggregate
