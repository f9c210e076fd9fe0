// Real-time progress: per partition-bucket, the exclusive end of the _OFFSETs a snapshot covers.
//
// Stored inline in the snapshot's `properties` under kProgressProperty as a versioned JSON record
// (docs/realtime.md): {"version": 1, "entries": [{"partition": "<base64 BinaryRow>",
// "bucket": 0, "end": 1234}, ...]}. Java Paimon keeps and ignores the property.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "freshet/realtime/mem_indexer.h"
#include "io/file_io.h"
#include "meta/snapshot/snapshot.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::realtime {

inline constexpr char kProgressProperty[] = "freshet.realtime.progress";
inline constexpr int kProgressVersion = 1;

using ProgressMap = std::map<PartitionBucket, int64_t>;

std::string EncodeProgress(const ProgressMap& progress);
// `source` names where the text came from, for errors (a snapshot path).
Result<ProgressMap> DecodeProgress(const std::string& text, const std::string& source);

// Progress of snapshots, with the inheritance rule: a snapshot without the property (a Java
// compaction, another writer's append) has the progress of the newest earlier snapshot that has
// one, minus the partitions an OVERWRITE snapshot without it replaced (they start over). Results
// are cached by snapshot id (snapshots are immutable). Thread-safe.
class ProgressResolver {
 public:
  ProgressResolver(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  Result<ProgressMap> ProgressOf(const meta::Snapshot& snapshot);
  // Progress of the latest snapshot (empty for a table without snapshots).
  Result<std::pair<std::optional<meta::Snapshot>, ProgressMap>> Latest();

 private:
  // Partitions (serialized) whose data an OVERWRITE snapshot replaced.
  Result<std::vector<std::string>> ReplacedPartitions(const meta::Snapshot& snapshot) const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  meta::SnapshotManager snapshots_;
  std::mutex mu_;
  std::map<int64_t, ProgressMap> cache_;
};

}  // namespace freshet::realtime
