#include "mergetree/merge_function.h"

#include "meta/options/option_registry.h"

namespace freshet::mergetree {

namespace {

std::vector<std::string> SplitNames(std::string_view text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view name = text.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) names.emplace_back(name);
    start = end + 1;
  }
  return names;
}

const std::string* FindOption(const meta::Options& options, std::string_view key) {
  for (const auto& [name, value] : options) {
    if (name == key) return &value;
  }
  return nullptr;
}

bool MergesAllFields(const meta::TableSchema& schema) {
  const std::string* engine = FindOption(schema.options(), "merge-engine");
  return engine && (*engine == "partial-update" || *engine == "aggregation");
}

void AddIfMissing(const meta::TableSchema& schema, const std::string& name,
                  std::vector<meta::DataField>* fields) {
  for (const auto& field : *fields) {
    if (field.name == name) return;
  }
  int index = schema.FieldIndex(name);
  if (index >= 0) fields->push_back(schema.fields()[static_cast<size_t>(index)]);
}

}  // namespace

std::vector<std::string> SequenceFieldNames(const meta::TableSchema& schema) {
  const std::string* value = FindOption(schema.options(), "sequence.field");
  return value ? SplitNames(*value) : std::vector<std::string>{};
}

Result<bool> IgnoreDelete(const meta::TableSchema& schema) {
  for (const char* key : {"ignore-delete", "deduplicate.ignore-delete", "first-row.ignore-delete",
                          "partial-update.ignore-delete"}) {
    if (FindOption(schema.options(), key)) return meta::GetBoolOption(schema.options(), key);
  }
  return false;
}

std::vector<meta::DataField> MergeValueFields(const meta::TableSchema& schema,
                                              const std::vector<meta::DataField>& wanted) {
  if (MergesAllFields(schema)) {
    std::vector<meta::DataField> fields = wanted;
    for (const auto& field : schema.fields()) AddIfMissing(schema, field.name, &fields);
    return fields;
  }
  std::vector<meta::DataField> fields = wanted;
  for (const std::string& key : schema.TrimmedPrimaryKeys()) AddIfMissing(schema, key, &fields);
  for (const std::string& name : SequenceFieldNames(schema)) AddIfMissing(schema, name, &fields);
  return fields;
}

Result<MergeLayout> MakeMergeLayout(const meta::TableSchema& schema,
                                    const std::vector<meta::DataField>& wanted) {
  const std::string* order = FindOption(schema.options(), "sequence.field.sort-order");
  bool descending = order && (*order == "descending" || *order == "DESCENDING");
  return MergeLayout::Make(MergeValueFields(schema, wanted), schema.TrimmedPrimaryKeys(),
                           SequenceFieldNames(schema), descending);
}

Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const meta::TableSchema& schema,
                                                         const MergeLayout& layout) {
  FRESHET_ASSIGN_OR_RETURN(std::string engine,
                           meta::GetStringOption(schema.options(), "merge-engine"));
  if (engine == "deduplicate") return MakeDeduplicateFunction(schema, layout);
  if (engine == "first-row") return MakeFirstRowFunction(schema, layout);
  if (engine == "partial-update") return MakePartialUpdateFunction(schema, layout);
  if (engine == "aggregation") return MakeAggregationFunction(schema, layout);
  return Status::NotImplemented("merge-engine '", engine, "'");
}

}  // namespace freshet::mergetree
