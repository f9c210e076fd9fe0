// DeletionVector: the deleted row positions of one data file, as Java Paimon stores them in a
// deletion-vector index file (`index/index-<uuid>-<n>`, docs/deletion-vectors.md).
//
// Two payload formats exist, told apart by their magic number:
//  - 32-bit (the default): int32 BE magic 1581511376, then a portable 32-bit RoaringBitmap;
//  - 64-bit (`deletion-vectors.bitmap64`): int32 LE magic 1681511377, then an int64 LE count of
//    32-bit bitmaps, each preceded by its int32 LE high key (Iceberg's layout).
// Both decode into the same immutable structure: containers of 2^16 positions, sorted by key, in
// their array, bitmap or run form. Every byte is validated; a hostile payload yields Corruption and
// allocates no more than the payload's own size.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"

namespace freshet::io {
class FileIO;
class RandomAccessFile;
}  // namespace freshet::io

namespace freshet::format {

// Immutable and thread-safe for concurrent const use.
class DeletionVector {
 public:
  // Magic numbers as Java writes them (the 32-bit one big-endian, the 64-bit one little-endian).
  static constexpr int32_t kMagic32 = 1581511376;
  static constexpr int32_t kMagic64 = 1681511377;

  DeletionVector() = default;  // deletes nothing

  // `payload` = magic + bitmap: the `size` bytes that follow the size int in an index file.
  static Result<DeletionVector> Deserialize(std::string_view payload);
  // The bitmaps alone, without magic (also what other engines exchange).
  static Result<DeletionVector> DeserializeRoaring32(std::string_view bitmap);
  static Result<DeletionVector> DeserializeRoaring64(std::string_view bitmap);

  bool IsDeleted(int64_t position) const;
  int64_t cardinality() const { return cardinality_; }
  bool empty() const { return cardinality_ == 0; }
  // Whether this came from the 64-bit payload format.
  bool is_64bit() const { return is_64bit_; }

  // Fills deleted[0, n) with 1 where position start + i is deleted and 0 elsewhere; returns how
  // many were deleted. Costs O(n) for the fill plus O(log containers + deleted) for the lookup.
  int64_t MarkDeleted(int64_t start, int64_t n, uint8_t* deleted) const;
  // Number of deleted positions in [start, start + n), without materializing them.
  int64_t CountDeleted(int64_t start, int64_t n) const;
  // A keep-mask for positions [start, start + n): true = row survives. Ready for
  // arrow::compute::Filter.
  Result<std::shared_ptr<arrow::BooleanArray>> KeepMask(int64_t start, int64_t n) const;

  // Calls `fn` for each deleted position in ascending order.
  void ForEach(const std::function<void(int64_t)>& fn) const;
  std::vector<int64_t> ToVector() const;

 private:
  enum class ContainerKind : uint8_t { kArray, kBitmap, kRun };
  struct Run {
    uint16_t first;
    uint16_t last;  // inclusive
  };
  // 2^16 consecutive positions sharing `key` = position >> 16.
  struct Container {
    uint64_t key = 0;
    ContainerKind kind = ContainerKind::kArray;
    uint32_t cardinality = 0;
    std::vector<uint16_t> values;  // kArray: ascending low 16 bits
    std::vector<uint64_t> words;   // kBitmap: 1024 words, bit i = low value i
    std::vector<Run> runs;         // kRun: ascending, disjoint
  };
  class Parser;

  // Calls visit(first, end) for every maximal stretch of deleted positions that the containers
  // store contiguously, clipped to [begin, end).
  template <typename Visit>
  void VisitRange(int64_t begin, int64_t end, Visit&& visit) const;
  static bool ContainerHas(const Container& c, uint16_t low);

  std::vector<Container> containers_;  // ascending, unique keys
  int64_t cardinality_ = 0;
  bool is_64bit_ = false;
};

// Reads the vectors of one deletion-vector index file; opens the file once for many reads.
class DeletionVectorIndexReader {
 public:
  // Opens `path` and checks its leading version byte.
  static Result<DeletionVectorIndexReader> Open(io::FileIO& file_io, const std::string& path);
  DeletionVectorIndexReader(DeletionVectorIndexReader&&) noexcept;
  DeletionVectorIndexReader& operator=(DeletionVectorIndexReader&&) noexcept;
  ~DeletionVectorIndexReader();

  // Reads the vector whose size int sits at `offset`. `length` is the index manifest's range
  // length: the payload size for 32-bit vectors, size int + payload + CRC for 64-bit ones (as
  // Java records them). The CRC is checked, and the cardinality when the manifest gives one.
  Result<DeletionVector> Read(int64_t offset, int64_t length,
                              std::optional<int64_t> expected_cardinality = std::nullopt) const;

 private:
  DeletionVectorIndexReader(std::unique_ptr<io::RandomAccessFile> file, int64_t size);

  std::unique_ptr<io::RandomAccessFile> file_;
  int64_t size_ = 0;
};

// One vector out of an index file (Java's DeletionVector.read with a DeletionFile).
Result<DeletionVector> ReadDeletionVector(
    io::FileIO& file_io, const std::string& index_file_path, int64_t offset, int64_t length,
    std::optional<int64_t> expected_cardinality = std::nullopt);

// Every vector an index manifest entry lists for `index_file_path`, keyed by data file name, in
// the entry's order.
Result<std::vector<std::pair<std::string, DeletionVector>>> ReadDeletionVectorIndexFile(
    io::FileIO& file_io, const std::string& index_file_path,
    const std::vector<meta::DeletionVectorRange>& ranges);

}  // namespace freshet::format
