// Hash index files of dynamic-bucket primary-key tables (Java's HashIndexFile, index type
// `HASH`): for one partition-bucket, the hashes (Java BinaryRow.hashCode() of the trimmed primary
// key) of every key the bucket holds, as consecutive big-endian int32 values without a header.
// They live in `<table>/index/index-<uuid>-<n>` and are listed in the snapshot's index manifest,
// one live file per partition-bucket (docs/primary-key-tables.md, "Dynamic buckets").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"

namespace freshet::meta {

// The file's bytes: each hash as 4 big-endian bytes, in the given order.
std::string EncodeHashIndex(const std::vector<int32_t>& hashes);
// Corruption when the size is not a multiple of 4 (`file` names the file in the message).
Result<std::vector<int32_t>> DecodeHashIndex(std::string_view bytes, std::string_view file);

// Writes hash index files into one directory with Java's names: `index-<uuid>-<n>`, one uuid per
// writer and a counter from 0.
class HashIndexFileWriter {
 public:
  HashIndexFileWriter(std::shared_ptr<io::FileIO> file_io, std::string directory);

  // Writes `hashes` to a new file: the entry (ADD, type HASH, name, size, row count = number of
  // hashes) names it; partition and bucket are left to the caller.
  Result<IndexManifestEntry> Write(const std::vector<int32_t>& hashes);
  const std::string& directory() const { return directory_; }

 private:
  std::shared_ptr<io::FileIO> file_io_;
  std::string directory_;
  std::string uuid_;
  int64_t next_ = 0;
};

// The hashes of the index file at `path`.
Result<std::vector<int32_t>> ReadHashIndex(io::FileIO& file_io, const std::string& path);

}  // namespace freshet::meta
