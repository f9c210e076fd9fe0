// The index manifest of a new snapshot. Unlike data manifests it lists every live index file
// (deletion vectors, hash index) and is rewritten whenever a commit changes one, as Java's
// IndexManifestFileHandler does.
#pragma once

#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"

namespace freshet::commit {

// The live entries after `changes` (ADD and DELETE entries) are applied to `previous` (the
// previous snapshot's index manifest, all ADD):
// - hash index files and the deletion vectors of bucketed tables: one file per partition,
//   bucket and index type, so an ADD replaces the bucket's previous file and a DELETE removes
//   it (deletes first);
// - the deletion vectors of unaware-bucket tables, and other index types: by file name. Adding a
//   file twice, deleting a missing one or covering a data file by two deletion-vector files is
//   refused (Invalid), as Java refuses it.
Result<std::vector<meta::IndexManifestEntry>> ApplyIndexChanges(
    std::vector<meta::IndexManifestEntry> previous,
    const std::vector<meta::IndexManifestEntry>& changes, bool unaware_bucket);

}  // namespace freshet::commit
