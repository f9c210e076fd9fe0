// Snapshot: the JSON file `snapshot/snapshot-<id>` that names a table version.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "freshet/result.h"

namespace freshet::meta {

enum class CommitKind { kAppend, kCompact, kOverwrite, kAnalyze };
const char* CommitKindName(CommitKind kind);
Result<CommitKind> ParseCommitKind(std::string_view name);

// Batch commits use Long.MAX_VALUE as their commit identifier, as Java does.
inline constexpr int64_t kBatchCommitIdentifier = INT64_MAX;
inline constexpr int32_t kCurrentSnapshotVersion = 3;

struct Snapshot {
  int32_t version = kCurrentSnapshotVersion;
  std::optional<std::string> uuid;  // 2.0+
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string base_manifest_list;
  std::optional<int64_t> base_manifest_list_size;
  std::string delta_manifest_list;
  std::optional<int64_t> delta_manifest_list_size;
  std::optional<std::string> changelog_manifest_list;
  std::optional<int64_t> changelog_manifest_list_size;
  std::optional<std::string> index_manifest;
  std::string commit_user;
  int64_t commit_identifier = kBatchCommitIdentifier;
  CommitKind commit_kind = CommitKind::kAppend;
  int64_t time_millis = 0;
  std::optional<std::map<int32_t, int64_t>> log_offsets;  // <= 1.3 only; read, never written
  std::optional<int64_t> total_record_count;
  std::optional<int64_t> delta_record_count;
  std::optional<int64_t> changelog_record_count;
  std::optional<int64_t> watermark;
  std::optional<std::string> statistics;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> next_row_id;
  std::optional<std::string> operation;       // 2.0+
  std::optional<std::string> writer_version;  // master

  // Parses a snapshot file. Unknown keys are ignored (newer Java versions add fields); missing
  // required keys and wrong types are Corruption errors naming `source` and the key.
  static Result<Snapshot> FromJson(std::string_view text, std::string_view source);
  // Java's 2.0 layout: absent optionals are omitted; pretty-printed as Java does.
  std::string ToJson() const;

  bool operator==(const Snapshot&) const = default;
};

}  // namespace freshet::meta
