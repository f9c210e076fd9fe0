#include "scan/deletion_files.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "meta/manifest/manifest_file.h"

namespace freshet::scan {

namespace {

// Index files are identified as Java's IndexManifestEntry identifies them.
using IndexFileId = std::tuple<std::string, int32_t, std::string, std::string>;

IndexFileId IdOf(const meta::IndexManifestEntry& entry) {
  return {entry.partition, entry.bucket, entry.index_type, entry.file_name};
}

// A range must point past the index file's version byte and hold at least a magic number.
Status CheckRange(const meta::IndexManifestEntry& entry, const meta::DeletionVectorRange& range) {
  if (range.offset >= 1 && range.length >= 4 &&
      (!range.cardinality.has_value() || *range.cardinality >= 0)) {
    return Status::OK();
  }
  return Status::Corruption("index manifest: deletion vector of '", range.data_file_name,
                            "' in index file '", entry.file_name, "' has offset ", range.offset,
                            ", length ", range.length, ", cardinality ",
                            range.cardinality.value_or(-1));
}

}  // namespace

Result<std::string> IndexFileLocation::PathOf(const meta::IndexManifestEntry& entry) const {
  if (entry.external_path.has_value()) return *entry.external_path;
  if (bucket_directories != nullptr) {
    FRESHET_ASSIGN_OR_RETURN(std::string dir,
                             bucket_directories->BucketDirectory(entry.partition, entry.bucket));
    return io::JoinPath(dir, entry.file_name);
  }
  return io::JoinPath(io::JoinPath(table_path, "index"), entry.file_name);
}

Result<std::vector<meta::IndexManifestEntry>> LiveIndexEntries(
    const std::vector<meta::IndexManifestEntry>& entries, const std::string& index_type) {
  std::map<IndexFileId, size_t> live;  // -> position in `entries`
  std::set<IndexFileId> pending_deletes;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& entry = entries[i];
    if (entry.index_type != index_type) continue;
    IndexFileId id = IdOf(entry);
    if (entry.kind == meta::FileKind::kDelete) {
      // A DELETE read before its ADD cancels that ADD when it comes, as for data manifests.
      if (live.erase(id) == 0) pending_deletes.insert(std::move(id));
      continue;
    }
    if (pending_deletes.erase(id) > 0) continue;
    if (!live.emplace(std::move(id), i).second) {
      return Status::Corruption("index manifest adds index file '", entry.file_name, "' of bucket ",
                                entry.bucket, " twice");
    }
  }
  std::vector<size_t> order;
  order.reserve(live.size());
  for (const auto& [id, index] : live) order.push_back(index);
  std::sort(order.begin(), order.end());  // keep the manifest's order
  std::vector<meta::IndexManifestEntry> result;
  result.reserve(order.size());
  for (size_t index : order) result.push_back(entries[index]);
  return result;
}

Result<DeletionFileMap> DeletionFilesOf(const std::vector<meta::IndexManifestEntry>& entries,
                                        const IndexFileLocation& location) {
  FRESHET_ASSIGN_OR_RETURN(auto live, LiveIndexEntries(entries, kDeletionVectorsIndexType));
  DeletionFileMap files;
  for (const auto& entry : live) {
    if (!entry.deletion_vector_ranges.has_value()) continue;
    FRESHET_ASSIGN_OR_RETURN(std::string path, location.PathOf(entry));
    for (const auto& range : *entry.deletion_vector_ranges) {
      FRESHET_RETURN_NOT_OK(CheckRange(entry, range));
      DeletionFileKey key{entry.partition, entry.bucket, range.data_file_name};
      DeletionFile file{path, range.offset, range.length, range.cardinality};
      // Two vectors for one file would make the result depend on which one wins.
      if (!files.emplace(std::move(key), std::move(file)).second) {
        return Status::Corruption("index manifest: data file '", range.data_file_name,
                                  "' of bucket ", entry.bucket,
                                  " has more than one deletion vector");
      }
    }
  }
  return files;
}

Result<DeletionFileMap> ReadDeletionFiles(std::shared_ptr<io::FileIO> file_io,
                                          const meta::Snapshot& snapshot,
                                          const IndexFileLocation& location) {
  if (!snapshot.index_manifest.has_value()) return DeletionFileMap{};
  meta::ManifestFile manifests(std::move(file_io), location.table_path);
  FRESHET_ASSIGN_OR_RETURN(auto entries, manifests.ReadIndexManifest(*snapshot.index_manifest));
  return DeletionFilesOf(entries, location);
}

}  // namespace freshet::scan
