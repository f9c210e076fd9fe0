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
  if (index_) FRESHET_RETURN_NOT_OK(index_->Add(batch));
  if (current_->EstimatedFileSize() < settings_->target_file_size) {
    return std::optional<ClosedFile>();
  }
  return Close();
}

Result<std::optional<ClosedFile>> RollingFileWriter::Close() {
  if (!current_) return std::optional<ClosedFile>();
  ClosedFile closed;
  closed.name = current_name_;
  FRESHET_RETURN_NOT_OK(WriteIndex(&closed));
  auto result = current_->Finish();
  if (!result.ok()) {
    if (closed.index_file) (void)settings_->file_io->Delete(PathOf(*closed.index_file), false);
    return result.status();
  }
  closed.result = std::move(*result);
  current_.reset();
  index_.reset();
  return std::optional<ClosedFile>(std::move(closed));
}

Status RollingFileWriter::WriteIndex(ClosedFile* closed) {
  if (!index_) return Status::OK();
  std::string bytes = index_->Finish();
  // Java inlines an index up to the threshold and writes a larger one beside the data file.
  if (static_cast<int64_t>(bytes.size()) <= settings_->file_index->in_manifest_threshold) {
    closed->embedded_index = std::move(bytes);
    return Status::OK();
  }
  std::string name = current_name_ + meta::kFileIndexFileSuffix;
  std::string path = PathOf(name);
  Status written = settings_->file_io->WriteFile(path, bytes);
  if (!written.ok()) {
    (void)settings_->file_io->Delete(path, false);
    return written;
  }
  closed->index_file = std::move(name);
  return Status::OK();
}

void AttachFileIndex(ClosedFile* closed, meta::DataFileMeta* file) {
  file->embedded_index = std::move(closed->embedded_index);
  if (closed->index_file) file->extra_files.push_back(std::move(*closed->index_file));
}

std::vector<std::string> RollingFileWriter::PathsOf(const meta::DataFileMeta& file) const {
  std::vector<std::string> paths{PathOf(file.file_name)};
  for (const std::string& extra : file.extra_files) paths.push_back(PathOf(extra));
  return paths;
}

Status SetFileIndexSettings(const meta::TableSchema& schema, DataFileSettings* settings) {
  FRESHET_ASSIGN_OR_RETURN(meta::FileIndexSpec spec, meta::FileIndexSpec::FromSchema(schema));
  if (spec.writes_index()) {
    settings->file_index = std::make_shared<const meta::FileIndexSpec>(std::move(spec));
  }
  return Status::OK();
}

std::optional<std::string> RollingFileWriter::open_path() const {
  if (!current_) return std::nullopt;
  return PathOf(current_name_);
}

void RollingFileWriter::DropOpenFile() {
  current_.reset();
  index_.reset();
}

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
  index_.reset();
  if (settings_->file_index) {
    FRESHET_ASSIGN_OR_RETURN(index_,
                             format::FileIndexWriter::Make(*settings_->file_index, fields_));
  }
  return Status::OK();
}

}  // namespace freshet::write
