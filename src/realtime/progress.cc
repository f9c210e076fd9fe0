#include "realtime/progress.h"

#include <algorithm>
#include <set>

#include "common/base64.h"
#include "common/json.h"
#include "meta/manifest/manifest_file.h"

namespace freshet::realtime {

std::string EncodeProgress(const ProgressMap& progress) {
  Json entries = Json::array();
  for (const auto& [pb, end] : progress) {
    entries.push_back(
        Json{{"partition", Base64Encode(pb.partition)}, {"bucket", pb.bucket}, {"end", end}});
  }
  return Json{{"version", kProgressVersion}, {"entries", std::move(entries)}}.dump();
}

Result<ProgressMap> DecodeProgress(const std::string& text, const std::string& source) {
  FRESHET_ASSIGN_OR_RETURN(Json json, ParseJson(text, source));
  auto bad = [&](const std::string& what) {
    return Status::Corruption("real-time progress in ", source, ": ", what);
  };
  if (!json.is_object() || !json.contains("version") || !json["version"].is_number_integer()) {
    return bad("no integer \"version\"");
  }
  if (json["version"].get<int64_t>() != kProgressVersion) {
    return bad("version " + JsonSnippet(json["version"]) +
               " is not supported (this freshet reads " + std::to_string(kProgressVersion) + ")");
  }
  if (!json.contains("entries") || !json["entries"].is_array()) return bad("no \"entries\" array");
  ProgressMap progress;
  for (const Json& entry : json["entries"]) {
    if (!entry.is_object() || !entry.value("partition", Json()).is_string() ||
        !entry.value("bucket", Json()).is_number_integer() ||
        !entry.value("end", Json()).is_number_integer()) {
      return bad("entry " + JsonSnippet(entry) + " needs string partition, integer bucket and end");
    }
    std::optional<std::string> partition = Base64Decode(entry["partition"].get<std::string>());
    if (!partition) return bad("partition of " + JsonSnippet(entry) + " is not base64");
    PartitionBucket pb{std::move(*partition), entry["bucket"].get<int32_t>()};
    if (!progress.emplace(std::move(pb), entry["end"].get<int64_t>()).second) {
      return bad("duplicate entry " + JsonSnippet(entry));
    }
  }
  return progress;
}

ProgressResolver::ProgressResolver(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(file_io), table_path_(table_path), snapshots_(file_io, table_path) {}

Result<std::vector<std::string>> ProgressResolver::ReplacedPartitions(
    const meta::Snapshot& snapshot) const {
  meta::ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto entries,
                           meta::ReadEntriesOfLists(manifests, {snapshot.delta_manifest_list}));
  std::set<std::string> partitions;
  for (const auto& entry : entries) {
    if (entry.kind == meta::FileKind::kDelete) partitions.insert(entry.partition);
  }
  return std::vector<std::string>(partitions.begin(), partitions.end());
}

Result<ProgressMap> ProgressResolver::ProgressOf(const meta::Snapshot& snapshot) {
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(snapshot.id); it != cache_.end()) return it->second;
  }
  // Walk back to the newest snapshot that carries progress, remembering what overwrites reset.
  std::vector<std::string> reset;
  ProgressMap progress;
  std::optional<meta::Snapshot> current = snapshot;
  while (current) {
    if (auto it = current->properties.find(kProgressProperty); it != current->properties.end()) {
      FRESHET_ASSIGN_OR_RETURN(progress,
                               DecodeProgress(it->second, snapshots_.SnapshotPath(current->id)));
      break;
    }
    {
      std::lock_guard lock(mu_);
      if (auto it = cache_.find(current->id); it != cache_.end()) {
        progress = it->second;
        break;
      }
    }
    if (current->commit_kind == meta::CommitKind::kOverwrite) {
      FRESHET_ASSIGN_OR_RETURN(auto replaced, ReplacedPartitions(*current));
      reset.insert(reset.end(), replaced.begin(), replaced.end());
    }
    if (current->id <= 1) break;
    Result<meta::Snapshot> previous = snapshots_.ReadSnapshot(current->id - 1);
    if (!previous.ok()) {
      if (previous.status().IsNotFound()) break;  // expired: nothing older to inherit from
      return previous.status();
    }
    current = std::move(*previous);
  }
  std::sort(reset.begin(), reset.end());
  std::erase_if(progress, [&](const auto& item) {
    return std::binary_search(reset.begin(), reset.end(), item.first.partition);
  });
  std::lock_guard lock(mu_);
  cache_[snapshot.id] = progress;
  return progress;
}

Result<std::pair<std::optional<meta::Snapshot>, ProgressMap>> ProgressResolver::Latest() {
  FRESHET_ASSIGN_OR_RETURN(std::optional<meta::Snapshot> latest, snapshots_.LatestSnapshot());
  if (!latest) return std::make_pair(latest, ProgressMap{});
  FRESHET_ASSIGN_OR_RETURN(ProgressMap progress, ProgressOf(*latest));
  return std::make_pair(std::move(latest), std::move(progress));
}

}  // namespace freshet::realtime
