// LiveFilesCache: the process-wide plan cache of issue 14's first direction. Planning a snapshot
// means decoding every manifest of its base and delta lists; queries of the latest snapshot of a
// table that is being written plan the same files again and again. The cache keeps, per table,
// the live data files of the newest snapshot planned, and
//  * returns them as they are when that snapshot is asked for again (no file read at all);
//  * advances them to a newer snapshot by applying the delta manifest lists of the snapshots in
//    between (each commit's delta is small), instead of decoding the whole base again;
//  * falls back to a full read when it has nothing usable (older snapshots, a gap left by
//    expiration, a table recreated at the same path).
// Manifests and snapshot files never change once published, so a cached live set is valid as long
// as the snapshot it was built for is the one on disk: that identity (its manifest list names,
// unique per commit) is checked on every use.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/lru_cache.h"
#include "freshet/result.h"
#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::meta {

// The live entries of a snapshot, each shared between the cached sets it is in (advancing the set
// by a commit copies pointers, not entries).
using LiveEntries = std::shared_ptr<const std::vector<std::shared_ptr<const ManifestEntry>>>;

class LiveFilesCache {
 public:
  static LiveFilesCache& Global();

  // The live entries of `snapshot` of the table `snapshots` manages (as ReadLiveEntries, with its
  // row-count check).
  Result<LiveEntries> Read(const ManifestFile& manifests, const SnapshotManager& snapshots,
                           const Snapshot& snapshot);

  // Read without the full read: the live set of `snapshot` when the table's cached one is that
  // snapshot's, or an earlier one it advances from (a commit of this process calls it, so that
  // the next query finds the new set ready). Null for a table whose live set nobody read, or one
  // too far behind. An error changes nothing: the next Read advances or reads in full.
  Result<LiveEntries> AdvanceIfCached(const ManifestFile& manifests,
                                      const SnapshotManager& snapshots, const Snapshot& snapshot);

  struct Counters {
    int64_t hits = 0;        // the cached snapshot itself
    int64_t advanced = 0;    // a newer snapshot, from the cached one and the deltas between
    int64_t full_reads = 0;  // every manifest decoded
  };
  Counters counters() const;
  void Clear();

  // Tables kept (least recently used dropped first), and the longest run of snapshots advanced
  // through rather than read in full.
  static constexpr size_t kMaxTables = 64;
  static constexpr int64_t kMaxAdvance = 64;

 private:
  struct Entry {
    int64_t snapshot_id = 0;
    std::string base_list, delta_list;  // the snapshot's identity
    LiveEntries live;
    // Per live entry, FileNameHash of its file name; and the rows of all: an advance by a small
    // delta reads these, not every entry of a large live set. Null after a full read until the
    // first advance computes them.
    std::shared_ptr<const std::vector<uint64_t>> name_hashes;
    int64_t rows = 0;
    // The table's newest entry before this one (itself without `older`): a query that resolved
    // the latest snapshot just before a commit of this process advanced the cache still finds
    // its live set here instead of decoding every manifest again.
    std::shared_ptr<const Entry> older;

    bool Is(const Snapshot& snapshot) const;
  };
  void Store(const std::string& table, std::shared_ptr<Entry> entry);
  // The entry of `snapshot` from `cached` and the deltas of the snapshots after it; nullptr when
  // the chain cannot be followed (a snapshot expired, the cached one was replaced).
  Result<std::shared_ptr<Entry>> Advance(const ManifestFile& manifests,
                                         const SnapshotManager& snapshots, const Entry& cached,
                                         const Snapshot& snapshot);
  void Count(int64_t Counters::*counter);

  LruCache<std::shared_ptr<const Entry>> tables_;  // cost 1 per table
  mutable std::mutex mu_;                          // counters_
  Counters counters_;
};

// Checks that the live files of `snapshot` hold its `totalRecordCount` (Corruption otherwise).
Status CheckLiveRowCount(const Snapshot& snapshot, const std::vector<ManifestEntry>& live);
// The same for a row total summed by the caller.
Status CheckLiveRows(const Snapshot& snapshot, int64_t rows);

}  // namespace freshet::meta
