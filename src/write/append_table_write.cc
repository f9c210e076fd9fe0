#include "write/append_table_write.h"

#include <arrow/api.h>

#include "meta/row/binary_row.h"

namespace freshet::write {

// The files of one partition-bucket and their metadata.
class BucketWriter {
 public:
  BucketWriter(const DataFileSettings* settings, std::string directory, std::string partition,
               int32_t bucket, int32_t total_buckets, int64_t next_sequence_number,
               const meta::TableSchema* schema)
      : files_(settings, std::move(directory), schema->fields()),
        schema_(schema),
        next_sequence_number_(next_sequence_number) {
    message_.partition = std::move(partition);
    message_.bucket = bucket;
    message_.total_buckets = total_buckets;
  }

  Status Write(const arrow::RecordBatch& batch) {
    FRESHET_ASSIGN_OR_RETURN(auto closed, files_.Write(batch));
    if (closed) AddFile(std::move(*closed));
    return Status::OK();
  }

  // Finishes the open file, if any; on failure everything written stays pending for Abort().
  Status CloseOpenFile() {
    FRESHET_ASSIGN_OR_RETURN(auto closed, files_.Close());
    if (closed) AddFile(std::move(*closed));
    return Status::OK();
  }

  // Hands out the closed files (after CloseOpenFile succeeded).
  meta::CommitMessage TakeMessage() {
    meta::CommitMessage out = message_;
    message_.new_files.clear();
    return out;
  }

  // Paths of files written but not yet handed out by PrepareCommit (open one included).
  std::vector<std::string> PendingPaths() const {
    std::vector<std::string> paths;
    for (const auto& f : message_.new_files) paths.push_back(files_.PathOf(f.file_name));
    if (auto open = files_.open_path()) paths.push_back(*open);
    return paths;
  }
  void DropPending() {
    files_.DropOpenFile();
    message_.new_files.clear();
  }

 private:
  void AddFile(ClosedFile closed) {
    meta::DataFileMeta file;
    file.file_name = std::move(closed.name);
    file.file_size = closed.result.file_size;
    file.row_count = closed.result.row_count;
    file.min_key = meta::EmptySerializedRow();
    file.max_key = meta::EmptySerializedRow();
    file.key_stats = meta::SimpleStats::Empty();
    file.value_stats = std::move(closed.result.stats);
    file.value_stats_cols = std::move(closed.result.stats_columns);
    file.min_sequence_number = next_sequence_number_;
    file.max_sequence_number = next_sequence_number_ + file.row_count - 1;
    next_sequence_number_ += file.row_count;
    file.schema_id = schema_->id();
    file.level = 0;
    file.creation_time_millis = FileCreationTimeMillis();
    file.delete_row_count = 0;
    file.file_source = static_cast<int32_t>(meta::FileSource::kAppend);
    message_.new_files.push_back(std::move(file));
  }

  RollingFileWriter files_;
  const meta::TableSchema* schema_;
  int64_t next_sequence_number_;
  meta::CommitMessage message_;
};

AppendTableWrite::AppendTableWrite(meta::TableSchema schema, meta::CoreOptions options,
                                   meta::DataFilePaths paths, write::RowKeyExtractor keys,
                                   DataFileSettings files)
    : schema_(std::move(schema)),
      options_(std::move(options)),
      paths_(std::move(paths)),
      keys_(std::move(keys)),
      files_(std::move(files)) {}

AppendTableWrite::~AppendTableWrite() = default;

Result<std::unique_ptr<AppendTableWrite>> AppendTableWrite::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  if (!schema.primary_keys().empty()) {
    return Status::NotImplemented("table '", table_path,
                                  "' has a primary key: AppendTableWrite writes append tables "
                                  "only (KeyValueTableWrite writes primary-key tables)");
  }
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), false));
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  FRESHET_ASSIGN_OR_RETURN(auto keys, write::RowKeyExtractor::Make(schema));
  DataFileSettings files;
  files.file_io = std::move(file_io);
  FRESHET_ASSIGN_OR_RETURN(files.writer_options, format::FormatWriterOptions::FromTableOptions(
                                                     schema.fields(), schema.options()));
  FRESHET_ASSIGN_OR_RETURN(files.format, format::ParseFileFormat(options.file_format()));
  files.target_file_size = options.target_file_size();
  files.file_prefix = options.data_file_prefix();
  return std::unique_ptr<AppendTableWrite>(new AppendTableWrite(
      std::move(schema), std::move(options), std::move(paths), std::move(keys), std::move(files)));
}

Result<BucketWriter*> AppendTableWrite::WriterFor(const std::string& partition, int32_t bucket) {
  auto key = std::make_pair(partition, bucket);
  if (auto it = writers_.find(key); it != writers_.end()) return it->second.get();
  if (!max_sequence_numbers_) {
    FRESHET_ASSIGN_OR_RETURN(max_sequence_numbers_,
                             LoadMaxSequenceNumbers(files_.file_io, paths_.table_path()));
  }
  int64_t next = NextSequenceNumber(*max_sequence_numbers_, partition, bucket);
  FRESHET_ASSIGN_OR_RETURN(std::string directory, paths_.BucketDirectory(partition, bucket));
  auto writer = std::make_unique<BucketWriter>(&files_, directory, partition, bucket,
                                               options_.bucket(), next, &schema_);
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
  std::vector<std::string> pending;
  for (auto& [key, writer] : writers_) {
    std::vector<std::string> paths = writer->PendingPaths();
    writer->DropPending();
    pending.insert(pending.end(), paths.begin(), paths.end());
  }
  return DeleteUncommittedFiles(*files_.file_io, paths_, pending, uncommitted);
}

}  // namespace freshet::write
