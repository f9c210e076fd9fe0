#include "compact/full_changelog.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "meta/options/option_registry.h"

namespace freshet::compact {

namespace {

constexpr int64_t kChangelogBatchRows = 4096;

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

}  // namespace

Result<FullChangelogRules> FullChangelogRules::Make(const meta::TableSchema& schema,
                                                    const mergetree::MergeLayout& layout) {
  FRESHET_ASSIGN_OR_RETURN(
      auto keys, mergetree::RowComparator::Make(*layout.arrow_schema(), layout.key_columns()));
  FullChangelogRules rules(&layout, std::move(keys));
  FRESHET_ASSIGN_OR_RETURN(
      bool deduplicate,
      meta::GetBoolOption(schema.options(), "changelog-producer.row-deduplicate"));
  if (!deduplicate) return rules;
  std::vector<std::string> ignored;
  if (auto text = schema.option("changelog-producer.row-deduplicate-ignore-fields")) {
    ignored = SplitNames(*text);
  }
  for (const std::string& name : ignored) {
    if (layout.FieldIndex(name) < 0) {
      return Status::Invalid("option 'changelog-producer.row-deduplicate-ignore-fields' names '",
                             name, "', which the table does not have");
    }
  }
  std::vector<int> compared;
  for (int i = 0; i < layout.num_value_fields(); ++i) {
    const std::string& name = layout.value_fields()[static_cast<size_t>(i)].name;
    if (std::find(ignored.begin(), ignored.end(), name) == ignored.end()) compared.push_back(i);
  }
  auto values = mergetree::RowComparator::Make(*layout.arrow_schema(), std::move(compared));
  if (!values.ok()) {
    return Status::NotImplemented("option 'changelog-producer.row-deduplicate': ",
                                  values.status().message());
  }
  rules.values_.emplace(std::move(*values));
  return rules;
}

FullChangelogJoin::FullChangelogJoin(const FullChangelogRules* rules,
                                     std::unique_ptr<mergetree::MergeBatchReader> old_top,
                                     write::KeyValueFileWriter* out)
    : rules_(rules), old_top_(std::move(old_top)), out_(out), builder_(rules->layout()) {}

Result<std::optional<mergetree::KeyValueRef>> FullChangelogJoin::Old() {
  while (old_top_ && (!old_batch_ || old_row_ >= old_batch_->num_rows())) {
    FRESHET_ASSIGN_OR_RETURN(old_batch_, old_top_->Next());
    old_row_ = 0;
    if (!old_batch_) old_top_.reset();
  }
  if (!old_top_) return std::optional<mergetree::KeyValueRef>();
  return std::optional<mergetree::KeyValueRef>(mergetree::KeyValueRef{old_batch_.get(), old_row_});
}

Status FullChangelogJoin::Emit(const mergetree::KeyValueRef& record, RowKind kind) {
  FRESHET_RETURN_NOT_OK(builder_.AppendRow(record, kind));
  // The builder references the old batch: written out before the join moves past it.
  if (builder_.num_rows() >= kChangelogBatchRows) return FlushBuilder();
  return Status::OK();
}

Status FullChangelogJoin::FlushBuilder() {
  FRESHET_ASSIGN_OR_RETURN(auto batch, builder_.Finish());
  if (batch) return out_->Write(*batch);
  return Status::OK();
}

Status FullChangelogJoin::Add(const std::shared_ptr<mergetree::MergeBatch>& merged) {
  for (int64_t row = 0; row < merged->num_rows(); ++row) {
    mergetree::KeyValueRef now{merged.get(), row};
    const bool adds = !mergetree::IsRetract(now.kind());
    std::optional<mergetree::KeyValueRef> old;
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(old, Old());
      if (!old || rules_->CompareKeys(*old, now) >= 0) break;
      FRESHET_RETURN_NOT_OK(Emit(*old, RowKind::kDelete));  // the merge left no record
      ++old_row_;
    }
    if (!old || rules_->CompareKeys(*old, now) != 0) {
      if (adds) FRESHET_RETURN_NOT_OK(Emit(now, RowKind::kInsert));
      continue;
    }
    const bool unchanged = old->sequence() == now.sequence() && old->kind() == now.kind();
    if (!unchanged) {
      if (!adds) {
        FRESHET_RETURN_NOT_OK(Emit(*old, RowKind::kDelete));
      } else if (!rules_->SameValues(*old, now)) {
        FRESHET_RETURN_NOT_OK(Emit(*old, RowKind::kUpdateBefore));
        FRESHET_RETURN_NOT_OK(Emit(now, RowKind::kUpdateAfter));
      }
    }
    ++old_row_;
  }
  // The builder holds references into `merged` and the old batch: write them now.
  return FlushBuilder();
}

Status FullChangelogJoin::Finish() {
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto old, Old());
    if (!old) break;
    FRESHET_RETURN_NOT_OK(Emit(*old, RowKind::kDelete));
    ++old_row_;
    // Before the next batch replaces the one referenced.
    if (old_row_ >= old_batch_->num_rows()) FRESHET_RETURN_NOT_OK(FlushBuilder());
  }
  FRESHET_RETURN_NOT_OK(FlushBuilder());
  return out_->Close();
}

}  // namespace freshet::compact
