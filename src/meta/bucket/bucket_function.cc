#include "meta/bucket/bucket_function.h"

#include <cstdlib>
#include <cstring>

namespace freshet::meta {

namespace {

constexpr uint32_t kC1 = 0xcc9e2d51;
constexpr uint32_t kC2 = 0x1b873593;

uint32_t RotateLeft(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t MixK1(uint32_t k1) { return RotateLeft(k1 * kC1, 15) * kC2; }

uint32_t MixH1(uint32_t h1, uint32_t k1) { return RotateLeft(h1 ^ k1, 13) * 5 + 0xe6546b64; }

uint32_t FinalMix(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6b;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35;
  h1 ^= h1 >> 16;
  return h1;
}

}  // namespace

int32_t MurmurHashWords(std::string_view bytes, int32_t seed) {
  uint32_t h1 = static_cast<uint32_t>(seed);
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint32_t word;
    std::memcpy(&word, bytes.data() + i, sizeof(word));  // little-endian, like Java's Unsafe
    h1 = MixH1(h1, MixK1(word));
  }
  return static_cast<int32_t>(FinalMix(h1, static_cast<uint32_t>(bytes.size())));
}

int32_t BucketFromHash(int32_t hash, int32_t num_buckets) {
  // C++ % truncates like Java's; the remainder's magnitude is < num_buckets, so abs is safe.
  return std::abs(hash % num_buckets);
}

Result<int32_t> BucketOf(const BinaryRow& bucket_key_row, int32_t num_buckets) {
  if (num_buckets < 1) {
    return Status::Invalid("the bucket function needs at least one bucket, got ", num_buckets);
  }
  return BucketFromHash(HashBinaryRow(bucket_key_row), num_buckets);
}

Result<BinaryRow> BuildBucketKeyRow(const std::vector<DataField>& key_fields,
                                    const std::vector<Value>& key_values) {
  auto row = BuildBinaryRow(key_fields, key_values);
  if (!row.ok()) return row.status().WithContext("bucket key");
  return row;
}

Result<BinaryRow> BucketKeyRowOf(const TableSchema& schema, const std::vector<Value>& row_values) {
  if (row_values.size() != schema.fields().size()) {
    return Status::Invalid("the table has ", schema.fields().size(), " fields, got ",
                           row_values.size(), " values");
  }
  std::vector<DataField> key_fields;
  std::vector<Value> key_values;
  for (const std::string& key : schema.BucketKeys()) {
    int index = schema.FieldIndex(key);
    if (index < 0) return Status::Invalid("bucket-key column '", key, "' is not a field");
    key_fields.push_back(schema.fields()[index]);
    key_values.push_back(row_values[index]);
  }
  return BuildBucketKeyRow(key_fields, key_values);
}

}  // namespace freshet::meta
