#include "write/append_table_write.h"

#include <arrow/api.h>

#include <chrono>
#include <ctime>

#include "common/uuid.h"
#include "meta/manifest/manifest_file.h"
#include "meta/row/binary_row.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::write {

namespace {

// Java stores the local wall-clock time of file creation as if it were UTC.
int64_t LocalWallClockMillis() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&seconds, &local);
  int64_t millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return millis + static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

}  // namespace

// The rolling file writer of one partition-bucket.
class BucketWriter {
 public:
  BucketWriter(std::shared_ptr<io::FileIO> file_io, std::string directory, std::string partition,
               int32_t bucket, int32_t total_buckets, int64_t next_sequence_number,
               const meta::TableSchema* schema, format::FileFormat format,
               const format::FormatWriterOptions* writer_options, int64_t target_file_size,
               std::string file_prefix)
      : file_io_(std::move(file_io)),
        directory_(std::move(directory)),
        schema_(schema),
        format_(format),
        writer_options_(writer_options),
        target_file_size_(target_file_size),
        file_prefix_(std::move(file_prefix)),
        uuid_(RandomUuid()),
        next_sequence_number_(next_sequence_number) {
    message_.partition = std::move(partition);
    message_.bucket = bucket;
    message_.total_buckets = total_buckets;
  }

  Status Write(const arrow::RecordBatch& batch) {
    if (batch.num_rows() == 0) return Status::OK();
    if (!current_) FRESHET_RETURN_NOT_OK(OpenFile());
    FRESHET_RETURN_NOT_OK(current_->Write(batch));
    if (current_->EstimatedFileSize() >= target_file_size_) return CloseFile();
    return Status::OK();
  }

  // Finishes the open file, if any; on failure everything written stays pending for Abort().
  Status CloseOpenFile() { return current_ ? CloseFile() : Status::OK(); }

  // Hands out the closed files (after CloseOpenFile succeeded).
  meta::CommitMessage TakeMessage() {
    meta::CommitMessage out = message_;
    message_.new_files.clear();
    return out;
  }

  // Paths of files written but not yet handed out by PrepareCommit (open one included).
  std::vector<std::string> PendingPaths() const {
    std::vector<std::string> paths;
    for (const auto& f : message_.new_files) paths.push_back(io::JoinPath(directory_, f.file_name));
    if (current_) paths.push_back(current_path_);
    return paths;
  }
  void DropPending() {
    current_.reset();
    message_.new_files.clear();
  }
  const std::string& directory() const { return directory_; }

 private:
  Status OpenFile() {
    // Java's name: `data-file.prefix` (default "data-"), a UUID per writer, a counter.
    current_name_ = file_prefix_ + uuid_ + "-" + std::to_string(next_file_number_++) + "." +
                    format::FileFormatName(format_);
    current_path_ = io::JoinPath(directory_, current_name_);
    FRESHET_ASSIGN_OR_RETURN(auto out, file_io_->OpenForWrite(current_path_));
    auto writer =
        format::FormatWriter::Open(format_, std::move(out), schema_->fields(), *writer_options_);
    if (!writer.ok()) {
      // The file exists but no writer owns it: remove it here, Abort() would not know it.
      (void)file_io_->Delete(current_path_, false);
      return writer.status();
    }
    current_ = std::move(*writer);
    return Status::OK();
  }

  Status CloseFile() {
    // On failure the writer stays current, so that Abort() finds and deletes the partial file.
    FRESHET_ASSIGN_OR_RETURN(format::FormatWriteResult result, current_->Finish());
    current_.reset();
    meta::DataFileMeta file;
    file.file_name = current_name_;
    file.file_size = result.file_size;
    file.row_count = result.row_count;
    file.min_key = meta::EmptySerializedRow();
    file.max_key = meta::EmptySerializedRow();
    file.key_stats = meta::SimpleStats::Empty();
    file.value_stats = std::move(result.stats);
    file.value_stats_cols = std::move(result.stats_columns);
    file.min_sequence_number = next_sequence_number_;
    file.max_sequence_number = next_sequence_number_ + result.row_count - 1;
    next_sequence_number_ += result.row_count;
    file.schema_id = schema_->id();
    file.level = 0;
    file.creation_time_millis = LocalWallClockMillis();
    file.delete_row_count = 0;
    file.file_source = static_cast<int32_t>(meta::FileSource::kAppend);
    message_.new_files.push_back(std::move(file));
    return Status::OK();
  }

  std::shared_ptr<io::FileIO> file_io_;
  std::string directory_;
  const meta::TableSchema* schema_;
  format::FileFormat format_;
  const format::FormatWriterOptions* writer_options_;
  int64_t target_file_size_;
  std::string file_prefix_;
  std::string uuid_;
  int64_t next_file_number_ = 0;
  int64_t next_sequence_number_;
  meta::CommitMessage message_;
  std::unique_ptr<format::FormatWriter> current_;
  std::string current_name_;
  std::string current_path_;
};

AppendTableWrite::AppendTableWrite(std::shared_ptr<io::FileIO> file_io, meta::TableSchema schema,
                                   meta::CoreOptions options, meta::DataFilePaths paths,
                                   write::RowKeyExtractor keys,
                                   format::FormatWriterOptions writer_options)
    : file_io_(std::move(file_io)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      paths_(std::move(paths)),
      keys_(std::move(keys)),
      writer_options_(std::move(writer_options)) {}

AppendTableWrite::~AppendTableWrite() = default;

Result<std::unique_ptr<AppendTableWrite>> AppendTableWrite::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  if (!schema.primary_keys().empty()) {
    return Status::NotImplemented("writing primary-key table '", table_path,
                                  "' is not supported yet");
  }
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), false));
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  FRESHET_ASSIGN_OR_RETURN(auto keys, write::RowKeyExtractor::Make(schema));
  FRESHET_ASSIGN_OR_RETURN(auto writer_options, format::FormatWriterOptions::FromTableOptions(
                                                    schema.fields(), schema.options()));
  FRESHET_ASSIGN_OR_RETURN(format::FileFormat format,
                           format::ParseFileFormat(options.file_format()));
  auto write = std::unique_ptr<AppendTableWrite>(
      new AppendTableWrite(std::move(file_io), std::move(schema), std::move(options),
                           std::move(paths), std::move(keys), std::move(writer_options)));
  write->format_ = format;
  return write;
}

Status AppendTableWrite::LoadSequenceNumbers() {
  if (sequence_numbers_loaded_) return Status::OK();
  meta::SnapshotManager snapshots(file_io_, paths_.table_path());
  FRESHET_ASSIGN_OR_RETURN(auto latest, snapshots.LatestSnapshot());
  if (latest) {
    meta::ManifestFile manifests(file_io_, paths_.table_path());
    FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *latest));
    for (const auto& e : live) {
      int64_t& max = max_sequence_numbers_.try_emplace({e.partition, e.bucket}, -1).first->second;
      max = std::max(max, e.file.max_sequence_number);
    }
  }
  sequence_numbers_loaded_ = true;
  return Status::OK();
}

Result<BucketWriter*> AppendTableWrite::WriterFor(const std::string& partition, int32_t bucket) {
  auto key = std::make_pair(partition, bucket);
  if (auto it = writers_.find(key); it != writers_.end()) return it->second.get();
  FRESHET_RETURN_NOT_OK(LoadSequenceNumbers());
  int64_t next = 0;
  if (auto it = max_sequence_numbers_.find(key); it != max_sequence_numbers_.end()) {
    next = it->second + 1;
  }
  FRESHET_ASSIGN_OR_RETURN(std::string directory, paths_.BucketDirectory(partition, bucket));
  auto writer = std::make_unique<BucketWriter>(
      file_io_, directory, partition, bucket, options_.bucket(), next, &schema_, format_,
      &writer_options_, options_.target_file_size(), options_.data_file_prefix());
  BucketWriter* raw = writer.get();
  writers_.emplace(key, std::move(writer));
  return raw;
}

Status AppendTableWrite::Write(const arrow::RecordBatch& batch) {
  FRESHET_ASSIGN_OR_RETURN(write::RowKeys keys, keys_.Extract(batch));
  if (keys.SingleGroup()) {
    return WriteBucket(meta::SerializeBinaryRow(keys.partitions[0]),
                       keys.bucket_of_row.empty() ? 0 : keys.bucket_of_row.front(), batch);
  }
  for (const write::RowGroup& group : keys.Groups()) {
    FRESHET_ASSIGN_OR_RETURN(BucketWriter * writer,
                             WriterFor(meta::SerializeBinaryRow(group.partition), group.bucket));
    // Consecutive runs of the group's rows are written as zero-copy slices.
    for (const auto& [begin, end] : group.Runs()) {
      FRESHET_RETURN_NOT_OK(writer->Write(*batch.Slice(begin, end - begin)));
    }
  }
  return Status::OK();
}

Status AppendTableWrite::WriteBucket(const std::string& serialized_partition, int32_t bucket,
                                     const arrow::RecordBatch& batch) {
  FRESHET_ASSIGN_OR_RETURN(BucketWriter * writer, WriterFor(serialized_partition, bucket));
  return writer->Write(batch);
}

Result<std::vector<meta::CommitMessage>> AppendTableWrite::PrepareCommit() {
  // Close every file first: if one fails, no writer has handed its files out yet and Abort()
  // deletes them all.
  for (auto& [key, writer] : writers_) FRESHET_RETURN_NOT_OK(writer->CloseOpenFile());
  std::vector<meta::CommitMessage> messages;
  for (auto& [key, writer] : writers_) {
    meta::CommitMessage message = writer->TakeMessage();
    if (!message.IsEmpty()) messages.push_back(std::move(message));
  }
  // Sequence numbers continue in memory: the next commit's files follow these.
  return messages;
}

Status AppendTableWrite::Abort(const std::vector<meta::CommitMessage>& uncommitted) {
  Status first_error;
  auto remove = [&](const std::string& path) {
    Status st = file_io_->Delete(path, false);
    if (!st.ok() && first_error.ok()) first_error = st;
  };
  for (auto& [key, writer] : writers_) {
    std::vector<std::string> pending = writer->PendingPaths();
    writer->DropPending();
    for (const auto& path : pending) remove(path);
  }
  for (const auto& message : uncommitted) {
    for (const auto& file : message.new_files) {
      FRESHET_ASSIGN_OR_RETURN(std::string path,
                               paths_.FilePath(message.partition, message.bucket, file));
      remove(path);
    }
  }
  return first_error;
}

}  // namespace freshet::write
