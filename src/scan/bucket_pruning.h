// Bucket pruning (Java's BucketSelector): when a predicate pins every bucket-key column of a
// fixed-bucket table to a few values (`k = v`, `k IN (...)`, under a top-level AND), a matching
// row can only be in the buckets those values hash to, so the scan skips the other buckets'
// files before looking at their statistics.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "meta/row/binary_row.h"
#include "meta/schema/table_schema.h"
#include "scan/predicate.h"

namespace freshet::scan {

class BucketSelection {
 public:
  // nullopt when the predicate does not pin the bucket keys (or pins them to more than
  // kMaxRows combinations), or the table has no fixed buckets with Java's default function.
  static std::optional<BucketSelection> Make(const Predicate& predicate,
                                             const meta::TableSchema& schema);

  // Move-only: `last_` points into by_total_, whose nodes a move keeps and a copy would not.
  BucketSelection(BucketSelection&&) = default;
  BucketSelection& operator=(BucketSelection&&) = default;
  BucketSelection(const BucketSelection&) = delete;
  BucketSelection& operator=(const BucketSelection&) = delete;

  // Whether rows the predicate matches may be in `bucket` of a layout of `total_buckets`.
  // Planning asks once per live file, nearly always of the layout asked last: when that one
  // selects a single bucket, the answer is a compare, inline.
  bool Selects(int32_t bucket, int32_t total_buckets) {
    if (total_buckets == last_total_ && last_single_ >= 0) return bucket == last_single_;
    return SelectsOther(bucket, total_buckets);
  }

  static constexpr size_t kMaxRows = 1000;

 private:
  std::vector<meta::BinaryRow> rows_;              // the bucket-key rows the predicate allows
  std::map<int32_t, std::set<int32_t>> by_total_;  // their buckets, per bucket count seen
  BucketSelection() = default;
  bool SelectsOther(int32_t bucket, int32_t total_buckets);

  int32_t last_total_ = 0;                   // the bucket count asked last (0: none)
  const std::set<int32_t>* last_ = nullptr;  // its entry of by_total_
  int32_t last_single_ = -1;                 // its only bucket, or -1
};

}  // namespace freshet::scan
