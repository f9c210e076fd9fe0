// CommitMessage: what a writer hands to the committer for one partition-bucket (Java's
// CommitMessageImpl with its DataIncrement and CompactIncrement).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meta/manifest/manifest.h"

namespace freshet::meta {

// Index files (deletion vectors, hash index) a commit adds or removes for one partition-bucket.
// `kind`, `partition` and `bucket` of the entries are ignored: the committer takes them from the
// message and from the list an entry is in.
struct IndexIncrement {
  std::vector<IndexManifestEntry> added;
  std::vector<IndexManifestEntry> deleted;

  bool empty() const { return added.empty() && deleted.empty(); }
};

struct CommitMessage {
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = -1;

  // The APPEND (or OVERWRITE) snapshot: new data files, the changelog files written beside them
  // (`changelog-producer` = input) and index files (e.g. the hash index of dynamic buckets).
  std::vector<DataFileMeta> new_files;
  std::vector<DataFileMeta> changelog_files;
  IndexIncrement index_files;

  // The COMPACT snapshot: files a compaction replaced (DELETE entries) and wrote (ADD), the
  // changelog it produced (`lookup`, `full-compaction`) and its index files (deletion vectors).
  std::vector<DataFileMeta> compact_before;
  std::vector<DataFileMeta> compact_after;
  std::vector<DataFileMeta> compact_changelog_files;
  IndexIncrement compact_index_files;

  bool HasAppendPart() const {
    return !new_files.empty() || !changelog_files.empty() || !index_files.empty();
  }
  bool HasCompactPart() const {
    return !compact_before.empty() || !compact_after.empty() || !compact_changelog_files.empty() ||
           !compact_index_files.empty();
  }
  bool IsEmpty() const { return !HasAppendPart() && !HasCompactPart(); }
};

}  // namespace freshet::meta
