// SnapshotExpiration: removes old snapshots and the files only they reference, as Java Paimon
// does after each commit (`snapshot.num-retained.min/max`, `snapshot.time-retained`,
// `snapshot.expire.limit`; Java: SnapshotDeletion/ExpireSnapshotsImpl). See docs/expiration.md for
// the deletion order and why a failure at any point never harms a retained snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "commit/changelog_expiration.h"
#include "io/file_io.h"
#include "meta/options/core_options.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::commit {

namespace internal {
class CachedReader;
}  // namespace internal

struct ExpireConfig {
  int32_t retain_min = 10;
  int32_t retain_max = 2147483647;
  int64_t time_retained_ms = 3600LL * 1000;
  int32_t max_deletes = 50;  // snapshots expired per run at most

  static ExpireConfig FromOptions(const meta::CoreOptions& options);
};

struct ExpireResult {
  int64_t expired_snapshots = 0;
  int64_t deleted_files = 0;        // data, changelog, index, manifest and list files
  std::optional<int64_t> earliest;  // the EARLIEST hint written, if any
  int64_t expired_changelogs = 0;   // long-lived changelogs (commit/changelog_expiration.h)
};

class SnapshotExpiration {
 public:
  SnapshotExpiration(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                     meta::TableSchema schema, ExpireConfig config);

  // Expires what the retention rules allow at `now_millis` (snapshots older than
  // now - time_retained). Any error stops the run before a snapshot file is deleted unless all
  // files it alone referenced are gone already; a later run finishes the job.
  Result<ExpireResult> Expire(int64_t now_millis);

  // After the tag of an expired snapshot was deleted: deletes the files only `tagged` referenced
  // (its data, index and changelog files, manifests and manifest lists), keeping everything the
  // snapshots and the remaining tags reference (Java's TagDeletion). Nothing when the snapshot is
  // still in snapshot/. Returns the number of files deleted.
  Result<int64_t> DeleteFilesOfDeletedTag(const meta::Snapshot& tagged);

 private:
  struct Plan;
  // First snapshot id to keep; ids in [earliest, result) are expired.
  Result<int64_t> FirstRetained(int64_t earliest, int64_t latest, int64_t now_millis) const;
  Status CollectRetained(int64_t first_retained, int64_t latest, Plan* plan) const;
  Status CollectExpired(int64_t earliest, int64_t first_retained, Plan* plan) const;
  // The files, manifests and lists snapshot `s` references, as deletion candidates.
  Status CollectFilesOf(const meta::Snapshot& s, const meta::DataFilePaths& paths,
                        internal::CachedReader& reader, Plan* plan) const;
  Status DeleteAll(const Plan& plan, ExpireResult* result) const;
  Status ExpireSnapshots(int64_t now_millis, ExpireResult* result);

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  meta::TableSchema schema_;
  ExpireConfig config_;
  ChangelogRetention retention_;
};

}  // namespace freshet::commit
