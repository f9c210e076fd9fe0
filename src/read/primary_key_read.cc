#include "read/primary_key_read.h"

#include <arrow/api.h>

#include <map>

#include "mergetree/interval_partition.h"
#include "mergetree/merge_function.h"
#include "mergetree/primary_key_support.h"
#include "mergetree/sort_merge_reader.h"
#include "read/predicate_filter.h"

namespace freshet::read {

namespace {

// The files of one sorted run, one after another, in the merge layout. Keys come from the value
// columns, never from `_KEY_`, as Java >= 1.0 reads them: a delete record Java 1.0 wrote with
// null value columns then keys as null (and merges with its kind), exactly as Java reads it now.
class RunReader : public format::ChainedBatchReader {
 public:
  RunReader(const PrimaryKeyReadPlan& plan, DataFileOpener* files, const scan::DataSplit* split,
            std::vector<size_t> file_indices)
      : plan_(plan), files_(files), split_(split), file_indices_(std::move(file_indices)) {}

 protected:
  Result<std::unique_ptr<format::BatchReader>> OpenNext() override {
    static const std::vector<meta::DataField> kSystemFields = {mergetree::SequenceNumberField(),
                                                               mergetree::ValueKindField()};
    if (next_ >= file_indices_.size()) return std::unique_ptr<format::BatchReader>();
    return files_->Open(*split_, file_indices_[next_++], plan_.layout.AllFields(), kSystemFields);
  }

 private:
  const PrimaryKeyReadPlan& plan_;
  DataFileOpener* files_;
  const scan::DataSplit* split_;
  std::vector<size_t> file_indices_;
  size_t next_ = 0;
};

// The records of every section of a split, one section after another (sections follow one
// another in key order): one sorted run with at most one record per key, retracts kept.
class SectionsRun : public mergetree::MergeBatchReader {
 public:
  SectionsRun(const PrimaryKeyReadPlan& plan, DataFileOpener* files, const scan::DataSplit* split,
              std::vector<mergetree::Section> sections, int64_t batch_size)
      : plan_(plan),
        files_(files),
        split_(split),
        sections_(std::move(sections)),
        batch_size_(batch_size) {}

  Result<std::shared_ptr<mergetree::MergeBatch>> Next() override {
    while (true) {
      if (current_) {
        FRESHET_ASSIGN_OR_RETURN(auto batch, current_->Next());
        if (batch) return batch;
        current_.reset();
      }
      if (next_section_ >= sections_.size()) return std::shared_ptr<mergetree::MergeBatch>();
      FRESHET_ASSIGN_OR_RETURN(
          current_, ReadSection(plan_, files_, *split_, sections_[next_section_++], batch_size_));
    }
  }

 private:
  const PrimaryKeyReadPlan& plan_;
  DataFileOpener* files_;
  const scan::DataSplit* split_;
  std::vector<mergetree::Section> sections_;
  size_t next_section_ = 0;
  const int64_t batch_size_;
  std::unique_ptr<mergetree::MergeBatchReader> current_;
};

// The live rows of a split: its sections one after another, or, with newer runs, one merge of
// the sections' records with them.
class PrimaryKeySplitReader : public format::ChainedBatchReader {
 public:
  PrimaryKeySplitReader(const PrimaryKeyReadPlan& plan, DataFileOpener* files,
                        scan::DataSplit split, std::vector<mergetree::Section> sections,
                        int64_t batch_size,
                        std::vector<std::unique_ptr<mergetree::MergeBatchReader>> newer_runs)
      : plan_(plan),
        files_(files),
        split_(std::move(split)),
        sections_(std::move(sections)),
        batch_size_(batch_size),
        newer_runs_(std::move(newer_runs)) {}

 protected:
  Result<std::unique_ptr<format::BatchReader>> OpenNext() override {
    if (!newer_runs_.empty()) return OpenUnion();
    if (next_section_ >= sections_.size()) return std::unique_ptr<format::BatchReader>();
    FRESHET_ASSIGN_OR_RETURN(
        auto merged, ReadSection(plan_, files_, split_, sections_[next_section_++], batch_size_));
    return mergetree::AsArrowBatches(std::move(merged));
  }

  // Drops retract records and the columns only the merge needed.
  Result<std::shared_ptr<arrow::RecordBatch>> Transform(
      std::shared_ptr<arrow::RecordBatch> batch) override {
    return LiveReadColumns(batch);
  }

 private:
  // The sections' records (one run) merged with the newer runs (once: the next call finds
  // neither and ends the split).
  Result<std::unique_ptr<format::BatchReader>> OpenUnion() {
    mergetree::SortMergeOptions options;
    options.batch_size = batch_size_;
    options.lookup_levels = plan_.lookup_levels;
    std::vector<std::unique_ptr<mergetree::MergeBatchReader>> runs;
    if (!sections_.empty()) {
      runs.push_back(
          std::make_unique<SectionsRun>(plan_, files_, &split_, std::move(sections_), batch_size_));
      options.run_levels.push_back(kMergedFilesLevel);
    }
    for (auto& run : newer_runs_) {
      runs.push_back(std::move(run));
      options.run_levels.push_back(kNewerRunLevel);
    }
    newer_runs_.clear();
    sections_.clear();
    FRESHET_ASSIGN_OR_RETURN(auto merge, mergetree::MakeMergeFunction(plan_.schema, plan_.layout));
    FRESHET_ASSIGN_OR_RETURN(
        auto merged, mergetree::SortMergeReader::Make(plan_.layout, std::move(runs),
                                                      std::move(merge), std::move(options)));
    return mergetree::AsArrowBatches(std::move(merged));
  }

  Result<std::shared_ptr<arrow::RecordBatch>> LiveReadColumns(
      const std::shared_ptr<arrow::RecordBatch>& batch) const {
    FRESHET_ASSIGN_OR_RETURN(auto rows, WithoutRetracts(batch, plan_.layout.kind_column()));
    std::vector<std::shared_ptr<arrow::Array>> columns(
        rows->columns().begin(), rows->columns().begin() + plan_.num_read_fields);
    std::vector<std::shared_ptr<arrow::Field>> fields(
        rows->schema()->fields().begin(), rows->schema()->fields().begin() + plan_.num_read_fields);
    return arrow::RecordBatch::Make(arrow::schema(std::move(fields)), rows->num_rows(),
                                    std::move(columns));
  }

  const PrimaryKeyReadPlan& plan_;
  DataFileOpener* files_;
  const scan::DataSplit split_;
  std::vector<mergetree::Section> sections_;
  size_t next_section_ = 0;
  const int64_t batch_size_;
  std::vector<std::unique_ptr<mergetree::MergeBatchReader>> newer_runs_;
};

}  // namespace

Result<std::shared_ptr<const PrimaryKeyReadPlan>> PrimaryKeyReadPlan::Make(
    const meta::TableSchema& schema, const std::vector<meta::DataField>& read_fields) {
  FRESHET_ASSIGN_OR_RETURN(mergetree::MergeLayout layout,
                           mergetree::MakeMergeLayout(schema, read_fields));
  std::vector<meta::DataTypePtr> key_types;
  for (const std::string& key : schema.TrimmedPrimaryKeys()) {
    key_types.push_back(schema.fields()[static_cast<size_t>(schema.FieldIndex(key))].type);
  }
  FRESHET_ASSIGN_OR_RETURN(bool lookup_levels, mergetree::MergesWithLookupLevels(schema));
  auto plan = std::make_shared<PrimaryKeyReadPlan>(
      PrimaryKeyReadPlan{schema, std::move(layout), std::move(key_types),
                         static_cast<int>(read_fields.size()), lookup_levels});
  // Made once here so that an engine freshet cannot apply fails before any file is opened.
  FRESHET_RETURN_NOT_OK(mergetree::MakeMergeFunction(schema, plan->layout).status());
  return std::shared_ptr<const PrimaryKeyReadPlan>(std::move(plan));
}

Result<std::shared_ptr<arrow::RecordBatch>> WithoutRetracts(
    const std::shared_ptr<arrow::RecordBatch>& batch, int kind_column) {
  const auto& kinds = static_cast<const arrow::Int8Array&>(*batch->column(kind_column));
  auto retract = [&](int64_t row) {
    return mergetree::IsRetract(static_cast<RowKind>(kinds.Value(row)));
  };
  std::vector<RowRun> live;
  for (int64_t row = 0; row < batch->num_rows();) {
    while (row < batch->num_rows() && retract(row)) ++row;
    int64_t begin = row;
    while (row < batch->num_rows() && !retract(row)) ++row;
    if (row > begin) live.emplace_back(begin, row);
  }
  if (live.size() == 1 && live[0].first == 0 && live[0].second == batch->num_rows()) return batch;
  if (live.empty()) return batch->Slice(0, 0);
  return SelectRowRuns(batch, live);
}

Result<std::unique_ptr<mergetree::MergeBatchReader>> ReadSection(
    const PrimaryKeyReadPlan& plan, DataFileOpener* files, const scan::DataSplit& split,
    const mergetree::Section& section, int64_t batch_size, mergetree::KeyMerger* key_merger) {
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < split.files.size(); ++i) index_of[split.files[i].file_name] = i;
  std::vector<std::unique_ptr<mergetree::MergeBatchReader>> runs;
  mergetree::SortMergeOptions options;
  options.batch_size = batch_size;
  options.lookup_levels = plan.lookup_levels;
  options.key_merger = key_merger;
  // A sorted run of a section may join files of several levels (their key ranges do not
  // overlap); merges that tell levels apart read each level's files as a run of its own.
  const bool by_level = key_merger != nullptr || plan.lookup_levels;
  for (const mergetree::SortedRunFiles& run : section) {
    std::vector<size_t> indices;
    for (size_t i = 0; i < run.size(); ++i) {
      auto it = index_of.find(run[i].file_name);
      if (it == index_of.end()) {
        return Status::Invalid("file ", run[i].file_name, " of a section is not in its split");
      }
      indices.push_back(it->second);
      bool run_ends = i + 1 == run.size() || (by_level && run[i + 1].level != run[i].level);
      if (!run_ends) continue;
      options.run_levels.push_back(run[i].level);
      runs.push_back(mergetree::AsMergeBatches(
          std::make_unique<RunReader>(plan, files, &split, std::move(indices)), plan.layout));
      indices.clear();
    }
  }
  // One run holds each key once: nothing to merge.
  if (runs.size() == 1 && key_merger == nullptr) return std::move(runs[0]);
  FRESHET_ASSIGN_OR_RETURN(auto merge, mergetree::MakeMergeFunction(plan.schema, plan.layout));
  FRESHET_ASSIGN_OR_RETURN(
      auto merged, mergetree::SortMergeReader::Make(plan.layout, std::move(runs), std::move(merge),
                                                    std::move(options)));
  return std::unique_ptr<mergetree::MergeBatchReader>(std::move(merged));
}

Result<std::unique_ptr<format::BatchReader>> ReadPrimaryKeySplit(
    const PrimaryKeyReadPlan& plan, DataFileOpener* files, scan::DataSplit split,
    int64_t batch_size, std::vector<std::unique_ptr<mergetree::MergeBatchReader>> newer_runs) {
  FRESHET_ASSIGN_OR_RETURN(auto sections,
                           mergetree::PartitionIntoSections(split.files, plan.key_types));
  return std::unique_ptr<format::BatchReader>(new PrimaryKeySplitReader(
      plan, files, std::move(split), std::move(sections), batch_size, std::move(newer_runs)));
}

}  // namespace freshet::read
