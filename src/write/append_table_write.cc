#include "write/append_table_write.h"

#include <arrow/api.h>

#include <algorithm>
#include <set>

#include "meta/row/binary_row.h"

namespace freshet::write {

Result<DataFileSettings> AppendFileSettings(std::shared_ptr<io::FileIO> file_io,
                                            const meta::TableSchema& schema,
                                            const meta::CoreOptions& options) {
  DataFileSettings files;
  files.file_io = std::move(file_io);
  FRESHET_ASSIGN_OR_RETURN(files.writer_options, format::FormatWriterOptions::FromTableOptions(
                                                     schema.fields(), schema.options()));
  FRESHET_ASSIGN_OR_RETURN(files.format, format::ParseFileFormat(options.file_format()));
  files.target_file_size = options.target_file_size();
  files.file_prefix = options.data_file_prefix();
  FRESHET_RETURN_NOT_OK(SetFileIndexSettings(schema, &files));
  return files;
}

// ---------------------------------------------------------------------------------------------
AppendFileWriter::AppendFileWriter(const DataFileSettings* settings, std::string directory,
                                   std::string partition, int32_t bucket, int32_t total_buckets,
                                   int64_t next_sequence_number, const meta::TableSchema* schema,
                                   meta::FileSource source)
    : files_(settings, std::move(directory), schema->fields()),
      schema_(schema),
      next_sequence_number_(next_sequence_number),
      source_(source) {
  message_.partition = std::move(partition);
  message_.bucket = bucket;
  message_.total_buckets = total_buckets;
}

Status AppendFileWriter::Write(const arrow::RecordBatch& batch) {
  FRESHET_ASSIGN_OR_RETURN(auto closed, files_.Write(batch));
  if (closed) AddFile(std::move(*closed));
  return Status::OK();
}

Status AppendFileWriter::CloseOpenFile() {
  FRESHET_ASSIGN_OR_RETURN(auto closed, files_.Close());
  if (closed) AddFile(std::move(*closed));
  return Status::OK();
}

meta::CommitMessage AppendFileWriter::TakeMessage() {
  meta::CommitMessage out = message_;
  message_.new_files.clear();
  return out;
}

std::vector<std::string> AppendFileWriter::PendingPaths() const {
  std::vector<std::string> paths;
  for (const auto& f : message_.new_files) {
    for (std::string& path : files_.PathsOf(f)) paths.push_back(std::move(path));
  }
  if (auto open = files_.open_path()) paths.push_back(*open);
  return paths;
}

void AppendFileWriter::DropPending() {
  files_.DropOpenFile();
  message_.new_files.clear();
}

void AppendFileWriter::AddFile(ClosedFile closed) {
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
  file.file_source = static_cast<int32_t>(source_);
  AttachFileIndex(&closed, &file);
  message_.new_files.push_back(std::move(file));
}

// ---------------------------------------------------------------------------------------------
struct AppendTableWrite::Bucket {
  AppendFileWriter files;
  std::unique_ptr<AppendBucketCompactManager> compaction;  // fixed buckets that compact
  PendingCompaction pending;
};

AppendTableWrite::AppendTableWrite(meta::TableSchema schema, meta::CoreOptions options,
                                   meta::DataFilePaths paths, write::RowKeyExtractor keys,
                                   DataFileSettings files)
    : schema_(std::move(schema)),
      options_(std::move(options)),
      paths_(std::move(paths)),
      keys_(std::move(keys)),
      files_(std::move(files)) {}

AppendTableWrite::~AppendTableWrite() {
  // Results never handed out were never committed.
  DiscardUnawareCompaction();
  for (auto& [key, bucket] : writers_) bucket->pending.Discard(*files_.file_io);
}

Result<std::unique_ptr<AppendTableWrite>> AppendTableWrite::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
    std::shared_ptr<AppendRewriter> compaction) {
  if (!schema.primary_keys().empty()) {
    return Status::NotImplemented("table '", table_path,
                                  "' has a primary key: AppendTableWrite writes append tables "
                                  "only (KeyValueTableWrite writes primary-key tables)");
  }
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), false));
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  FRESHET_ASSIGN_OR_RETURN(auto keys, write::RowKeyExtractor::Make(schema));
  FRESHET_ASSIGN_OR_RETURN(auto files, AppendFileSettings(std::move(file_io), schema, options));
  FRESHET_ASSIGN_OR_RETURN(auto compact_options, AppendCompactOptions::FromTableOptions(schema));
  std::unique_ptr<AppendTableWrite> write(new AppendTableWrite(
      std::move(schema), std::move(options), std::move(paths), std::move(keys), std::move(files)));
  write->compact_options_ = compact_options;
  // Java's writers do not compact write-only tables; only fixed and unaware buckets compact.
  bool compacts = compaction && !compact_options.write_only &&
                  (write->options_.bucket() > 0 || write->unaware());
  if (compacts) {
    write->rewriter_ = std::move(compaction);
    write->compaction_thread_ = std::make_unique<CompactionThread>();
    if (write->unaware()) write->coordinator_.emplace(&write->compact_options_);
  }
  return write;
}

Result<const BucketFiles*> AppendTableWrite::LiveFiles() {
  if (!live_files_) {
    FRESHET_ASSIGN_OR_RETURN(live_files_, LoadBucketFiles(files_.file_io, paths_.table_path()));
  }
  return &*live_files_;
}

Result<AppendTableWrite::Bucket*> AppendTableWrite::WriterFor(const std::string& partition,
                                                              int32_t bucket) {
  auto key = std::make_pair(partition, bucket);
  if (auto it = writers_.find(key); it != writers_.end()) return it->second.get();
  // Restored from the latest snapshot, as Java's writers restore: sequence numbers continue
  // from the live files, which are also the compaction queue's first files.
  FRESHET_ASSIGN_OR_RETURN(const BucketFiles* live, LiveFiles());
  auto files_it = live->find(key);
  std::vector<meta::DataFileMeta> restored =
      files_it == live->end() ? std::vector<meta::DataFileMeta>{} : files_it->second;
  int64_t next = 0;
  for (const auto& file : restored) next = std::max(next, file.max_sequence_number + 1);
  FRESHET_ASSIGN_OR_RETURN(std::string directory, paths_.BucketDirectory(partition, bucket));
  auto state = std::unique_ptr<Bucket>(
      new Bucket{AppendFileWriter(&files_, directory, partition, bucket, options_.bucket(), next,
                                  &schema_, meta::FileSource::kAppend),
                 nullptr, PendingCompaction{}});
  if (rewriter_ && !unaware()) {
    state->compaction = std::make_unique<AppendBucketCompactManager>(
        partition, bucket, std::move(restored), &compact_options_, rewriter_,
        compaction_thread_.get(), files_.file_io);
  }
  Bucket* raw = state.get();
  writers_.emplace(key, std::move(state));
  return raw;
}

Status AppendTableWrite::Write(const arrow::RecordBatch& batch) {
  FRESHET_ASSIGN_OR_RETURN(write::RowKeys keys, keys_.Extract(batch));
  if (keys.SingleGroup()) {
    return WriteBucket(meta::SerializeBinaryRow(keys.partitions[0]),
                       keys.bucket_of_row.empty() ? 0 : keys.bucket_of_row.front(), batch);
  }
  StartUnawareCompaction();
  for (const write::RowGroup& group : keys.Groups()) {
    FRESHET_ASSIGN_OR_RETURN(Bucket * writer,
                             WriterFor(meta::SerializeBinaryRow(group.partition), group.bucket));
    // Consecutive runs of the group's rows are written as zero-copy slices.
    for (const auto& [begin, end] : group.Runs()) {
      FRESHET_RETURN_NOT_OK(writer->files.Write(*batch.Slice(begin, end - begin)));
    }
  }
  return Status::OK();
}

Status AppendTableWrite::WriteBucket(const std::string& serialized_partition, int32_t bucket,
                                     const arrow::RecordBatch& batch) {
  StartUnawareCompaction();
  FRESHET_ASSIGN_OR_RETURN(Bucket * writer, WriterFor(serialized_partition, bucket));
  return writer->files.Write(batch);
}

void AppendTableWrite::StartUnawareCompaction() {
  if (!coordinator_ || !plan_due_ || unaware_task_.valid()) return;
  plan_due_ = false;
  // Java's streaming sink plans on every new snapshot; here the plan follows this writer's
  // commits. The task reads the latest snapshot and owns the coordinator until it is taken.
  unaware_task_ = compaction_thread_->Submit(
      [file_io = files_.file_io, table_path = paths_.table_path(), rewriter = rewriter_,
       coordinator = &*coordinator_]() -> Result<UnawareResults> {
        FRESHET_ASSIGN_OR_RETURN(BucketFiles live, LoadBucketFiles(file_io, table_path));
        std::map<std::string, std::vector<meta::DataFileMeta>> by_partition;
        for (auto& [key, files] : live) by_partition[key.first] = std::move(files);
        UnawareResults results;
        for (const AppendCompactTask& task : coordinator->Plan(by_partition, false)) {
          Result<CompactionResult> done = rewriter->Rewrite(task.partition, 0, task.files);
          if (!done.ok()) {
            for (const auto& [partition, result] : results) {
              for (const auto& path : result.written) (void)file_io->Delete(path, false);
            }
            return done.status();
          }
          results.emplace_back(task.partition, std::move(*done));
        }
        return results;
      });
}

void AppendTableWrite::DiscardUnawareCompaction() {
  if (!unaware_task_.valid()) return;
  Result<UnawareResults> results = unaware_task_.get();
  if (!results.ok()) return;
  for (const auto& [partition, result] : *results) {
    for (const auto& path : result.written) (void)files_.file_io->Delete(path, false);
  }
}

Status AppendTableWrite::CollectCompactions(bool blocking) {
  for (auto& [key, bucket] : writers_) {
    if (!bucket->compaction) continue;
    FRESHET_ASSIGN_OR_RETURN(auto result, bucket->compaction->TakeResult(blocking));
    if (result) bucket->pending.Add(std::move(*result), *files_.file_io);
  }
  if (!unaware_task_.valid()) return Status::OK();
  if (!blocking && unaware_task_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return Status::OK();
  }
  FRESHET_ASSIGN_OR_RETURN(UnawareResults results, unaware_task_.get());
  for (auto& [partition, result] : results) {
    unaware_pending_[partition].Add(std::move(result), *files_.file_io);
  }
  return Status::OK();
}

Result<std::vector<meta::CommitMessage>> AppendTableWrite::PrepareCommit() {
  return PrepareCommit(PrepareOptions{});
}

Result<std::vector<meta::CommitMessage>> AppendTableWrite::PrepareCommit(
    const PrepareOptions& options) {
  // Close every file first: if one fails, no writer has handed its files out yet and Abort()
  // deletes them all.
  for (auto& [key, writer] : writers_) FRESHET_RETURN_NOT_OK(writer->files.CloseOpenFile());
  // As Java's AppendOnlyWriter.prepareCommit: the new files join the queues, a finished
  // compaction is taken, the next one starts, and the commit waits for it when asked to. A
  // failed compaction fails the call with the new files still held (joining a queue twice is a
  // no-op), so that a retry hands them out.
  for (auto& [key, writer] : writers_) {
    if (writer->compaction) writer->compaction->AddNewFiles(writer->files.new_files());
  }
  FRESHET_RETURN_NOT_OK(CollectCompactions(false));
  for (auto& [key, writer] : writers_) {
    if (writer->compaction) writer->compaction->Trigger(false);
  }
  FRESHET_RETURN_NOT_OK(
      CollectCompactions(options.wait_compaction || compact_options_.force_compact));
  std::map<std::pair<std::string, int32_t>, meta::CommitMessage> messages;
  for (auto& [key, writer] : writers_) messages[key] = writer->files.TakeMessage();
  for (auto& [key, writer] : writers_) {
    PendingCompaction& pending = writer->pending;
    meta::CommitMessage& message = messages[key];
    message.compact_before = std::exchange(pending.before, {});
    message.compact_after = std::exchange(pending.after, {});
    pending.written.clear();  // the caller commits or aborts them now
  }
  for (auto& [partition, pending] : unaware_pending_) {
    meta::CommitMessage& message = messages[{partition, 0}];
    message.partition = partition;
    message.bucket = 0;
    message.total_buckets = options_.bucket();
    message.compact_before = std::move(pending.before);
    message.compact_after = std::move(pending.after);
  }
  unaware_pending_.clear();
  plan_due_ = true;
  std::vector<meta::CommitMessage> out;
  for (auto& [key, message] : messages) {
    if (!message.IsEmpty()) out.push_back(std::move(message));
  }
  // Sequence numbers continue in memory: the next commit's files follow these.
  return out;
}

Status AppendTableWrite::Abort(const std::vector<meta::CommitMessage>& uncommitted) {
  std::vector<std::string> pending;
  for (auto& [key, writer] : writers_) {
    std::vector<std::string> paths = writer->files.PendingPaths();
    writer->files.DropPending();
    pending.insert(pending.end(), paths.begin(), paths.end());
    writer->pending.Discard(*files_.file_io);
  }
  DiscardUnawareCompaction();
  for (auto& [partition, unaware] : unaware_pending_) unaware.Discard(*files_.file_io);
  unaware_pending_.clear();
  // The compaction queues held the aborted files: the next write restores every bucket from
  // the latest snapshot (destroying a queue discards its running compaction).
  writers_.clear();
  live_files_.reset();
  return DeleteUncommittedFiles(*files_.file_io, paths_, pending, uncommitted);
}

Status AppendTableWrite::CompactionsRejected(const std::vector<meta::CommitMessage>& messages,
                                             bool delete_files) {
  live_files_.reset();  // the latest snapshot has changed under this writer
  for (const auto& message : messages) {
    if (message.compact_before.empty() && message.compact_after.empty()) continue;
    if (delete_files) {
      for (const auto& file : NewCompactedFiles(message)) {
        auto path = paths_.FilePath(message.partition, message.bucket, file);
        if (path.ok()) (void)files_.file_io->Delete(*path, false);
        auto extras = paths_.ExtraFilePaths(message.partition, message.bucket, file);
        for (const auto& extra : extras.ok() ? *extras : std::vector<std::string>{}) {
          (void)files_.file_io->Delete(extra, false);
        }
      }
    }
    auto it = writers_.find({message.partition, message.bucket});
    if (it == writers_.end() || !it->second->compaction) continue;
    // The queue as the latest snapshot has it; results not handed out yet were planned on the
    // refused files too.
    FRESHET_ASSIGN_OR_RETURN(const BucketFiles* live, LiveFiles());
    auto files_it = live->find(it->first);
    it->second->pending.Discard(*files_.file_io);
    it->second->compaction->Reset(files_it == live->end() ? std::vector<meta::DataFileMeta>{}
                                                          : files_it->second);
  }
  return Status::OK();
}

std::vector<meta::DataFileMeta> AppendTableWrite::CompactionQueue(const std::string& partition,
                                                                  int32_t bucket) const {
  auto it = writers_.find({partition, bucket});
  if (it == writers_.end() || !it->second->compaction) return {};
  return it->second->compaction->to_compact();
}

}  // namespace freshet::write
