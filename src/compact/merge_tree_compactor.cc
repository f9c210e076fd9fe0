#include "compact/merge_tree_compactor.h"

#include <arrow/api.h>

#include "mergetree/interval_partition.h"
#include "mergetree/primary_key_support.h"
#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"
#include "read/data_file_reader.h"

namespace freshet::compact {

namespace {

constexpr int64_t kBatchRows = 4096;

// The merged records of `batch` without its retracts.
Result<std::shared_ptr<mergetree::MergeBatch>> WithoutRetracts(
    const std::shared_ptr<mergetree::MergeBatch>& batch, const mergetree::MergeLayout& layout) {
  FRESHET_ASSIGN_OR_RETURN(auto rows, read::WithoutRetracts(batch->batch(), layout.kind_column()));
  if (rows == batch->batch()) return batch;
  return mergetree::MergeBatch::Make(std::move(rows), layout);
}

}  // namespace

void CompactOutcome::Merge(CompactOutcome other) {
  for (auto& f : other.before) before.push_back(std::move(f));
  for (auto& f : other.after) after.push_back(std::move(f));
  for (auto& p : other.written) written.push_back(std::move(p));
}

// One compaction: Java's MergeTreeCompactTask.doCompact.
class MergeTreeCompactor::Task {
 public:
  Task(const MergeTreeCompactor& owner, const CompactJob& job, int32_t max_level)
      : owner_(owner), job_(job), max_level_(max_level) {}

  // Every file of the job rewritten, merged as one section.
  Result<CompactOutcome> RewriteAll() {
    mergetree::Section section;
    for (const meta::DataFileMeta& file : job_.files) section.push_back({file});
    FRESHET_RETURN_NOT_OK(Rewrite({std::move(section)}));
    return std::move(outcome_);
  }

  // The outcome so far, e.g. to delete what a failed run wrote.
  const CompactOutcome& outcome() const { return outcome_; }

  Result<CompactOutcome> Run() {
    std::vector<meta::DataTypePtr> key_types = owner_.plan_->key_types;
    FRESHET_ASSIGN_OR_RETURN(auto sections,
                             mergetree::PartitionIntoSections(job_.files, key_types));
    // Contiguous sections only: a file may not be skipped, or the output would not stay one
    // sorted run.
    for (mergetree::Section& section : sections) {
      if (section.size() > 1) {
        candidate_.push_back(std::move(section));
        continue;
      }
      for (meta::DataFileMeta& file : section[0]) {
        if (file.file_size < owner_.min_file_size_) {
          candidate_.push_back(mergetree::Section{{std::move(file)}});
        } else {
          // A large file: rewrite what came before it, then upgrade it.
          FRESHET_RETURN_NOT_OK(RewriteCandidate());
          FRESHET_RETURN_NOT_OK(Upgrade(std::move(file)));
        }
      }
    }
    FRESHET_RETURN_NOT_OK(RewriteCandidate());
    return std::move(outcome_);
  }

 private:
  Status Upgrade(meta::DataFileMeta file) {
    if (file.level == job_.output_level) return Status::OK();  // already there
    bool has_retracts = file.delete_row_count.value_or(1) != 0;
    if (job_.output_level == max_level_ && has_retracts) {
      // Retracts must not reach the highest level: rewrite to drop them.
      return Rewrite({mergetree::Section{{std::move(file)}}});
    }
    meta::DataFileMeta upgraded = file;
    upgraded.level = job_.output_level;
    outcome_.before.push_back(std::move(file));
    outcome_.after.push_back(std::move(upgraded));
    return Status::OK();
  }

  Status RewriteCandidate() {
    std::vector<mergetree::Section> sections = std::move(candidate_);
    candidate_.clear();
    if (sections.empty()) return Status::OK();
    // A single section of a single run: nothing to merge, upgrade its files instead.
    if (sections.size() == 1 && sections[0].size() == 1) {
      for (meta::DataFileMeta& file : sections[0][0]) {
        FRESHET_RETURN_NOT_OK(Upgrade(std::move(file)));
      }
      return Status::OK();
    }
    return Rewrite(std::move(sections));
  }

  // Java's MergeTreeCompactRewriter.rewrite: every section merged, into one rolling writer.
  Status Rewrite(std::vector<mergetree::Section> sections) {
    scan::DataSplit split;
    split.partition = job_.partition;
    split.bucket = job_.bucket;
    for (const auto& section : sections) {
      for (const auto& run : section) {
        for (const auto& file : run) split.files.push_back(file);
      }
    }
    FRESHET_ASSIGN_OR_RETURN(std::string directory,
                             owner_.paths_->BucketDirectory(job_.partition, job_.bucket));
    write::KeyValueFileWriter writer(&*owner_.format_, directory, job_.output_level,
                                     meta::FileSource::kCompact);
    read::DataFileOpener files(owner_.file_io_, &*owner_.paths_, owner_.schema_->id(), kBatchRows);
    Status written = WriteSections(sections, split, &files, &writer);
    if (written.ok()) written = writer.Close();
    if (!written.ok()) {
      for (const std::string& path : writer.DropFilesSince(0)) {
        (void)owner_.file_io_->Delete(path, false);
      }
      return written;
    }
    for (auto& file : split.files) outcome_.before.push_back(std::move(file));
    for (auto& file : writer.TakeFiles()) {
      FRESHET_ASSIGN_OR_RETURN(std::string path,
                               owner_.paths_->FilePath(job_.partition, job_.bucket, file));
      outcome_.written.push_back(std::move(path));
      outcome_.after.push_back(std::move(file));
    }
    return Status::OK();
  }

  Status WriteSections(const std::vector<mergetree::Section>& sections,
                       const scan::DataSplit& split, read::DataFileOpener* files,
                       write::KeyValueFileWriter* writer) {
    const read::PrimaryKeyReadPlan& plan = *owner_.plan_;
    for (const mergetree::Section& section : sections) {
      FRESHET_ASSIGN_OR_RETURN(auto merged,
                               read::ReadSection(plan, files, split, section, kBatchRows));
      while (true) {
        FRESHET_ASSIGN_OR_RETURN(auto batch, merged->Next());
        if (!batch) break;
        if (job_.drop_delete) {
          FRESHET_ASSIGN_OR_RETURN(batch, WithoutRetracts(batch, plan.layout));
        }
        FRESHET_RETURN_NOT_OK(writer->Write(*batch));
      }
    }
    return Status::OK();
  }

  const MergeTreeCompactor& owner_;
  const CompactJob& job_;
  const int32_t max_level_;
  std::vector<mergetree::Section> candidate_;
  CompactOutcome outcome_;
};

Result<std::unique_ptr<MergeTreeCompactor>> MergeTreeCompactor::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  FRESHET_RETURN_NOT_OK(mergetree::CheckPrimaryKeyTable(schema, mergetree::PrimaryKeyUse::kWrite));
  FRESHET_ASSIGN_OR_RETURN(bool deletion_vectors,
                           meta::GetBoolOption(schema.options(), "deletion-vectors.enabled"));
  if (deletion_vectors) {
    return Status::NotImplemented(
        "compaction of a table with deletion-vectors.enabled: freshet does not maintain "
        "deletion vectors on compaction yet; compact it with Java Paimon");
  }
  std::unique_ptr<MergeTreeCompactor> compactor(new MergeTreeCompactor());
  compactor->file_io_ = std::move(file_io);
  compactor->schema_.emplace(std::move(schema));
  FRESHET_ASSIGN_OR_RETURN(auto paths,
                           meta::DataFilePaths::Make(std::move(table_path), *compactor->schema_));
  compactor->paths_.emplace(std::move(paths));
  FRESHET_RETURN_NOT_OK(compactor->Init());
  return compactor;
}

MergeTreeCompactor::~MergeTreeCompactor() = default;

Status MergeTreeCompactor::Init() {
  FRESHET_ASSIGN_OR_RETURN(plan_, read::PrimaryKeyReadPlan::Make(*schema_, schema_->fields()));
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema_->options(), true));
  FRESHET_ASSIGN_OR_RETURN(
      auto format, write::KeyValueFileFormat::Make(file_io_, *schema_, options, &plan_->layout));
  format_.emplace(std::move(format));
  min_file_size_ = options.target_file_size() / 10 * 7;
  return Status::OK();
}

Result<CompactOutcome> MergeTreeCompactor::Compact(const CompactJob& job, int32_t max_level) {
  Task task(*this, job, max_level);
  Result<CompactOutcome> outcome = task.Run();
  if (!outcome.ok()) DeleteWritten(task.outcome());
  return outcome;
}

Result<CompactOutcome> MergeTreeCompactor::Rewrite(const CompactJob& job) {
  Task task(*this, job, job.output_level);
  Result<CompactOutcome> outcome = task.RewriteAll();
  if (!outcome.ok()) DeleteWritten(task.outcome());
  return outcome;
}

void MergeTreeCompactor::DeleteWritten(const CompactOutcome& outcome) const {
  for (const std::string& path : outcome.written) (void)file_io_->Delete(path, false);
}

namespace {

class MergeTreeCompactionRunner : public write::CompactionRunner {
 public:
  explicit MergeTreeCompactionRunner(std::unique_ptr<MergeTreeCompactor> compactor)
      : compactor_(std::move(compactor)) {}

  Result<write::CompactionResult> Run(const std::string& partition, int32_t bucket,
                                      const mergetree::compact::CompactUnit& unit, bool drop_delete,
                                      int max_level) override {
    CompactJob job{partition, bucket, unit.output_level, unit.files, drop_delete};
    FRESHET_ASSIGN_OR_RETURN(CompactOutcome outcome, unit.file_rewrite
                                                         ? compactor_->Rewrite(job)
                                                         : compactor_->Compact(job, max_level));
    return write::CompactionResult{std::move(outcome.before), std::move(outcome.after),
                                   std::move(outcome.written)};
  }

 private:
  std::unique_ptr<MergeTreeCompactor> compactor_;
};

}  // namespace

Result<std::shared_ptr<write::CompactionRunner>> MakeCompactionRunner(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  auto compactor =
      MergeTreeCompactor::Make(std::move(file_io), std::move(table_path), std::move(schema));
  if (compactor.status().IsNotImplemented()) return std::shared_ptr<write::CompactionRunner>();
  if (!compactor.ok()) return compactor.status();
  return std::shared_ptr<write::CompactionRunner>(
      std::make_shared<MergeTreeCompactionRunner>(std::move(*compactor)));
}

}  // namespace freshet::compact
