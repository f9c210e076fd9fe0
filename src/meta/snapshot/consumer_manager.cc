#include "meta/snapshot/consumer_manager.h"

#include <algorithm>

#include "common/json.h"

namespace freshet::meta {

namespace {

constexpr std::string_view kPrefix = "consumer-";

}  // namespace

ConsumerManager::ConsumerManager(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(std::move(file_io)), directory_(io::JoinPath(table_path, "consumer")) {}

Status ConsumerManager::CheckId(const std::string& id) {
  if (id.empty() || id.front() == '.' || id.find('/') != std::string::npos ||
      id.find('\0') != std::string::npos) {
    return Status::Invalid("consumer id '", id,
                           "' must be a non-empty file-name part (no '/', not starting with '.')");
  }
  return Status::OK();
}

std::string ConsumerManager::ConsumerPath(const std::string& id) const {
  return io::JoinPath(directory_, std::string(kPrefix) + id);
}

Result<std::optional<int64_t>> ConsumerManager::NextSnapshot(const std::string& id) const {
  FRESHET_RETURN_NOT_OK(CheckId(id));
  const std::string path = ConsumerPath(id);
  Result<std::string> content = file_io_->ReadFile(path);
  if (!content.ok()) {
    if (content.status().IsNotFound()) return std::optional<int64_t>();
    return content.status();
  }
  FRESHET_ASSIGN_OR_RETURN(Json json, ParseJson(*content, path));
  auto next = json.find("nextSnapshot");
  if (!json.is_object() || next == json.end() || !next->is_number_integer()) {
    return Status::Corruption("consumer file '", path, "' has no integer 'nextSnapshot'");
  }
  return std::optional<int64_t>(next->get<int64_t>());
}

Status ConsumerManager::Reset(const std::string& id, int64_t next_snapshot) const {
  FRESHET_RETURN_NOT_OK(CheckId(id));
  FRESHET_RETURN_NOT_OK(file_io_->MakeDirs(directory_));
  Json json = Json::object();
  json["nextSnapshot"] = next_snapshot;
  return file_io_->PublishReplace(ConsumerPath(id), ToJacksonPrettyJson(json));
}

Status ConsumerManager::Delete(const std::string& id) const {
  FRESHET_RETURN_NOT_OK(CheckId(id));
  return file_io_->Delete(ConsumerPath(id), false);
}

Result<std::vector<io::FileInfo>> ConsumerManager::ConsumerFiles() const {
  FRESHET_ASSIGN_OR_RETURN(bool exists, file_io_->Exists(directory_));
  std::vector<io::FileInfo> files;
  if (!exists) return files;
  FRESHET_ASSIGN_OR_RETURN(auto listed, file_io_->ListDir(directory_));
  for (auto& info : listed) {
    // Hidden temp files of an interrupted Reset are not consumers.
    if (!info.is_dir && info.name.rfind(kPrefix, 0) == 0) files.push_back(std::move(info));
  }
  return files;
}

Result<std::map<std::string, int64_t>> ConsumerManager::Consumers() const {
  std::map<std::string, int64_t> consumers;
  FRESHET_ASSIGN_OR_RETURN(auto files, ConsumerFiles());
  for (const auto& info : files) {
    std::string id = info.name.substr(kPrefix.size());
    FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> next, NextSnapshot(id));
    if (next) consumers[id] = *next;  // deleted meanwhile: gone
  }
  return consumers;
}

Result<std::optional<int64_t>> ConsumerManager::MinNextSnapshot() const {
  FRESHET_ASSIGN_OR_RETURN(auto consumers, Consumers());
  std::optional<int64_t> min;
  for (const auto& [id, next] : consumers) min = std::min(min.value_or(next), next);
  return min;
}

Result<int> ConsumerManager::ExpireUpdatedBefore(int64_t cutoff_millis) const {
  FRESHET_ASSIGN_OR_RETURN(auto files, ConsumerFiles());
  int expired = 0;
  for (const auto& info : files) {
    if (info.modification_time_ms >= cutoff_millis) continue;
    FRESHET_RETURN_NOT_OK(file_io_->Delete(info.path, false));
    ++expired;
  }
  return expired;
}

}  // namespace freshet::meta
