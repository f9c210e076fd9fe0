// SnapshotManager: finds, reads and publishes the snapshots of one table (or branch).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::meta {

class SnapshotManager {
 public:
  SnapshotManager(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  std::string SnapshotDirectory() const;
  std::string SnapshotPath(int64_t id) const;

  // The newest snapshot id, or nullopt for a table without snapshots. Trusts the LATEST hint only
  // if the snapshot after it does not exist (hints may be stale or missing), as Java does; a hint
  // up to kHintProbes behind is followed forward snapshot by snapshot, where Java lists. When
  // the hinted snapshot is missing and did not expire (a newer one exists, no older one is
  // retained), Corruption naming its file: the newest snapshot was lost (docs/expiration.md).
  Result<std::optional<int64_t>> LatestSnapshotId() const;
  // The oldest snapshot id still present (EARLIEST hint, when that snapshot exists; without a
  // hint, the first id when it exists).
  Result<std::optional<int64_t>> EarliestSnapshotId() const;
  // Every snapshot id present, ascending. Names that are not `snapshot-<number>` are ignored.
  Result<std::vector<int64_t>> ListSnapshotIds() const;

  // NotFound (naming the table and id) when the snapshot does not exist.
  Result<Snapshot> ReadSnapshot(int64_t id) const;
  // The same without a copy: the parse is shared while the file holds the same bytes.
  Result<std::shared_ptr<const Snapshot>> ReadSnapshotShared(int64_t id) const;
  Result<std::optional<Snapshot>> LatestSnapshot() const;
  // The same without a copy (null when there is none): ReadSnapshotShared's object. While the
  // snapshot directory is unchanged (io::FileVersion), the answer of the last resolution.
  Result<std::shared_ptr<const Snapshot>> LatestSnapshotShared() const;
  // The newest snapshot whose commit time is <= `time_millis`, if any.
  Result<std::optional<Snapshot>> SnapshotAtOrBefore(int64_t time_millis) const;

  // Publishes `snapshot` under its id if no snapshot with that id exists; returns false when
  // another committer took the id first. Updates the LATEST hint after a successful publish.
  Result<bool> TryPublish(const Snapshot& snapshot) const;
  Status WriteEarliestHint(int64_t id) const;

  const std::string& table_path() const { return table_path_; }
  const std::shared_ptr<io::FileIO>& file_io() const { return file_io_; }

 private:
  // How far past a stale LATEST hint snapshots are probed one by one before listing them all.
  static constexpr int64_t kHintProbes = 16;
  // Snapshot ids start here (Java's Snapshot.FIRST_SNAPSHOT_ID).
  static constexpr int64_t kFirstSnapshotId = 1;

  Result<std::optional<int64_t>> ReadHint(const char* name) const;
  // LatestSnapshotShared from the files: the LATEST hint, the next snapshot, the listing.
  Result<std::shared_ptr<const Snapshot>> ResolveLatestSnapshot() const;
  Status CheckHintedSnapshotExpired(int64_t hinted, const std::vector<int64_t>& ids) const;
  Result<bool> IsRetained(int64_t id) const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
};

// Parses the numeric suffix of `prefix<number>` names (snapshot-12, schema-3); nullopt otherwise.
std::optional<int64_t> ParseNumberedName(std::string_view name, std::string_view prefix);

}  // namespace freshet::meta
