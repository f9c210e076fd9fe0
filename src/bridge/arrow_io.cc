#include "bridge/arrow_io.h"

#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include "bridge/memory_pool.h"
#include "io/file_io.h"

namespace freshet::bridge {
namespace {

arrow::Status ToArrow(const Status& status) {
  if (status.ok()) return arrow::Status::OK();
  return arrow::Status::IOError(status.ToString());
}

class ArrowOutputAdapter : public arrow::io::OutputStream {
 public:
  explicit ArrowOutputAdapter(io::OutputStream* out) : out_(out) {}

  arrow::Status Close() override {
    closed_ = true;
    return arrow::Status::OK();
  }
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return out_->Position(); }
  arrow::Status Write(const void* data, int64_t nbytes) override {
    if (closed_) return arrow::Status::Invalid("write to closed stream ", out_->path());
    return ToArrow(out_->Write(data, nbytes));
  }

 private:
  io::OutputStream* out_;
  bool closed_ = false;
};

class ArrowInputAdapter : public arrow::io::RandomAccessFile {
 public:
  ArrowInputAdapter(std::shared_ptr<io::RandomAccessFile> file, int64_t size)
      : file_(std::move(file)), size_(size) {}

  arrow::Status Close() override {
    closed_ = true;
    return arrow::Status::OK();
  }
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Result<int64_t> GetSize() override { return size_; }
  arrow::Status Seek(int64_t position) override {
    if (position < 0 || position > size_) {
      return arrow::Status::IOError("seek to ", position, " outside of ", file_->path(), " (size ",
                                    size_, ")");
    }
    position_ = position;
    return arrow::Status::OK();
  }

  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t n, ReadAt(position_, nbytes, out));
    position_ += n;
    return n;
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, ReadAt(position_, nbytes));
    position_ += buffer->size();
    return buffer;
  }

  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t length, CheckedLength(position, nbytes));
    ARROW_RETURN_NOT_OK(ReadExactly(position, length, out));
    return length;
  }
  // Into a recycled buffer (bridge/memory_pool.h) (no zero fill, no copy): column chunks are read
  // this way.
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(int64_t length, CheckedLength(position, nbytes));
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> buffer,
                          arrow::AllocateBuffer(length, DataMemoryPool()));
    ARROW_RETURN_NOT_OK(ReadExactly(position, length, buffer->mutable_data()));
    return buffer;
  }

  // The first read that failed, as the file reported it (OK while none did).
  Status read_error() const {
    std::lock_guard lock(mu_);
    return read_error_;
  }

 private:
  // The bytes of a read at `position`: the size came from metadata, so never read past it, even
  // if the file grew.
  arrow::Result<int64_t> CheckedLength(int64_t position, int64_t nbytes) const {
    if (closed_) return arrow::Status::Invalid("read from closed file ", file_->path());
    if (position < 0 || nbytes < 0) {
      return arrow::Status::IOError("invalid read of ", nbytes, " bytes at ", position, " in ",
                                    file_->path());
    }
    return std::min(nbytes, std::max<int64_t>(0, size_ - position));
  }

  arrow::Status ReadExactly(int64_t position, int64_t length, void* out) {
    if (length == 0) return arrow::Status::OK();
    auto result = file_->ReadInto(position, length, out);
    Status failed = result.ok() ? Status::OK() : result.status();
    if (result.ok() && *result != length) {
      failed = Status::IOError("file ", file_->path(), " is shorter than its size ", size_,
                               " (truncated?)");
    }
    if (failed.ok()) return arrow::Status::OK();
    {
      std::lock_guard lock(mu_);
      if (read_error_.ok()) read_error_ = failed;
    }
    return ToArrow(failed);
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  int64_t size_;
  int64_t position_ = 0;
  bool closed_ = false;
  // Columns decoded in parallel read the same file from several threads.
  mutable std::mutex mu_;
  Status read_error_;
};

}  // namespace

std::shared_ptr<arrow::io::OutputStream> MakeArrowOutputStream(io::OutputStream* out) {
  return std::make_shared<ArrowOutputAdapter>(out);
}

std::shared_ptr<arrow::io::RandomAccessFile> MakeArrowInputFile(
    std::shared_ptr<io::RandomAccessFile> file, int64_t size) {
  return std::make_shared<ArrowInputAdapter>(std::move(file), size);
}

Status ReadErrorOf(const arrow::io::RandomAccessFile& file) {
  const auto* adapter = dynamic_cast<const ArrowInputAdapter*>(&file);
  return adapter ? adapter->read_error() : Status::OK();
}

}  // namespace freshet::bridge
