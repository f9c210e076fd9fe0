#include "compact/table_compaction.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "commit/file_store_commit.h"
#include "common/uuid.h"
#include "compact/append_compactor.h"
#include "compact/merge_tree_compactor.h"
#include "mergetree/compact/compact_strategy.h"
#include "mergetree/compact/levels.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/core_options.h"
#include "meta/partition/partition_path.h"
#include "meta/row/binary_row.h"
#include "meta/snapshot/snapshot_manager.h"
#include "scan/table_scan.h"

namespace freshet::compact {

namespace {

namespace mc = mergetree::compact;

struct BucketFiles {
  int32_t total_buckets = -1;
  std::vector<meta::DataFileMeta> files;
};
using BucketKey = std::pair<std::string, int32_t>;  // serialized partition, bucket

// The unit to compact in one bucket, if any: what Java's writer would pick, or everything.
Result<std::optional<mc::CompactUnit>> PickUnit(
    const mc::Levels& levels, const mc::CompactionOptions& options, bool full,
    const std::vector<meta::DataFileMeta>& files,
    std::function<bool(const meta::DataFileMeta&)> has_deletion_vector) {
  std::vector<mc::LevelSortedRun> runs = levels.LevelSortedRuns();
  std::optional<mc::CompactUnit> unit;
  if (full) {
    mc::FullCompactionFilter filter;
    filter.force_rewrite_all_files = options.force_rewrite_all_files;
    filter.has_deletion_vector = std::move(has_deletion_vector);
    unit = mc::PickFullCompaction(levels.NumberOfLevels(), runs, filter);
  } else {
    auto strategy =
        mc::MakeCompactStrategy(options, mc::EstimateLastFullCompaction(files, options.num_levels));
    unit = strategy->Pick(levels.NumberOfLevels(), runs);
    if (unit && !mc::WorthCompacting(*unit)) unit.reset();
  }
  if (unit && unit->files.empty()) unit.reset();
  return unit;
}

class TableCompaction {
 public:
  TableCompaction(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                  meta::TableSchema schema, TableCompactOptions options)
      : file_io_(std::move(file_io)),
        table_path_(std::move(table_path)),
        schema_(std::move(schema)),
        options_(std::move(options)) {}

  Result<TableCompactResult> Run() {
    bool append = schema_.primary_keys().empty();
    if (append) {
      FRESHET_ASSIGN_OR_RETURN(append_compactor_,
                               AppendCompactor::Make(file_io_, table_path_, schema_));
    } else {
      FRESHET_ASSIGN_OR_RETURN(compactor_,
                               MergeTreeCompactor::Make(file_io_, table_path_, schema_));
      FRESHET_ASSIGN_OR_RETURN(compaction_options_,
                               mc::CompactionOptions::FromTableOptions(schema_.options()));
      for (const std::string& key : schema_.TrimmedPrimaryKeys()) {
        key_types_.push_back(schema_.fields()[static_cast<size_t>(schema_.FieldIndex(key))].type);
      }
    }
    FRESHET_ASSIGN_OR_RETURN(auto core_options,
                             meta::CoreOptions::Make(schema_.options(), !append));
    std::string user = options_.commit_user.empty() ? RandomUuid() : options_.commit_user;
    commit::FileStoreCommit committer(file_io_, table_path_, schema_, std::move(core_options),
                                      user);
    committer.OnPublished(scan::WarmAfterCommits(file_io_, table_path_));
    TableCompactResult result;
    for (int attempt = 1; attempt <= std::max(1, options_.max_attempts); ++attempt) {
      FRESHET_ASSIGN_OR_RETURN(auto messages, CompactLatest(&result));
      if (messages.empty()) return result;
      commit::CommitRequest request;
      request.messages = messages;
      Result<commit::CommitResult> committed = committer.Commit(request);
      if (committed.ok()) {
        result.snapshot_id = committed->snapshot_id;
        return result;
      }
      // The files may go only when the snapshot is known not to have landed: a refusal, or no
      // snapshot of this pass's commit user since the base.
      if (!committed.status().IsConflict()) {
        Result<bool> landed = LandedSince(user);
        if (landed.ok() && *landed) {
          FRESHET_ASSIGN_OR_RETURN(auto snapshot,
                                   meta::SnapshotManager(file_io_, table_path_).LatestSnapshot());
          result.snapshot_id = snapshot ? std::optional<int64_t>(snapshot->id) : std::nullopt;
          return result;
        }
        if (landed.ok()) DeleteWritten(messages);
        return committed.status();
      }
      DeleteWritten(messages);
      if (attempt == options_.max_attempts) return committed.status();
      ++result.conflicts;  // another commit changed a bucket: plan again on the new snapshot
      result.buckets = result.files_before = result.files_after = 0;
    }
    return result;
  }

 private:
  // Whether a snapshot committed by `user` came after the snapshot the pass planned on.
  Result<bool> LandedSince(const std::string& user) const {
    meta::SnapshotManager snapshots(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(auto ids, snapshots.ListSnapshotIds());
    for (auto it = ids.rbegin(); it != ids.rend() && (!base_id_ || *it > *base_id_); ++it) {
      FRESHET_ASSIGN_OR_RETURN(meta::Snapshot snapshot, snapshots.ReadSnapshot(*it));
      if (snapshot.commit_user == user) return true;
    }
    return false;
  }

  // Compacts the buckets of the latest snapshot; one message per compacted bucket.
  Result<std::vector<meta::CommitMessage>> CompactLatest(TableCompactResult* result) {
    meta::SnapshotManager snapshots(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(auto latest, snapshots.LatestSnapshot());
    std::vector<meta::CommitMessage> messages;
    if (!latest) return messages;
    base_id_ = latest->id;
    meta::ManifestFile manifests(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *latest));
    std::map<BucketKey, BucketFiles> buckets;
    for (auto& entry : live) {
      FRESHET_ASSIGN_OR_RETURN(bool selected, Selected(entry.partition));
      if (!selected) continue;
      BucketFiles& bucket = buckets[{entry.partition, entry.bucket}];
      bucket.total_buckets = entry.total_buckets;
      bucket.files.push_back(std::move(entry.file));
    }
    for (auto& [key, bucket] : buckets) {
      Result<std::optional<meta::CommitMessage>> message = CompactBucket(key, bucket);
      if (!message.ok()) {
        DeleteWritten(messages);
        return message.status();
      }
      if (!*message) continue;
      ++result->buckets;
      result->files_before += static_cast<int64_t>((*message)->compact_before.size());
      result->files_after += static_cast<int64_t>((*message)->compact_after.size());
      messages.push_back(std::move(**message));
    }
    return messages;
  }

  Result<std::optional<meta::CommitMessage>> CompactBucket(const BucketKey& key,
                                                           const BucketFiles& bucket) {
    CompactOutcome outcome;
    if (append_compactor_) {
      FRESHET_ASSIGN_OR_RETURN(outcome, append_compactor_->CompactBucket(
                                            key.first, key.second, bucket.files, options_.full));
    } else {
      FRESHET_ASSIGN_OR_RETURN(outcome, CompactMergeTree(key, bucket));
    }
    if (outcome.before.empty() && outcome.after.empty()) {
      return std::optional<meta::CommitMessage>();
    }
    meta::CommitMessage message;
    message.partition = key.first;
    message.bucket = key.second;
    message.total_buckets = bucket.total_buckets;
    message.compact_before = std::move(outcome.before);
    message.compact_after = std::move(outcome.after);
    message.compact_index_files = std::move(outcome.index_files);
    message.compact_changelog_files = std::move(outcome.changelog);
    written_[key] = std::move(outcome.written);
    return std::optional<meta::CommitMessage>(std::move(message));
  }

  // A primary-key bucket: the unit its levels pick, rewritten.
  Result<CompactOutcome> CompactMergeTree(const BucketKey& key, const BucketFiles& bucket) {
    FRESHET_ASSIGN_OR_RETURN(
        auto levels, mc::Levels::Create(key_types_, bucket.files, compaction_options_.num_levels));
    BucketDeletionVectors vectors;
    std::function<bool(const meta::DataFileMeta&)> has_deletion_vector;
    if (compactor_->deletion_vectors()) {
      FRESHET_ASSIGN_OR_RETURN(vectors, LoadDeletionVectors(key));
      // A full compaction rewrites top-level files to apply their vectors, as Java's does.
      has_deletion_vector = [&vectors](const meta::DataFileMeta& file) {
        return vectors.vectors().count(file.file_name) > 0;
      };
    }
    FRESHET_ASSIGN_OR_RETURN(auto unit, PickUnit(levels, compaction_options_, options_.full,
                                                 bucket.files, has_deletion_vector));
    if (!unit) return CompactOutcome();
    CompactJob job;
    job.partition = key.first;
    job.bucket = key.second;
    job.output_level = unit->output_level;
    job.drop_delete = mc::CanDropDelete(*unit, levels.NonEmptyHighestLevel(),
                                        compaction_options_.deletion_vectors);
    for (int level = unit->output_level + 1; level <= levels.MaxLevel(); ++level) {
      job.upper_levels.push_back(levels.RunOfLevel(level).files);
    }
    if (compactor_->deletion_vectors()) {
      job.deletion_vectors = &vectors;
      // One rewrite of every file: one new index file for the bucket.
      if (unit->file_rewrite) return compactor_->Rewrite(WithFiles(job, unit->files));
    }
    CompactOutcome outcome;
    if (unit->file_rewrite) {
      // Each file on its own, at its level (Java's FileRewriteCompactTask).
      for (const meta::DataFileMeta& file : unit->files) {
        job.files = {file};
        Result<CompactOutcome> one = compactor_->Rewrite(job);
        if (!one.ok()) {
          DeleteFiles(outcome.written);
          return one.status();
        }
        outcome.Merge(std::move(*one));
      }
    } else {
      job.files = unit->files;
      FRESHET_ASSIGN_OR_RETURN(outcome, compactor_->Compact(job, levels.MaxLevel()));
    }
    return outcome;
  }

  static CompactJob WithFiles(CompactJob job, std::vector<meta::DataFileMeta> files) {
    job.files = std::move(files);
    return job;
  }

  Result<BucketDeletionVectors> LoadDeletionVectors(const BucketKey& key) const {
    FRESHET_ASSIGN_OR_RETURN(auto entries, LatestBucketDeletionVectorEntries(
                                               file_io_, table_path_, key.first, key.second));
    return BucketDeletionVectors::Load(*file_io_, scan::IndexFileLocation{table_path_, nullptr},
                                       std::move(entries));
  }

  Result<bool> Selected(const std::string& partition) {
    if (options_.partitions.empty()) return true;
    auto cached = selected_.find(partition);
    if (cached != selected_.end()) return cached->second;
    FRESHET_ASSIGN_OR_RETURN(auto row, meta::DeserializeBinaryRow(partition));
    FRESHET_ASSIGN_OR_RETURN(auto naming, meta::PartitionNaming::FromOptions(schema_.options()));
    FRESHET_ASSIGN_OR_RETURN(auto spec,
                             meta::PartitionSpec(row, schema_.PartitionFields(), naming));
    std::map<std::string, std::string> values(spec.begin(), spec.end());
    bool selected = false;
    for (const auto& wanted : options_.partitions) {
      bool matches = true;
      for (const auto& [key, value] : wanted) {
        auto it = values.find(key);
        matches = matches && it != values.end() && it->second == value;
      }
      selected = selected || matches;
    }
    selected_[partition] = selected;
    return selected;
  }

  void DeleteFiles(const std::vector<std::string>& paths) const {
    for (const std::string& path : paths) (void)file_io_->Delete(path, false);
  }

  // New files of uncommitted compactions; upgraded files are the old ones and stay.
  void DeleteWritten(const std::vector<meta::CommitMessage>& messages) {
    for (const auto& message : messages) {
      auto it = written_.find({message.partition, message.bucket});
      if (it != written_.end()) DeleteFiles(it->second);
    }
    written_.clear();
  }

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  meta::TableSchema schema_;
  TableCompactOptions options_;
  std::unique_ptr<MergeTreeCompactor> compactor_;      // primary-key tables
  std::unique_ptr<AppendCompactor> append_compactor_;  // append tables
  mc::CompactionOptions compaction_options_;
  std::vector<meta::DataTypePtr> key_types_;
  std::map<BucketKey, std::vector<std::string>> written_;
  std::map<std::string, bool> selected_;  // by serialized partition
  std::optional<int64_t> base_id_;        // the snapshot the current plan is based on
};

}  // namespace

Result<TableCompactResult> CompactTable(std::shared_ptr<io::FileIO> file_io,
                                        const std::string& table_path,
                                        const meta::TableSchema& schema,
                                        const TableCompactOptions& options) {
  for (const auto& spec : options.partitions) {
    for (const auto& [key, value] : spec) {
      if (std::find(schema.partition_keys().begin(), schema.partition_keys().end(), key) ==
          schema.partition_keys().end()) {
        return Status::Invalid("'", key, "' is not a partition key of table '", table_path, "'");
      }
    }
  }
  TableCompaction compaction(std::move(file_io), table_path, schema, options);
  return compaction.Run();
}

}  // namespace freshet::compact
