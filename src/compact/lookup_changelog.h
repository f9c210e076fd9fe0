// LookupKeyMerger: how a compaction of a lookup table merges each key when level-0 records go
// up a level, as Java's LookupChangelogMergeFunctionWrapper (and FirstRowMergeFunctionWrapper
// for first-row) does. Lookup tables: `changelog-producer` = lookup, deletion vectors,
// `force-lookup`, first-row (docs/compaction.md, "Lookup compaction").
//
// Every record above level 0 holds the whole merge of its key up to it, so a key's merge takes
// its level-0 (and lower) records and only one older record: the one of the lowest level among
// the compaction's inputs, or else the live one found in the levels above the output level
// (LookupLevels). With deletion vectors, a found record is marked deleted in its file.
// The changelog compares that older record ("before") with the merged one ("after"), for keys
// with a level-0 record only:
//   no before (or a retract), an after that adds    +I after
//   a before that adds, no after or a retract        -D before
//   both add                                         -U before, +U after (nothing when
//                                                    `changelog-producer.row-deduplicate`
//                                                    finds the values equal)
// first-row: a key found above the output level is dropped (its first row is already there);
// otherwise the first row is kept, and is a +I when the inputs had no record above level 0.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compact/bucket_deletion_vectors.h"
#include "compact/full_changelog.h"
#include "compact/lookup_levels.h"
#include "compact/lookup_merge.h"
#include "freshet/result.h"
#include "mergetree/key_value.h"
#include "mergetree/merge_function.h"
#include "mergetree/row_comparator.h"
#include "mergetree/sort_merge_reader.h"
#include "read/primary_key_read.h"

namespace freshet::compact {

struct LookupKeyMergerContext {
  // Where older versions are looked up (a null lookup or no upper levels: nothing is), and the
  // deletion vectors a found one is marked in (deletion-vector tables only).
  LookupMergeContext levels;
  // Null: no changelog (only the merge). Must outlive the merger.
  const FullChangelogRules* changelog_rules = nullptr;
  bool first_row = false;  // merge-engine = first-row
};

class LookupKeyMerger : public mergetree::KeyMerger {
 public:
  static Result<std::unique_ptr<LookupKeyMerger>> Make(LookupKeyMergerContext context);
  ~LookupKeyMerger() override;

  Status Merge(const std::vector<mergetree::KeyValueRef>& versions,
               const std::vector<int32_t>& levels, mergetree::MergeBatchBuilder* out) override;

  // The changelog of the keys merged since the last call into `changelog`. `merged`: the batch
  // the merge returned for those keys (null when they left no record, e.g. at the end).
  Status TakeChangelog(const mergetree::MergeBatch* merged,
                       mergetree::MergeBatchBuilder* changelog);

 private:
  // A key with a level-0 record: its row in the merged batch and its older version's row in
  // befores_ (-1 when there is none).
  struct Entry {
    int64_t merged_row = -1;
    int64_t before_row = -1;
  };

  explicit LookupKeyMerger(LookupKeyMergerContext context);
  Result<std::optional<LookupHit>> LookUp(const mergetree::KeyValueRef& key);
  Status MergeFirstRow(const std::vector<mergetree::KeyValueRef>& versions,
                       const std::vector<int32_t>& levels, bool has_level0,
                       mergetree::MergeBatchBuilder* out);
  // Inserts an older version found by lookup into inputs_, in merge order.
  void InsertInOrder(const mergetree::KeyValueRef& older);

  LookupKeyMergerContext context_;
  std::unique_ptr<mergetree::MergeFunction> merge_;
  std::optional<mergetree::RowComparator> user_sequence_;
  std::vector<mergetree::KeyValueRef> inputs_;
  mergetree::MergeBatchBuilder befores_;
  std::vector<Entry> entries_;
};

}  // namespace freshet::compact
