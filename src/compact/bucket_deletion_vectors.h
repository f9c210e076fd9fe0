// BucketDeletionVectors: the deletion vectors of one primary-key partition-bucket while its
// compactions run, as Java's BucketedDvMaintainer keeps them (docs/compaction.md, "Deletion
// vectors").
//
// Restored from the bucket's live DELETION_VECTORS index file; a compaction marks the old
// positions of the keys it rewrote into a lower level, and drops the vectors of the files it
// replaced; a modified set is written as one new index file holding every vector of the bucket,
// which replaces the previous file in the next snapshot. Copyable: a compaction works on a copy
// and keeps it only when it succeeds.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "format/deletion_vector_writer.h"
#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/commit_message.h"
#include "scan/deletion_files.h"

namespace freshet::compact {

class BucketDeletionVectors {
 public:
  BucketDeletionVectors() = default;
  // From the bucket's live DELETION_VECTORS entries (one file for bucketed tables).
  static Result<BucketDeletionVectors> Load(io::FileIO& file_io,
                                            const scan::IndexFileLocation& location,
                                            std::vector<meta::IndexManifestEntry> entries);

  bool IsDeleted(const std::string& data_file, int64_t position) const;
  void NotifyDeletion(const std::string& data_file, int64_t position);
  void Remove(const std::string& data_file);
  bool modified() const { return modified_; }
  // The vector of `data_file` in the index file last written or loaded (what a reader of the
  // compaction's input applies), or nullopt. Only valid while not modified.
  std::optional<scan::DeletionFile> DeletionFileOf(const std::string& data_file) const;
  // The vectors now (for tests).
  const std::map<std::string, format::DeletionBitmap>& vectors() const { return vectors_; }

  // When modified: writes every vector into a new index file, which becomes the current one.
  // The increment adds it and deletes the file(s) the vectors came from; `written` receives the
  // new file's path. Nothing when not modified.
  Result<std::optional<meta::IndexIncrement>> Flush(format::DeletionVectorFileWriter* writer,
                                                    std::vector<std::string>* written);

 private:
  std::map<std::string, format::DeletionBitmap> vectors_;  // by data file name
  std::vector<meta::IndexManifestEntry> current_;          // the index file(s) on disk
  std::map<std::string, scan::DeletionFile> on_disk_;      // by data file name
  bool modified_ = false;
};

}  // namespace freshet::compact

namespace freshet::compact {

// The deletion vectors of the buckets one writer compacts, each restored from the latest
// snapshot at its first compaction and kept between compactions; thread-safe (the writer's
// thread forgets a bucket while another bucket's compaction runs).
class WriterDeletionVectors {
 public:
  WriterDeletionVectors(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  // The bucket's vectors (shared: the compaction thread works on them while the map changes).
  Result<std::shared_ptr<BucketDeletionVectors>> Get(const std::string& partition, int32_t bucket);
  // Forgets a bucket whose compactions were refused or aborted: restored again next time.
  void Forget(const std::string& partition, int32_t bucket);

 private:
  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  std::mutex mutex_;
  std::map<std::pair<std::string, int32_t>, std::shared_ptr<BucketDeletionVectors>> buckets_;
};

// The live DELETION_VECTORS entries of one partition-bucket in the latest snapshot.
Result<std::vector<meta::IndexManifestEntry>> LatestBucketDeletionVectorEntries(
    std::shared_ptr<io::FileIO> file_io, const std::string& table_path,
    const std::string& partition, int32_t bucket);

}  // namespace freshet::compact
