// Which Parquet columns to write without a dictionary, decided from the first values written.
//
// Arrow's Parquet writer tries a dictionary for every column chunk and falls back to PLAIN only
// when the dictionary page outgrows its limit, so a column of mostly distinct values is written
// dictionary-encoded (ids plus a dictionary: more bytes than its plain values) or half and half.
// parquet-mr, which Java Paimon uses, checks after its first page whether the dictionary-encoded
// values plus the dictionary are smaller than the plain values, and writes PLAIN from the start
// when they are not. Such files are smaller, faster to write, and read faster by Java Paimon.
// freshet applies the same test to a sample of the first batch written to a file.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace freshet::format::internal {

// Batches smaller than this keep Arrow's default (too few values to judge).
inline constexpr int64_t kDictionarySampleMinRows = 1024;
// At most this many leading rows of the batch are examined.
inline constexpr int64_t kDictionarySampleMaxRows = 16384;

// Top-level columns of `batch` (by name) whose sampled non-null values encode to no fewer bytes
// with a dictionary (bit-packed ids plus the dictionary) than without: parquet-mr's
// isCompressionSatisfying test. Only flat types are judged (numbers, dates, times, timestamps,
// decimals up to 18 digits, strings, binaries); booleans and nested columns keep the default.
std::vector<std::string> ColumnsADictionaryWouldNotShrink(const arrow::RecordBatch& batch);

}  // namespace freshet::format::internal
