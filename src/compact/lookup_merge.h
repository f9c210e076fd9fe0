// The merge-on-write step of a deletion-vector compaction (Java's LookupMergeTreeCompactRewriter
// with LookupChangelogMergeFunctionWrapper): the records a compaction merged from level-0 files
// are merged once more with the live older version of each key found in the levels above the
// output level, and that older version's row is marked deleted in its file's deletion vector.
// The older version is the oldest input of the merge (partial-update and aggregation build on
// its value; deduplicate keeps the newest; `sequence.field` orders them as usual).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compact/bucket_deletion_vectors.h"
#include "compact/lookup_levels.h"
#include "freshet/result.h"
#include "mergetree/key_value.h"
#include "read/primary_key_read.h"

namespace freshet::compact {

struct LookupMergeContext {
  const read::PrimaryKeyReadPlan* plan = nullptr;
  LookupLevels* lookup = nullptr;
  std::string partition;
  int32_t bucket = 0;
  const std::vector<std::vector<meta::DataFileMeta>>* upper_levels = nullptr;
  BucketDeletionVectors* deletion_vectors = nullptr;
};

// `merged`: records of the compaction, one per key, sorted by key. Returns them merged with
// their older versions (the same batch when no key has one). With `mark_only`, only marks the
// older versions deleted and returns `merged` (an upgraded deduplicate file: its records win).
Result<std::shared_ptr<mergetree::MergeBatch>> MergeWithOlderVersions(
    const LookupMergeContext& context, const std::shared_ptr<mergetree::MergeBatch>& merged,
    bool mark_only);

}  // namespace freshet::compact
