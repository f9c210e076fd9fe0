// Java Paimon's default bucket function for fixed-bucket tables.
//
// bucket = abs(hash(bucket-key BinaryRow) % N), where the hash is MurmurHash3 x86_32 (seed 42)
// over the row bytes as little-endian 4-byte words, and % is Java's truncating remainder.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "meta/row/binary_row.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

inline constexpr int32_t kBinaryRowHashSeed = 42;

// MurmurHash3 x86_32 over whole 4-byte words (Java MurmurHashUtils.hashBytesByWords).
// Precondition: bytes.size() is a multiple of 4 (BinaryRow sizes always are).
int32_t MurmurHashWords(std::string_view bytes, int32_t seed = kBinaryRowHashSeed);

// Java BinaryRow.hashCode().
inline int32_t HashBinaryRow(const BinaryRow& row) { return MurmurHashWords(row.bytes()); }

// abs(hash % num_buckets) with Java semantics. Precondition: num_buckets >= 1.
int32_t BucketFromHash(int32_t hash, int32_t num_buckets);

// Bucket of a bucket-key row; fails unless num_buckets >= 1.
Result<int32_t> BucketOf(const BinaryRow& bucket_key_row, int32_t num_buckets);

// The bucket-key BinaryRow of `key_values`, typed by the bucket-key fields.
Result<BinaryRow> BuildBucketKeyRow(const std::vector<DataField>& key_fields,
                                    const std::vector<Value>& key_values);

// The bucket-key row of a full table row (`row_values` in schema field order).
Result<BinaryRow> BucketKeyRowOf(const TableSchema& schema, const std::vector<Value>& row_values);

}  // namespace freshet::meta
