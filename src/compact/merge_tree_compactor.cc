#include "compact/merge_tree_compactor.h"

#include <arrow/api.h>

#include <algorithm>

#include "compact/lookup_changelog.h"
#include "compact/lookup_merge.h"
#include "mergetree/interval_partition.h"
#include "mergetree/primary_key_support.h"
#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"
#include "read/data_file_reader.h"
#include "write/changelog_files.h"

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

// Deletion-vector tables Java refuses.
Status CheckDeletionVectorCompaction(const meta::TableSchema& schema) {
  FRESHET_ASSIGN_OR_RETURN(bool deletion_vectors,
                           meta::GetBoolOption(schema.options(), "deletion-vectors.enabled"));
  if (!deletion_vectors) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(schema.options(), "changelog-producer"));
  FRESHET_ASSIGN_OR_RETURN(std::string engine,
                           meta::GetStringOption(schema.options(), "merge-engine"));
  // Java refuses both at table creation (SchemaValidation); freshet's writers keep writing
  // level 0 for such tables, as before.
  if (engine == "first-row") {
    return Status::NotImplemented(
        "compaction of a first-row table with deletion-vectors.enabled: Java Paimon refuses "
        "deletion vectors for first-row (it never deletes old data)");
  }
  if (producer == "full-compaction") {
    return Status::NotImplemented(
        "compaction of a table with deletion-vectors.enabled and changelog-producer = "
        "full-compaction: Java Paimon supports deletion vectors with none, input or lookup only");
  }
  return Status::OK();
}

}  // namespace

void CompactOutcome::Merge(CompactOutcome other) {
  for (auto& f : other.before) before.push_back(std::move(f));
  for (auto& f : other.after) after.push_back(std::move(f));
  for (auto& p : other.written) written.push_back(std::move(p));
  for (auto& f : other.changelog) changelog.push_back(std::move(f));
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
  // Java's FullChangelogMergeTreeCompactRewriter: output into the highest level.
  bool ProducesChangelog() const {
    return owner_.full_changelog_.has_value() && job_.output_level == max_level_;
  }

  Status Upgrade(meta::DataFileMeta file) {
    if (file.level == job_.output_level) return Status::OK();  // already there
    if (owner_.lookup_keys_) return UpgradeWithLookup(std::move(file));
    if (job_.deletion_vectors && UpgradeRewrites(file)) {
      return Rewrite({mergetree::Section{{std::move(file)}}});
    }
    if (LooksUp({file})) FRESHET_RETURN_NOT_OK(MarkOlderVersions(file));
    bool has_retracts = file.delete_row_count.value_or(1) != 0;
    if (job_.output_level == max_level_ && has_retracts) {
      // Retracts must not reach the highest level: rewrite to drop them.
      return Rewrite({mergetree::Section{{std::move(file)}}});
    }
    // The file's keys are new to the highest level: its records are inserts.
    if (ProducesChangelog()) FRESHET_RETURN_NOT_OK(Rewrite({mergetree::Section{{file}}}, false));
    return MoveUp(std::move(file));
  }

  // Java's ChangelogMergeTreeRewriter.upgrade with the strategy of LookupMergeTreeCompactRewriter.
  Status UpgradeWithLookup(meta::DataFileMeta file) {
    bool has_retracts = file.delete_row_count.value_or(1) != 0;
    if ((job_.output_level == max_level_ && has_retracts) || UpgradeRewrites(file)) {
      return Rewrite({mergetree::Section{{std::move(file)}}});
    }
    // A level-0 file goes up as it is; its merge still writes the changelog and marks the older
    // versions deleted.
    if (file.level == 0 && (owner_.lookup_changelog_ || job_.deletion_vectors)) {
      FRESHET_RETURN_NOT_OK(Rewrite({mergetree::Section{{file}}}, false));
    }
    return MoveUp(std::move(file));
  }

  // The file, listed again at the output level.
  Status MoveUp(meta::DataFileMeta file) {
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

  // Java's LookupMergeTreeCompactRewriter.upgradeStrategy: a level-0 file is rewritten when it
  // holds retracts a deletion-vector table must drop, or when its records must merge with
  // older versions (every engine but deduplicate without sequence.field) below the top.
  bool UpgradeRewrites(const meta::DataFileMeta& file) const {
    if (file.level != 0) return false;
    if (job_.deletion_vectors && file.delete_row_count.value_or(1) != 0) return true;
    return job_.output_level != max_level_ && !owner_.deduplicate_without_sequence_field_;
  }

  // Java's rewriteLookupChangelog: a lookup table's level-0 records go up a level, merged per key
  // by a LookupKeyMerger.
  bool UsesKeyMerger(const std::vector<meta::DataFileMeta>& files) const {
    if (!owner_.lookup_keys_ || job_.output_level == 0) return false;
    return std::any_of(files.begin(), files.end(),
                       [](const meta::DataFileMeta& f) { return f.level == 0; });
  }

  // Whether level-0 records among `files` go above level 0, where their older versions must be
  // looked up and marked deleted (Java's rewriteLookupChangelog).
  bool LooksUp(const std::vector<meta::DataFileMeta>& files) const {
    if (owner_.lookup_keys_ || !job_.deletion_vectors || job_.output_level == 0) return false;
    bool nothing_above = std::all_of(job_.upper_levels.begin(), job_.upper_levels.end(),
                                     [](const auto& level) { return level.empty(); });
    if (nothing_above) return false;
    return std::any_of(files.begin(), files.end(),
                       [](const meta::DataFileMeta& f) { return f.level == 0; });
  }

  LookupKeyMergerContext KeyMergerContext() const {
    LookupKeyMergerContext context;
    context.levels = LookupContext();
    context.changelog_rules = owner_.lookup_changelog_ ? &*owner_.lookup_changelog_ : nullptr;
    context.first_row = owner_.first_row_;
    return context;
  }

  LookupMergeContext LookupContext() const {
    return LookupMergeContext{owner_.plan_.get(), owner_.lookup_.get(), job_.partition,
                              job_.bucket,        &job_.upper_levels,   job_.deletion_vectors};
  }

  // An upgraded level-0 file of a deduplicate table: its records win over their older
  // versions, which are only marked deleted.
  Status MarkOlderVersions(const meta::DataFileMeta& file) {
    scan::DataSplit split = SplitOf({file});
    read::DataFileOpener files(owner_.file_io_, &*owner_.paths_, owner_.schema_->id(), kBatchRows);
    files.DecodeOnReadingThread();  // a background job: one core
    FRESHET_ASSIGN_OR_RETURN(
        auto records,
        read::ReadSection(*owner_.plan_, &files, split, mergetree::Section{{file}}, kBatchRows));
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(auto batch, records->Next());
      if (!batch) return Status::OK();
      FRESHET_RETURN_NOT_OK(MergeWithOlderVersions(LookupContext(), batch, true).status());
    }
  }

  // The files as one split, with the deletion vectors the bucket's index file has for them.
  scan::DataSplit SplitOf(std::vector<meta::DataFileMeta> files) const {
    scan::DataSplit split;
    split.partition = job_.partition;
    split.bucket = job_.bucket;
    split.files = std::move(files);
    if (job_.deletion_vectors) {
      for (const meta::DataFileMeta& file : split.files) {
        split.deletion_files.push_back(job_.deletion_vectors->DeletionFileOf(file.file_name));
      }
    }
    return split;
  }

  // Java's MergeTreeCompactRewriter.rewrite: every section merged, into one rolling writer
  // (unless `rewrite_files` is false: then only the changelog of the merge is written).
  Status Rewrite(std::vector<mergetree::Section> sections, bool rewrite_files = true) {
    std::vector<meta::DataFileMeta> inputs;
    for (const auto& section : sections) {
      for (const auto& run : section) {
        for (const auto& file : run) inputs.push_back(file);
      }
    }
    scan::DataSplit split = SplitOf(std::move(inputs));
    FRESHET_ASSIGN_OR_RETURN(std::string directory,
                             owner_.paths_->BucketDirectory(job_.partition, job_.bucket));
    write::KeyValueFileWriter writer(&*owner_.format_, directory, job_.output_level,
                                     meta::FileSource::kCompact);
    read::DataFileOpener files(owner_.file_io_, &*owner_.paths_, owner_.schema_->id(), kBatchRows);
    files.DecodeOnReadingThread();  // a background job: one core
    // Java writes changelog files at the output level, as APPEND files.
    std::optional<write::KeyValueFileWriter> changelog;
    if (ProducesChangelog() || (owner_.lookup_changelog_ && UsesKeyMerger(split.files)))
      changelog.emplace(&*owner_.changelog_format_, directory, job_.output_level,
                        meta::FileSource::kAppend);
    Status written = WriteSections(sections, split, &files, rewrite_files ? &writer : nullptr,
                                   changelog ? &*changelog : nullptr);
    if (written.ok()) written = writer.Close();
    if (!written.ok()) {
      std::vector<std::string> paths = writer.DropFilesSince(0);
      if (changelog) {
        for (auto& path : changelog->DropFilesSince(0)) paths.push_back(std::move(path));
      }
      for (const std::string& path : paths) (void)owner_.file_io_->Delete(path, false);
      return written;
    }
    if (rewrite_files) {
      for (auto& file : split.files) {
        // The replaced file's vector goes with it (Java's notifyRewriteCompactBefore).
        if (job_.deletion_vectors) job_.deletion_vectors->Remove(file.file_name);
        outcome_.before.push_back(std::move(file));
      }
    }
    FRESHET_RETURN_NOT_OK(TakeWritten(&writer, &outcome_.after));
    if (changelog) FRESHET_RETURN_NOT_OK(TakeWritten(&*changelog, &outcome_.changelog));
    return Status::OK();
  }

  // The files `writer` finished, into `into` and (their paths) outcome_.written.
  Status TakeWritten(write::KeyValueFileWriter* writer, std::vector<meta::DataFileMeta>* into) {
    for (auto& file : writer->TakeFiles()) {
      FRESHET_ASSIGN_OR_RETURN(std::string path,
                               owner_.paths_->FilePath(job_.partition, job_.bucket, file));
      outcome_.written.push_back(std::move(path));
      FRESHET_ASSIGN_OR_RETURN(auto extras,
                               owner_.paths_->ExtraFilePaths(job_.partition, job_.bucket, file));
      for (auto& extra : extras) outcome_.written.push_back(std::move(extra));
      into->push_back(std::move(file));
    }
    return Status::OK();
  }

  // The records the split's highest-level files hold, in key order (null when there are none):
  // what the last full compaction left, to compare the merged records with.
  Result<std::unique_ptr<mergetree::MergeBatchReader>> OldTopRecords(
      const scan::DataSplit& split, read::DataFileOpener* files) const {
    mergetree::Section top;  // the files of a level do not overlap: one run each merges nothing
    for (const meta::DataFileMeta& file : split.files) {
      if (file.level == max_level_) top.push_back({file});
    }
    if (top.empty()) return std::unique_ptr<mergetree::MergeBatchReader>();
    return read::ReadSection(*owner_.plan_, files, split, top, kBatchRows);
  }

  // The merged sections into `writer` (when not null) and their changelog into `changelog`
  // (when not null).
  Status WriteSections(const std::vector<mergetree::Section>& sections,
                       const scan::DataSplit& split, read::DataFileOpener* files,
                       write::KeyValueFileWriter* writer, write::KeyValueFileWriter* changelog) {
    const read::PrimaryKeyReadPlan& plan = *owner_.plan_;
    std::optional<FullChangelogJoin> join;
    if (changelog && ProducesChangelog()) {
      FRESHET_ASSIGN_OR_RETURN(auto old_top, OldTopRecords(split, files));
      join.emplace(&*owner_.full_changelog_, std::move(old_top), changelog);
    }
    std::unique_ptr<LookupKeyMerger> key_merger;
    if (UsesKeyMerger(split.files)) {
      FRESHET_ASSIGN_OR_RETURN(key_merger, LookupKeyMerger::Make(KeyMergerContext()));
    }
    bool lookup = LooksUp(split.files);
    mergetree::MergeBatchBuilder lookup_changelog(plan.layout);
    for (const mergetree::Section& section : sections) {
      FRESHET_ASSIGN_OR_RETURN(auto merged, read::ReadSection(plan, files, split, section,
                                                              kBatchRows, key_merger.get()));
      while (true) {
        FRESHET_ASSIGN_OR_RETURN(auto batch, merged->Next());
        if (key_merger && changelog && !join) {
          FRESHET_RETURN_NOT_OK(key_merger->TakeChangelog(batch.get(), &lookup_changelog));
          FRESHET_ASSIGN_OR_RETURN(auto changes, lookup_changelog.Finish());
          if (changes) FRESHET_RETURN_NOT_OK(changelog->Write(*changes));
        }
        if (!batch) break;
        if (lookup) {
          FRESHET_ASSIGN_OR_RETURN(batch, MergeWithOlderVersions(LookupContext(), batch, false));
        }
        if (join) FRESHET_RETURN_NOT_OK(join->Add(batch));
        if (!writer) continue;
        if (job_.drop_delete) {
          FRESHET_ASSIGN_OR_RETURN(batch, WithoutRetracts(batch, plan.layout));
        }
        FRESHET_RETURN_NOT_OK(writer->Write(*batch));
      }
    }
    if (join) return join->Finish();
    return changelog ? changelog->Close() : Status::OK();
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
  FRESHET_RETURN_NOT_OK(CheckDeletionVectorCompaction(schema));
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
  FRESHET_ASSIGN_OR_RETURN(std::string engine,
                           meta::GetStringOption(schema_->options(), "merge-engine"));
  first_row_ = engine == "first-row";
  deduplicate_without_sequence_field_ =
      engine == "deduplicate" && plan_->layout.user_sequence_columns().empty();
  FRESHET_RETURN_NOT_OK(InitDeletionVectors());
  FRESHET_ASSIGN_OR_RETURN(write::ChangelogProducer producer,
                           write::GetChangelogProducer(*schema_));
  // Deletion-vector tables without lookup changelog merge first and look up after
  // (compact/lookup_merge.h); other lookup tables merge each key with its older version.
  FRESHET_ASSIGN_OR_RETURN(bool needs_lookup, mergetree::NeedsLookup(schema_->options()));
  lookup_keys_ =
      needs_lookup && (!deletion_vectors_ || producer == write::ChangelogProducer::kLookup);
  if (lookup_keys_ && !lookup_) {
    FRESHET_ASSIGN_OR_RETURN(
        int64_t cache_bytes,
        meta::GetMemorySizeOption(schema_->options(), "lookup.cache-max-memory-size"));
    FRESHET_ASSIGN_OR_RETURN(lookup_, LookupLevels::Make(file_io_, &*paths_, plan_, cache_bytes));
  }
  if (producer != write::ChangelogProducer::kFullCompaction &&
      producer != write::ChangelogProducer::kLookup) {
    return Status::OK();
  }
  FRESHET_ASSIGN_OR_RETURN(auto rules, FullChangelogRules::Make(*schema_, plan_->layout));
  if (producer == write::ChangelogProducer::kLookup) {
    lookup_changelog_.emplace(std::move(rules));
  } else {
    full_changelog_.emplace(std::move(rules));
  }
  FRESHET_ASSIGN_OR_RETURN(auto changelog_format,
                           write::MakeChangelogFileFormat(file_io_, *schema_, &plan_->layout));
  changelog_format_.emplace(std::move(changelog_format));
  return Status::OK();
}

Result<CompactOutcome> MergeTreeCompactor::Compact(const CompactJob& job, int32_t max_level) {
  if (deletion_vectors_) return WithDeletionVectors(job, max_level, false);
  Task task(*this, job, max_level);
  Result<CompactOutcome> outcome = task.Run();
  if (!outcome.ok()) {
    DeleteWritten(task.outcome());
  } else if (lookup_) {
    for (const meta::DataFileMeta& file : outcome->before) lookup_->Forget(file.file_name);
  }
  return outcome;
}

Result<CompactOutcome> MergeTreeCompactor::Rewrite(const CompactJob& job) {
  if (deletion_vectors_) return WithDeletionVectors(job, job.output_level, true);
  Task task(*this, job, job.output_level);
  Result<CompactOutcome> outcome = task.RewriteAll();
  if (!outcome.ok()) DeleteWritten(task.outcome());
  return outcome;
}

Status MergeTreeCompactor::InitDeletionVectors() {
  FRESHET_ASSIGN_OR_RETURN(deletion_vectors_,
                           meta::GetBoolOption(schema_->options(), "deletion-vectors.enabled"));
  if (!deletion_vectors_) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(
      int64_t cache_bytes,
      meta::GetMemorySizeOption(schema_->options(), "lookup.cache-max-memory-size"));
  FRESHET_ASSIGN_OR_RETURN(lookup_, LookupLevels::Make(file_io_, &*paths_, plan_, cache_bytes));
  FRESHET_ASSIGN_OR_RETURN(bool bitmap64,
                           meta::GetBoolOption(schema_->options(), "deletion-vectors.bitmap64"));
  dv_writer_ = std::make_unique<format::DeletionVectorFileWriter>(
      file_io_, io::JoinPath(paths_->table_path(), "index"), bitmap64);
  return Status::OK();
}

Result<CompactOutcome> MergeTreeCompactor::WithDeletionVectors(const CompactJob& job,
                                                               int32_t max_level,
                                                               bool rewrite_all) {
  if (!job.deletion_vectors) {
    return Status::Invalid("a compaction of a deletion-vector table needs the bucket's vectors");
  }
  BucketDeletionVectors working = *job.deletion_vectors;
  CompactJob working_job = job;
  working_job.deletion_vectors = &working;
  Task task(*this, working_job, max_level);
  Result<CompactOutcome> outcome = rewrite_all ? task.RewriteAll() : task.Run();
  if (outcome.ok()) {
    Result<std::optional<meta::IndexIncrement>> flushed =
        working.Flush(dv_writer_.get(), &outcome->written);
    if (!flushed.ok()) {
      DeleteWritten(*outcome);
      return flushed.status();
    }
    if (*flushed) outcome->index_files = std::move(**flushed);
    *job.deletion_vectors = std::move(working);
    // Replaced files are never looked up again.
    for (const meta::DataFileMeta& file : outcome->before) lookup_->Forget(file.file_name);
    return outcome;
  }
  DeleteWritten(task.outcome());
  return outcome;
}

void MergeTreeCompactor::DeleteWritten(const CompactOutcome& outcome) const {
  for (const std::string& path : outcome.written) (void)file_io_->Delete(path, false);
}

namespace {

class MergeTreeCompactionRunner : public write::CompactionRunner {
 public:
  MergeTreeCompactionRunner(std::unique_ptr<MergeTreeCompactor> compactor,
                            std::shared_ptr<io::FileIO> file_io, std::string table_path)
      : compactor_(std::move(compactor)),
        deletion_vectors_(std::move(file_io), std::move(table_path)) {}

  Result<write::CompactionResult> Run(const std::string& partition, int32_t bucket,
                                      const mergetree::compact::CompactUnit& unit, bool drop_delete,
                                      int max_level,
                                      const write::UpperLevels& upper_levels) override {
    CompactJob job{partition, bucket, unit.output_level, unit.files, drop_delete};
    job.upper_levels = upper_levels;
    std::shared_ptr<BucketDeletionVectors> vectors;
    if (compactor_->deletion_vectors()) {
      FRESHET_ASSIGN_OR_RETURN(vectors, deletion_vectors_.Get(partition, bucket));
      job.deletion_vectors = vectors.get();
    }
    FRESHET_ASSIGN_OR_RETURN(CompactOutcome outcome, unit.file_rewrite
                                                         ? compactor_->Rewrite(job)
                                                         : compactor_->Compact(job, max_level));
    write::CompactionResult result{std::move(outcome.before), std::move(outcome.after),
                                   std::move(outcome.written), std::move(outcome.changelog)};
    result.index_files = std::move(outcome.index_files);
    return result;
  }

  void Forget(const std::string& partition, int32_t bucket) override {
    deletion_vectors_.Forget(partition, bucket);
  }

  Result<std::function<bool(const meta::DataFileMeta&)>> DeletionVectorFilter(
      const std::string& partition, int32_t bucket) override {
    if (!compactor_->deletion_vectors()) return std::function<bool(const meta::DataFileMeta&)>();
    FRESHET_ASSIGN_OR_RETURN(auto vectors, deletion_vectors_.Get(partition, bucket));
    return std::function<bool(const meta::DataFileMeta&)>(
        [vectors](const meta::DataFileMeta& file) {
          return vectors->vectors().count(file.file_name) > 0;
        });
  }

 private:
  std::unique_ptr<MergeTreeCompactor> compactor_;
  WriterDeletionVectors deletion_vectors_;
};

}  // namespace

Result<std::shared_ptr<write::CompactionRunner>> MakeCompactionRunner(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  auto compactor = MergeTreeCompactor::Make(file_io, table_path, std::move(schema));
  if (compactor.status().IsNotImplemented()) return std::shared_ptr<write::CompactionRunner>();
  if (!compactor.ok()) return compactor.status();
  return std::shared_ptr<write::CompactionRunner>(std::make_shared<MergeTreeCompactionRunner>(
      std::move(*compactor), std::move(file_io), std::move(table_path)));
}

}  // namespace freshet::compact
