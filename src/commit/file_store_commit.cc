#include "commit/file_store_commit.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "commit/conflict_check.h"
#include "commit/index_manifest_update.h"
#include "commit/snapshot_expiration.h"
#include "commit/tag_expiration.h"
#include "common/uuid.h"
#include "meta/manifest/partition_stats.h"
#include "meta/options/option_registry.h"
#include "meta/snapshot/consumer_manager.h"

namespace freshet::commit {

using meta::FileKind;
using meta::ManifestEntry;
using meta::ManifestFile;
using meta::ManifestFileMeta;
using meta::Snapshot;

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The entries of one snapshot of the commit: the new files (APPEND), or what compactions
// replaced (COMPACT).
std::vector<ManifestEntry> EntriesOf(const std::vector<meta::CommitMessage>& messages,
                                     CommitPart part) {
  std::vector<ManifestEntry> entries;
  for (const auto& m : messages) {
    auto add = [&](FileKind kind, const meta::DataFileMeta& file) {
      entries.push_back(ManifestEntry{kind, m.partition, m.bucket, m.total_buckets, file});
    };
    if (part == CommitPart::kAppend) {
      for (const auto& f : m.new_files) add(FileKind::kAdd, f);
    } else {
      for (const auto& f : m.compact_before) add(FileKind::kDelete, f);
      for (const auto& f : m.compact_after) add(FileKind::kAdd, f);
    }
  }
  return entries;
}

// The changelog files of one snapshot of the commit (ADD entries of its changelog manifest).
std::vector<ManifestEntry> ChangelogEntriesOf(const std::vector<meta::CommitMessage>& messages,
                                              CommitPart part) {
  std::vector<ManifestEntry> entries;
  for (const auto& m : messages) {
    const auto& files = part == CommitPart::kAppend ? m.changelog_files : m.compact_changelog_files;
    for (const auto& f : files) {
      entries.push_back(ManifestEntry{FileKind::kAdd, m.partition, m.bucket, m.total_buckets, f});
    }
  }
  return entries;
}

// The index-file changes of one snapshot of the commit, with the messages' partition-buckets.
std::vector<meta::IndexManifestEntry> IndexChangesOf(
    const std::vector<meta::CommitMessage>& messages, CommitPart part) {
  std::vector<meta::IndexManifestEntry> changes;
  for (const auto& m : messages) {
    const meta::IndexIncrement& increment =
        part == CommitPart::kAppend ? m.index_files : m.compact_index_files;
    auto add = [&](FileKind kind, meta::IndexManifestEntry e) {
      e.kind = kind;
      e.partition = m.partition;
      e.bucket = m.bucket;
      changes.push_back(std::move(e));
    };
    for (const auto& e : increment.deleted) add(FileKind::kDelete, e);
    for (const auto& e : increment.added) add(FileKind::kAdd, e);
  }
  return changes;
}

bool HasPart(const std::vector<meta::CommitMessage>& messages, CommitPart part) {
  return std::any_of(messages.begin(), messages.end(), [part](const meta::CommitMessage& m) {
    return part == CommitPart::kAppend ? m.HasAppendPart() : m.HasCompactPart();
  });
}

int64_t RowCount(const std::vector<ManifestEntry>& entries) {
  int64_t rows = 0;
  for (const auto& e : entries) rows += e.file.row_count;
  return rows;
}

int64_t RecordDelta(const std::vector<ManifestEntry>& entries) {
  int64_t delta = 0;
  for (const auto& e : entries) {
    delta += e.kind == FileKind::kAdd ? e.file.row_count : -e.file.row_count;
  }
  return delta;
}

// Within a run of manifests, an ADD and a later DELETE of the same file cancel out. A DELETE whose
// ADD is in an earlier manifest outside the run is kept, in order.
std::vector<ManifestEntry> CancelAddDeletePairs(std::vector<ManifestEntry> entries) {
  using Key = std::tuple<std::string, int32_t, int32_t, std::string>;
  auto key_of = [](const ManifestEntry& e) {
    return Key{e.partition, e.bucket, e.file.level, e.file.file_name};
  };
  std::map<Key, size_t> added;  // key -> index of its live ADD
  std::vector<bool> dropped(entries.size(), false);
  for (size_t i = 0; i < entries.size(); ++i) {
    Key key = key_of(entries[i]);
    if (entries[i].kind == FileKind::kAdd) {
      added[key] = i;
    } else if (auto it = added.find(key); it != added.end()) {
      dropped[it->second] = dropped[i] = true;
      added.erase(it);
    }
  }
  std::vector<ManifestEntry> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!dropped[i]) out.push_back(std::move(entries[i]));
  }
  return out;
}

// Files written by a failed attempt are never referenced; remove them so they do not pile up.
void DeleteQuietly(io::FileIO& file_io, const ManifestFile& manifests,
                   const std::vector<std::string>& names) {
  for (const auto& name : names) (void)file_io.Delete(manifests.PathOf(name), false);
}

}  // namespace

FileStoreCommit::FileStoreCommit(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                 meta::TableSchema schema, meta::CoreOptions options,
                                 std::string commit_user)
    : file_io_(std::move(file_io)),
      table_path_(std::move(table_path)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      commit_user_(std::move(commit_user)),
      snapshots_(file_io_, table_path_) {}

Result<std::optional<int64_t>> FileStoreCommit::FindCommitted(
    int64_t identifier, std::optional<int64_t> after_id) const {
  // Newest first, by id (as Java's search for a user's latest snapshot): ids are contiguous, so
  // the walk ends at the first one expired. Listing the directory instead cost a stat of every
  // snapshot per commit (~20 ms at 10,000 snapshots).
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots_.LatestSnapshotId());
  for (int64_t id = latest.value_or(0); id >= 1; --id) {
    if (after_id && id <= *after_id) break;
    Result<Snapshot> read = snapshots_.ReadSnapshot(id);
    if (!read.ok()) {
      if (!read.status().IsNotFound()) return read.status();
      // Expired (below the earliest snapshot now): the search ends. A hole above it is a lost
      // snapshot, which may hold this commit: an error, never a second commit of the same data.
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots_.EarliestSnapshotId());
      if (earliest && id >= *earliest) return read.status();
      break;
    }
    const Snapshot& s = *read;
    if (s.commit_user != commit_user_) continue;
    if (s.commit_identifier == identifier) return std::optional<int64_t>(s.id);
    // Identifiers of one commit user only grow (batch commits all use the same one), so this
    // user's newest snapshot with a smaller identifier ends the search: usually one step back.
    if (s.commit_identifier < identifier) break;
  }
  return std::optional<int64_t>();
}

bool FileStoreCommit::Overwrites(const CommitRequest& request, const std::string& partition) const {
  if (request.overwrite_all || schema_.partition_keys().empty()) return true;
  return std::any_of(request.messages.begin(), request.messages.end(),
                     [&](const meta::CommitMessage& m) { return m.partition == partition; });
}

Result<std::vector<ManifestEntry>> FileStoreCommit::OverwriteDeletes(
    const CommitRequest& request, const std::optional<Snapshot>& latest) const {
  std::vector<ManifestEntry> deletes;
  if (!request.overwrite || !latest) return deletes;
  ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *latest));
  for (auto& entry : live) {
    if (Overwrites(request, entry.partition)) {
      entry.kind = FileKind::kDelete;
      deletes.push_back(std::move(entry));
    }
  }
  return deletes;
}

Result<std::vector<meta::IndexManifestEntry>> FileStoreCommit::OverwriteIndexDeletes(
    const CommitRequest& request, const std::optional<Snapshot>& latest) const {
  std::vector<meta::IndexManifestEntry> deletes;
  if (!request.overwrite || !latest || !latest->index_manifest) return deletes;
  ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto live, manifests.ReadIndexManifest(*latest->index_manifest));
  for (auto& entry : live) {
    if (Overwrites(request, entry.partition)) {
      entry.kind = FileKind::kDelete;
      deletes.push_back(std::move(entry));
    }
  }
  return deletes;
}

Result<std::optional<std::string>> FileStoreCommit::WriteIndexManifest(
    ManifestFile& manifests, const std::vector<meta::IndexManifestEntry>& changes,
    const std::optional<Snapshot>& latest) const {
  std::optional<std::string> previous = latest ? latest->index_manifest : std::nullopt;
  if (changes.empty()) return previous;
  std::vector<meta::IndexManifestEntry> live;
  if (previous) {
    FRESHET_ASSIGN_OR_RETURN(live, manifests.ReadIndexManifest(*previous));
  }
  FRESHET_ASSIGN_OR_RETURN(
      live, ApplyIndexChanges(std::move(live), changes,
                              options_.bucket() == -1 && schema_.primary_keys().empty()));
  FRESHET_ASSIGN_OR_RETURN(meta::WrittenFile written, manifests.WriteIndexManifest(live));
  return std::optional<std::string>(written.name);
}

Status FileStoreCommit::CheckConflicts(const std::vector<ManifestEntry>& delta,
                                       const std::optional<Snapshot>& latest) const {
  std::vector<ManifestEntry> live;
  if (latest) {
    ManifestFile manifests(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(live, meta::ReadLiveEntries(manifests, *latest));
  }
  std::vector<meta::DataTypePtr> key_types;
  for (const std::string& key : schema_.TrimmedPrimaryKeys()) {
    key_types.push_back(schema_.fields()[static_cast<size_t>(schema_.FieldIndex(key))].type);
  }
  return CheckNoConflicts(live, delta, key_types)
      .WithContext("compaction commit to '" + table_path_ + "' conflicts, given up");
}

Status FileStoreCommit::CheckIndexBase(const std::vector<meta::IndexManifestEntry>& changes,
                                       const std::optional<Snapshot>& latest) const {
  std::vector<meta::IndexManifestEntry> live;
  if (latest && latest->index_manifest) {
    ManifestFile manifests(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(live, manifests.ReadIndexManifest(*latest->index_manifest));
  }
  return CheckDeletionVectorBase(live, changes)
      .WithContext("compaction commit to '" + table_path_ + "' conflicts, given up");
}

Result<bool> FileStoreCommit::TryCommitOnce(const CommitRequest& request, CommitPart part,
                                            const std::optional<Snapshot>& latest,
                                            int64_t* snapshot_id) {
  // The real-time progress belongs to the snapshot with the new rows; a COMPACT snapshot
  // inherits it (realtime/progress.h).
  std::map<std::string, std::string> properties = request.properties;
  if (request.properties_for_base && part == CommitPart::kAppend) {
    FRESHET_ASSIGN_OR_RETURN(auto extra, request.properties_for_base(latest));
    for (auto& [key, value] : extra) properties[key] = std::move(value);
  }
  std::vector<ManifestEntry> delta;
  if (part == CommitPart::kAppend) {
    FRESHET_ASSIGN_OR_RETURN(delta, OverwriteDeletes(request, latest));
  }
  for (auto& e : EntriesOf(request.messages, part)) delta.push_back(std::move(e));
  if (part == CommitPart::kCompact) FRESHET_RETURN_NOT_OK(CheckConflicts(delta, latest));
  // As Java, an overwrite commits no changelog, and drops the index files of what it replaces.
  std::vector<ManifestEntry> changelog;
  if (!request.overwrite) changelog = ChangelogEntriesOf(request.messages, part);
  std::vector<meta::IndexManifestEntry> index_changes;
  if (part == CommitPart::kAppend) {
    FRESHET_ASSIGN_OR_RETURN(index_changes, OverwriteIndexDeletes(request, latest));
  }
  for (auto& e : IndexChangesOf(request.messages, part)) index_changes.push_back(std::move(e));
  if (part == CommitPart::kCompact && !schema_.primary_keys().empty()) {
    FRESHET_RETURN_NOT_OK(CheckIndexBase(index_changes, latest));
  }

  FRESHET_ASSIGN_OR_RETURN(auto write_options, meta::ManifestWriteOptions::FromCompression(
                                                   options_.manifest_compression(),
                                                   options_.file_compression_zstd_level()));
  ManifestFile manifests(file_io_, table_path_, write_options);
  std::vector<std::string> written;
  auto fail = [&](const Status& st) {
    DeleteQuietly(*file_io_, manifests, written);
    return st;
  };

  // Base = every manifest of the previous snapshot (its base + its delta), unchanged.
  std::vector<ManifestFileMeta> base;
  if (latest) {
    for (const auto& list : {latest->base_manifest_list, latest->delta_manifest_list}) {
      Result<std::vector<ManifestFileMeta>> metas = manifests.ReadManifestList(list);
      if (!metas.ok()) return fail(metas.status());
      base.insert(base.end(), metas->begin(), metas->end());
    }
  }
  Result<std::vector<ManifestFileMeta>> compacted =
      MergeSmallManifests(manifests, std::move(base), &written);
  if (!compacted.ok()) return fail(compacted.status());
  base = std::move(*compacted);
  Result<meta::SimpleStats> partition_stats =
      meta::PartitionStatsOf(schema_.PartitionFields(), delta);
  if (!partition_stats.ok()) return fail(partition_stats.status());
  std::vector<ManifestFileMeta> delta_metas;
  if (!delta.empty()) {
    Result<ManifestFileMeta> manifest =
        manifests.WriteManifest(delta, schema_.id(), *partition_stats);
    if (!manifest.ok()) return fail(manifest.status());
    written.push_back(manifest->file_name);
    delta_metas.push_back(*manifest);
  }
  Result<meta::WrittenFile> base_list = manifests.WriteManifestList(base);
  if (!base_list.ok()) return fail(base_list.status());
  written.push_back(base_list->name);
  Result<meta::WrittenFile> delta_list = manifests.WriteManifestList(delta_metas);
  if (!delta_list.ok()) return fail(delta_list.status());
  written.push_back(delta_list->name);
  std::optional<meta::WrittenFile> changelog_list;
  if (!changelog.empty()) {
    Result<meta::SimpleStats> changelog_stats =
        meta::PartitionStatsOf(schema_.PartitionFields(), changelog);
    if (!changelog_stats.ok()) return fail(changelog_stats.status());
    Result<ManifestFileMeta> manifest =
        manifests.WriteManifest(changelog, schema_.id(), *changelog_stats);
    if (!manifest.ok()) return fail(manifest.status());
    written.push_back(manifest->file_name);
    Result<meta::WrittenFile> list = manifests.WriteManifestList({*manifest});
    if (!list.ok()) return fail(list.status());
    written.push_back(list->name);
    changelog_list = *list;
  }
  Result<std::optional<std::string>> index_manifest =
      WriteIndexManifest(manifests, index_changes, latest);
  if (!index_manifest.ok()) return fail(index_manifest.status());
  if (*index_manifest && (!latest || latest->index_manifest != *index_manifest)) {
    written.push_back(**index_manifest);
  }

  Snapshot s;
  s.uuid = RandomUuid();
  s.id = latest ? latest->id + 1 : 1;
  s.schema_id = schema_.id();
  s.base_manifest_list = base_list->name;
  s.base_manifest_list_size = base_list->size;
  s.delta_manifest_list = delta_list->name;
  s.delta_manifest_list_size = delta_list->size;
  if (changelog_list) {
    s.changelog_manifest_list = changelog_list->name;
    s.changelog_manifest_list_size = changelog_list->size;
    s.changelog_record_count = RowCount(changelog);
  }
  s.index_manifest = *index_manifest;
  s.commit_user = commit_user_;
  s.commit_identifier = request.identifier;
  bool has_deletes = std::any_of(delta.begin(), delta.end(), [](const ManifestEntry& e) {
    return e.kind == FileKind::kDelete;
  });
  s.commit_kind = part == CommitPart::kCompact       ? meta::CommitKind::kCompact
                  : request.overwrite || has_deletes ? meta::CommitKind::kOverwrite
                                                     : meta::CommitKind::kAppend;
  s.time_millis = NowMillis();
  int64_t delta_count = RecordDelta(delta);
  s.total_record_count = (latest ? latest->total_record_count.value_or(0) : 0) + delta_count;
  s.delta_record_count = delta_count;
  if (latest) s.watermark = latest->watermark;
  s.properties = std::move(properties);
  s.next_row_id = latest ? latest->next_row_id.value_or(0) : 0;

  Result<bool> published = snapshots_.TryPublish(s);
  if (!published.ok()) {
    // The outcome is unknown (e.g. an I/O error around the rename): keep the manifests, the
    // caller checks whether the snapshot landed before retrying.
    return published.status();
  }
  if (!*published) {
    DeleteQuietly(*file_io_, manifests, written);
    return false;
  }
  *snapshot_id = s.id;
  if (on_published_) on_published_(s);
  return true;
}

Result<std::vector<ManifestFileMeta>> FileStoreCommit::MergeSmallManifests(
    ManifestFile& manifests, std::vector<ManifestFileMeta> base,
    std::vector<std::string>* written) const {
  size_t run_start = base.size();
  while (run_start > 0 && base[run_start - 1].file_size < options_.manifest_target_file_size()) {
    --run_start;
  }
  if (base.size() - run_start < static_cast<size_t>(options_.manifest_merge_min_count())) {
    return base;
  }
  std::vector<ManifestEntry> entries;
  for (size_t i = run_start; i < base.size(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(auto more, manifests.ReadManifest(base[i].file_name));
    for (auto& e : more) entries.push_back(std::move(e));
  }
  entries = CancelAddDeletePairs(std::move(entries));
  base.resize(run_start);
  if (entries.empty()) return base;
  FRESHET_ASSIGN_OR_RETURN(meta::SimpleStats stats,
                           meta::PartitionStatsOf(schema_.PartitionFields(), entries));
  FRESHET_ASSIGN_OR_RETURN(ManifestFileMeta merged,
                           manifests.WriteManifest(entries, schema_.id(), std::move(stats)));
  written->push_back(merged.file_name);
  base.push_back(std::move(merged));
  return base;
}

Status FileStoreCommit::ExpireIdleConsumers() const {
  FRESHET_ASSIGN_OR_RETURN(auto idle,
                           meta::LookupOption(schema_.options(), "consumer.expiration-time"));
  if (!idle) return Status::OK();
  return meta::ConsumerManager(file_io_, table_path_)
      .ExpireUpdatedBefore(NowMillis() - idle->number)
      .status();
}

void FileStoreCommit::ExpireAfterCommit(CommitResult* result) const {
  if (options_.write_only()) return;
  // As Java's TableCommitImpl.maintain: tags past their retention time, then consumers, then
  // snapshots.
  Result<std::vector<std::string>> tags = ExpireTags(file_io_, table_path_, schema_, NowMillis());
  if (!tags.ok()) {
    result->expiration = tags.status();
    return;
  }
  // Consumers idle for `consumer.expiration-time` go first, so they no longer hold snapshots.
  Status consumers = ExpireIdleConsumers();
  if (!consumers.ok()) {
    result->expiration = consumers;
    return;
  }
  SnapshotExpiration expiration(file_io_, table_path_, schema_,
                                ExpireConfig::FromOptions(options_));
  Result<ExpireResult> expired = expiration.Expire(NowMillis());
  result->expiration = expired.status();
  if (expired.ok()) result->expired_snapshots = expired->expired_snapshots;
}

Status FileStoreCommit::CheckCommitSupported(const meta::CoreOptions& options) {
  if (options.manifest_format() == "avro") return Status::OK();
  const std::string& format = options.manifest_format();
  return Status::NotImplemented("table option manifest.format=", format,
                                ": freshet writes Avro manifests only, and Java Paimon reads "
                                "every manifest of this table as ",
                                format, "; commit to this table with Java Paimon");
}

Result<CommitResult> FileStoreCommit::Commit(const CommitRequest& request) {
  FRESHET_RETURN_NOT_OK(CheckCommitSupported(options_));
  CommitResult result;
  bool has_compact = HasPart(request.messages, CommitPart::kCompact);
  bool has_append = HasPart(request.messages, CommitPart::kAppend) || request.overwrite ||
                    (request.commit_if_empty && !has_compact);
  if (!has_append && !has_compact) return result;

  // Exactly once: a streaming identifier already committed by this user is not committed again.
  if (request.identifier != meta::kBatchCommitIdentifier) {
    FRESHET_ASSIGN_OR_RETURN(auto committed, FindCommitted(request.identifier, std::nullopt));
    if (committed) {
      result.snapshot_id = committed;
      result.already_committed = true;
      return result;
    }
  }
  // As Java: the new files make one snapshot (APPEND or OVERWRITE), what compactions replaced
  // another one (COMPACT) after it.
  if (has_append)
    FRESHET_RETURN_NOT_OK(CommitPartWithRetries(request, CommitPart::kAppend, &result));
  if (has_compact) {
    // Once the new files are committed, a failed compaction must not fail the commit: the
    // caller would commit the new files again.
    Status compacted = CommitPartWithRetries(request, CommitPart::kCompact, &result);
    if (!compacted.ok() && !has_append) return compacted;
    result.compaction_status = compacted;
  }
  ExpireAfterCommit(&result);
  return result;
}

Status FileStoreCommit::CommitPartWithRetries(const CommitRequest& request, CommitPart part,
                                              CommitResult* result) {
  FRESHET_ASSIGN_OR_RETURN(std::optional<Snapshot> latest, snapshots_.LatestSnapshot());
  const int max_attempts = std::max(1, options_.commit_max_retries() + 1);
  auto wait = std::chrono::milliseconds(10);
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    ++result->attempts;
    int64_t id = 0;
    std::optional<int64_t> seen = latest ? std::optional<int64_t>(latest->id) : std::nullopt;
    Result<bool> done = TryCommitOnce(request, part, latest, &id);
    if (!done.ok()) {
      if (done.status().IsConflict()) return done.status();
      // Did the failed attempt land after all? Then it must not land twice.
      Result<std::optional<int64_t>> landed = FindCommitted(request.identifier, seen);
      if (landed.ok() && *landed) {
        result->snapshot_id = *landed;
        return Status::OK();
      }
      return done.status().WithContext("commit to '" + table_path_ + "' failed");
    }
    if (*done) {
      result->snapshot_id = id;
      return Status::OK();
    }
    std::this_thread::sleep_for(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(10000));
    FRESHET_ASSIGN_OR_RETURN(latest, snapshots_.LatestSnapshot());
  }
  return Status::Conflict("commit to '", table_path_, "' gave up after ", max_attempts,
                          " attempts: other writers kept committing first");
}

}  // namespace freshet::commit
