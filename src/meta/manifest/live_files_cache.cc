#include "meta/manifest/live_files_cache.h"

#include <functional>
#include <iterator>

namespace freshet::meta {

Status CheckLiveRowCount(const Snapshot& snapshot, const std::vector<ManifestEntry>& live) {
  int64_t rows = 0;
  for (const ManifestEntry& entry : live) rows += entry.file.row_count;
  return CheckLiveRows(snapshot, rows);
}

Status CheckLiveRows(const Snapshot& snapshot, int64_t rows) {
  // The snapshot's total (Java: rows added minus rows deleted, over all commits) must be what the
  // live files hold; a damaged manifest that lost an entry or flipped its kind would otherwise
  // drop rows without an error.
  if (!snapshot.total_record_count) return Status::OK();
  if (rows != *snapshot.total_record_count) {
    return Status::Corruption("snapshot ", snapshot.id, " says totalRecordCount ",
                              *snapshot.total_record_count, " but its live data files hold ", rows,
                              " rows (manifest lists '", snapshot.base_manifest_list, "', '",
                              snapshot.delta_manifest_list, "')");
  }
  return Status::OK();
}

namespace {

// The live entries where they were decoded: each manifest's vector becomes shared, and every live
// entry's pointer aliases the vector holding it, so a live set of a million files costs no copy
// and no allocation per entry (which, in fresh pages, was most of a cold plan). A manifest's
// entries are freed together, once none of them is in a cached live set any more: entries a
// later commit removed stay until then (at most the manifests' size, not a growth).
LiveEntries ShareInPlace(DecodedLiveEntries decoded) {
  auto live = std::make_shared<std::vector<std::shared_ptr<const ManifestEntry>>>();
  live->reserve(decoded.live.size());
  size_t next = 0;  // decoded.live is in manifest order, so one walk pairs entries and manifests
  for (std::vector<ManifestEntry>& part : decoded.parts) {
    if (part.empty()) continue;
    const ManifestEntry* begin = part.data();
    const ManifestEntry* end = begin + part.size();
    // Moving the vector keeps its buffer: the pointers into it stay valid.
    auto owner = std::make_shared<const std::vector<ManifestEntry>>(std::move(part));
    const std::less<const ManifestEntry*> before;
    for (; next < decoded.live.size() && !before(decoded.live[next], begin) &&
           before(decoded.live[next], end);
         ++next) {
      live->push_back(std::shared_ptr<const ManifestEntry>(owner, decoded.live[next]));
    }
  }
  return live;
}

// FileNameHash of each live entry, and the rows of all.
void HashNames(const LiveEntries& live, std::shared_ptr<const std::vector<uint64_t>>* name_hashes,
               int64_t* rows) {
  auto hashes = std::make_shared<std::vector<uint64_t>>();
  hashes->reserve(live->size());
  *rows = 0;
  for (const auto& entry : *live) {
    hashes->push_back(FileNameHash(entry->file.file_name));
    *rows += entry->file.row_count;
  }
  *name_hashes = std::move(hashes);
}

}  // namespace

LiveFilesCache& LiveFilesCache::Global() {
  static LiveFilesCache cache;
  return cache;
}

Result<LiveEntries> LiveFilesCache::Read(const ManifestFile& manifests,
                                         const SnapshotManager& snapshots,
                                         const Snapshot& snapshot) {
  FRESHET_ASSIGN_OR_RETURN(LiveEntries cached, AdvanceIfCached(manifests, snapshots, snapshot));
  if (cached) return cached;
  const std::string& table = snapshots.table_path();
  FRESHET_ASSIGN_OR_RETURN(DecodedLiveEntries decoded, DecodeLiveEntries(manifests, snapshot));
  LiveEntries live = ShareInPlace(std::move(decoded));
  // Name hashes and row total are left to the first advance: a cold plan of a large table
  // would pay another pass over every entry for them.
  Store(table,
        std::make_shared<Entry>(Entry{snapshot.id, snapshot.base_manifest_list,
                                      snapshot.delta_manifest_list, live, nullptr, 0, nullptr}));
  Count(&Counters::full_reads);
  return live;
}

Result<LiveEntries> LiveFilesCache::AdvanceIfCached(const ManifestFile& manifests,
                                                    const SnapshotManager& snapshots,
                                                    const Snapshot& snapshot) {
  const std::string& table = snapshots.table_path();
  std::optional<std::shared_ptr<const Entry>> found = tables_.Get(table);
  if (!found) return LiveEntries();
  const Entry& cached = **found;
  for (const Entry* kept = &cached; kept; kept = kept->older.get()) {
    if (kept->Is(snapshot)) {
      Count(&Counters::hits);
      return kept->live;
    }
  }
  if (cached.snapshot_id >= snapshot.id || snapshot.id - cached.snapshot_id > kMaxAdvance) {
    return LiveEntries();
  }
  FRESHET_ASSIGN_OR_RETURN(auto advanced, Advance(manifests, snapshots, cached, snapshot));
  if (!advanced) return LiveEntries();
  LiveEntries live = advanced->live;
  Store(table, std::move(advanced));
  Count(&Counters::advanced);
  return live;
}

Result<std::shared_ptr<LiveFilesCache::Entry>> LiveFilesCache::Advance(
    const ManifestFile& manifests, const SnapshotManager& snapshots, const Entry& cached,
    const Snapshot& snapshot) {
  // The cached snapshot must still be the one on disk (a table recreated at the same path has
  // other manifest lists), and every snapshot up to the target must be there (expiration).
  auto same = snapshots.ReadSnapshot(cached.snapshot_id);
  if (!same.ok()) {
    if (same.status().IsNotFound()) return std::shared_ptr<Entry>();
    return same.status();
  }
  if (same->base_manifest_list != cached.base_list ||
      same->delta_manifest_list != cached.delta_list) {
    return std::shared_ptr<Entry>();
  }
  std::vector<std::string> deltas;
  for (int64_t id = cached.snapshot_id + 1; id < snapshot.id; ++id) {
    auto between = snapshots.ReadSnapshot(id);
    if (!between.ok()) {
      if (between.status().IsNotFound()) return std::shared_ptr<Entry>();
      return between.status();
    }
    deltas.push_back(between->delta_manifest_list);
  }
  deltas.push_back(snapshot.delta_manifest_list);
  // Snapshot N's base list holds what snapshot N-1 held, its delta list what commit N changed:
  // the live files of N are those of N-1 with the delta applied.
  FRESHET_ASSIGN_OR_RETURN(auto changes, ReadEntriesOfLists(manifests, deltas));
  const auto& base = *cached.live;
  std::shared_ptr<const std::vector<uint64_t>> name_hashes = cached.name_hashes;
  int64_t rows = cached.rows;
  if (!name_hashes) HashNames(cached.live, &name_hashes, &rows);
  const std::vector<uint64_t>& base_hashes = *name_hashes;
  FRESHET_ASSIGN_OR_RETURN(
      ManifestChanges applied,
      ResolveManifestChanges(
          base.size(), [&](size_t i) -> const ManifestEntry& { return *base[i]; },
          std::move(changes), &base_hashes));
  auto live = std::make_shared<std::vector<std::shared_ptr<const ManifestEntry>>>();
  auto hashes = std::make_shared<std::vector<uint64_t>>();
  live->reserve(base.size() + applied.added.size());
  hashes->reserve(base.size() + applied.added.size());
  for (size_t i = 0; i < base.size(); ++i) {
    if (applied.base_gone[i]) {
      rows -= base[i]->file.row_count;
      continue;
    }
    live->push_back(base[i]);
    hashes->push_back(base_hashes[i]);
  }
  for (ManifestEntry& entry : applied.added) {
    rows += entry.file.row_count;
    hashes->push_back(FileNameHash(entry.file.file_name));
    live->push_back(std::make_shared<const ManifestEntry>(std::move(entry)));
  }
  FRESHET_RETURN_NOT_OK(CheckLiveRows(snapshot, rows));
  return std::make_shared<Entry>(Entry{snapshot.id, snapshot.base_manifest_list,
                                       snapshot.delta_manifest_list, std::move(live),
                                       std::move(hashes), rows, nullptr});
}

bool LiveFilesCache::Entry::Is(const Snapshot& snapshot) const {
  return snapshot_id == snapshot.id && base_list == snapshot.base_manifest_list &&
         delta_list == snapshot.delta_manifest_list;
}

void LiveFilesCache::Store(const std::string& table, std::shared_ptr<Entry> entry) {
  std::optional<std::shared_ptr<const Entry>> found = tables_.Get(table);
  if (found) {
    const std::shared_ptr<const Entry>& newest = *found;
    // Time travel to an older snapshot does not replace the newest one.
    if (newest->snapshot_id > entry->snapshot_id) return;
    if (newest->snapshot_id < entry->snapshot_id) {
      // One step back only: the entry kept as `older` drops its own.
      if (newest->older) {
        auto alone = std::make_shared<Entry>(*newest);
        alone->older.reset();
        entry->older = std::move(alone);
      } else {
        entry->older = newest;
      }
    }
  }
  tables_.Put(table, std::move(entry), 1, kMaxTables);
}

void LiveFilesCache::Count(int64_t Counters::*counter) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(counters_.*counter);
}

LiveFilesCache::Counters LiveFilesCache::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

void LiveFilesCache::Clear() { tables_.Clear(); }

}  // namespace freshet::meta
