#include "write/rolling_file_writer.h"

#include <arrow/api.h>

#include <chrono>
#include <ctime>

#include "common/uuid.h"

namespace freshet::write {

int64_t FileCreationTimeMillis() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&seconds, &local);
  int64_t millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return millis + static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

RollingFileWriter::RollingFileWriter(const DataFileSettings* settings, std::string directory,
                                     std::vector<meta::DataField> fields)
    : settings_(settings),
      directory_(std::move(directory)),
      fields_(std::move(fields)),
      uuid_(RandomUuid()) {}

RollingFileWriter::~RollingFileWriter() = default;

Result<std::optional<ClosedFile>> RollingFileWriter::Write(const arrow::RecordBatch& batch) {
  if (batch.num_rows() == 0) return std::optional<ClosedFile>();
  if (!current_) FRESHET_RETURN_NOT_OK(OpenFile());
  FRESHET_RETURN_NOT_OK(current_->Write(batch));
  if (current_->EstimatedFileSize() < settings_->target_file_size) {
    return std::optional<ClosedFile>();
  }
  return Close();
}

Result<std::optional<ClosedFile>> RollingFileWriter::Close() {
  if (!current_) return std::optional<ClosedFile>();
  FRESHET_ASSIGN_OR_RETURN(format::FormatWriteResult result, current_->Finish());
  current_.reset();
  return std::optional<ClosedFile>(ClosedFile{current_name_, std::move(result)});
}

std::optional<std::string> RollingFileWriter::open_path() const {
  if (!current_) return std::nullopt;
  return PathOf(current_name_);
}

void RollingFileWriter::DropOpenFile() { current_.reset(); }

std::string RollingFileWriter::PathOf(const std::string& file_name) const {
  return io::JoinPath(directory_, file_name);
}

Status RollingFileWriter::OpenFile() {
  // Java's name: `data-file.prefix` (default "data-"), the writer's UUID, a counter.
  current_name_ = settings_->file_prefix + uuid_ + "-" + std::to_string(next_file_number_++) + "." +
                  format::FileFormatName(settings_->format);
  std::string path = PathOf(current_name_);
  FRESHET_ASSIGN_OR_RETURN(auto out, settings_->file_io->OpenForWrite(path));
  auto writer = format::FormatWriter::Open(settings_->format, std::move(out), fields_,
                                           settings_->writer_options);
  if (!writer.ok()) {
    // The file exists but no writer owns it: remove it here, Abort() would not know it.
    (void)settings_->file_io->Delete(path, false);
    return writer.status();
  }
  current_ = std::move(*writer);
  return Status::OK();
}

}  // namespace freshet::write
