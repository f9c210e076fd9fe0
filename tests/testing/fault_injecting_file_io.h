// A FileIO wrapper that fails chosen operations, for tests that prove a failure at any point of a
// write or commit loses nothing.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "io/file_io.h"

namespace freshet::io {

enum class FileOp {
  kOpenForRead,
  kRead,
  kOpenForWrite,
  kWrite,
  kClose,
  kExists,
  kGetFileInfo,
  kListDir,
  kMakeDirs,
  kDelete,
  kRename,
};
const char* FileOpName(FileOp op);

class FaultInjectingFileIO : public FileIO {
 public:
  explicit FaultInjectingFileIO(std::shared_ptr<FileIO> base) : base_(std::move(base)) {}

  // Fails the operation whose 0-based sequence number (counted since the last Reset) is `index`.
  void FailOperationAt(int64_t index);
  // Fails every operation for which `predicate(op, path)` is true, until Reset().
  void FailWhen(std::function<bool(FileOp, const std::string&)> predicate);
  // Clears the failure rules and restarts the operation counter.
  void Reset();
  // Operations seen since the last Reset(), failed ones included.
  int64_t operation_count() const { return counter_.load(); }
  int64_t injected_failures() const { return injected_.load(); }

  // Called by the wrapper for every operation; returns the injected error, if any.
  Status Check(FileOp op, const std::string& path);

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<OutputStream>> OpenForWrite(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<FileInfo>> ListDir(const std::string& path) override;
  Status MakeDirs(const std::string& path) override;
  Status Delete(const std::string& path, bool recursive) override;
  Result<bool> RenameNoReplace(const std::string& from, const std::string& to) override;
  Status RenameReplace(const std::string& from, const std::string& to) override;

 private:
  std::shared_ptr<FileIO> base_;
  std::atomic<int64_t> counter_{0};
  std::atomic<int64_t> injected_{0};
  std::atomic<int64_t> fail_at_{-1};
  std::mutex mutex_;
  std::function<bool(FileOp, const std::string&)> predicate_;
};

}  // namespace freshet::io
