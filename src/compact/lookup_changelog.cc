#include "compact/lookup_changelog.h"

#include <algorithm>

namespace freshet::compact {

Result<std::unique_ptr<LookupKeyMerger>> LookupKeyMerger::Make(LookupKeyMergerContext context) {
  const read::PrimaryKeyReadPlan& plan = *context.levels.plan;
  std::unique_ptr<LookupKeyMerger> merger(new LookupKeyMerger(std::move(context)));
  FRESHET_ASSIGN_OR_RETURN(merger->merge_, mergetree::MakeMergeFunction(plan.schema, plan.layout));
  FRESHET_ASSIGN_OR_RETURN(auto order,
                           mergetree::RowComparator::Make(*plan.layout.arrow_schema(),
                                                          plan.layout.user_sequence_columns(),
                                                          plan.layout.user_sequence_descending()));
  merger->user_sequence_.emplace(std::move(order));
  return merger;
}

LookupKeyMerger::LookupKeyMerger(LookupKeyMergerContext context)
    : context_(std::move(context)), befores_(context_.levels.plan->layout) {}

LookupKeyMerger::~LookupKeyMerger() = default;

Result<std::optional<LookupHit>> LookupKeyMerger::LookUp(const mergetree::KeyValueRef& key) {
  const LookupMergeContext& levels = context_.levels;
  if (levels.lookup == nullptr || levels.upper_levels == nullptr) {
    return std::optional<LookupHit>();
  }
  BucketDeletionVectors* dvs = levels.deletion_vectors;
  IsDeletedFn is_deleted = [dvs](const std::string& file, int64_t position) {
    return dvs != nullptr && dvs->IsDeleted(file, position);
  };
  FRESHET_ASSIGN_OR_RETURN(
      auto hit, levels.lookup->Lookup(levels.partition, levels.bucket, *levels.upper_levels,
                                      *key.batch, key.row, is_deleted));
  // The older version is merged into the new record: its row must not be read again.
  if (hit && dvs != nullptr) dvs->NotifyDeletion(hit->file->file_name, hit->position);
  return hit;
}

void LookupKeyMerger::InsertInOrder(const mergetree::KeyValueRef& older) {
  auto later = std::find_if(inputs_.begin(), inputs_.end(), [&](const mergetree::KeyValueRef& kv) {
    int c = user_sequence_->Compare(older, kv);
    return c < 0 || (c == 0 && older.sequence() < kv.sequence());
  });
  inputs_.insert(later, older);
}

Status LookupKeyMerger::Merge(const std::vector<mergetree::KeyValueRef>& versions,
                              const std::vector<int32_t>& levels,
                              mergetree::MergeBatchBuilder* out) {
  bool has_level0 = std::find(levels.begin(), levels.end(), 0) != levels.end();
  if (context_.first_row) return MergeFirstRow(versions, levels, has_level0, out);
  int high = mergetree::PickLookupVersions(versions, levels, &inputs_);
  std::optional<mergetree::KeyValueRef> before;
  std::optional<LookupHit> hit;  // keeps the found record's batch alive for the merge
  if (high >= 0) {
    before = versions[static_cast<size_t>(high)];
  } else {
    FRESHET_ASSIGN_OR_RETURN(hit, LookUp(versions[0]));
    if (hit) {
      before = mergetree::KeyValueRef{hit->batch.get(), hit->row};
      InsertInOrder(*before);
    }
  }
  int64_t first_row = out->num_rows();
  merge_->Reset();
  for (const mergetree::KeyValueRef& kv : inputs_) FRESHET_RETURN_NOT_OK(merge_->Add(kv));
  FRESHET_RETURN_NOT_OK(merge_->Finish(out));
  if (context_.changelog_rules == nullptr || !has_level0) return Status::OK();
  Entry entry;
  if (out->num_rows() > first_row) entry.merged_row = first_row;
  if (before) {
    entry.before_row = befores_.num_rows();
    FRESHET_RETURN_NOT_OK(befores_.AppendRow(*before, before->kind()));
  }
  entries_.push_back(entry);
  return Status::OK();
}

Status LookupKeyMerger::MergeFirstRow(const std::vector<mergetree::KeyValueRef>& versions,
                                      const std::vector<int32_t>& levels, bool has_level0,
                                      mergetree::MergeBatchBuilder* out) {
  // Java's FirstRowMergeFunction.containsHighLevel: a row (not a retract) above level 0.
  bool has_higher = false;
  for (size_t i = 0; i < versions.size(); ++i) {
    has_higher = has_higher || (levels[i] > 0 && !mergetree::IsRetract(versions[i].kind()));
  }
  if (!has_higher) {
    FRESHET_ASSIGN_OR_RETURN(auto hit, LookUp(versions[0]));
    if (hit) return Status::OK();  // the key's first row is already above
  }
  int64_t first_row = out->num_rows();
  merge_->Reset();
  for (const mergetree::KeyValueRef& kv : versions) FRESHET_RETURN_NOT_OK(merge_->Add(kv));
  FRESHET_RETURN_NOT_OK(merge_->Finish(out));
  if (context_.changelog_rules == nullptr || has_higher || !has_level0) return Status::OK();
  if (out->num_rows() > first_row) entries_.push_back(Entry{first_row, -1});
  return Status::OK();
}

Status LookupKeyMerger::TakeChangelog(const mergetree::MergeBatch* merged,
                                      mergetree::MergeBatchBuilder* changelog) {
  FRESHET_ASSIGN_OR_RETURN(auto befores, befores_.Finish());
  std::vector<Entry> entries = std::move(entries_);
  entries_.clear();
  for (const Entry& entry : entries) {
    std::optional<mergetree::KeyValueRef> before;
    std::optional<mergetree::KeyValueRef> after;
    if (entry.before_row >= 0) before = mergetree::KeyValueRef{befores.get(), entry.before_row};
    if (entry.merged_row >= 0) {
      if (merged == nullptr) return Status::Invalid("lookup changelog: merged records missing");
      after = mergetree::KeyValueRef{merged, entry.merged_row};
    }
    bool after_adds = after && !mergetree::IsRetract(after->kind());
    if (!before || mergetree::IsRetract(before->kind())) {
      if (after_adds) FRESHET_RETURN_NOT_OK(changelog->AppendRow(*after, RowKind::kInsert));
    } else if (!after_adds) {
      FRESHET_RETURN_NOT_OK(changelog->AppendRow(*before, RowKind::kDelete));
    } else if (!context_.changelog_rules->SameValues(*before, *after)) {
      FRESHET_RETURN_NOT_OK(changelog->AppendRow(*before, RowKind::kUpdateBefore));
      FRESHET_RETURN_NOT_OK(changelog->AppendRow(*after, RowKind::kUpdateAfter));
    }
  }
  return Status::OK();
}

}  // namespace freshet::compact
