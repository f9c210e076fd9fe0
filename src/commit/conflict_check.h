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

// Deletion vectors of primary-key buckets: a compaction rewrites the bucket's one index file from
// the vectors it started with, so that file must still be the bucket's live one. A commit that
// adds a DELETION_VECTORS file for a bucket must delete exactly the bucket's live one(s) (none
// when it had none), and every file it deletes must be live: otherwise another commit changed
// the bucket's vectors first and this one would lose them (Conflict).
// `live`: the index manifest the commit builds on; `changes`: the commit's index entries.
Status CheckDeletionVectorBase(const std::vector<meta::IndexManifestEntry>& live,
                               const std::vector<meta::IndexManifestEntry>& changes);

}  // namespace freshet::commit
