// The changelog of a compaction into the highest level, as Java's
// FullChangelogMergeFunctionWrapper produces it for `changelog-producer` = full-compaction
// (docs/streaming-reads.md, "Changelog producers").
//
// Only full compactions (and the universal strategy's compactions into the highest level) write
// that level, so a key's record there is what the previous full compaction, and the changelog
// up to it, said of the key. The new merged record is compared with it:
//   no old record, a new one that adds         +I new
//   an old record, a new one that retracts     -D old
//   an old record, a new one that adds         -U old, +U new (nothing when
//                                              `changelog-producer.row-deduplicate` finds the
//                                              values equal, ignoring the ...-ignore-fields)
//   the old record itself (the key had no other version)   nothing
// Java compares inside the merge, per key; freshet joins the merged records with the old
// top-level records by key, which gives the same result except when the merge elects the old
// record among several versions (a `sequence.field` ordering it last): Java then writes -U/+U of
// equal values, freshet nothing.
#pragma once

#include <memory>
#include <optional>

#include "freshet/result.h"
#include "freshet/row_kind.h"
#include "mergetree/key_value.h"
#include "mergetree/row_comparator.h"
#include "mergetree/sort_merge_reader.h"
#include "meta/schema/table_schema.h"
#include "write/key_value_file_writer.h"

namespace freshet::compact {

// What full-compaction changelog needs of a table, made once per compactor.
class FullChangelogRules {
 public:
  // Errors: `changelog-producer.row-deduplicate-ignore-fields` naming a missing column; value
  // columns of nested types with row-deduplicate (freshet cannot compare them yet).
  static Result<FullChangelogRules> Make(const meta::TableSchema& schema,
                                         const mergetree::MergeLayout& layout);

  int CompareKeys(const mergetree::KeyValueRef& a, const mergetree::KeyValueRef& b) const {
    return keys_.Compare(a, b);
  }
  // Whether -U/+U of `before` and `after` are left out (row-deduplicate and equal values).
  bool SameValues(const mergetree::KeyValueRef& before, const mergetree::KeyValueRef& after) const {
    return values_ && values_->Compare(before, after) == 0;
  }
  const mergetree::MergeLayout& layout() const { return *layout_; }

 private:
  FullChangelogRules(const mergetree::MergeLayout* layout, mergetree::RowComparator keys)
      : layout_(layout), keys_(std::move(keys)) {}

  const mergetree::MergeLayout* layout_;
  mergetree::RowComparator keys_;
  std::optional<mergetree::RowComparator> values_;  // row-deduplicate only
};

// Joins one compaction's merged records with the records its input held at the highest level.
class FullChangelogJoin {
 public:
  // `old_top`: the input's highest-level records in key order (null when it has none); `out`
  // receives the changelog. Both must outlive the join.
  FullChangelogJoin(const FullChangelogRules* rules,
                    std::unique_ptr<mergetree::MergeBatchReader> old_top,
                    write::KeyValueFileWriter* out);

  // The next merged records, in key order, retracts included.
  Status Add(const std::shared_ptr<mergetree::MergeBatch>& merged);
  // Old records no merged record matched are deleted; writes what is left.
  Status Finish();

 private:
  // The current old record, reading the next batch when needed; nullopt at the end.
  Result<std::optional<mergetree::KeyValueRef>> Old();
  Status Emit(const mergetree::KeyValueRef& record, RowKind kind);
  Status FlushBuilder();

  const FullChangelogRules* rules_;
  std::unique_ptr<mergetree::MergeBatchReader> old_top_;
  std::shared_ptr<mergetree::MergeBatch> old_batch_;
  int64_t old_row_ = 0;
  write::KeyValueFileWriter* out_;
  mergetree::MergeBatchBuilder builder_;
};

}  // namespace freshet::compact
