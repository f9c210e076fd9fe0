// Long-lived changelog files `<table>/changelog/changelog-<id>` (Java's ChangelogManager): the
// snapshot JSON of an expired snapshot whose changelog the table retains longer than its
// snapshots (commit/changelog_expiration.h), with `LATEST` / `EARLIEST` hints beside them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::meta {

std::string LongLivedChangelogPath(const std::string& table_path, int64_t id);

// Writes `snapshot` as its long-lived changelog and moves the LATEST hint to it.
Status WriteLongLivedChangelog(io::FileIO& file_io, const std::string& table_path,
                               const Snapshot& snapshot);

// The long-lived changelog of snapshot `id`, if it exists.
Result<std::optional<Snapshot>> ReadLongLivedChangelog(io::FileIO& file_io,
                                                       const std::string& table_path, int64_t id);

// Ids of the long-lived changelogs, ascending.
Result<std::vector<int64_t>> LongLivedChangelogIds(io::FileIO& file_io,
                                                   const std::string& table_path);

Status WriteLongLivedChangelogEarliestHint(io::FileIO& file_io, const std::string& table_path,
                                           int64_t id);

}  // namespace freshet::meta
