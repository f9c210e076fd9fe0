#include "io/file_io.h"

#include <algorithm>
#include <cstring>

#include "common/uuid.h"

namespace freshet::io {

std::string JoinPath(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  std::string out(parent);
  if (out.back() != '/') out.push_back('/');
  out.append(child);
  return out;
}

std::string_view BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view ParentPath(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

std::string TempPathFor(std::string_view path) {
  // Leading dot: hidden, and never matches the `snapshot-`/`schema-` prefixes that Java lists.
  std::string name = ".";
  name.append(BaseName(path)).append(".").append(RandomUuid()).append(".tmp");
  return JoinPath(ParentPath(path), name);
}

Result<int64_t> RandomAccessFile::ReadInto(int64_t offset, int64_t length, void* out) {
  FRESHET_ASSIGN_OR_RETURN(std::string bytes, ReadAt(offset, length));
  std::memcpy(out, bytes.data(), bytes.size());
  return static_cast<int64_t>(bytes.size());
}

bool FileVersion::SettledBefore(int64_t wall_ns) const {
  if (exact) return true;
  // File systems that keep whole seconds (ext4 with small inodes, FAT's two seconds) leave the
  // nanoseconds zero; the others stamp with the kernel's coarse clock, one tick (at most 10 ms)
  // behind. A timestamp with zero nanoseconds is taken as coarse: waiting longer is harmless.
  constexpr int64_t kSecond = 1'000'000'000;
  const int64_t latest = std::max(modified_ns, changed_ns);
  const int64_t granularity = latest % kSecond == 0 ? 2 * kSecond : 20'000'000;
  return latest + granularity < wall_ns;
}

Result<std::optional<FileVersion>> FileIO::Version(const std::string&) {
  return std::optional<FileVersion>();
}

Result<std::string> FileIO::ReadFile(const std::string& path) {
  FRESHET_ASSIGN_OR_RETURN(auto file, OpenForRead(path));
  FRESHET_ASSIGN_OR_RETURN(int64_t size, file->Size());
  FRESHET_ASSIGN_OR_RETURN(std::string content, file->ReadAt(0, size));
  if (static_cast<int64_t>(content.size()) != size) {
    return Status::IOError("short read of '", path, "': got ", content.size(), " of ", size,
                           " bytes");
  }
  return content;
}

Status FileIO::WriteFile(const std::string& path, std::string_view content) {
  FRESHET_ASSIGN_OR_RETURN(auto out, OpenForWrite(path));
  FRESHET_RETURN_NOT_OK(out->Write(content));
  return out->Close();
}

Result<bool> FileIO::TryPublishNew(const std::string& path, std::string_view content) {
  std::string temp = TempPathFor(path);
  Status written = WriteFile(temp, content);
  if (!written.ok()) {
    (void)Delete(temp, false);
    return written;
  }
  Result<bool> renamed = RenameNoReplace(temp, path);
  if (!renamed.ok() || !*renamed) (void)Delete(temp, false);
  return renamed;
}

Status FileIO::PublishReplace(const std::string& path, std::string_view content) {
  std::string temp = TempPathFor(path);
  Status st = WriteFile(temp, content);
  if (st.ok()) st = RenameReplace(temp, path);
  if (!st.ok()) (void)Delete(temp, false);
  return st;
}

}  // namespace freshet::io
