#include "meta/snapshot/long_lived_changelog.h"

#include <algorithm>
#include <charconv>

namespace freshet::meta {

namespace {

constexpr char kChangelogPrefix[] = "changelog-";

std::string ChangelogDirectory(const std::string& table_path) {
  return io::JoinPath(table_path, "changelog");
}

}  // namespace

std::string LongLivedChangelogPath(const std::string& table_path, int64_t id) {
  return io::JoinPath(ChangelogDirectory(table_path), kChangelogPrefix + std::to_string(id));
}

Status WriteLongLivedChangelog(io::FileIO& file_io, const std::string& table_path,
                               const Snapshot& snapshot) {
  // Replaced when it exists: an interrupted expiration writes it again.
  FRESHET_RETURN_NOT_OK(
      file_io.PublishReplace(LongLivedChangelogPath(table_path, snapshot.id), snapshot.ToJson()));
  return file_io.PublishReplace(io::JoinPath(ChangelogDirectory(table_path), "LATEST"),
                                std::to_string(snapshot.id));
}

Result<std::optional<Snapshot>> ReadLongLivedChangelog(io::FileIO& file_io,
                                                       const std::string& table_path, int64_t id) {
  std::string path = LongLivedChangelogPath(table_path, id);
  FRESHET_ASSIGN_OR_RETURN(bool exists, file_io.Exists(path));
  if (!exists) return std::optional<Snapshot>();
  FRESHET_ASSIGN_OR_RETURN(std::string text, file_io.ReadFile(path));
  FRESHET_ASSIGN_OR_RETURN(Snapshot changelog, Snapshot::FromJson(text, path));
  return std::optional<Snapshot>(std::move(changelog));
}

Result<std::vector<int64_t>> LongLivedChangelogIds(io::FileIO& file_io,
                                                   const std::string& table_path) {
  FRESHET_ASSIGN_OR_RETURN(auto infos, file_io.ListDir(ChangelogDirectory(table_path)));
  std::vector<int64_t> ids;
  const std::string prefix = kChangelogPrefix;
  for (const auto& info : infos) {
    if (info.is_dir || info.name.rfind(prefix, 0) != 0) continue;
    int64_t id = 0;
    const char* begin = info.name.data() + prefix.size();
    const char* end = info.name.data() + info.name.size();
    auto [ptr, ec] = std::from_chars(begin, end, id);
    if (ec == std::errc() && ptr == end) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Status WriteLongLivedChangelogEarliestHint(io::FileIO& file_io, const std::string& table_path,
                                           int64_t id) {
  return file_io.PublishReplace(io::JoinPath(ChangelogDirectory(table_path), "EARLIEST"),
                                std::to_string(id));
}

}  // namespace freshet::meta
