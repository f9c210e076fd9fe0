// Java Paimon's data-file index (docs/file-index.md): the container that holds one data file's
// column indexes (inlined in the manifest entry's `_EMBEDDED_FILE_INDEX` when small, else the
// `<data file>.index` file listed in `_EXTRA_FILES`), and the `bloom-filter` index in it.
//
// Byte-compatible with Java: freshet builds the same bytes from the same rows (the interop tests
// compare them) and reads what Java wrote. Other index types Java has (bitmap, bsi, range-bitmap)
// are read as "may match" and are not written.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "meta/row/value.h"
#include "meta/schema/table_schema.h"
#include "meta/types/data_type.h"

namespace freshet::meta {

inline constexpr const char* kBloomFilterIndexType = "bloom-filter";
inline constexpr const char* kFileIndexFileSuffix = ".index";

// Java's BloomFilter64: `num_hash_functions` probes of a 64-bit hash (two 32-bit halves combined
// as h1 + i*h2) into a bit set whose size is a multiple of 8.
class BloomFilter64 {
 public:
  // Sized for `items` distinct values at false-positive probability `fpp`, as Java sizes it.
  static BloomFilter64 ForItems(int64_t items, double fpp);
  // Parses the serialized index: 4 bytes big-endian hash-function count, then the bit set.
  static Result<BloomFilter64> Parse(std::string_view serialized);

  void AddHash(int64_t hash);
  bool TestHash(int64_t hash) const;
  std::string Serialize() const;
  // TestHash on a serialized filter in place (no copy of its bits); errors as Parse.
  static Result<bool> TestSerialized(std::string_view serialized, int64_t hash);

  int32_t num_hash_functions() const { return num_hash_functions_; }
  int64_t num_bits() const { return static_cast<int64_t>(bits_.size()) * 8; }

 private:
  BloomFilter64(int32_t num_hash_functions, std::string bits)
      : num_hash_functions_(num_hash_functions), bits_(std::move(bits)) {}

  int32_t num_hash_functions_ = 1;
  std::string bits_;
};

// Java's FastHash of the bloom-filter index: Thomas Wang's 64-bit integer hash for numbers, dates,
// times and timestamps (millis up to precision 3, micros above), xxHash64 (seed 0) of the bytes of
// strings and binaries.
int64_t BloomHashOfLong(int64_t key);
int64_t BloomHashOfBytes(std::string_view bytes);
bool BloomFilterSupports(const DataType& type);
// The hash of a non-null value of `type` (which BloomFilterSupports).
Result<int64_t> BloomHashOf(const Value& value, const DataType& type);

// The indexes a table's options ask for (`file-index.<type>.columns`, per-column options).
struct FileIndexColumn {
  std::string name;
  DataTypePtr type;
  int64_t items = 1'000'000;  // file-index.bloom-filter.<column>.items
  double fpp = 0.1;           // file-index.bloom-filter.<column>.fpp
};
struct FileIndexSpec {
  std::vector<FileIndexColumn> bloom_filter_columns;  // in Java's serialization order
  int64_t in_manifest_threshold = 500;                // file-index.in-manifest-threshold
  bool read_enabled = true;                           // file-index.read.enabled

  bool writes_index() const { return !bloom_filter_columns.empty(); }
  // Parses and checks the options against the schema: an unknown column, a type the index cannot
  // hash or an index type freshet cannot write is an error naming the option.
  static Result<FileIndexSpec> FromSchema(const TableSchema& schema);
};

// One column index in a container.
struct FileIndexEntry {
  std::string column;
  std::string index_type;
  std::optional<std::string> bytes;  // nullopt: Java's "empty index" flag
};

// The container bytes for `entries` (the caller gives them in Java's order, see
// JavaHashMapOrder).
std::string SerializeFileIndex(const std::vector<FileIndexEntry>& entries);

// A parsed container (from the manifest or an index file); hostile bytes give an error, never a
// read out of bounds.
class FileIndexContents {
 public:
  static Result<FileIndexContents> Parse(std::string bytes);

  // The index of `type` on `column`: nullptr when there is none, an empty optional when Java
  // flagged it empty.
  const std::optional<std::string_view>* Find(const std::string& column,
                                              const std::string& type) const;
  std::vector<FileIndexEntry> Entries() const;

 private:
  std::string bytes_;
  std::map<std::pair<std::string, std::string>, std::optional<std::string_view>> indexes_;
};

// The order in which a java.util.HashMap with these String keys, inserted in this order, iterates
// them (bucket of the spread String.hashCode(), then insertion order): Java serializes the file
// index's columns in that order.
std::vector<size_t> JavaHashMapOrder(const std::vector<std::string>& keys);

}  // namespace freshet::meta
