// Long-lived changelog (docs/expiration.md, "Changelog retention"), as Java's ChangelogManager and
// ExpireChangelogImpl keep it.
//
// Changelog files expire with their snapshot, unless the table retains changelog longer than
// snapshots (`changelog.num-retained.min/max` or `changelog.time-retained` above their
// `snapshot.*` twins: Java's changelogLifecycleDecoupled). Then snapshot expiration keeps an
// expired snapshot's changelog manifest list, its manifests and files, and writes the snapshot as
// `changelog/changelog-<id>` (with the `changelog/LATEST` hint); changelog expiration later
// removes those beyond the changelog retention (with the `changelog/EARLIEST` hint).
//
// freshet decouples tables with a changelog producer only: Java also keeps the APPEND files
// and delta manifest lists of tables without one (their changelog is their delta), freshet expires
// those with their snapshots.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "io/file_io.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::commit {

struct ChangelogRetention {
  int32_t retain_min = 10;
  int32_t retain_max = 2147483647;
  int64_t time_retained_ms = 3600LL * 1000;
  int32_t max_deletes = 50;  // snapshot.expire.limit, as Java's
  // Changelog outlives snapshots: changelog/ files are written and expired separately.
  bool decoupled = false;

  // From the table options (the changelog.* options fall back to their snapshot.* twins).
  static Result<ChangelogRetention> FromSchema(const meta::TableSchema& schema);
};

class ChangelogExpiration {
 public:
  ChangelogExpiration(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                      meta::TableSchema schema, ChangelogRetention retention);

  // Expires the long-lived changelogs the retention allows at `now_millis`; returns how many.
  Result<int64_t> Expire(int64_t now_millis);

 private:
  // Deletes changelogs [earliest, end_exclusive): their changelog files, manifests and list,
  // then the changelog file itself, oldest first.
  Result<int64_t> ExpireUntil(int64_t earliest, int64_t end_exclusive);

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  meta::TableSchema schema_;
  ChangelogRetention retention_;
};

}  // namespace freshet::commit
