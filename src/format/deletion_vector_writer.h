// Writing deletion vectors (docs/deletion-vectors.md): the mutable set of deleted positions a
// compaction maintains for a data file, its payload in Java's 32-bit or 64-bit format, and the
// deletion-vector index file (`index/index-<uuid>-<n>`) that holds the vectors of one bucket.
//
// The payload is what format/deletion_vector.h reads:
//  - 32-bit: int32 BE magic, then a portable RoaringBitmap with Java's container choice for
//    positions added one by one (an array up to 4096 values, a bitmap above; no run containers,
//    since Java does not run-optimize these);
//  - 64-bit: int32 LE magic, int64 LE count of 32-bit bitmaps (every high key from 0 to the
//    largest, empty ones included), each preceded by its int32 LE key and run-optimized as Java's
//    OptimizedRoaringBitmap64 does before serializing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "format/deletion_vector.h"
#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"

namespace freshet::format {

// Deleted positions of one data file, mutable. Copyable (a compaction works on a copy).
class DeletionBitmap {
 public:
  DeletionBitmap() = default;
  static DeletionBitmap From(const DeletionVector& vector);

  // Whether `position` was not deleted before.
  bool Add(int64_t position);
  bool Contains(int64_t position) const;
  int64_t cardinality() const { return cardinality_; }
  bool empty() const { return cardinality_ == 0; }
  std::vector<int64_t> ToVector() const;

  // Magic + bitmap: the `size` bytes of an index file entry. Invalid for the 32-bit format
  // when a position does not fit in 32 bits.
  Result<std::string> SerializePayload(bool bitmap64) const;

 private:
  // 2^16 positions sharing key = position >> 16: sorted values (array) or 1024 words (bitmap).
  struct Container {
    std::vector<uint16_t> values;
    std::vector<uint64_t> words;
    uint32_t cardinality = 0;
  };
  std::map<uint64_t, Container> containers_;
  int64_t cardinality_ = 0;
};

// The portable serialization of the 32-bit bitmap of `containers` (keys < 2^16, relative to
// the bitmap), optionally run-optimized.
// Exposed for tests.
std::string SerializeRoaring32(const std::vector<int64_t>& sorted_positions, bool run_optimize);

// One written deletion-vector index file: name, size and a range per data file (Java's
// DeletionVectorMeta: offset of the size int, length as Java records it, cardinality).
struct WrittenDeletionVectors {
  std::string file_name;
  int64_t file_size = 0;
  std::vector<meta::DeletionVectorRange> ranges;

  // An ADD entry of index type DELETION_VECTORS (partition and bucket left to the caller).
  meta::IndexManifestEntry ToEntry() const;
};

// The bytes of an index file holding `vectors` in the given order, and their ranges.
Result<std::pair<std::string, std::vector<meta::DeletionVectorRange>>> EncodeDeletionVectorFile(
    const std::vector<std::pair<std::string, const DeletionBitmap*>>& vectors, bool bitmap64);

// Writes index files into one directory with Java's names: `index-<uuid>-<n>`, one uuid per
// writer and a counter from 0. A failed write leaves no file behind.
class DeletionVectorFileWriter {
 public:
  DeletionVectorFileWriter(std::shared_ptr<io::FileIO> file_io, std::string directory,
                           bool bitmap64);

  Result<WrittenDeletionVectors> Write(
      const std::vector<std::pair<std::string, const DeletionBitmap*>>& vectors);
  const std::string& directory() const { return directory_; }

 private:
  std::shared_ptr<io::FileIO> file_io_;
  std::string directory_;
  bool bitmap64_;
  std::string uuid_;
  int64_t next_ = 0;
};

}  // namespace freshet::format
