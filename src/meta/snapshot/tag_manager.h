// TagManager: the tags of a table, `tag/tag-<name>`, as Java Paimon's TagManager keeps them. A tag
// file is the JSON of the snapshot it names (so a tagged snapshot stays readable after it
// expires), plus `tagCreateTime` and `tagTimeRetained` when the tag was given a retention time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/snapshot/snapshot.h"

namespace freshet::meta {

struct Tag {
  std::string name;
  Snapshot snapshot;
  // Jackson's renderings of Java's LocalDateTime and Duration, as found in the file
  // (`[ 2026, 12, 6, 2, 15, 3, 5000000 ]`, `86400.000000000`); nullopt without a retention time.
  std::optional<std::string> create_time;
  std::optional<std::string> time_retained;
  // The same as milliseconds (the creation time since the epoch, read as local time as Java's
  // LocalDateTime.now() wrote it); nullopt when absent or in a form freshet does not read.
  std::optional<int64_t> create_time_millis;
  std::optional<int64_t> time_retained_millis;
};

class TagManager {
 public:
  TagManager(std::shared_ptr<io::FileIO> file_io, std::string table_path);

  std::string TagDirectory() const;
  std::string TagPath(std::string_view name) const;

  // Invalid for a name Java could not use: blank, or one that is not a plain file name.
  static Status ValidateName(std::string_view name);

  Result<std::optional<Tag>> Get(std::string_view name) const;
  // NotFound naming the tag and the table when it does not exist.
  Result<Tag> GetOrError(std::string_view name) const;
  // Every tag, ordered by snapshot id, then name.
  Result<std::vector<Tag>> List() const;

  // Writes `tag/tag-<name>` for `snapshot`; AlreadyExists when the tag exists. With
  // `time_retained_millis`, the file also records the creation time and the retention, as
  // Java's Tag does (without it, Java leaves both out so that readers <= 0.7 can read the tag).
  Status Create(std::string_view name, const Snapshot& snapshot,
                std::optional<int64_t> time_retained_millis) const;
  // Removes the tag file; NotFound when the tag does not exist. The tagged snapshot's files stay:
  // while the snapshot exists it holds them, and once it has expired they are unreferenced and
  // `remove-orphans` removes them.
  Status Delete(std::string_view name) const;

  // The snapshot `id` from the snapshot directory, else from a tag that names it (Java's
  // findSnapshot); NotFound otherwise.
  Result<Snapshot> FindSnapshot(int64_t id) const;

 private:
  Result<Tag> ReadTag(const std::string& path, std::string name) const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
};

// Jackson's rendering of a java.time.LocalDateTime (an array [year, month, day, hour, minute,
// second, nanos], trailing zero second and nanos left out) for `millis` since the epoch in local
// time, and of a java.time.Duration (seconds with nine decimals).
std::string JacksonLocalDateTime(int64_t epoch_millis_local);
std::string JacksonDuration(int64_t millis);

}  // namespace freshet::meta
