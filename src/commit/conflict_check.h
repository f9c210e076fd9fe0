// Conflict checks of a commit that deletes files (a compaction, Java's COMPACT snapshot), as
// Java's ConflictDetection makes them against the latest snapshot before publishing:
// - every file the commit deletes is still live (no other committer removed it meanwhile);
// - the commit neither adds a live file again nor adds and deletes the same file;
// - for primary-key tables, the files of each level >= 1 of a partition-bucket keep disjoint key
//   ranges once the commit is applied (an LSM level is one sorted run).
// A conflict is Status::Conflict naming the file; the committer then gives up (no retry can
// help: the compaction must be planned again on the new files).
#pragma once

#include <string>
#include <vector>

#include "freshet/status.h"
#include "meta/manifest/manifest.h"
#include "meta/types/data_type.h"

namespace freshet::commit {

// `live`: the live entries of the snapshot the commit builds on; `delta`: the commit's entries.
// `key_types`: the trimmed primary key's types, empty for tables without a primary key.
Status CheckNoConflicts(const std::vector<meta::ManifestEntry>& live,
                        const std::vector<meta::ManifestEntry>& delta,
                        const std::vector<meta::DataTypePtr>& key_types);

}  // namespace freshet::commit
