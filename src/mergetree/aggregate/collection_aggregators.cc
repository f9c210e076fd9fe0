// Aggregate functions over ARRAY and MAP columns: collect, merge_map, merge_map_with_keytime,
// nested_update and nested_partial_update.
//
// Java builds these results in HashSets / HashMaps, so their element order is the hash order of
// Java objects. freshet keeps first-insertion order instead (a key replaced later keeps its
// place): the same elements, entries and rows, possibly in another order.
#include <arrow/api.h>

#include <string>
#include <vector>

#include "common/arrow_status.h"
#include "mergetree/aggregate/field_aggregator.h"
#include "meta/options/option_registry.h"

namespace freshet::mergetree::aggregate {

namespace {

using meta::TypeRoot;

// One element of a list's child array (or a map's entries).
struct ElementRef {
  const arrow::Array* values = nullptr;
  int64_t index = 0;
};

// The elements of a list or map value, as refs into its child array.
std::vector<ElementRef> ElementsOf(const FieldValue& value, int column) {
  std::vector<ElementRef> out;
  if (IsNull(value)) return out;
  if (value.batch != nullptr) {
    // MapArray is a ListArray of key/value structs.
    const auto& list = static_cast<const arrow::ListArray&>(value.batch->column(column));
    const arrow::Array* values = list.values().get();
    int64_t begin = list.value_offset(value.row);
    int64_t end = begin + list.value_length(value.row);
    for (int64_t i = begin; i < end; ++i) out.push_back({values, i});
    return out;
  }
  const arrow::Array* values = static_cast<const arrow::BaseListScalar&>(*value.scalar).value.get();
  for (int64_t i = 0; i < values->length(); ++i) out.push_back({values, i});
  return out;
}

// Java's Object.equals of elements: NaN equals NaN, -0.0 differs from 0.0, null equals null.
bool SameElement(const ElementRef& a, const ElementRef& b) {
  static const arrow::EqualOptions kJavaEquals =
      arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false);
  return a.values->RangeEquals(a.index, a.index + 1, b.index, *b.values, kJavaEquals);
}

bool Contains(const std::vector<ElementRef>& list, const ElementRef& element) {
  for (const ElementRef& e : list) {
    if (SameElement(e, element)) return true;
  }
  return false;
}

// Copies elements into a new array of their type.
Result<std::shared_ptr<arrow::Array>> BuildArray(const std::shared_ptr<arrow::DataType>& type,
                                                 const std::vector<ElementRef>& elements) {
  FRESHET_ASSIGN_OR_RETURN_ARROW(std::unique_ptr<arrow::ArrayBuilder> builder,
                                 arrow::MakeBuilder(type));
  FRESHET_RETURN_NOT_OK_ARROW(builder->Reserve(static_cast<int64_t>(elements.size())));
  for (const ElementRef& e : elements) {
    FRESHET_RETURN_NOT_OK_ARROW(
        builder->AppendArraySlice(arrow::ArraySpan(*e.values->data()), e.index, 1));
  }
  FRESHET_ASSIGN_OR_RETURN_ARROW(std::shared_ptr<arrow::Array> array, builder->Finish());
  return array;
}

// A list value of `list_type` holding `elements`.
Result<FieldValue> MakeList(const std::shared_ptr<arrow::DataType>& list_type,
                            const std::vector<ElementRef>& elements) {
  const auto& type = static_cast<const arrow::ListType&>(*list_type);
  FRESHET_ASSIGN_OR_RETURN(auto values, BuildArray(type.value_type(), elements));
  return FieldValue::Of(std::make_shared<arrow::ListScalar>(std::move(values), list_type));
}

// A map value of `map_type` holding `entries` (elements of key/value struct arrays).
Result<FieldValue> MakeMap(const std::shared_ptr<arrow::DataType>& map_type,
                           const std::vector<ElementRef>& entries) {
  const auto& type = static_cast<const arrow::MapType&>(*map_type);
  FRESHET_ASSIGN_OR_RETURN(auto values, BuildArray(type.value_field()->type(), entries));
  return FieldValue::Of(std::make_shared<arrow::MapScalar>(std::move(values), map_type));
}

// Key and item of a map entry.
ElementRef EntryKey(const ElementRef& entry) {
  return {static_cast<const arrow::StructArray&>(*entry.values).field(0).get(), entry.index};
}
ElementRef EntryItem(const ElementRef& entry) {
  return {static_cast<const arrow::StructArray&>(*entry.values).field(1).get(), entry.index};
}

// Index of the entry whose key equals `key`, or -1.
int64_t FindKey(const std::vector<ElementRef>& entries, const ElementRef& key) {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (SameElement(EntryKey(entries[i]), key)) return static_cast<int64_t>(i);
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------

// collect: concatenates arrays; with fields.<f>.distinct, keeps each element once.
class CollectAggregator : public FieldAggregator {
 public:
  CollectAggregator(const FieldContext& context, bool distinct, bool dedupe_accumulator)
      : FieldAggregator("collect", context),
        distinct_(distinct),
        dedupe_accumulator_(dedupe_accumulator) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) && IsNull(input)) return FieldValue::Null();
    if (!distinct_ && (IsNull(acc) || IsNull(input))) return IsNull(acc) ? input : acc;
    std::vector<ElementRef> out;
    for (const ElementRef& e : ElementsOf(acc, column_)) {
      if (!distinct_ || !dedupe_accumulator_ || !Contains(out, e)) out.push_back(e);
    }
    for (const ElementRef& e : ElementsOf(input, column_)) {
      if (!distinct_ || !Contains(out, e)) out.push_back(e);
    }
    return MakeList(arrow_type_, out);
  }

  // The accumulator is distinct already; Java folds in the same direction either way.
  Result<FieldValue> AggReversed(const FieldValue& acc, const FieldValue& input) override {
    return Agg(acc, input);
  }

  // Removes one accumulated element per retracted element.
  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc)) return FieldValue::Null();
    std::vector<ElementRef> retracted = ElementsOf(input, column_);
    if (retracted.empty()) return acc;
    std::vector<ElementRef> out;
    for (const ElementRef& e : ElementsOf(acc, column_)) {
      auto match = std::find_if(retracted.begin(), retracted.end(),
                                [&](const ElementRef& r) { return SameElement(r, e); });
      if (match == retracted.end()) {
        out.push_back(e);
      } else {
        retracted.erase(match);
      }
    }
    return MakeList(arrow_type_, out);
  }

 private:
  const bool distinct_;
  // Java dedupes the accumulator too for atomic elements (a HashSet of both), not for
  // constructed ones (an equaliser over the input only).
  const bool dedupe_accumulator_;
};

// merge_map: the union of maps, later values winning; retraction removes the retracted keys.
class MergeMapAggregator : public FieldAggregator {
 public:
  explicit MergeMapAggregator(const FieldContext& context)
      : FieldAggregator("merge_map", context) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) || IsNull(input)) return IsNull(acc) ? input : acc;
    std::vector<ElementRef> out;
    for (const auto* value : {&acc, &input}) {
      for (const ElementRef& entry : ElementsOf(*value, column_)) Put(&out, entry);
    }
    return MakeMap(arrow_type_, out);
  }

  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc)) return FieldValue::Null();
    std::vector<ElementRef> retracted = ElementsOf(input, column_);
    if (retracted.empty()) return acc;
    std::vector<ElementRef> out;
    for (const ElementRef& entry : ElementsOf(acc, column_)) {
      if (FindKey(retracted, EntryKey(entry)) < 0) Put(&out, entry);
    }
    return MakeMap(arrow_type_, out);
  }

 private:
  static void Put(std::vector<ElementRef>* entries, const ElementRef& entry) {
    int64_t at = FindKey(*entries, EntryKey(entry));
    if (at < 0) {
      entries->push_back(entry);
    } else {
      (*entries)[static_cast<size_t>(at)] = entry;
    }
  }
};

// merge_map_with_keytime: MAP<K, ROW<..., ts>>; an input entry replaces the accumulated one when
// its timestamp string is greater, a null value removes the key, a null timestamp is ignored.
class MergeMapWithKeyTimeAggregator : public FieldAggregator {
 public:
  MergeMapWithKeyTimeAggregator(const FieldContext& context, int ts_field)
      : FieldAggregator("merge_map_with_keytime", context), ts_field_(ts_field) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc)) return input;
    if (IsNull(input)) return acc;
    std::vector<ElementRef> out;
    for (const ElementRef& entry : ElementsOf(acc, column_)) {
      int64_t at = FindKey(out, EntryKey(entry));
      if (at < 0) {
        out.push_back(entry);
      } else {
        out[static_cast<size_t>(at)] = entry;
      }
    }
    for (const ElementRef& entry : ElementsOf(input, column_)) Merge(&out, entry);
    return MakeMap(arrow_type_, out);
  }

 private:
  const arrow::Array* Timestamps(const ElementRef& item) const {
    return static_cast<const arrow::StructArray&>(*item.values).field(ts_field_).get();
  }

  void Merge(std::vector<ElementRef>* out, const ElementRef& entry) const {
    int64_t at = FindKey(*out, EntryKey(entry));
    ElementRef item = EntryItem(entry);
    if (item.values->IsNull(item.index)) {
      if (at >= 0) out->erase(out->begin() + at);
      return;
    }
    const arrow::Array* ts = Timestamps(item);
    if (ts->IsNull(item.index)) return;
    if (at < 0) {
      out->push_back(entry);
      return;
    }
    ElementRef existing = EntryItem((*out)[static_cast<size_t>(at)]);
    const arrow::Array* old_ts =
        existing.values->IsNull(existing.index) ? nullptr : Timestamps(existing);
    // Java compares the timestamps as Strings; UTF-8 byte order is the same for every
    // character below U+E000 (timestamps are ASCII in practice).
    if (old_ts == nullptr || old_ts->IsNull(existing.index) ||
        static_cast<const arrow::StringArray&>(*ts).GetView(item.index) >
            static_cast<const arrow::StringArray&>(*old_ts).GetView(existing.index)) {
      (*out)[static_cast<size_t>(at)] = entry;
    }
  }

  const int ts_field_;
};

// ---------------------------------------------------------------------------------------------
// ARRAY<ROW> "nested tables".

enum class NullKeyStrategy { kMerge, kIgnore, kError };

struct NestedOptions {
  std::vector<int> key_fields;       // fields.<f>.nested-key
  std::vector<int> sequence_fields;  // fields.<f>.nested-sequence-field
  std::vector<ElementCompare> sequence_compares;
  NullKeyStrategy null_keys = NullKeyStrategy::kMerge;
  int32_t count_limit = 2147483647;
};

const arrow::StructArray& RowsOf(const ElementRef& row) {
  return static_cast<const arrow::StructArray&>(*row.values);
}

// Shared by nested_update and nested_partial_update: rows identified by their nested key.
class NestedAggregator : public FieldAggregator {
 protected:
  NestedAggregator(std::string function, const FieldContext& context, NestedOptions options)
      : FieldAggregator(std::move(function), context), options_(std::move(options)) {}

  // Non-null rows of a value, at most `limit`.
  std::vector<ElementRef> Rows(const FieldValue& value, int64_t limit = INT64_MAX) const {
    std::vector<ElementRef> rows;
    for (const ElementRef& e : ElementsOf(value, column_)) {
      if (static_cast<int64_t>(rows.size()) >= limit) break;
      if (!e.values->IsNull(e.index)) rows.push_back(e);
    }
    return rows;
  }

  bool SameKey(const ElementRef& a, const ElementRef& b) const {
    for (int f : options_.key_fields) {
      if (!SameElement({RowsOf(a).field(f).get(), a.index}, {RowsOf(b).field(f).get(), b.index})) {
        return false;
      }
    }
    return true;
  }

  // Whether a row takes part (fields.<f>.nested-key-null-strategy on keys holding a null).
  Result<bool> KeyUsable(const ElementRef& row) const {
    for (int f : options_.key_fields) {
      if (!RowsOf(row).field(f)->IsNull(row.index)) continue;
      if (options_.null_keys == NullKeyStrategy::kError) {
        return Status::Invalid("column '", field_name_,
                               "': nested key contains null values. Primary key fields must not "
                               "be null.");
      }
      return options_.null_keys == NullKeyStrategy::kMerge;
    }
    return true;
  }

  // Index of the row with the key of `row` in `rows`, or -1.
  int64_t FindRow(const std::vector<ElementRef>& rows, const ElementRef& row) const {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (SameKey(rows[i], row)) return static_cast<int64_t>(i);
    }
    return -1;
  }

  Result<FieldValue> MakeRows(const std::vector<ElementRef>& rows) const {
    return MakeList(arrow_type_, rows);
  }

  const NestedOptions options_;
};

// nested_update: without a nested key the rows are appended (up to count-limit); with one, a row
// replaces the row of its key (unless its nested sequence is lower), new keys up to count-limit.
class NestedUpdateAggregator : public NestedAggregator {
 public:
  NestedUpdateAggregator(const FieldContext& context, NestedOptions options)
      : NestedAggregator("nested_update", context, std::move(options)) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(input)) return acc;
    const int64_t limit = options_.count_limit;
    if (options_.key_fields.empty()) {
      if (IsNull(acc)) return MakeRows(Rows(input, limit));
      int64_t acc_size = static_cast<int64_t>(ElementsOf(acc, column_).size());
      if (acc_size >= limit) return acc;
      std::vector<ElementRef> rows = Rows(acc);
      for (const ElementRef& row : Rows(input, limit - acc_size)) rows.push_back(row);
      return MakeRows(rows);
    }
    std::vector<ElementRef> rows;
    FRESHET_RETURN_NOT_OK(Upsert(&rows, Rows(acc), INT64_MAX));
    FRESHET_RETURN_NOT_OK(Upsert(&rows, Rows(input), limit));
    return MakeRows(rows);
  }

  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) || IsNull(input)) return acc;
    std::vector<ElementRef> rows;
    if (options_.key_fields.empty()) {
      rows = Rows(acc);
      for (const ElementRef& gone : Rows(input)) {
        std::erase_if(rows, [&](const ElementRef& row) { return SameElement(row, gone); });
      }
      return MakeRows(rows);
    }
    FRESHET_RETURN_NOT_OK(Upsert(&rows, Rows(acc), INT64_MAX, /*compare_sequence=*/false));
    for (const ElementRef& gone : Rows(input)) {
      FRESHET_ASSIGN_OR_RETURN(bool usable, KeyUsable(gone));
      if (!usable) continue;
      int64_t at = FindRow(rows, gone);
      if (at >= 0) rows.erase(rows.begin() + at);
    }
    return MakeRows(rows);
  }

 private:
  Status Upsert(std::vector<ElementRef>* rows, const std::vector<ElementRef>& incoming,
                int64_t new_key_limit, bool compare_sequence = true) const {
    for (const ElementRef& row : incoming) {
      FRESHET_ASSIGN_OR_RETURN(bool usable, KeyUsable(row));
      if (!usable) continue;
      int64_t at = FindRow(*rows, row);
      if (at >= 0) {
        ElementRef& existing = (*rows)[static_cast<size_t>(at)];
        if (!compare_sequence || CompareSequence(row, existing) >= 0) existing = row;
      } else if (static_cast<int64_t>(rows->size()) < new_key_limit) {
        rows->push_back(row);
      }
    }
    return Status::OK();
  }

  // fields.<f>.nested-sequence-field order, nulls first; 0 without sequence fields.
  int CompareSequence(const ElementRef& a, const ElementRef& b) const {
    for (size_t i = 0; i < options_.sequence_fields.size(); ++i) {
      const arrow::Array& x = *RowsOf(a).field(options_.sequence_fields[i]);
      const arrow::Array& y = *RowsOf(b).field(options_.sequence_fields[i]);
      bool x_null = x.IsNull(a.index);
      bool y_null = y.IsNull(b.index);
      int c = (x_null || y_null) ? (x_null == y_null ? 0 : (x_null ? -1 : 1))
                                 : options_.sequence_compares[i](x, a.index, y, b.index);
      if (c != 0) return c;
    }
    return 0;
  }
};

// nested_partial_update: rows of one nested key merge field by field, non-null values winning.
class NestedPartialUpdateAggregator : public NestedAggregator {
 public:
  NestedPartialUpdateAggregator(const FieldContext& context, NestedOptions options)
      : NestedAggregator("nested_partial_update", context, std::move(options)) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(input)) return acc;
    // Per merged row: the row giving its key, and per field the last row with a non-null value.
    std::vector<ElementRef> keys;
    std::vector<std::vector<ElementRef>> fields;
    for (const auto* value : {&acc, &input}) {
      for (const ElementRef& row : Rows(*value)) {
        FRESHET_ASSIGN_OR_RETURN(bool usable, KeyUsable(row));
        if (!usable) continue;
        int64_t at = FindRow(keys, row);
        if (at < 0) {
          at = static_cast<int64_t>(keys.size());
          keys.push_back(row);
          fields.emplace_back(static_cast<size_t>(RowsOf(row).num_fields()));
        }
        auto& merged = fields[static_cast<size_t>(at)];
        for (int f = 0; f < RowsOf(row).num_fields(); ++f) {
          if (!RowsOf(row).field(f)->IsNull(row.index)) merged[static_cast<size_t>(f)] = row;
        }
      }
    }
    return Build(fields);
  }

 private:
  Result<FieldValue> Build(const std::vector<std::vector<ElementRef>>& rows) const {
    const auto& list_type = static_cast<const arrow::ListType&>(*arrow_type_);
    FRESHET_ASSIGN_OR_RETURN_ARROW(std::unique_ptr<arrow::ArrayBuilder> builder,
                                   arrow::MakeBuilder(list_type.value_type()));
    auto& struct_builder = static_cast<arrow::StructBuilder&>(*builder);
    for (const auto& row : rows) {
      for (int f = 0; f < struct_builder.num_fields(); ++f) {
        const ElementRef& source = row[static_cast<size_t>(f)];
        arrow::ArrayBuilder* child = struct_builder.field_builder(f);
        if (source.values == nullptr) {
          FRESHET_RETURN_NOT_OK_ARROW(child->AppendNull());
        } else {
          const arrow::Array& values = *RowsOf(source).field(f);
          FRESHET_RETURN_NOT_OK_ARROW(
              child->AppendArraySlice(arrow::ArraySpan(*values.data()), source.index, 1));
        }
      }
      FRESHET_RETURN_NOT_OK_ARROW(struct_builder.Append());
    }
    FRESHET_ASSIGN_OR_RETURN_ARROW(std::shared_ptr<arrow::Array> values, builder->Finish());
    return FieldValue::Of(std::make_shared<arrow::ListScalar>(std::move(values), arrow_type_));
  }
};

// ---------------------------------------------------------------------------------------------
// Options and type checks.

std::vector<std::string> SplitTrimmed(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find(',', start), text.size());
    std::string part = text.substr(start, end - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    out.push_back(part);
    start = end + 1;
  }
  return out;
}

// The fields named by option `key` (comma separated) in ROW type `row`; empty when unset.
Result<std::vector<int>> NestedFieldsOption(const FieldContext& context, const std::string& key,
                                            const meta::DataType& row) {
  std::vector<int> out;
  std::optional<std::string> text = meta::FindOption(*context.options, key);
  if (!text) return out;
  for (const std::string& name : SplitTrimmed(*text)) {
    int index = row.FieldIndexByName(name);
    if (index < 0) {
      return Status::Invalid("option '", key, "': '", name, "' is not a field of ", row.ToString());
    }
    out.push_back(index);
  }
  return out;
}

Result<NestedOptions> ReadNestedOptions(const FieldContext& context, const meta::DataType& row,
                                        bool partial) {
  const std::string& name = context.field->name;
  const std::string key_option = FieldOptionKey(name, "nested-key");
  const std::string strategy_option = FieldOptionKey(name, "nested-key-null-strategy");
  const std::string sequence_option = FieldOptionKey(name, "nested-sequence-field");
  NestedOptions options;
  FRESHET_ASSIGN_OR_RETURN(options.key_fields, NestedFieldsOption(context, key_option, row));
  FRESHET_ASSIGN_OR_RETURN(std::string strategy,
                           meta::GetStringOption(*context.options, strategy_option));
  options.null_keys = strategy == "ignore"  ? NullKeyStrategy::kIgnore
                      : strategy == "error" ? NullKeyStrategy::kError
                                            : NullKeyStrategy::kMerge;
  if (partial) {
    if (options.key_fields.empty()) {
      return Status::Invalid("aggregate function 'nested_partial_update' of column '", name,
                             "' needs option '", key_option, "'");
    }
    return options;
  }
  FRESHET_ASSIGN_OR_RETURN(
      options.count_limit,
      meta::GetIntOption(*context.options, FieldOptionKey(name, "count-limit")));
  FRESHET_ASSIGN_OR_RETURN(options.sequence_fields,
                           NestedFieldsOption(context, sequence_option, row));
  bool needs_key = meta::FindOption(*context.options, strategy_option).has_value() ||
                   !options.sequence_fields.empty();
  if (needs_key && options.key_fields.empty()) {
    return Status::Invalid("options '", strategy_option, "' and '", sequence_option,
                           "' need option '", key_option, "'");
  }
  const auto& struct_type = static_cast<const arrow::StructType&>(
      *static_cast<const arrow::ListType&>(*context.arrow_type).value_type());
  for (int f : options.sequence_fields) {
    auto compare = ElementCompareFor(*struct_type.field(f)->type());
    if (!compare.ok()) {
      return Status::Invalid("option '", sequence_option, "': field '",
                             row.fields()[static_cast<size_t>(f)].name, "' cannot be ordered");
    }
    options.sequence_compares.push_back(*compare);
  }
  return options;
}

bool IsConstructed(TypeRoot root) {
  return root == TypeRoot::kArray || root == TypeRoot::kMap || root == TypeRoot::kMultiset ||
         root == TypeRoot::kRow;
}

Result<std::unique_ptr<FieldAggregator>> MakeKeyTimeAggregator(const FieldContext& context) {
  const meta::DataType& type = *context.field->type;
  const char* function = "merge_map_with_keytime";
  if (type.root() != TypeRoot::kMap || type.value_type()->root() != TypeRoot::kRow ||
      type.value_type()->fields().size() < 2) {
    return TypeMismatch(function, context, "MAP<K, ROW<...>> with at least 2 row fields");
  }
  const meta::DataType& row = *type.value_type();
  std::string key = FieldOptionKey(context.field->name, "ts-field");
  int ts = static_cast<int>(row.fields().size()) - 1;
  if (auto name = meta::FindOption(*context.options, key)) {
    ts = row.FieldIndexByName(*name);
    if (ts < 0)
      return Status::Invalid("option '", key, "': '", *name, "' is not a field of ",
                             row.ToString());
  }
  // Java reads the timestamp with getString.
  const meta::DataType& ts_type = *row.fields()[static_cast<size_t>(ts)].type;
  if (ts_type.root() != TypeRoot::kVarChar && ts_type.root() != TypeRoot::kChar) {
    return Status::Invalid("option '", key, "' (column '", context.field->name,
                           "'): the timestamp field must be a string, not ", ts_type.ToString());
  }
  return NewAggregator<MergeMapWithKeyTimeAggregator>(context, ts);
}

}  // namespace

Result<std::unique_ptr<FieldAggregator>> MakeCollectionAggregator(const std::string& function,
                                                                  const FieldContext& context) {
  const meta::DataType& type = *context.field->type;
  if (function == "collect") {
    if (type.root() != TypeRoot::kArray) return TypeMismatch(function, context, "an ARRAY");
    FRESHET_ASSIGN_OR_RETURN(
        bool distinct,
        meta::GetBoolOption(*context.options, FieldOptionKey(context.field->name, "distinct")));
    return NewAggregator<CollectAggregator>(context, distinct,
                                            !IsConstructed(type.element_type()->root()));
  }
  if (function == "merge_map") {
    if (type.root() != TypeRoot::kMap) return TypeMismatch(function, context, "a MAP");
    return NewAggregator<MergeMapAggregator>(context);
  }
  if (function == "merge_map_with_keytime") return MakeKeyTimeAggregator(context);
  if (type.root() != TypeRoot::kArray || type.element_type()->root() != TypeRoot::kRow) {
    return TypeMismatch(function, context, "ARRAY<ROW<...>>");
  }
  bool partial = function == "nested_partial_update";
  FRESHET_ASSIGN_OR_RETURN(NestedOptions options,
                           ReadNestedOptions(context, *type.element_type(), partial));
  if (partial) return NewAggregator<NestedPartialUpdateAggregator>(context, std::move(options));
  return NewAggregator<NestedUpdateAggregator>(context, std::move(options));
}

}  // namespace freshet::mergetree::aggregate
