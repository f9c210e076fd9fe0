#include "testing/fault_injecting_file_io.h"

namespace freshet::io {

const char* FileOpName(FileOp op) {
  switch (op) {
    case FileOp::kOpenForRead:
      return "open-for-read";
    case FileOp::kRead:
      return "read";
    case FileOp::kOpenForWrite:
      return "open-for-write";
    case FileOp::kWrite:
      return "write";
    case FileOp::kClose:
      return "close";
    case FileOp::kExists:
      return "exists";
    case FileOp::kGetFileInfo:
      return "get-file-info";
    case FileOp::kListDir:
      return "list-dir";
    case FileOp::kMakeDirs:
      return "make-dirs";
    case FileOp::kDelete:
      return "delete";
    case FileOp::kRename:
      return "rename";
  }
  return "unknown";
}

namespace {

class FaultyOutputStream : public OutputStream {
 public:
  FaultyOutputStream(FaultInjectingFileIO* io, std::unique_ptr<OutputStream> base)
      : io_(io), base_(std::move(base)) {}
  Status Write(const void* data, int64_t size) override {
    FRESHET_RETURN_NOT_OK(io_->Check(FileOp::kWrite, base_->path()));
    return base_->Write(data, size);
  }
  int64_t Position() const override { return base_->Position(); }
  Status Close() override {
    FRESHET_RETURN_NOT_OK(io_->Check(FileOp::kClose, base_->path()));
    return base_->Close();
  }
  const std::string& path() const override { return base_->path(); }

 private:
  FaultInjectingFileIO* io_;
  std::unique_ptr<OutputStream> base_;
};

class FaultyRandomAccessFile : public RandomAccessFile {
 public:
  FaultyRandomAccessFile(FaultInjectingFileIO* io, std::unique_ptr<RandomAccessFile> base)
      : io_(io), base_(std::move(base)) {}
  Result<int64_t> Size() override { return base_->Size(); }
  Result<std::string> ReadAt(int64_t offset, int64_t length) override {
    FRESHET_RETURN_NOT_OK(io_->Check(FileOp::kRead, base_->path()));
    return base_->ReadAt(offset, length);
  }
  const std::string& path() const override { return base_->path(); }

 private:
  FaultInjectingFileIO* io_;
  std::unique_ptr<RandomAccessFile> base_;
};

}  // namespace

void FaultInjectingFileIO::FailOperationAt(int64_t index) { fail_at_.store(index); }

void FaultInjectingFileIO::FailWhen(std::function<bool(FileOp, const std::string&)> predicate) {
  std::lock_guard<std::mutex> lock(mutex_);
  predicate_ = std::move(predicate);
}

void FaultInjectingFileIO::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  predicate_ = nullptr;
  fail_at_.store(-1);
  counter_.store(0);
  injected_.store(0);
}

Status FaultInjectingFileIO::Check(FileOp op, const std::string& path) {
  int64_t index = counter_.fetch_add(1);
  bool fail = index == fail_at_.load();
  if (!fail) {
    std::lock_guard<std::mutex> lock(mutex_);
    fail = predicate_ && predicate_(op, path);
  }
  if (!fail) return Status::OK();
  injected_.fetch_add(1);
  return Status::IOError("injected fault: ", FileOpName(op), " '", path, "' (operation #", index,
                         ")");
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectingFileIO::OpenForRead(
    const std::string& path) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kOpenForRead, path));
  FRESHET_ASSIGN_OR_RETURN(auto file, base_->OpenForRead(path));
  return std::unique_ptr<RandomAccessFile>(new FaultyRandomAccessFile(this, std::move(file)));
}

Result<std::unique_ptr<OutputStream>> FaultInjectingFileIO::OpenForWrite(const std::string& path) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kOpenForWrite, path));
  FRESHET_ASSIGN_OR_RETURN(auto out, base_->OpenForWrite(path));
  return std::unique_ptr<OutputStream>(new FaultyOutputStream(this, std::move(out)));
}

Result<bool> FaultInjectingFileIO::Exists(const std::string& path) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kExists, path));
  return base_->Exists(path);
}

Result<FileInfo> FaultInjectingFileIO::GetFileInfo(const std::string& path) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kGetFileInfo, path));
  return base_->GetFileInfo(path);
}

Result<std::vector<FileInfo>> FaultInjectingFileIO::ListDir(const std::string& path) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kListDir, path));
  return base_->ListDir(path);
}

Status FaultInjectingFileIO::MakeDirs(const std::string& path) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kMakeDirs, path));
  return base_->MakeDirs(path);
}

Status FaultInjectingFileIO::Delete(const std::string& path, bool recursive) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kDelete, path));
  return base_->Delete(path, recursive);
}

Result<bool> FaultInjectingFileIO::RenameNoReplace(const std::string& from, const std::string& to) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kRename, to));
  return base_->RenameNoReplace(from, to);
}

Status FaultInjectingFileIO::RenameReplace(const std::string& from, const std::string& to) {
  FRESHET_RETURN_NOT_OK(Check(FileOp::kRename, to));
  return base_->RenameReplace(from, to);
}

}  // namespace freshet::io
