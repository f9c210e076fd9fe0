#include "commit/snapshot_expiration.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "commit/changelog_expiration.h"
#include "meta/manifest/manifest_file.h"
#include "meta/path/data_file_paths.h"
#include "meta/snapshot/consumer_manager.h"
#include "meta/snapshot/long_lived_changelog.h"
#include "meta/snapshot/snapshot_manager.h"
#include "meta/snapshot/tag_manager.h"

namespace freshet::commit {

using meta::ManifestEntry;
using meta::Snapshot;

ExpireConfig ExpireConfig::FromOptions(const meta::CoreOptions& options) {
  ExpireConfig c;
  c.retain_min = options.snapshot_num_retained_min();
  c.retain_max = options.snapshot_num_retained_max();
  c.time_retained_ms = options.snapshot_time_retained_ms();
  c.max_deletes = options.snapshot_expire_limit();
  return c;
}

// What one run deletes, and what it must keep. Paths are full paths; manifest-directory files
// (manifests, manifest lists, index manifests) are kept by name.
struct SnapshotExpiration::Plan {
  std::set<std::string> keep_files;      // data, changelog and index files of retained snapshots
  std::set<std::string> keep_manifests;  // manifest-directory names retained snapshots use
  std::set<std::string> data_files;      // referenced by expired snapshots (incl. index files)
  std::set<std::string> manifests;       // data/changelog manifests of expired snapshots
  std::set<std::string> lists;           // manifest lists and index manifests of expired ones
  std::vector<int64_t> snapshot_ids;     // ascending
  // Decoupled changelog: the expired snapshots, written to changelog/ before they go.
  std::vector<Snapshot> long_lived;
};

namespace internal {

// Reads manifest-directory files once each. In `tolerant` mode a missing file reads as empty:
// an interrupted earlier run deleted it, and it deletes a list's files before the list itself.
class CachedReader {
 public:
  CachedReader(std::shared_ptr<io::FileIO> file_io, const std::string& table_path)
      : manifests_(std::move(file_io), table_path) {}

  Result<std::vector<std::string>> ManifestsOf(const std::string& list, bool tolerant) {
    auto metas = manifests_.ReadManifestList(list);
    if (!metas.ok()) return Missing<std::vector<std::string>>(metas.status(), tolerant);
    std::vector<std::string> names;
    for (const auto& m : *metas) names.push_back(m.file_name);
    return names;
  }

  Result<const std::vector<ManifestEntry>*> Entries(const std::string& manifest, bool tolerant) {
    auto it = entries_.find(manifest);
    if (it != entries_.end()) return &it->second;
    auto read = manifests_.ReadManifest(manifest);
    if (!read.ok()) {
      FRESHET_RETURN_NOT_OK(Missing<int>(read.status(), tolerant).status());
      return &entries_[manifest];  // empty
    }
    return &(entries_[manifest] = std::move(*read));
  }

  Result<std::vector<meta::IndexManifestEntry>> IndexEntries(const std::string& name,
                                                             bool tolerant) {
    auto read = manifests_.ReadIndexManifest(name);
    if (!read.ok()) return Missing<std::vector<meta::IndexManifestEntry>>(read.status(), tolerant);
    return read;
  }

 private:
  template <typename T>
  static Result<T> Missing(const Status& st, bool tolerant) {
    if (tolerant && st.IsNotFound()) return T{};
    return st;
  }

  meta::ManifestFile manifests_;
  std::map<std::string, std::vector<ManifestEntry>> entries_;
};

}  // namespace internal

namespace {

using internal::CachedReader;

std::vector<std::string> DataListsOf(const Snapshot& s) {
  return {s.base_manifest_list, s.delta_manifest_list};
}

// Every file an entry stands for: the data file and its extra files (same directory).
Status AddEntryFiles(const meta::DataFilePaths& paths, const ManifestEntry& e,
                     std::set<std::string>* out) {
  FRESHET_ASSIGN_OR_RETURN(std::string path, paths.FilePath(e.partition, e.bucket, e.file));
  out->insert(path);
  FRESHET_ASSIGN_OR_RETURN(auto extras, paths.ExtraFilePaths(e.partition, e.bucket, e.file));
  out->insert(extras.begin(), extras.end());
  return Status::OK();
}

std::string IndexFilePath(const std::string& table, const meta::IndexManifestEntry& e) {
  return e.external_path ? *e.external_path
                         : io::JoinPath(io::JoinPath(table, "index"), e.file_name);
}

}  // namespace

SnapshotExpiration::SnapshotExpiration(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                       meta::TableSchema schema, ExpireConfig config)
    : file_io_(std::move(file_io)),
      table_path_(std::move(table_path)),
      schema_(std::move(schema)),
      config_(config) {}

Result<int64_t> SnapshotExpiration::FirstRetained(int64_t earliest, int64_t latest,
                                                  int64_t now_millis) const {
  // At least retain_min snapshots stay, and one run removes at most max_deletes.
  int64_t max_exclusive = std::min<int64_t>(latest - std::max(config_.retain_min, 1) + 1,
                                            earliest + std::max(config_.max_deletes, 1));
  // A consumer's next snapshot, and everything after it, stays for it to read.
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> consumer_min,
                           meta::ConsumerManager(file_io_, table_path_).MinNextSnapshot());
  if (consumer_min) max_exclusive = std::min(max_exclusive, *consumer_min);
  // Beyond retain_max snapshots, the oldest go regardless of their age.
  int64_t id = std::max<int64_t>(earliest, latest - std::max(config_.retain_max, 1) + 1);
  id = std::min(id, max_exclusive);
  meta::SnapshotManager snapshots(file_io_, table_path_);
  for (; id < max_exclusive; ++id) {
    FRESHET_ASSIGN_OR_RETURN(Snapshot s, snapshots.ReadSnapshot(id));
    if (s.time_millis > now_millis - config_.time_retained_ms) break;  // young enough to keep
  }
  return std::max(id, earliest);
}

Status SnapshotExpiration::CollectRetained(int64_t first_retained, int64_t latest,
                                           Plan* plan) const {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  std::vector<Snapshot> retained;
  for (int64_t id = first_retained; id <= latest; ++id) {
    FRESHET_ASSIGN_OR_RETURN(Snapshot s, snapshots.ReadSnapshot(id));
    retained.push_back(std::move(s));
  }
  // A tag keeps its snapshot readable after the snapshot expires: its files are retained.
  FRESHET_ASSIGN_OR_RETURN(auto tags, meta::TagManager(file_io_, table_path_).List());
  for (meta::Tag& tag : tags) retained.push_back(std::move(tag.snapshot));
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path_, schema_));
  // Nothing is tolerated here: an unreadable retained file means we cannot know what to keep.
  CachedReader reader(file_io_, table_path_);
  for (const Snapshot& s : retained) {
    std::vector<ManifestEntry> entries;
    for (const auto& list : DataListsOf(s)) {
      plan->keep_manifests.insert(list);
      FRESHET_ASSIGN_OR_RETURN(auto names, reader.ManifestsOf(list, false));
      for (const auto& name : names) {
        plan->keep_manifests.insert(name);
        FRESHET_ASSIGN_OR_RETURN(auto* read, reader.Entries(name, false));
        entries.insert(entries.end(), read->begin(), read->end());
      }
    }
    // Only the live files count: a file a retained snapshot's own manifests already delete is
    // not needed by it.
    FRESHET_ASSIGN_OR_RETURN(auto live, meta::MergeManifestEntries(std::move(entries)));
    for (const auto& e : live) FRESHET_RETURN_NOT_OK(AddEntryFiles(paths, e, &plan->keep_files));
    if (s.changelog_manifest_list) {
      plan->keep_manifests.insert(*s.changelog_manifest_list);
      FRESHET_ASSIGN_OR_RETURN(auto names, reader.ManifestsOf(*s.changelog_manifest_list, false));
      for (const auto& name : names) {
        plan->keep_manifests.insert(name);
        FRESHET_ASSIGN_OR_RETURN(auto* read, reader.Entries(name, false));
        for (const auto& e : *read)
          FRESHET_RETURN_NOT_OK(AddEntryFiles(paths, e, &plan->keep_files));
      }
    }
    if (s.index_manifest) {
      plan->keep_manifests.insert(*s.index_manifest);
      FRESHET_ASSIGN_OR_RETURN(auto index, reader.IndexEntries(*s.index_manifest, false));
      for (const auto& e : index) plan->keep_files.insert(IndexFilePath(table_path_, e));
    }
  }
  return Status::OK();
}

Status SnapshotExpiration::CollectExpired(int64_t earliest, int64_t first_retained,
                                          Plan* plan) const {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path_, schema_));
  CachedReader reader(file_io_, table_path_);
  for (int64_t id = earliest; id < first_retained; ++id) {
    Result<Snapshot> s = snapshots.ReadSnapshot(id);
    if (!s.ok() && s.status().IsNotFound()) continue;  // another expirer was faster
    FRESHET_RETURN_NOT_OK(s.status());
    plan->snapshot_ids.push_back(id);
    if (retention_.decoupled) plan->long_lived.push_back(*s);  // its changelog outlives it
    FRESHET_RETURN_NOT_OK(CollectFilesOf(*s, paths, reader, plan));
  }
  return Status::OK();
}

Status SnapshotExpiration::CollectFilesOf(const Snapshot& s, const meta::DataFilePaths& paths,
                                          CachedReader& reader, Plan* plan) const {
  std::vector<std::string> lists = DataListsOf(s);
  // A decoupled changelog stays (in changelog/, commit/changelog_expiration.h).
  if (!retention_.decoupled && s.changelog_manifest_list) {
    lists.push_back(*s.changelog_manifest_list);
  }
  for (const auto& list : lists) {
    plan->lists.insert(list);
    FRESHET_ASSIGN_OR_RETURN(auto names, reader.ManifestsOf(list, true));
    for (const auto& name : names) {
      plan->manifests.insert(name);
      FRESHET_ASSIGN_OR_RETURN(auto* read, reader.Entries(name, true));
      // ADD and DELETE entries alike: every file an expired snapshot ever saw is a candidate.
      for (const auto& e : *read) FRESHET_RETURN_NOT_OK(AddEntryFiles(paths, e, &plan->data_files));
    }
  }
  if (s.index_manifest) {
    plan->lists.insert(*s.index_manifest);
    FRESHET_ASSIGN_OR_RETURN(auto index, reader.IndexEntries(*s.index_manifest, true));
    for (const auto& e : index) plan->data_files.insert(IndexFilePath(table_path_, e));
  }
  return Status::OK();
}

Status SnapshotExpiration::DeleteAll(const Plan& plan, ExpireResult* result) const {
  meta::ManifestFile manifests(file_io_, table_path_);
  auto remove = [&](const std::string& path) -> Status {
    FRESHET_RETURN_NOT_OK(file_io_->Delete(path, false).WithContext("expiring snapshots"));
    result->deleted_files++;
    return Status::OK();
  };
  // Leaves first, then what points at them, so an interrupted run never leaves a reference to a
  // file whose own references are still needed to find the rest (docs/expiration.md).
  for (const auto& path : plan.data_files) {
    if (!plan.keep_files.count(path)) FRESHET_RETURN_NOT_OK(remove(path));
  }
  for (const auto* names : {&plan.manifests, &plan.lists}) {
    for (const auto& name : *names) {
      if (!plan.keep_manifests.count(name)) FRESHET_RETURN_NOT_OK(remove(manifests.PathOf(name)));
    }
  }
  // Before their snapshots go: a changelog/ file is how the kept changelog is found again.
  for (const Snapshot& s : plan.long_lived) {
    FRESHET_RETURN_NOT_OK(
        meta::WriteLongLivedChangelog(*file_io_, table_path_, s).WithContext("expiring snapshots"));
  }
  meta::SnapshotManager snapshots(file_io_, table_path_);
  for (int64_t id : plan.snapshot_ids) {  // oldest first: the rest stays a contiguous range
    FRESHET_RETURN_NOT_OK(
        file_io_->Delete(snapshots.SnapshotPath(id), false).WithContext("expiring snapshots"));
    result->expired_snapshots++;
  }
  return Status::OK();
}

Result<ExpireResult> SnapshotExpiration::Expire(int64_t now_millis) {
  ExpireResult result;
  FRESHET_ASSIGN_OR_RETURN(retention_, ChangelogRetention::FromSchema(schema_));
  FRESHET_RETURN_NOT_OK(ExpireSnapshots(now_millis, &result));
  if (retention_.decoupled) {
    // As Java: the snapshots first, then the long-lived changelog.
    ChangelogExpiration changelog(file_io_, table_path_, schema_, retention_);
    FRESHET_ASSIGN_OR_RETURN(result.expired_changelogs, changelog.Expire(now_millis));
  }
  return result;
}

Status SnapshotExpiration::ExpireSnapshots(int64_t now_millis, ExpireResult* out) {
  ExpireResult& result = *out;
  meta::SnapshotManager snapshots(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestSnapshotId());
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
  if (!latest || !earliest) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(int64_t first_retained, FirstRetained(*earliest, *latest, now_millis));
  if (first_retained <= *earliest) return Status::OK();
  Plan plan;
  // Retained references are read first and completely: a deletion never runs on a partial view.
  FRESHET_RETURN_NOT_OK(CollectRetained(first_retained, *latest, &plan));
  FRESHET_RETURN_NOT_OK(CollectExpired(*earliest, first_retained, &plan));
  FRESHET_RETURN_NOT_OK(DeleteAll(plan, &result));
  FRESHET_RETURN_NOT_OK(snapshots.WriteEarliestHint(first_retained));
  result.earliest = first_retained;
  return Status::OK();
}

Result<int64_t> SnapshotExpiration::DeleteFilesOfDeletedTag(const Snapshot& tagged) {
  FRESHET_ASSIGN_OR_RETURN(retention_, ChangelogRetention::FromSchema(schema_));
  meta::SnapshotManager snapshots(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestSnapshotId());
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
  if (earliest && tagged.id >= *earliest) return 0;  // the snapshot still holds its files
  Plan plan;
  // Everything the snapshots and the remaining tags reference stays (this reads the tags).
  if (latest && earliest) {
    FRESHET_RETURN_NOT_OK(CollectRetained(*earliest, *latest, &plan));
  } else {
    FRESHET_RETURN_NOT_OK(CollectRetained(1, 0, &plan));
  }
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path_, schema_));
  CachedReader reader(file_io_, table_path_);
  FRESHET_RETURN_NOT_OK(CollectFilesOf(tagged, paths, reader, &plan));
  ExpireResult result;
  FRESHET_RETURN_NOT_OK(DeleteAll(plan, &result));
  return result.deleted_files;
}

}  // namespace freshet::commit
