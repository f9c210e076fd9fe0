// FileIO: the file-system seam of freshet. Everything that touches table files goes through it, so
// a table can live on another file system later and tests can inject faults at every operation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet::io {

struct FileInfo {
  std::string path;  // full path
  std::string name;  // last path component
  int64_t size = 0;
  bool is_dir = false;
  int64_t modification_time_ms = 0;
};

// One state of a file or directory, as a local file system identifies it: the version changes
// when the file is written or replaced, and for a directory when an entry is created, renamed
// into it or removed. Timestamps are coarse (a kernel tick, a second on some file systems), so
// two changes within one tick can leave the same version: a version vouches for "nothing changed
// since" only if it was taken after its timestamps had settled (SettledBefore). Versions of
// watched directories (io/directory_watch.h) are exact instead: any later change gives another.
struct FileVersion {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t modified_ns = 0;  // mtime
  int64_t changed_ns = 0;   // ctime
  bool exact = false;       // from change notifications: settled at once
  bool operator==(const FileVersion&) const = default;

  // Whether a change after `wall_ns` (CLOCK_REALTIME, taken before this version was read) must
  // produce another version: exact versions, and timestamps older than `wall_ns` by more than
  // the file system's timestamp granularity.
  bool SettledBefore(int64_t wall_ns) const;
};

// A sequential writer for a new file. Close() makes the bytes durable when `sync` was requested.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const void* data, int64_t size) = 0;
  Status Write(std::string_view bytes) {
    return Write(bytes.data(), static_cast<int64_t>(bytes.size()));
  }
  virtual int64_t Position() const = 0;
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
};

// A positioned reader of an existing file.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual Result<int64_t> Size() = 0;
  // Reads up to `length` bytes at `offset`; fewer only at the end of the file.
  virtual Result<std::string> ReadAt(int64_t offset, int64_t length) = 0;
  // The same into `out` (at least `length` bytes), returning the count read. Readers of large
  // ranges (column chunks) use it to read into memory they allocated, with no zero-filled string
  // in between. The default goes through ReadAt.
  virtual Result<int64_t> ReadInto(int64_t offset, int64_t length, void* out);
  virtual const std::string& path() const = 0;
};

class FileIO {
 public:
  virtual ~FileIO() = default;

  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) = 0;
  // Creates (or truncates) `path`; parent directories are created as needed.
  virtual Result<std::unique_ptr<OutputStream>> OpenForWrite(const std::string& path) = 0;

  virtual Result<bool> Exists(const std::string& path) = 0;
  virtual Result<FileInfo> GetFileInfo(const std::string& path) = 0;
  // The current version of `path` (one stat, or for a watched directory one read of the change
  // notifications); nullopt when it does not exist or when this file system has no versions (the
  // default), and then nothing may be cached on the strength of one.
  virtual Result<std::optional<FileVersion>> Version(const std::string& path);
  // Lists the direct children of a directory; a missing directory lists as empty.
  virtual Result<std::vector<FileInfo>> ListDir(const std::string& path) = 0;
  virtual Status MakeDirs(const std::string& path) = 0;
  // Deletes a file, or a directory with everything in it when `recursive`. Missing is not an error.
  virtual Status Delete(const std::string& path, bool recursive) = 0;
  // Renames `from` to `to` only if `to` does not exist; returns false (and leaves `from`) if it
  // does.
  virtual Result<bool> RenameNoReplace(const std::string& from, const std::string& to) = 0;
  // Renames `from` to `to`, replacing `to`.
  virtual Status RenameReplace(const std::string& from, const std::string& to) = 0;

  // --- Helpers built on the primitives above (the same for every file system). ---

  Result<std::string> ReadFile(const std::string& path);
  // Writes a whole new file (truncating an existing one), durably.
  Status WriteFile(const std::string& path, std::string_view content);
  // Publishes `content` at `path` only if `path` does not exist yet: writes a hidden temp file
  // `.<name>.<uuid>.tmp` beside it, then renames without replacing. The temp name never looks like
  // a `snapshot-N` or `schema-N` file, so a concurrent lister never trips on it. Returns false if
  // another writer got there first (the temp file is removed).
  Result<bool> TryPublishNew(const std::string& path, std::string_view content);
  // Replaces `path` atomically with `content` (for hint files such as snapshot/LATEST).
  Status PublishReplace(const std::string& path, std::string_view content);
};

// Path helpers (paths are '/'-separated strings).
std::string JoinPath(std::string_view parent, std::string_view child);
std::string_view BaseName(std::string_view path);
std::string_view ParentPath(std::string_view path);
// The temp name used by TryPublishNew/PublishReplace for `path`.
std::string TempPathFor(std::string_view path);

// The local file system. Files written through it are fsynced on Close(), and directories after a
// rename, because a snapshot must survive a crash once its commit returned.
std::shared_ptr<FileIO> LocalFileIO();
// The same, with versions of directories always from stat, never from change notifications (for
// tests of the stat versions).
std::shared_ptr<FileIO> LocalFileIOWithStatVersions();

}  // namespace freshet::io
