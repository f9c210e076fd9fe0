// Deletion files: where the deletion vector of each data file of a snapshot lives. Java's
// `DeletionFile` (path, offset, length, cardinality), gathered from the snapshot's index manifest
// (`DELETION_VECTORS` entries). The vectors themselves are decoded by format/deletion_vector.h,
// when a split is read (docs/deletion-vectors.md).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"
#include "meta/path/data_file_paths.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::scan {

using meta::kDeletionVectorsIndexType;

// One data file's deletion vector inside an index file. `offset` is the position of the vector's
// size int; `length` is what the index manifest records (see DeletionVectorIndexReader::Read).
struct DeletionFile {
  std::string path;  // full path of the index file
  int64_t offset = 0;
  int64_t length = 0;
  std::optional<int64_t> cardinality;  // deleted rows, when the manifest records it

  bool operator==(const DeletionFile&) const = default;
};

struct DeletionFileKey {
  std::string partition;  // serialized BinaryRow, as in DataSplit
  int32_t bucket = 0;
  std::string data_file_name;

  auto operator<=>(const DeletionFileKey&) const = default;
};

using DeletionFileMap = std::map<DeletionFileKey, DeletionFile>;

// Where index files are: `<table>/index/<name>`, or the entry's external path when it has one, or
// (table option `index-file-in-data-file-dir` = true) the entry's bucket directory.
struct IndexFileLocation {
  std::string table_path;
  // Set only for tables with `index-file-in-data-file-dir` = true; must outlive the call.
  const meta::DataFilePaths* bucket_directories = nullptr;

  Result<std::string> PathOf(const meta::IndexManifestEntry& entry) const;
};

// The live entries of `index_type`: entries applied in order, an ADD registering its index file
// and a DELETE withdrawing it (the index manifest Java writes holds only ADDs, but a DELETE must
// never leave a stale vector behind). Corruption on a second ADD of a live file.
Result<std::vector<meta::IndexManifestEntry>> LiveIndexEntries(
    const std::vector<meta::IndexManifestEntry>& entries, const std::string& index_type);

// Deletion files of the live DELETION_VECTORS entries among `entries`. Corruption when a range is
// malformed or a data file has two vectors.
Result<DeletionFileMap> DeletionFilesOf(const std::vector<meta::IndexManifestEntry>& entries,
                                        const IndexFileLocation& location);

// Deletion files of a snapshot: empty when it has no index manifest.
Result<DeletionFileMap> ReadDeletionFiles(std::shared_ptr<io::FileIO> file_io,
                                          const meta::Snapshot& snapshot,
                                          const IndexFileLocation& location);

}  // namespace freshet::scan
