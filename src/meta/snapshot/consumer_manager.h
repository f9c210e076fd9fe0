// Consumers: named progress of streaming readers, kept in `<table>/consumer/consumer-<id>` as
// Java Paimon keeps them (ConsumerManager): `{"nextSnapshot": N}`, the first snapshot the
// consumer has not read yet. Snapshot expiration keeps every snapshot from the smallest
// `nextSnapshot` on, so a consumer that comes back finds what it still needs; consumers not
// updated for `consumer.expiration-time` are dropped first (docs/streaming-reads.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "freshet/result.h"
#include "io/file_io.h"

namespace freshet::meta {

class ConsumerManager {
 public:
  ConsumerManager(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  // Consumer ids are file-name parts: non-empty, no '/', not starting with '.'.
  static Status CheckId(const std::string& id);

  // The consumer's next snapshot, or nullopt when it has none.
  Result<std::optional<int64_t>> NextSnapshot(const std::string& id) const;
  // Records (atomically replaces) the consumer's next snapshot.
  Status Reset(const std::string& id, int64_t next_snapshot) const;
  Status Delete(const std::string& id) const;
  // Every consumer and its next snapshot.
  Result<std::map<std::string, int64_t>> Consumers() const;
  // The smallest next snapshot of all consumers: expiration keeps it and everything after it.
  Result<std::optional<int64_t>> MinNextSnapshot() const;
  // Deletes the consumers last updated before `cutoff_millis` (epoch ms); returns how many.
  Result<int> ExpireUpdatedBefore(int64_t cutoff_millis) const;

  std::string ConsumerPath(const std::string& id) const;

 private:
  Result<std::vector<io::FileInfo>> ConsumerFiles() const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string directory_;
};

}  // namespace freshet::meta
