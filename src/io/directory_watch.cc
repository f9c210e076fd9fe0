#include "io/directory_watch.h"

#include <linux/magic.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace freshet::io {
namespace {

// The watched directory: its entries and itself. Ancestors: only being moved or deleted (a
// directory another one is renamed over is deleted too).
constexpr uint32_t kDirectoryEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                      IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF |
                                      IN_MOVE_SELF;
constexpr uint32_t kAncestorEvents = IN_DELETE_SELF | IN_MOVE_SELF;
// A watched directory no longer where its path leads (or no longer watched).
constexpr uint32_t kGoneEvents = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED;
// IN_DONT_FOLLOW with IN_ONLYDIR: a symbolic link on the way fails the watch (ENOTDIR), so that
// a link pointed elsewhere can never go unnoticed. IN_MASK_ADD: a directory watched for two
// reasons keeps both masks.
constexpr uint32_t kWatchFlags = IN_ONLYDIR | IN_DONT_FOLLOW | IN_MASK_ADD;
// Marks versions made here (no file system device has this number).
constexpr uint64_t kWatchDevice = UINT64_MAX;

// File systems on which inotify sees every change: local ones, changed only through this kernel.
// Network and FUSE file systems report only this machine's own changes, so they are refused.
bool SeesEveryChange(const struct statfs& fs) {
  switch (static_cast<uint64_t>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // ext2, ext3, ext4
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case F2FS_SUPER_MAGIC:
      return true;
    default:
      return false;
  }
}

// The directories from the first component below the root to `path` itself; empty when the path
// is not absolute or has an empty, "." or ".." component (a path that cannot be taken apart
// safely is left to stat).
std::vector<std::string> DirectoryChain(const std::string& path) {
  std::vector<std::string> chain;
  if (path.size() < 2 || path[0] != '/') return chain;
  size_t begin = 1;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    std::string_view component(path.data() + begin, end - begin);
    if (component.empty() && end == path.size()) break;  // one trailing slash
    if (component.empty() || component == "." || component == "..") return {};
    chain.push_back(path.substr(0, end));
    begin = end + 1;
  }
  return chain;
}

class DirectoryWatches {
 public:
  static DirectoryWatches& Global() {
    static DirectoryWatches* watches = [] {
      auto* made = new DirectoryWatches();  // never destroyed: queries may run at exit
      // Held across fork(), so that no other thread is inside it when the child is made; the
      // child (its only thread is the one that took it) releases it and starts a queue of its own.
      pthread_atfork([] { Global().mu_.lock(); }, [] { Global().mu_.unlock(); },
                     [] {
                       Global().forked_ = true;
                       Global().mu_.unlock();
                     });
      return made;
    }();
    return *watches;
  }

  WatchedVersion Version(const std::string& path) {
    // One lock for taking notifications and reading versions: a notification taken by one
    // thread must be applied before another thread, finding the queue empty, reads a version.
    std::lock_guard lock(mu_);
    // A child process shares the parent's queue: it would take the parent's notifications.
    if (forked_) Reset();
    if (fd_ < 0 && !Open()) return {};
    if (!Drain()) return {};
    auto it = paths_.find(path);
    if (it == paths_.end()) {
      WatchedVersion added = Add(path);
      if (added.kind != WatchedVersion::Kind::kWatched) return added;
      it = paths_.find(path);
    }
    return VersionOf(it->second);
  }

 private:
  struct Entry {
    uint64_t id = 0;
    std::vector<int> wds;  // the directory's, then its ancestors'; empty: unwatchable
  };

  DirectoryWatches() = default;

  WatchedVersion VersionOf(const Entry& entry) const {
    if (entry.wds.empty()) return {};  // known to be unwatchable
    WatchedVersion out;
    out.kind = WatchedVersion::Kind::kWatched;
    out.version.device = kWatchDevice;
    out.version.inode = entry.id;
    uint64_t last_change = overflowed_at_;
    for (int wd : entry.wds) {
      if (auto it = changed_at_.find(wd); it != changed_at_.end()) {
        last_change = std::max(last_change, it->second);
      }
    }
    out.version.modified_ns = static_cast<int64_t>(last_change);
    out.version.exact = true;
    return out;
  }

  bool Open() {
    if (open_failed_) return false;
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0) open_failed_ = true;  // out of instances: stat from now on
    return fd_ >= 0;
  }

  void Reset() {
    if (fd_ >= 0) ::close(fd_);  // this process's copy only
    fd_ = -1;
    forked_ = false;
    paths_.clear();
    changed_at_.clear();
  }

  // Takes every queued notification; false (and no watch trusted any more) on a read error.
  bool Drain() {
    alignas(struct inotify_event) char buffer[16 << 10];
    for (;;) {
      ssize_t n = ::read(fd_, buffer, sizeof(buffer));
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return true;
        Reset();
        open_failed_ = true;
        return false;
      }
      for (ssize_t at = 0; at < n;) {
        const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + at);
        at += static_cast<ssize_t>(sizeof(struct inotify_event) + event->len);
        const uint64_t now = ++changes_;
        if (event->mask & IN_Q_OVERFLOW) {
          overflowed_at_ = now;  // events were lost: every version moves
        } else if (event->mask & kGoneEvents) {
          // A moved directory keeps its watch in the kernel: of no use to any path any more.
          if (event->mask & IN_MOVE_SELF) inotify_rm_watch(fd_, event->wd);
          Forget(event->wd);
        } else if (auto it = changed_at_.find(event->wd); it != changed_at_.end()) {
          it->second = now;
        }
      }
    }
  }

  // Watch `wd` no longer follows its path: the paths that relied on it are set up again by their
  // next call, under a new id (so their versions move).
  void Forget(int wd) {
    for (auto it = paths_.begin(); it != paths_.end();) {
      const std::vector<int>& wds = it->second.wds;
      if (std::find(wds.begin(), wds.end(), wd) != wds.end()) {
        it = paths_.erase(it);
      } else {
        ++it;
      }
    }
    changed_at_.erase(wd);
  }

  WatchedVersion Unwatchable(const std::string& path) {
    paths_[path] = Entry{};
    return {};
  }

  WatchedVersion Add(const std::string& path) {
    std::vector<std::string> chain = DirectoryChain(path);
    if (chain.empty()) return Unwatchable(path);
    struct statfs fs;
    if (::statfs(path.c_str(), &fs) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return {WatchedVersion::Kind::kAbsent, {}};
      return {};
    }
    if (!SeesEveryChange(fs)) return Unwatchable(path);
    // The directory first, then its ancestors up from it. Whatever changes after a watch is in
    // place shows as a notification, so checking one component at a time is safe.
    Entry entry;
    for (auto dir = chain.rbegin(); dir != chain.rend(); ++dir) {
      const uint32_t events = dir == chain.rbegin() ? kDirectoryEvents : kAncestorEvents;
      int wd = inotify_add_watch(fd_, dir->c_str(), events | kWatchFlags);
      if (wd < 0) {
        struct stat st;
        if (::lstat(dir->c_str(), &st) != 0) return {WatchedVersion::Kind::kAbsent, {}};
        // A symbolic link, or a directory without permission or past the watch limits.
        if (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)) return Unwatchable(path);
        // A file: stat it (remembering nothing), or, on the way, nothing can be below it.
        if (dir == chain.rbegin()) return {};
        return {WatchedVersion::Kind::kAbsent, {}};
      }
      changed_at_.try_emplace(wd, 0);
      entry.wds.push_back(wd);
    }
    entry.id = next_id_++;
    paths_[path] = std::move(entry);
    return {WatchedVersion::Kind::kWatched, {}};
  }

  std::mutex mu_;
  int fd_ = -1;
  bool open_failed_ = false;
  bool forked_ = false;
  uint64_t changes_ = 0;        // notifications taken so far
  uint64_t overflowed_at_ = 0;  // `changes_` at the last queue overflow
  uint64_t next_id_ = 1;        // entry ids are never reused, so versions never repeat
  std::unordered_map<int, uint64_t> changed_at_;  // watch -> `changes_` at its last notification
  std::unordered_map<std::string, Entry> paths_;
};

}  // namespace

WatchedVersion WatchedDirectoryVersion(const std::string& path) {
  return DirectoryWatches::Global().Version(path);
}

}  // namespace freshet::io
