#include "meta/snapshot/snapshot_manager.h"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "common/lru_cache.h"
#include "common/parsed_file_cache.h"

namespace freshet::meta {

namespace {
constexpr std::string_view kSnapshotPrefix = "snapshot-";

// The latest snapshot of a snapshot directory as last resolved, with the directory's version
// then. Process-wide, by directory path: every query resolves the latest snapshot.
struct ResolvedLatest {
  io::FileVersion directory;
  std::shared_ptr<const Snapshot> latest;  // null: the table had no snapshot
};

LruCache<ResolvedLatest>& ResolvedLatestCache() {
  static LruCache<ResolvedLatest> cache;
  return cache;
}
constexpr int64_t kResolvedLatestTables = 4096;

int64_t WallNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

std::optional<int64_t> ParseNumberedName(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = name.substr(prefix.size());
  int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 0) return std::nullopt;
  return value;
}

SnapshotManager::SnapshotManager(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)) {}

std::string SnapshotManager::SnapshotDirectory() const {
  return io::JoinPath(table_path_, "snapshot");
}

std::string SnapshotManager::SnapshotPath(int64_t id) const {
  return io::JoinPath(SnapshotDirectory(), std::string(kSnapshotPrefix) + std::to_string(id));
}

Result<std::vector<int64_t>> SnapshotManager::ListSnapshotIds() const {
  FRESHET_ASSIGN_OR_RETURN(auto entries, file_io_->ListDir(SnapshotDirectory()));
  std::vector<int64_t> ids;
  for (const auto& entry : entries) {
    if (auto id = ParseNumberedName(entry.name, kSnapshotPrefix); id && !entry.is_dir) {
      ids.push_back(*id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::optional<int64_t>> SnapshotManager::ReadHint(const char* name) const {
  std::string path = io::JoinPath(SnapshotDirectory(), name);
  Result<std::string> content = file_io_->ReadFile(path);
  if (!content.ok()) {
    if (content.status().IsNotFound()) return std::optional<int64_t>();
    return content.status();
  }
  int64_t id = 0;
  const std::string& text = *content;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::optional<int64_t>();  // a torn or foreign hint is ignored; listing decides
  }
  return std::optional<int64_t>(id);
}

Result<std::optional<int64_t>> SnapshotManager::LatestSnapshotId() const {
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> hint, ReadHint("LATEST"));
  bool hinted_missing = false;
  if (hint && *hint > 0) {
    FRESHET_ASSIGN_OR_RETURN(bool hinted_exists, file_io_->Exists(SnapshotPath(*hint)));
    hinted_missing = !hinted_exists;
    // A commit publishes snapshot N + 1 only once N exists, and rewrites the hint after it: a
    // hint that is behind (a commit between the two, or one that could not write the hint) is
    // followed by the run of newer snapshots, and the newest is the last of that run. Java lists
    // the directory here instead, which costs milliseconds at thousands of snapshots, once per
    // query that lands in a commit's window; a long run still falls back to the listing.
    // Up to kHintProbes behind: the newest snapshot and the missing id after it are probed.
    for (int64_t id = *hint + 1; hinted_exists && id <= *hint + kHintProbes + 1; ++id) {
      FRESHET_ASSIGN_OR_RETURN(bool exists, file_io_->Exists(SnapshotPath(id)));
      if (!exists) return std::optional<int64_t>(id - 1);
    }
  }
  FRESHET_ASSIGN_OR_RETURN(auto ids, ListSnapshotIds());
  if (hinted_missing) FRESHET_RETURN_NOT_OK(CheckHintedSnapshotExpired(*hint, ids));
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

// The LATEST hint is written only after its snapshot is published, and snapshots are deleted
// only by expiration: oldest first (docs/expiration.md), never the newest. So the hinted snapshot
// may be missing only because it expired after newer commits: a newer snapshot exists and no
// older one is still retained. Anything else means a committed snapshot was lost; answering with
// the one before it would hide that, and the next commit would take the lost snapshot's id. (Java
// Paimon fails there too, reading the hinted snapshot; its rollback, which deletes the newest
// snapshots before it rewrites the hint, is an error for Java's readers as well until it ends.)
Status SnapshotManager::CheckHintedSnapshotExpired(int64_t hinted,
                                                   const std::vector<int64_t>& ids) const {
  auto newer = std::upper_bound(ids.begin(), ids.end(), hinted);
  if (newer == ids.end()) {
    return Status::Corruption("the newest snapshot of table '", table_path_,
                              "' is missing: the LATEST hint names '", SnapshotPath(hinted),
                              "', and no newer snapshot exists");
  }
  if (newer == ids.begin()) return Status::OK();
  int64_t older = *std::prev(newer);
  FRESHET_ASSIGN_OR_RETURN(bool older_retained, IsRetained(older));
  if (!older_retained) return Status::OK();
  return Status::Corruption("snapshot ", hinted, " of table '", table_path_, "' is missing ('",
                            SnapshotPath(hinted), "'), but the older snapshot ", older,
                            " is still there: snapshots expire oldest first, so it did not expire");
}

// Whether snapshot `id`, listed a moment ago, is retained: it still exists (an expiration running
// now deletes it) and is not below the EARLIEST hint (Java's expiration deletes quietly, so a
// snapshot it failed to delete stays behind, below the hint).
Result<bool> SnapshotManager::IsRetained(int64_t id) const {
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, ReadHint("EARLIEST"));
  if (earliest && id < *earliest) return false;
  return file_io_->Exists(SnapshotPath(id));
}

Result<std::optional<int64_t>> SnapshotManager::EarliestSnapshotId() const {
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> hint, ReadHint("EARLIEST"));
  if (hint) {
    FRESHET_ASSIGN_OR_RETURN(bool exists, file_io_->Exists(SnapshotPath(*hint)));
    if (exists) return hint;
  } else {
    // No hint is written before the first expiration: a table that never expired a snapshot
    // still has the first id, the smallest there is, found without listing every snapshot (each
    // commit asks, to expire).
    FRESHET_ASSIGN_OR_RETURN(bool first_exists, file_io_->Exists(SnapshotPath(kFirstSnapshotId)));
    if (first_exists) return std::optional<int64_t>(kFirstSnapshotId);
  }
  FRESHET_ASSIGN_OR_RETURN(auto ids, ListSnapshotIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.front());
}

Result<std::shared_ptr<const Snapshot>> SnapshotManager::ReadSnapshotShared(int64_t id) const {
  // Process-wide: a query resolves the latest snapshot every time (common/parsed_file_cache.h).
  static ParsedFileCache<Snapshot> parsed(16 << 20);
  std::string path = SnapshotPath(id);
  Result<std::string> content = file_io_->ReadFile(path);
  if (!content.ok()) {
    if (content.status().IsNotFound()) {
      return Status::NotFound("snapshot ", id, " of table '", table_path_, "' does not exist");
    }
    return content.status();
  }
  FRESHET_ASSIGN_OR_RETURN(
      std::shared_ptr<const Snapshot> snapshot,
      parsed.Parse(path, std::move(*content),
                   [&path](const std::string& text) { return Snapshot::FromJson(text, path); }));
  if (snapshot->id != id) {
    return Status::Corruption("'", path, "' holds snapshot id ", snapshot->id);
  }
  return snapshot;
}

Result<Snapshot> SnapshotManager::ReadSnapshot(int64_t id) const {
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> snapshot, ReadSnapshotShared(id));
  return *snapshot;
}

// Snapshots are published by renaming them into the snapshot directory and removed by deleting
// them there, so while the directory keeps its version the latest snapshot is the one resolved
// last: one stat instead of reading the LATEST hint, checking for the next snapshot and reading
// the snapshot file (nine system calls). A version is trusted only once its timestamps had
// settled when it was read (io::FileVersion::SettledBefore); until then every query resolves.
Result<std::shared_ptr<const Snapshot>> SnapshotManager::LatestSnapshotShared() const {
  const std::string directory = SnapshotDirectory();
  const int64_t now = WallNanos();
  Result<std::optional<io::FileVersion>> version = file_io_->Version(directory);
  // No snapshot directory (or no versions): a new table has none until its first commit creates
  // it, which changes the table directory. Its version then vouches for "no snapshot" (kept under
  // a key of its own), saving the failed reads of the hint and the listing per query.
  const bool absent = version.ok() && !version->has_value();
  if (absent) version = file_io_->Version(table_path_);
  const std::string absent_key = absent ? directory + '\n' : std::string();
  const std::string& key = absent ? absent_key : directory;
  const bool versioned = version.ok() && version->has_value();
  if (versioned) {
    if (auto known = ResolvedLatestCache().Get(key); known && known->directory == **version) {
      return known->latest;
    }
  }
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> latest, ResolveLatestSnapshot());
  if (versioned && (*version)->SettledBefore(now) && (!absent || latest == nullptr)) {
    ResolvedLatestCache().Put(key, ResolvedLatest{**version, latest}, 1, kResolvedLatestTables);
  }
  return latest;
}

Result<std::shared_ptr<const Snapshot>> SnapshotManager::ResolveLatestSnapshot() const {
  // The common case, with one existence check less than LatestSnapshotId: the hinted snapshot
  // has no successor, and reading it proves it exists. Anything else takes the full path.
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> hint, ReadHint("LATEST"));
  if (hint && *hint > 0) {
    FRESHET_ASSIGN_OR_RETURN(bool next_exists, file_io_->Exists(SnapshotPath(*hint + 1)));
    if (!next_exists) {
      Result<std::shared_ptr<const Snapshot>> hinted = ReadSnapshotShared(*hint);
      if (hinted.ok() || !hinted.status().IsNotFound()) return hinted;
    }
  }
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> id, LatestSnapshotId());
  if (!id) return std::shared_ptr<const Snapshot>();
  return ReadSnapshotShared(*id);
}

Result<std::optional<Snapshot>> SnapshotManager::LatestSnapshot() const {
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> latest, LatestSnapshotShared());
  if (!latest) return std::optional<Snapshot>();
  return std::optional<Snapshot>(*latest);
}

Result<std::optional<Snapshot>> SnapshotManager::SnapshotAtOrBefore(int64_t time_millis) const {
  FRESHET_ASSIGN_OR_RETURN(auto ids, ListSnapshotIds());
  // Commit times grow with ids, so walk back from the newest.
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    FRESHET_ASSIGN_OR_RETURN(Snapshot snapshot, ReadSnapshot(*it));
    if (snapshot.time_millis <= time_millis) return std::optional<Snapshot>(std::move(snapshot));
  }
  return std::optional<Snapshot>();
}

Result<bool> SnapshotManager::TryPublish(const Snapshot& snapshot) const {
  FRESHET_ASSIGN_OR_RETURN(bool published,
                           file_io_->TryPublishNew(SnapshotPath(snapshot.id), snapshot.ToJson()));
  if (!published) return false;
  // The hint is an optimisation: a failure to write it must not fail a published commit.
  (void)file_io_->PublishReplace(io::JoinPath(SnapshotDirectory(), "LATEST"),
                                 std::to_string(snapshot.id));
  return true;
}

Status SnapshotManager::WriteEarliestHint(int64_t id) const {
  return file_io_->PublishReplace(io::JoinPath(SnapshotDirectory(), "EARLIEST"),
                                  std::to_string(id));
}

}  // namespace freshet::meta
