// Row routing: the partition and bucket of every row of an Arrow batch, as Java Paimon computes
// them, and the rows grouped by (partition, bucket) — one group per data file writer.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "meta/row/binary_row.h"
#include "meta/schema/table_schema.h"

namespace freshet::write {

// The rows of one (partition, bucket), in batch order.
struct RowGroup {
  meta::BinaryRow partition;  // SerializeBinaryRow() gives the manifest form
  int32_t bucket = 0;
  std::vector<int64_t> rows;

  // `rows` as runs of consecutive rows, half-open [first, second), in order.
  std::vector<std::pair<int64_t, int64_t>> Runs() const;
};

// Per-row routing of one batch. Distinct partitions are numbered in order of first appearance.
struct RowKeys {
  std::vector<meta::BinaryRow> partitions;  // distinct partition rows
  std::vector<int32_t> partition_of_row;    // index into `partitions`, one per row
  std::vector<int32_t> bucket_of_row;       // one per row
  // Dynamic bucket mode (RowKeyExtractor::Make with `key_hashes`): Java's hash of each row's
  // trimmed primary key; `bucket_of_row` is then -1 until a bucket assigner fills it in.
  std::vector<int32_t> key_hash_of_row;

  // Rows grouped by (partition, bucket), groups in order of their first row.
  std::vector<RowGroup> Groups() const;
  // Whether every row goes to one partition-bucket (the common case, routed without Groups()).
  bool SingleGroup() const;
};

// Computes row keys for batches in a table's Arrow schema (ToArrowSchema(schema.fields())).
// Build once per table schema and reuse for every batch.
class RowKeyExtractor {
 public:
  // Fails for bucket modes freshet cannot route: a fixed-bucket table without bucket keys, a
  // primary-key table in dynamic bucket mode (bucket = -1) unless `key_hashes`, or other negative
  // bucket numbers. Append tables with bucket = -1 put every row in bucket 0, as Java does.
  // `key_hashes`: for dynamic-bucket primary-key tables, whose buckets come from the table's hash
  // index (write/dynamic_bucket_assigner.h), Extract() gives the key hashes instead of buckets.
  static Result<RowKeyExtractor> Make(const meta::TableSchema& schema, bool key_hashes = false);

  // Errors: the batch's columns (names, count or Arrow types) differ from the table's, or a
  // primary-key column holds a null (message names the column and the row).
  Result<RowKeys> Extract(const arrow::RecordBatch& batch) const;

  // Shortcut for Extract(batch)->Groups().
  Result<std::vector<RowGroup>> Group(const arrow::RecordBatch& batch) const;

  // Whether every row of every batch goes to one partition-bucket (the empty partition, bucket
  // 0): no partition keys, and a bucket-unaware append table or one fixed bucket. Such batches
  // need only Check, not per-row keys.
  bool OneGroupForEveryRow() const {
    return partition_.indices.empty() && !dynamic_ && num_buckets_ <= 1;
  }
  // Extract's checks alone (the same errors).
  Status Check(const arrow::RecordBatch& batch) const;

  // Writes field `pos` of a BinaryRow from element `row` of an Arrow array (no Value in between).
  using FieldWriter = std::function<void(meta::BinaryRowWriter*, int32_t pos, int64_t row)>;

 private:
  struct KeyColumns {
    std::vector<int> indices;  // into the table's fields
    std::vector<meta::DataField> fields;
  };

  RowKeyExtractor() = default;
  Status CheckBatch(const arrow::RecordBatch& batch) const;
  Status CheckPrimaryKeysNotNull(const arrow::RecordBatch& batch) const;
  Result<std::vector<FieldWriter>> MakeWriters(const KeyColumns& keys,
                                               const arrow::RecordBatch& batch) const;
  Status ComputePartitions(const arrow::RecordBatch& batch, RowKeys* keys) const;
  Status ComputeBuckets(const arrow::RecordBatch& batch, RowKeys* keys) const;
  // The BinaryRow hash of `columns` for every row.
  Result<std::vector<int32_t>> HashRows(const KeyColumns& columns,
                                        const arrow::RecordBatch& batch) const;

  std::vector<meta::DataField> fields_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  KeyColumns partition_;
  KeyColumns bucket_key_;
  std::vector<int> primary_key_indices_;
  int32_t num_buckets_ = -1;  // -1: every row in bucket 0
  bool dynamic_ = false;      // bucket_key_ holds the trimmed primary key, hashed per row
};

}  // namespace freshet::write
