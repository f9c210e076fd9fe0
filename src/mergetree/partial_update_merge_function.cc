// The partial-update merge engine (docs/merge-engines.md): each version of a key overwrites the
// fields it sets (non-null), so rows can be assembled from several writers.
//
// Sequence groups (`fields.<s1,s2>.sequence-group` = `a,b`) give columns their own order: a
// version updates a group's columns only when its sequence fields (s1, s2) are not below the
// ones merged so far, and may then null them (a retract) or fold them with an aggregate
// function (`fields.<a>.aggregate-function`); a version whose sequence fields are all null leaves
// the group alone. Retract versions need one of ignore-delete,
// partial-update.remove-record-on-delete or sequence groups, as in Java.
#include <arrow/api.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mergetree/aggregate/field_aggregator.h"
#include "mergetree/merge_function.h"
#include "meta/options/option_registry.h"

namespace freshet::mergetree {

namespace {

using aggregate::ElementCompare;
using aggregate::ElementOf;
using aggregate::FieldAggregator;
using aggregate::IsNull;

constexpr char kRemoveOnDelete[] = "partial-update.remove-record-on-delete";
constexpr char kRemoveOnGroup[] = "partial-update.remove-record-on-sequence-group";
constexpr char kSequenceGroupSuffix[] = ".sequence-group";

struct SequenceGroup {
  std::vector<int> sequence_columns;
  std::vector<ElementCompare> compares;  // per sequence column
  std::vector<int> columns;              // the columns it orders, its sequence columns excepted
  bool removes_record = false;           // listed in partial-update.remove-record-on-sequence-group
};

struct PartialUpdateConfig {
  std::vector<meta::DataField> fields;  // the layout's value fields
  bool ignore_delete = false;
  bool remove_on_delete = false;
  std::vector<SequenceGroup> groups;
  std::vector<bool> grouped;  // per column: a sequence or ordered column of some group
  std::vector<std::unique_ptr<FieldAggregator>> aggregators;  // per column, may be null
};

class PartialUpdateFunction : public MergeFunction {
 public:
  explicit PartialUpdateFunction(PartialUpdateConfig config)
      : config_(std::move(config)), row_(config_.fields.size()) {}

  void Reset() override {
    std::fill(row_.begin(), row_.end(), FieldValue::Null());
    for (auto& aggregator : config_.aggregators) {
      if (aggregator) aggregator->Reset();
    }
    sequence_ = 0;
    seen_insert_ = false;
    filled_ = false;
    delete_row_ = false;
  }

  Status Add(const KeyValueRef& kv) override {
    delete_row_ = false;
    if (IsRetract(kv.kind())) return AddRetract(kv);
    sequence_ = kv.sequence();
    if (config_.groups.empty()) {
      FRESHET_RETURN_NOT_OK(UpdateNonNullFields(kv));
    } else {
      FRESHET_RETURN_NOT_OK(UpdateWithGroups(kv));
    }
    seen_insert_ = true;
    filled_ = true;
    return Status::OK();
  }

  Status Finish(MergedRowSink* sink) override {
    // Without any insert the key has no record (Java emits a delete then, too).
    RowKind kind = delete_row_ || !seen_insert_ ? RowKind::kDelete : RowKind::kInsert;
    return sink->AppendFields(row_, sequence_, kind);
  }

 private:
  Status AddRetract(const KeyValueRef& kv) {
    // A key starting with a retract starts from its values (Java does, so NOT NULL columns of
    // the output are set even when no insert follows).
    if (!filled_) {
      FRESHET_RETURN_NOT_OK(InitRow(kv));
      filled_ = true;
    }
    // Files written before ignore-delete was set may still hold retracts.
    if (config_.ignore_delete) return Status::OK();
    sequence_ = kv.sequence();
    if (!config_.groups.empty()) return RetractWithGroups(kv);
    if (config_.remove_on_delete) {
      if (kv.kind() == RowKind::kDelete) {
        delete_row_ = true;
        return InitRow(kv);
      }
      return Status::OK();
    }
    return Status::Invalid(
        "merge-engine 'partial-update' cannot apply a ", RowKindShortString(kv.kind()),
        " record (sequence number ", kv.sequence(),
        ") by default; set one of: 'ignore-delete' = 'true' to ignore delete records; '",
        kRemoveOnDelete,
        "' = 'true' to remove the whole row on -D; sequence groups "
        "('fields.<sequence fields>.sequence-group') to retract some columns, with '",
        kRemoveOnGroup, "' to remove the whole row on -D of given sequence groups");
  }

  Status InitRow(const KeyValueRef& kv) {
    // A retract's values need not be whole: Java 1.0 wrote deletes with every value null.
    const bool check = !IsRetract(kv.kind());
    for (size_t i = 0; i < row_.size(); ++i) {
      row_[i] = ElementOf(kv, static_cast<int>(i));
      if (check) FRESHET_RETURN_NOT_OK(CheckNullable(i, row_[i]));
    }
    return Status::OK();
  }

  Status CheckNullable(size_t column, const FieldValue& value) const {
    if (IsNull(value) && !config_.fields[column].type->nullable()) {
      return Status::Invalid("partial-update: column '", config_.fields[column].name,
                             "' can not be null");
    }
    return Status::OK();
  }

  Status UpdateNonNullFields(const KeyValueRef& kv) {
    for (size_t i = 0; i < row_.size(); ++i) {
      FieldValue input = ElementOf(kv, static_cast<int>(i));
      if (IsNull(input)) {
        FRESHET_RETURN_NOT_OK(CheckNullable(i, input));
      } else {
        row_[i] = input;
      }
    }
    return Status::OK();
  }

  Status UpdateWithGroups(const KeyValueRef& kv) {
    for (size_t i = 0; i < row_.size(); ++i) {
      if (config_.grouped[i]) continue;
      FieldValue input = ElementOf(kv, static_cast<int>(i));
      if (FieldAggregator* aggregator = config_.aggregators[i].get()) {
        FRESHET_ASSIGN_OR_RETURN(row_[i], aggregator->Agg(row_[i], input));
      } else if (!IsNull(input)) {
        row_[i] = input;
      }
    }
    for (const SequenceGroup& group : config_.groups) {
      if (AllSequenceNull(kv, group)) continue;
      bool newer = CompareSequence(kv, group) >= 0;
      if (newer) SetSequence(kv, group);
      for (int column : group.columns) {
        FieldValue input = ElementOf(kv, column);
        FieldValue& value = row_[static_cast<size_t>(column)];
        FieldAggregator* aggregator = config_.aggregators[static_cast<size_t>(column)].get();
        if (aggregator == nullptr) {
          if (newer) value = input;  // nulls too: the group's newest version decides
        } else if (newer) {
          FRESHET_ASSIGN_OR_RETURN(value, aggregator->Agg(value, input));
        } else {
          FRESHET_ASSIGN_OR_RETURN(value, aggregator->AggReversed(value, input));
        }
      }
    }
    return Status::OK();
  }

  Status RetractWithGroups(const KeyValueRef& kv) {
    for (const SequenceGroup& group : config_.groups) {
      if (AllSequenceNull(kv, group)) continue;
      bool newer = CompareSequence(kv, group) >= 0;
      if (newer && group.removes_record && kv.kind() == RowKind::kDelete) {
        delete_row_ = true;
        return InitRow(kv);
      }
      if (newer) SetSequence(kv, group);
      for (int column : group.columns) {
        FieldValue& value = row_[static_cast<size_t>(column)];
        FieldAggregator* aggregator = config_.aggregators[static_cast<size_t>(column)].get();
        if (aggregator != nullptr) {
          FRESHET_ASSIGN_OR_RETURN(value, aggregator->Retract(value, ElementOf(kv, column)));
        } else if (newer) {
          value = FieldValue::Null();
        }
      }
    }
    return Status::OK();
  }

  bool AllSequenceNull(const KeyValueRef& kv, const SequenceGroup& group) const {
    return std::all_of(group.sequence_columns.begin(), group.sequence_columns.end(),
                       [&](int column) { return kv.column(column).IsNull(kv.row); });
  }

  // The version's sequence fields against the merged ones, nulls first.
  int CompareSequence(const KeyValueRef& kv, const SequenceGroup& group) const {
    for (size_t k = 0; k < group.sequence_columns.size(); ++k) {
      int column = group.sequence_columns[k];
      const FieldValue& merged = row_[static_cast<size_t>(column)];
      bool kv_null = kv.column(column).IsNull(kv.row);
      // Sequence columns only ever hold a version's element (or null).
      bool merged_null = merged.batch == nullptr;
      int c = 0;
      if (kv_null || merged_null) {
        c = kv_null == merged_null ? 0 : (kv_null ? -1 : 1);
      } else {
        c = group.compares[k](kv.column(column), kv.row, merged.batch->column(column), merged.row);
      }
      if (c != 0) return c;
    }
    return 0;
  }

  void SetSequence(const KeyValueRef& kv, const SequenceGroup& group) {
    for (int column : group.sequence_columns) {
      row_[static_cast<size_t>(column)] = ElementOf(kv, column);
    }
  }

  PartialUpdateConfig config_;
  std::vector<FieldValue> row_;
  int64_t sequence_ = 0;
  bool seen_insert_ = false;
  bool filled_ = false;
  bool delete_row_ = false;
};

// ---------------------------------------------------------------------------------------------
// Options.

// Java's String.split(","): exact names, trailing empty parts dropped.
std::vector<std::string> SplitNames(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(',', start);
    out.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  while (out.size() > 1 && out.back().empty()) out.pop_back();
  return out;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// What the sequence-group options say, by column name.
struct GroupOptions {
  std::vector<std::string> sequence_names;  // of every group
  std::vector<std::string> ordered_names;   // columns listed in some group's value
  std::vector<std::vector<std::string>> group_sequences;
  std::vector<std::vector<std::string>> group_columns;
};

Status CheckGroupField(const meta::TableSchema& schema, const std::string& key,
                       const std::string& name) {
  if (schema.FieldIndex(name) < 0) {
    return Status::Invalid("option '", key, "': field '", name,
                           "' can not be found in the table schema");
  }
  if (Contains(schema.primary_keys(), name)) {
    return Status::Invalid("option '", key, "': the sequence group contains primary key field '",
                           name, "', which is not allowed");
  }
  return Status::OK();
}

Result<GroupOptions> ReadGroupOptions(const meta::TableSchema& schema) {
  GroupOptions out;
  std::vector<std::string> claimed;  // a column belongs to one group only
  auto claim = [&](const std::string& key, const std::string& name) -> Status {
    if (Contains(claimed, name)) {
      return Status::Invalid("option '", key, "': field '", name,
                             "' is defined repeatedly by multiple sequence groups");
    }
    claimed.push_back(name);
    return Status::OK();
  };
  for (const auto& [key, value] : schema.options()) {
    if (!key.starts_with("fields.") || !key.ends_with(kSequenceGroupSuffix)) continue;
    if (key.size() < 7 + sizeof(kSequenceGroupSuffix) - 1) {
      return Status::Invalid("option '", key, "' names no sequence field");
    }
    size_t names_size = key.size() - 7 - (sizeof(kSequenceGroupSuffix) - 1);
    std::vector<std::string> sequences = SplitNames(std::string_view(key).substr(7, names_size));
    std::vector<std::string> columns;
    for (const std::string& name : sequences) {
      FRESHET_RETURN_NOT_OK(CheckGroupField(schema, key, name));
      FRESHET_RETURN_NOT_OK(claim(key, name));
    }
    for (const std::string& name : SplitNames(value)) {
      FRESHET_RETURN_NOT_OK(CheckGroupField(schema, key, name));
      out.ordered_names.push_back(name);
      if (Contains(sequences, name)) continue;  // listing its own sequence field is harmless
      FRESHET_RETURN_NOT_OK(claim(key, name));
      columns.push_back(name);
    }
    out.sequence_names.insert(out.sequence_names.end(), sequences.begin(), sequences.end());
    out.group_sequences.push_back(std::move(sequences));
    out.group_columns.push_back(std::move(columns));
  }
  return out;
}

Result<std::vector<SequenceGroup>> MakeGroups(const GroupOptions& options,
                                              const MergeLayout& layout,
                                              const std::vector<std::string>& removing) {
  std::vector<SequenceGroup> groups;
  for (size_t g = 0; g < options.group_sequences.size(); ++g) {
    SequenceGroup group;
    for (const std::string& name : options.group_sequences[g]) {
      int column = layout.FieldIndex(name);
      if (column < 0) return Status::Internal("sequence field '", name, "' is not merged");
      FRESHET_ASSIGN_OR_RETURN(
          ElementCompare compare,
          aggregate::ElementCompareFor(*layout.arrow_schema()->field(column)->type()));
      group.sequence_columns.push_back(column);
      group.compares.push_back(compare);
      if (Contains(removing, name)) group.removes_record = true;
    }
    for (const std::string& name : options.group_columns[g]) {
      int column = layout.FieldIndex(name);
      if (column >= 0) group.columns.push_back(column);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// Java's aggregate function of a partial-update column: none for sequence fields, primary-key
// for key columns, else the configured one, which must be last_non_null_value unless a
// sequence group orders the column.
Result<std::unique_ptr<FieldAggregator>> MakeColumnAggregator(const meta::TableSchema& schema,
                                                              const GroupOptions& groups,
                                                              const MergeLayout& layout,
                                                              int column) {
  const meta::DataField& field = layout.value_fields()[static_cast<size_t>(column)];
  if (Contains(groups.sequence_names, field.name)) return std::unique_ptr<FieldAggregator>();
  aggregate::FieldContext context{&schema.options(), &field, column,
                                  layout.arrow_schema()->field(column)->type(), ""};
  std::string function = aggregate::kPrimaryKeyFunction;
  if (!Contains(schema.primary_keys(), field.name)) {
    FRESHET_ASSIGN_OR_RETURN(
        function, aggregate::ConfiguredFunction(schema.options(), field.name, &context.option_key));
    if (function.empty()) return std::unique_ptr<FieldAggregator>();
    if (function != aggregate::kLastNonNullValueFunction &&
        !Contains(groups.ordered_names, field.name)) {
      return Status::Invalid("option '", context.option_key, "': aggregate function '", function,
                             "' of column '", field.name,
                             "' needs a sequence group (fields.<sequence fields>.sequence-group) "
                             "holding the column");
    }
  }
  return aggregate::MakeFieldAggregator(function, context);
}

Status CheckConflicts(const PartialUpdateConfig& config, const GroupOptions& groups,
                      const std::optional<std::string>& remove_on_group) {
  auto conflict = [](const std::string& a, const std::string& b) {
    return Status::Invalid("options '", a, "' and '", b,
                           "' have conflicting behavior so should not be enabled at the same time");
  };
  if (config.remove_on_delete && config.ignore_delete) {
    return conflict("ignore-delete", kRemoveOnDelete);
  }
  if (remove_on_group && config.ignore_delete) return conflict("ignore-delete", kRemoveOnGroup);
  if (config.remove_on_delete && !config.groups.empty()) {
    return conflict("fields.<sequence fields>.sequence-group", kRemoveOnDelete);
  }
  if (remove_on_group) {
    for (const std::string& name : SplitNames(*remove_on_group)) {
      if (!Contains(groups.sequence_names, name)) {
        return Status::Invalid("option '", kRemoveOnGroup, "': field '", name,
                               "' must be a sequence field of a sequence group");
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<MergeFunction>> MakePartialUpdateFunction(const meta::TableSchema& schema,
                                                                 const MergeLayout& layout) {
  const meta::Options& options = schema.options();
  PartialUpdateConfig config;
  config.fields = layout.value_fields();
  FRESHET_ASSIGN_OR_RETURN(config.ignore_delete, IgnoreDelete(schema));
  FRESHET_ASSIGN_OR_RETURN(config.remove_on_delete, meta::GetBoolOption(options, kRemoveOnDelete));
  std::optional<std::string> remove_on_group = meta::FindOption(options, kRemoveOnGroup);
  FRESHET_ASSIGN_OR_RETURN(GroupOptions groups, ReadGroupOptions(schema));
  std::vector<std::string> removing =
      remove_on_group ? SplitNames(*remove_on_group) : std::vector<std::string>{};
  FRESHET_ASSIGN_OR_RETURN(config.groups, MakeGroups(groups, layout, removing));
  config.grouped.assign(config.fields.size(), false);
  for (const SequenceGroup& group : config.groups) {
    for (int c : group.sequence_columns) config.grouped[static_cast<size_t>(c)] = true;
    for (int c : group.columns) config.grouped[static_cast<size_t>(c)] = true;
  }
  for (int i = 0; i < layout.num_value_fields(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(auto aggregator, MakeColumnAggregator(schema, groups, layout, i));
    config.aggregators.push_back(std::move(aggregator));
  }
  FRESHET_RETURN_NOT_OK(CheckConflicts(config, groups, remove_on_group));
  return std::unique_ptr<MergeFunction>(new PartialUpdateFunction(std::move(config)));
}

}  // namespace freshet::mergetree
