// Versions of local directories kept by change notifications (inotify), so that "has this
// directory changed?" costs one read of the notification queue instead of a stat walking the whole
// path, and holds exactly: every change after a version was taken produces another one, however
// close in time (stat versions must wait for coarse timestamps to settle, FileVersion).
//
// A version covers the directory's entries (created, removed, renamed, written, attributes) and
// the directory itself and every ancestor being moved or deleted. Paths that cannot be watched
// that way (relative, with a symbolic link or `..` on the way, on a file system whose other
// clients' changes inotify does not see, or over the watch limits) are refused, and callers
// fall back to stat.
#pragma once

#include <string>

#include "io/file_io.h"

namespace freshet::io {

struct WatchedVersion {
  enum class Kind {
    kUnwatchable,  // use stat
    kAbsent,       // the directory does not exist (nothing is watched)
    kWatched,      // `version` is exact
  };
  Kind kind = Kind::kUnwatchable;
  FileVersion version;
};

// The current version of directory `path`, taken after every notification the kernel queued
// before the call. Process-wide and thread-safe; the first call for a path sets up its watches
// (a system call per path component), later ones cost one read of the queue.
WatchedVersion WatchedDirectoryVersion(const std::string& path);

}  // namespace freshet::io
