// CommitMessage: what a writer hands to the committer for one partition-bucket.
#pragma once

#include <cstdint>
#include <optional>
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
  // Real-time layer: the half-open offset range [begin, end) of the rows in new_files.
  std::optional<std::pair<int64_t, int64_t>> offset_range;

  bool IsEmpty() const {
    return new_files.empty() && compact_before.empty() && compact_after.empty();
  }
};

}  // namespace freshet::meta
