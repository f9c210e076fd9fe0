#include "meta/snapshot/tag_manager.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <utility>

#include "common/json.h"
#include "meta/snapshot/snapshot_json.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::meta {

namespace {

constexpr std::string_view kTagPrefix = "tag-";

}  // namespace

TagManager::TagManager(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)) {}

std::string TagManager::TagDirectory() const { return io::JoinPath(table_path_, "tag"); }

std::string TagManager::TagPath(std::string_view name) const {
  return io::JoinPath(TagDirectory(), std::string(kTagPrefix) + std::string(name));
}

Status TagManager::ValidateName(std::string_view name) {
  const bool blank = std::all_of(name.begin(), name.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  });
  if (blank) return Status::Invalid("tag name shouldn't be blank");
  // The name is the tail of a file name: a separator or a dot name would put the tag elsewhere.
  if (name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos ||
      name == "." || name == "..") {
    return Status::Invalid("tag name '", name, "' cannot name a file (no '/', NUL, '.' or '..')");
  }
  return Status::OK();
}

namespace {

// Jackson's LocalDateTime array [year, month, day, hour, minute(, second(, nanos))], local time.
std::optional<int64_t> LocalDateTimeMillis(const Json& value) {
  if (!value.is_array() || value.size() < 5 || value.size() > 7) return std::nullopt;
  int64_t parts[7] = {0, 1, 1, 0, 0, 0, 0};
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_number_integer()) return std::nullopt;
    parts[i] = value[i].get<int64_t>();
  }
  std::tm local{};
  local.tm_year = static_cast<int>(parts[0] - 1900);
  local.tm_mon = static_cast<int>(parts[1] - 1);
  local.tm_mday = static_cast<int>(parts[2]);
  local.tm_hour = static_cast<int>(parts[3]);
  local.tm_min = static_cast<int>(parts[4]);
  local.tm_sec = static_cast<int>(parts[5]);
  local.tm_isdst = -1;
  const std::time_t seconds = std::mktime(&local);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(seconds) * 1000 + parts[6] / 1'000'000;
}

// Jackson's Duration: seconds, with up to nine decimals.
std::optional<int64_t> DurationMillis(const Json& value) {
  if (!value.is_number()) return std::nullopt;
  const double seconds = value.get<double>();
  if (!(seconds >= 0) || seconds > 9.2e15) return std::nullopt;
  return static_cast<int64_t>(seconds * 1000.0 + 0.5);
}

}  // namespace

Result<Tag> TagManager::ReadTag(const std::string& path, std::string name) const {
  FRESHET_ASSIGN_OR_RETURN(std::string text, file_io_->ReadFile(path));
  FRESHET_ASSIGN_OR_RETURN(Json json, ParseJson(text, path));
  FRESHET_ASSIGN_OR_RETURN(Snapshot snapshot, SnapshotFromJson(json, path));
  Tag tag{std::move(name), std::move(snapshot), std::nullopt,
          std::nullopt,    std::nullopt,        std::nullopt};
  // The extra keys are kept as Jackson wrote them: freshet only shows them.
  if (auto it = json.find("tagCreateTime"); it != json.end() && !it->is_null()) {
    tag.create_time = it->is_string() ? it->get<std::string>() : it->dump();
    tag.create_time_millis = LocalDateTimeMillis(*it);
  }
  if (auto it = json.find("tagTimeRetained"); it != json.end() && !it->is_null()) {
    tag.time_retained = it->is_string() ? it->get<std::string>() : it->dump();
    tag.time_retained_millis = DurationMillis(*it);
  }
  return tag;
}

Result<std::optional<Tag>> TagManager::Get(std::string_view name) const {
  FRESHET_RETURN_NOT_OK(ValidateName(name));
  const std::string path = TagPath(name);
  FRESHET_ASSIGN_OR_RETURN(bool exists, file_io_->Exists(path));
  if (!exists) return std::optional<Tag>();
  FRESHET_ASSIGN_OR_RETURN(Tag tag, ReadTag(path, std::string(name)));
  return std::optional<Tag>(std::move(tag));
}

Result<Tag> TagManager::GetOrError(std::string_view name) const {
  FRESHET_ASSIGN_OR_RETURN(auto tag, Get(name));
  if (!tag) return Status::NotFound("table '", table_path_, "' has no tag '", name, "'");
  return std::move(*tag);
}

Result<std::vector<Tag>> TagManager::List() const {
  std::vector<Tag> tags;
  FRESHET_ASSIGN_OR_RETURN(auto infos, file_io_->ListDir(TagDirectory()));
  for (const auto& info : infos) {
    if (info.is_dir || info.name.rfind(kTagPrefix, 0) != 0) continue;
    FRESHET_ASSIGN_OR_RETURN(Tag tag, ReadTag(info.path, info.name.substr(kTagPrefix.size())));
    tags.push_back(std::move(tag));
  }
  std::sort(tags.begin(), tags.end(), [](const Tag& a, const Tag& b) {
    return a.snapshot.id != b.snapshot.id ? a.snapshot.id < b.snapshot.id : a.name < b.name;
  });
  return tags;
}

Status TagManager::Create(std::string_view name, const Snapshot& snapshot,
                          std::optional<int64_t> time_retained_millis) const {
  FRESHET_RETURN_NOT_OK(ValidateName(name));
  std::string content = snapshot.ToJson();
  if (time_retained_millis) {
    // Inserted as text: the duration's nine decimals are Jackson's, which a JSON number would lose.
    const auto now = std::chrono::system_clock::now();
    const int64_t now_millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    const size_t end = content.rfind("\n}");
    if (end == std::string::npos) return Status::Invalid("unexpected snapshot JSON for a tag");
    content.insert(end, ",\n  \"tagCreateTime\" : " + JacksonLocalDateTime(now_millis) +
                            ",\n  \"tagTimeRetained\" : " + JacksonDuration(*time_retained_millis));
  }
  FRESHET_ASSIGN_OR_RETURN(bool created, file_io_->TryPublishNew(TagPath(name), content));
  if (!created) {
    return Status::AlreadyExists("table '", table_path_, "' already has a tag '", name, "'");
  }
  return Status::OK();
}

Status TagManager::Delete(std::string_view name) const {
  FRESHET_ASSIGN_OR_RETURN(auto tag, Get(name));
  if (!tag) return Status::NotFound("table '", table_path_, "' has no tag '", name, "'");
  return file_io_->Delete(TagPath(name), false);
}

Result<Snapshot> TagManager::FindSnapshot(int64_t id) const {
  SnapshotManager snapshots(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto ids, snapshots.ListSnapshotIds());
  if (std::binary_search(ids.begin(), ids.end(), id)) return snapshots.ReadSnapshot(id);
  FRESHET_ASSIGN_OR_RETURN(auto tags, List());
  for (Tag& tag : tags) {
    if (tag.snapshot.id == id) return std::move(tag.snapshot);
  }
  return Status::NotFound("table '", table_path_, "' has no snapshot ", id,
                          " (neither in snapshot/ nor tagged)");
}

std::string JacksonLocalDateTime(int64_t epoch_millis) {
  const auto seconds = static_cast<std::time_t>(epoch_millis / 1000);
  const auto nanos = static_cast<int64_t>(epoch_millis % 1000) * 1'000'000;
  std::tm local{};
  localtime_r(&seconds, &local);
  std::string text = "[ " + std::to_string(local.tm_year + 1900);
  for (int part : {local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min}) {
    text += ", " + std::to_string(part);
  }
  if (local.tm_sec > 0 || nanos > 0) {
    text += ", " + std::to_string(local.tm_sec);
    if (nanos > 0) text += ", " + std::to_string(nanos);
  }
  return text + " ]";
}

std::string JacksonDuration(int64_t millis) {
  char text[48];
  const char* sign = millis < 0 ? "-" : "";
  const uint64_t magnitude =
      millis < 0 ? static_cast<uint64_t>(-(millis + 1)) + 1 : static_cast<uint64_t>(millis);
  std::snprintf(text, sizeof(text), "%s%" PRIu64 ".%03" PRIu64 "000000", sign, magnitude / 1000,
                magnitude % 1000);
  return text;
}

}  // namespace freshet::meta
