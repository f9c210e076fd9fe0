// LocalFileIO: POSIX implementation of FileIO.
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/directory_watch.h"
#include "io/file_io.h"

namespace freshet::io {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string message = what + " '" + path + "': " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(message);
  if (err == EEXIST) return Status::AlreadyExists(message);
  return Status::IOError(message);
}

// Makes a rename or a new file durable: the directory entry lives in the parent directory.
Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open directory", dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  return rc == 0 ? Status::OK() : ErrnoStatus("cannot fsync directory", dir, err);
}

class LocalOutputStream : public OutputStream {
 public:
  LocalOutputStream(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalOutputStream() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Write(const void* data, int64_t size) override {
    if (fd_ < 0) return Status::Invalid("write to closed file '", path_, "'");
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = ::write(fd_, p, static_cast<size_t>(size));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("cannot write", path_, errno);
      }
      p += n;
      size -= n;
      position_ += n;
    }
    return Status::OK();
  }

  int64_t Position() const override { return position_; }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    int fd = fd_;
    fd_ = -1;
    if (::fsync(fd) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("cannot fsync", path_, err);
    }
    if (::close(fd) != 0) return ErrnoStatus("cannot close", path_, errno);
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  int64_t position_ = 0;
};

class LocalRandomAccessFile : public RandomAccessFile {
 public:
  LocalRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalRandomAccessFile() override { ::close(fd_); }

  Result<int64_t> Size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return ErrnoStatus("cannot stat", path_, errno);
    return static_cast<int64_t>(st.st_size);
  }

  Result<std::string> ReadAt(int64_t offset, int64_t length) override {
    std::string out(static_cast<size_t>(std::max<int64_t>(length, 0)), '\0');
    FRESHET_ASSIGN_OR_RETURN(int64_t done, ReadInto(offset, length, out.data()));
    out.resize(static_cast<size_t>(done));
    return out;
  }

  Result<int64_t> ReadInto(int64_t offset, int64_t length, void* out) override {
    if (offset < 0 || length < 0) {
      return Status::Invalid("bad read range ", offset, "+", length, " of '", path_, "'");
    }
    auto* bytes = static_cast<char*>(out);
    int64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, bytes + done, static_cast<size_t>(length - done), offset + done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("cannot read", path_, errno);
      }
      if (n == 0) break;  // end of file
      done += n;
    }
    return done;
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
};

class LocalFileSystem : public FileIO {
 public:
  explicit LocalFileSystem(bool watch_directories) : watch_directories_(watch_directories) {}

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("cannot open", path, errno);
    return std::unique_ptr<RandomAccessFile>(new LocalRandomAccessFile(path, fd));
  }

  Result<std::unique_ptr<OutputStream>> OpenForWrite(const std::string& path) override {
    std::string parent(ParentPath(path));
    if (!parent.empty()) FRESHET_RETURN_NOT_OK(MakeDirs(parent));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("cannot create", path, errno);
    return std::unique_ptr<OutputStream>(new LocalOutputStream(path, fd));
  }

  Result<bool> Exists(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoStatus("cannot stat", path, errno);
  }

  Result<FileInfo> GetFileInfo(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("cannot stat", path, errno);
    return ToInfo(path, st);
  }

  Result<std::optional<FileVersion>> Version(const std::string& path) override {
    if (watch_directories_) {
      WatchedVersion watched = WatchedDirectoryVersion(path);
      if (watched.kind == WatchedVersion::Kind::kWatched) return std::optional(watched.version);
      if (watched.kind == WatchedVersion::Kind::kAbsent) return std::optional<FileVersion>();
    }
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::optional<FileVersion>();
      return ErrnoStatus("cannot stat", path, errno);
    }
    constexpr int64_t kSecond = 1'000'000'000;
    FileVersion version;
    version.device = static_cast<uint64_t>(st.st_dev);
    version.inode = static_cast<uint64_t>(st.st_ino);
    version.size = static_cast<int64_t>(st.st_size);
    version.modified_ns = int64_t{st.st_mtim.tv_sec} * kSecond + st.st_mtim.tv_nsec;
    version.changed_ns = int64_t{st.st_ctim.tv_sec} * kSecond + st.st_ctim.tv_nsec;
    return std::optional<FileVersion>(version);
  }

  Result<std::vector<FileInfo>> ListDir(const std::string& path) override {
    std::vector<FileInfo> out;
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) {
      if (errno == ENOENT) return out;
      return ErrnoStatus("cannot list directory", path, errno);
    }
    while (struct dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      std::string child = JoinPath(path, name);
      struct stat st;
      if (::stat(child.c_str(), &st) != 0) continue;  // removed while listing
      out.push_back(ToInfo(child, st));
    }
    ::closedir(dir);
    return out;
  }

  Status MakeDirs(const std::string& path) override {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return Status::IOError("cannot create directory '", path, "': ", ec.message());
    return Status::OK();
  }

  Status Delete(const std::string& path, bool recursive) override {
    std::error_code ec;
    if (recursive) {
      std::filesystem::remove_all(path, ec);
    } else {
      std::filesystem::remove(path, ec);
    }
    if (ec && ec != std::errc::no_such_file_or_directory) {
      return Status::IOError("cannot delete '", path, "': ", ec.message());
    }
    return Status::OK();
  }

  Result<bool> RenameNoReplace(const std::string& from, const std::string& to) override {
    int rc = static_cast<int>(
        ::syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE));
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
      // A file system without renameat2 flags: link() fails with EEXIST just the same.
      rc = ::link(from.c_str(), to.c_str());
      if (rc == 0) ::unlink(from.c_str());
    }
    if (rc != 0) {
      if (errno == EEXIST) return false;
      return ErrnoStatus("cannot rename '" + from + "' to", to, errno);
    }
    FRESHET_RETURN_NOT_OK(SyncDirectory(std::string(ParentPath(to))));
    return true;
  }

  Status RenameReplace(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return ErrnoStatus("cannot rename '" + from + "' to", to, errno);
    }
    return SyncDirectory(std::string(ParentPath(to)));
  }

 private:
  static FileInfo ToInfo(const std::string& path, const struct stat& st) {
    FileInfo info;
    info.path = path;
    info.name = std::string(BaseName(path));
    info.size = static_cast<int64_t>(st.st_size);
    info.is_dir = S_ISDIR(st.st_mode);
    info.modification_time_ms =
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    return info;
  }

  const bool watch_directories_;
};

}  // namespace

std::shared_ptr<FileIO> LocalFileIO() {
  static std::shared_ptr<FileIO> instance = std::make_shared<LocalFileSystem>(true);
  return instance;
}

std::shared_ptr<FileIO> LocalFileIOWithStatVersions() {
  static std::shared_ptr<FileIO> instance = std::make_shared<LocalFileSystem>(false);
  return instance;
}

}  // namespace freshet::io
