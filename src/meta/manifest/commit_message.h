// CommitMessage: what a writer hands to the committer for one partition-bucket.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meta/manifest/manifest.h"

namespace freshet::meta {

struct CommitMessage {
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = -1;
  std::vector<DataFileMeta> new_files;
  // Files a compaction replaced (DELETE entries); empty for plain writes.
  std::vector<DataFileMeta> compact_before;
  std::vector<DataFileMeta> compact_after;

  bool IsEmpty() const {
    return new_files.empty() && compact_before.empty() && compact_after.empty();
  }
};

}  // namespace freshet::meta
