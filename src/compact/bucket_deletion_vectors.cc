#include "compact/bucket_deletion_vectors.h"

#include "format/deletion_vector.h"
#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::compact {

Result<BucketDeletionVectors> BucketDeletionVectors::Load(
    io::FileIO& file_io, const scan::IndexFileLocation& location,
    std::vector<meta::IndexManifestEntry> entries) {
  BucketDeletionVectors dvs;
  for (const meta::IndexManifestEntry& entry : entries) {
    if (entry.index_type != scan::kDeletionVectorsIndexType) continue;
    FRESHET_ASSIGN_OR_RETURN(std::string path, location.PathOf(entry));
    std::vector<meta::DeletionVectorRange> ranges =
        entry.deletion_vector_ranges.value_or(std::vector<meta::DeletionVectorRange>{});
    FRESHET_ASSIGN_OR_RETURN(auto vectors,
                             format::ReadDeletionVectorIndexFile(file_io, path, ranges));
    for (auto& [data_file, vector] : vectors) {
      dvs.vectors_[data_file] = format::DeletionBitmap::From(vector);
    }
    for (const auto& range : ranges) {
      dvs.on_disk_[range.data_file_name] =
          scan::DeletionFile{path, range.offset, range.length, range.cardinality};
    }
    dvs.current_.push_back(entry);
  }
  return dvs;
}

bool BucketDeletionVectors::IsDeleted(const std::string& data_file, int64_t position) const {
  auto it = vectors_.find(data_file);
  return it != vectors_.end() && it->second.Contains(position);
}

void BucketDeletionVectors::NotifyDeletion(const std::string& data_file, int64_t position) {
  if (vectors_[data_file].Add(position)) modified_ = true;
}

void BucketDeletionVectors::Remove(const std::string& data_file) {
  if (vectors_.erase(data_file) > 0) modified_ = true;
}

std::optional<scan::DeletionFile> BucketDeletionVectors::DeletionFileOf(
    const std::string& data_file) const {
  auto it = on_disk_.find(data_file);
  if (it == on_disk_.end()) return std::nullopt;
  return it->second;
}

Result<std::optional<meta::IndexIncrement>> BucketDeletionVectors::Flush(
    format::DeletionVectorFileWriter* writer, std::vector<std::string>* written) {
  if (!modified_) return std::optional<meta::IndexIncrement>();
  std::vector<std::pair<std::string, const format::DeletionBitmap*>> vectors;
  for (const auto& [data_file, bitmap] : vectors_) {
    if (!bitmap.empty()) vectors.emplace_back(data_file, &bitmap);
  }
  FRESHET_ASSIGN_OR_RETURN(format::WrittenDeletionVectors file, writer->Write(vectors));
  std::string path = io::JoinPath(writer->directory(), file.file_name);
  written->push_back(path);
  meta::IndexIncrement increment;
  increment.added.push_back(file.ToEntry());
  increment.deleted = std::move(current_);
  for (auto& e : increment.deleted) e.kind = meta::FileKind::kDelete;
  current_ = increment.added;
  on_disk_.clear();
  for (const auto& range : file.ranges) {
    on_disk_[range.data_file_name] =
        scan::DeletionFile{path, range.offset, range.length, range.cardinality};
  }
  modified_ = false;
  return std::optional<meta::IndexIncrement>(std::move(increment));
}

}  // namespace freshet::compact

namespace freshet::compact {

Result<std::vector<meta::IndexManifestEntry>> LatestBucketDeletionVectorEntries(
    std::shared_ptr<io::FileIO> file_io, const std::string& table_path,
    const std::string& partition, int32_t bucket) {
  std::vector<meta::IndexManifestEntry> entries;
  FRESHET_ASSIGN_OR_RETURN(auto latest,
                           meta::SnapshotManager(file_io, table_path).LatestSnapshot());
  if (!latest || !latest->index_manifest) return entries;
  meta::ManifestFile manifests(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(auto all, manifests.ReadIndexManifest(*latest->index_manifest));
  FRESHET_ASSIGN_OR_RETURN(auto live, scan::LiveIndexEntries(all, scan::kDeletionVectorsIndexType));
  for (auto& entry : live) {
    if (entry.partition == partition && entry.bucket == bucket) entries.push_back(std::move(entry));
  }
  return entries;
}

WriterDeletionVectors::WriterDeletionVectors(std::shared_ptr<io::FileIO> file_io,
                                             std::string table_path)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)) {}

Result<std::shared_ptr<BucketDeletionVectors>> WriterDeletionVectors::Get(
    const std::string& partition, int32_t bucket) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = buckets_.find({partition, bucket});
    if (it != buckets_.end()) return it->second;
  }
  FRESHET_ASSIGN_OR_RETURN(
      auto entries, LatestBucketDeletionVectorEntries(file_io_, table_path_, partition, bucket));
  scan::IndexFileLocation location{table_path_, nullptr};
  FRESHET_ASSIGN_OR_RETURN(auto loaded,
                           BucketDeletionVectors::Load(*file_io_, location, std::move(entries)));
  auto vectors = std::make_shared<BucketDeletionVectors>(std::move(loaded));
  std::lock_guard<std::mutex> lock(mutex_);
  buckets_[{partition, bucket}] = vectors;
  return vectors;
}

void WriterDeletionVectors::Forget(const std::string& partition, int32_t bucket) {
  std::lock_guard<std::mutex> lock(mutex_);
  buckets_.erase({partition, bucket});
}

}  // namespace freshet::compact
