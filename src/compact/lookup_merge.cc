#include "compact/lookup_merge.h"

#include <arrow/api.h>

#include "mergetree/merge_function.h"
#include "mergetree/sort_merge_reader.h"

namespace freshet::compact {

namespace {

// One batch as a run of a merge.
class SingleBatch : public mergetree::MergeBatchReader {
 public:
  explicit SingleBatch(std::shared_ptr<mergetree::MergeBatch> batch) : batch_(std::move(batch)) {}
  Result<std::shared_ptr<mergetree::MergeBatch>> Next() override { return std::move(batch_); }

 private:
  std::shared_ptr<mergetree::MergeBatch> batch_;
};

}  // namespace

Result<std::shared_ptr<mergetree::MergeBatch>> MergeWithOlderVersions(
    const LookupMergeContext& context, const std::shared_ptr<mergetree::MergeBatch>& merged,
    bool mark_only) {
  const read::PrimaryKeyReadPlan& plan = *context.plan;
  BucketDeletionVectors* dvs = context.deletion_vectors;
  IsDeletedFn is_deleted = [dvs](const std::string& file, int64_t position) {
    return dvs->IsDeleted(file, position);
  };
  mergetree::MergeBatchBuilder older(plan.layout);
  for (int64_t row = 0; row < merged->num_rows(); ++row) {
    FRESHET_ASSIGN_OR_RETURN(
        auto hit, context.lookup->Lookup(context.partition, context.bucket, *context.upper_levels,
                                         *merged, row, is_deleted));
    if (!hit) continue;
    dvs->NotifyDeletion(hit->file->file_name, hit->position);
    if (!mark_only) {
      mergetree::KeyValueRef ref{hit->batch.get(), hit->row};
      FRESHET_RETURN_NOT_OK(older.AppendRow(ref, ref.kind()));
    }
  }
  if (mark_only || older.num_rows() == 0) return merged;
  FRESHET_ASSIGN_OR_RETURN(auto older_batch, older.Finish());
  std::vector<std::unique_ptr<mergetree::MergeBatchReader>> runs;
  runs.push_back(std::make_unique<SingleBatch>(std::move(older_batch)));
  runs.push_back(std::make_unique<SingleBatch>(merged));
  FRESHET_ASSIGN_OR_RETURN(auto merge, mergetree::MakeMergeFunction(plan.schema, plan.layout));
  FRESHET_ASSIGN_OR_RETURN(
      auto reader, mergetree::SortMergeReader::Make(plan.layout, std::move(runs), std::move(merge),
                                                    merged->num_rows() + 1));
  mergetree::MergeBatchBuilder out(plan.layout);
  std::shared_ptr<mergetree::MergeBatch> result;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    if (!result) {
      result = batch;
      continue;
    }
    // More than one output batch: gather them into one.
    if (out.num_rows() == 0) {
      for (int64_t r = 0; r < result->num_rows(); ++r) {
        FRESHET_RETURN_NOT_OK(out.AppendRow({result.get(), r}, result->kind(r)));
      }
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      FRESHET_RETURN_NOT_OK(out.AppendRow({batch.get(), r}, batch->kind(r)));
    }
  }
  if (out.num_rows() > 0) return out.Finish();
  if (result) return result;
  return mergetree::MergeBatch::Make(merged->batch()->Slice(0, 0), plan.layout);
}

}  // namespace freshet::compact
