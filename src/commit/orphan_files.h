// OrphanFilesClean: finds and removes the files under a table directory that no snapshot, tag or
// changelog references (left by crashed writers, failed commits or compactions, interrupted
// expirations). Facts from Java Paimon's OrphanFilesClean / LocalOrphanFilesClean: candidates
// are the old-enough files of the manifest, index and statistics directories and of the bucket
// directories; they are listed first, and only then are the snapshots read, so a file a
// concurrent commit publishes is either referenced or younger than the cut-off. Files are
// compared by name, as Java does. See docs/expiration.md, "Orphan files".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/schema/table_schema.h"

namespace freshet::commit {

struct OrphanCleanOptions {
  // Only files last modified strictly before this time (ms since the epoch) are candidates.
  int64_t older_than_millis = 0;
  bool dry_run = false;  // list only
};

struct OrphanFile {
  std::string path;  // relative to the table directory
  int64_t size = 0;
  int64_t modification_time_ms = 0;
};

struct OrphanCleanResult {
  std::vector<OrphanFile> files;  // removed (or, dry run, to be removed), sorted by path
  int64_t total_bytes = 0;
};

// Lists the candidates, reads every snapshot, tag and changelog (strictly: an unreadable file
// aborts before anything is deleted), and deletes the candidates nothing references. NotFound
// for a snapshot file, or for the metadata of a snapshot older than the latest one, skips that
// snapshot (a concurrent expiration removes it); for the latest snapshot or a tag it is an error.
// NotImplemented for a table with branches (their snapshots share the bucket directories).
Result<OrphanCleanResult> RemoveOrphanFiles(std::shared_ptr<io::FileIO> file_io,
                                            const std::string& table_path,
                                            const meta::TableSchema& schema,
                                            const OrphanCleanOptions& options);

}  // namespace freshet::commit
