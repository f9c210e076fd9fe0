#include "write/key_value_table_write.h"

#include <arrow/api.h>

#include <algorithm>
#include <set>
#include <utility>

#include "common/arrow_status.h"
#include "mergetree/merge_function.h"
#include "mergetree/primary_key_support.h"
#include "mergetree/sort_merge_reader.h"
#include "meta/options/option_registry.h"
#include "meta/row/binary_row.h"

namespace freshet::write {

namespace {

// Bytes of variable-length values in rows [begin, end) of a binary-like column, 0 for others.
int64_t ValueBytes(const arrow::Array& column, int64_t begin, int64_t end) {
  switch (column.type_id()) {
    case arrow::Type::BINARY:
    case arrow::Type::STRING: {
      const auto& binary = static_cast<const arrow::BinaryArray&>(column);
      return binary.value_offset(end) - binary.value_offset(begin);
    }
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::LARGE_STRING: {
      const auto& binary = static_cast<const arrow::LargeBinaryArray&>(column);
      return binary.value_offset(end) - binary.value_offset(begin);
    }
    default:
      return 0;
  }
}

// The rows `runs` of `column`, copied into buffers of exactly their size: a builder left to
// grow would double its capacity, and allocators keep the excess when Finish() shrinks it in
// place, so the buffer would hold more than it accounts for.
Result<std::shared_ptr<arrow::Array>> CopyRows(
    const arrow::Array& column, const std::vector<std::pair<int64_t, int64_t>>& runs) {
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto builder, arrow::MakeBuilder(column.type()));
  int64_t rows = 0, value_bytes = 0;
  for (const auto& [begin, end] : runs) {
    rows += end - begin;
    value_bytes += ValueBytes(column, begin, end);
  }
  FRESHET_RETURN_NOT_OK_ARROW(builder->Reserve(rows));
  if (value_bytes > 0) {
    if (arrow::is_large_binary_like(column.type_id())) {
      FRESHET_RETURN_NOT_OK_ARROW(
          static_cast<arrow::LargeBinaryBuilder&>(*builder).ReserveData(value_bytes));
    } else {
      FRESHET_RETURN_NOT_OK_ARROW(
          static_cast<arrow::BinaryBuilder&>(*builder).ReserveData(value_bytes));
    }
  }
  arrow::ArraySpan span(*column.data());
  for (const auto& [begin, end] : runs) {
    FRESHET_RETURN_NOT_OK_ARROW(builder->AppendArraySlice(span, begin, end - begin));
  }
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto copy, builder->Finish());
  return copy;
}

}  // namespace

struct KeyValueTableWrite::Bucket {
  Bucket(std::string partition_bytes, int32_t bucket_id, int64_t first_sequence,
         const KeyValueTableWrite& write, SpillDirectory* spill, std::string directory)
      : partition(std::move(partition_bytes)),
        bucket(bucket_id),
        next_sequence(first_sequence),
        // A flush merges up to kMaxSpillRuns spilled runs, one batch of each in memory: half
        // the write buffer at most.
        buffer(&write.layout_, &*write.order_, spill,
               std::max<int64_t>(1, write.write_buffer_size_ / (2 * SortBuffer::kMaxSpillRuns))),
        files(&*write.file_format_, directory) {
    if (write.changelog_format_) changelog.emplace(&*write.changelog_format_, std::move(directory));
  }

  std::string partition;  // serialized BinaryRow
  int32_t bucket;
  int64_t next_sequence;
  SortBuffer buffer;
  KeyValueFileWriter files;
  std::optional<KeyValueFileWriter> changelog;       // changelog-producer = input
  std::unique_ptr<BucketCompactManager> compaction;  // null: the writer does not compact
  // Compaction results not handed out yet, merged (Java's CompactIncrement), and the paths of
  // their new files.
  std::vector<meta::DataFileMeta> compact_before;
  std::vector<meta::DataFileMeta> compact_after;
  std::vector<std::string> compact_written;
  // Deletion vectors: the bucket's newest uncommitted index file and the committed one it
  // replaces.
  meta::IndexIncrement compact_index;
  std::vector<meta::DataFileMeta> compact_changelog;  // their changelog files
};

KeyValueTableWrite::KeyValueTableWrite(std::shared_ptr<io::FileIO> file_io,
                                       meta::TableSchema schema, meta::CoreOptions options,
                                       meta::DataFilePaths paths, RowKeyExtractor keys,
                                       RowKindExtractor kinds, mergetree::MergeLayout layout,
                                       std::shared_ptr<CompactionRunner> compaction)
    : file_io_(std::move(file_io)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      paths_(std::move(paths)),
      keys_(std::move(keys)),
      kinds_(std::move(kinds)),
      layout_(std::move(layout)),
      compaction_runner_(std::move(compaction)) {}

KeyValueTableWrite::~KeyValueTableWrite() {
  // Compaction results never handed out were never committed.
  for (auto& [key, bucket] : buckets_) {
    for (const auto& path : bucket->compact_written) (void)file_io_->Delete(path, false);
  }
}

Result<std::unique_ptr<KeyValueTableWrite>> KeyValueTableWrite::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
    std::shared_ptr<CompactionRunner> compaction) {
  if (schema.primary_keys().empty()) {
    return Status::Invalid("table '", table_path, "' has no primary key");
  }
  // Options freshet cannot honour (merge engine, bucket mode, changelog producer) are refused
  // before anything is written.
  FRESHET_RETURN_NOT_OK(mergetree::CheckPrimaryKeyTable(schema, mergetree::PrimaryKeyUse::kWrite));
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), true));
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  // Dynamic buckets: the extractor gives key hashes, the table's hash index the buckets.
  FRESHET_ASSIGN_OR_RETURN(auto keys, RowKeyExtractor::Make(schema, schema.bucket() == -1));
  FRESHET_ASSIGN_OR_RETURN(auto kinds, RowKindExtractor::Make(schema));
  FRESHET_ASSIGN_OR_RETURN(auto layout, mergetree::MakeMergeLayout(schema, schema.fields()));
  std::unique_ptr<KeyValueTableWrite> write(new KeyValueTableWrite(
      std::move(file_io), std::move(schema), std::move(options), std::move(paths), std::move(keys),
      std::move(kinds), std::move(layout), std::move(compaction)));
  FRESHET_RETURN_NOT_OK(write->Init());
  return write;
}

Status KeyValueTableWrite::Init() {
  // The order and the file format point into layout_: made here, once it has its address.
  FRESHET_ASSIGN_OR_RETURN(order_, RecordOrder::Make(layout_));
  FRESHET_ASSIGN_OR_RETURN(file_format_,
                           KeyValueFileFormat::Make(file_io_, schema_, options_, &layout_));
  FRESHET_ASSIGN_OR_RETURN(changelog_producer_, GetChangelogProducer(schema_));
  if (changelog_producer_ == ChangelogProducer::kInput) {
    FRESHET_ASSIGN_OR_RETURN(changelog_format_,
                             MakeChangelogFileFormat(file_io_, schema_, &layout_));
  }
  FRESHET_ASSIGN_OR_RETURN(ignore_delete_, mergetree::IgnoreDelete(schema_));
  FRESHET_ASSIGN_OR_RETURN(write_buffer_size_,
                           meta::GetMemorySizeOption(schema_.options(), "write-buffer-size"));
  FRESHET_ASSIGN_OR_RETURN(spillable_,
                           meta::GetBoolOption(schema_.options(), "write-buffer-spillable"));
  FRESHET_ASSIGN_OR_RETURN(
      compaction_options_,
      mergetree::compact::CompactionOptions::FromTableOptions(schema_.options()));
  if (compaction_options_->write_only) compaction_runner_.reset();
  if (compaction_runner_) compaction_thread_ = std::make_unique<CompactionThread>();
  if (schema_.bucket() == -1) {
    FRESHET_ASSIGN_OR_RETURN(dynamic_buckets_,
                             DynamicBucketIndex::Make(file_io_, paths_.table_path(), schema_));
  }
  return Status::OK();
}

Result<const BucketFiles*> KeyValueTableWrite::LiveFiles() {
  if (!live_files_) {
    FRESHET_ASSIGN_OR_RETURN(live_files_, LoadBucketFiles(file_io_, paths_.table_path()));
  }
  return &*live_files_;
}

int KeyValueTableWrite::NumberOfSortedRuns(const std::string& partition, int32_t bucket) const {
  auto it = buckets_.find({partition, bucket});
  if (it == buckets_.end() || !it->second->compaction) return -1;
  return it->second->compaction->levels().NumberOfSortedRuns();
}

Result<KeyValueTableWrite::Bucket*> KeyValueTableWrite::BucketFor(const std::string& partition,
                                                                  int32_t bucket) {
  auto key = std::make_pair(partition, bucket);
  if (auto it = buckets_.find(key); it != buckets_.end()) return it->second.get();
  // Restored from the latest snapshot, as Java's writers restore: sequence numbers continue
  // from the live files, and they are the levels compaction starts from.
  FRESHET_ASSIGN_OR_RETURN(const BucketFiles* live, LiveFiles());
  auto files_it = live->find(key);
  std::vector<meta::DataFileMeta> files =
      files_it == live->end() ? std::vector<meta::DataFileMeta>{} : files_it->second;
  int64_t next_sequence = 0;
  for (const auto& file : files) {
    next_sequence = std::max(next_sequence, file.max_sequence_number + 1);
  }
  FRESHET_ASSIGN_OR_RETURN(std::string directory, paths_.BucketDirectory(partition, bucket));
  auto state = std::make_unique<Bucket>(partition, bucket, next_sequence, *this,
                                        spillable_ ? &spill_ : nullptr, std::move(directory));
  if (compaction_runner_) {
    FRESHET_ASSIGN_OR_RETURN(
        auto levels, mergetree::compact::Levels::Create(file_format_->key_types(), std::move(files),
                                                        compaction_options_->num_levels));
    state->compaction = std::make_unique<BucketCompactManager>(
        partition, bucket, std::move(levels), &*compaction_options_, compaction_runner_,
        compaction_thread_.get(), file_io_);
  }
  Bucket* raw = state.get();
  buckets_.emplace(std::move(key), std::move(state));
  return raw;
}

Status KeyValueTableWrite::Write(const arrow::RecordBatch& batch) {
  // Every check on the input happens here, before any record is buffered.
  FRESHET_ASSIGN_OR_RETURN(KindedBatch input, kinds_.Extract(batch));
  FRESHET_ASSIGN_OR_RETURN(RowKeys keys, keys_.Extract(*input.rows));
  if (dynamic_buckets_) FRESHET_RETURN_NOT_OK(dynamic_buckets_->Assign(&keys));
  for (const RowGroup& group : keys.Groups()) {
    FRESHET_ASSIGN_OR_RETURN(Bucket * bucket,
                             BucketFor(meta::SerializeBinaryRow(group.partition), group.bucket));
    FRESHET_ASSIGN_OR_RETURN(auto records, ToRecords(*input.rows, input.kinds, group, bucket));
    if (records) bucket->buffer.Add(std::move(records));
    FRESHET_RETURN_NOT_OK(KeepWithinMemory());
  }
  return Status::OK();
}

Status KeyValueTableWrite::WriteRecords(const std::string& partition, int32_t bucket,
                                        std::shared_ptr<mergetree::MergeBatch> records) {
  if (records == nullptr || records->num_rows() == 0) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(Bucket * state, BucketFor(partition, bucket));
  state->next_sequence =
      std::max(state->next_sequence, records->sequence(records->num_rows() - 1) + 1);
  state->buffer.Add(std::move(records));
  return KeepWithinMemory();
}

Result<std::shared_ptr<mergetree::MergeBatch>> KeyValueTableWrite::ToRecords(
    const arrow::RecordBatch& rows, const std::vector<RowKind>& kinds, const RowGroup& group,
    Bucket* bucket) {
  // Java's TableWriteImpl drops retract rows of ignore-delete tables before they are written.
  RowGroup kept{group.partition, group.bucket, {}};
  for (int64_t row : group.rows) {
    if (!(ignore_delete_ && mergetree::IsRetract(kinds[static_cast<size_t>(row)]))) {
      kept.rows.push_back(row);
    }
  }
  if (kept.rows.empty()) return std::shared_ptr<mergetree::MergeBatch>();
  // The records are copied: the buffer's memory is then exactly what it accounts for.
  std::vector<std::shared_ptr<arrow::Array>> columns;
  const auto runs = kept.Runs();
  for (int i = 0; i < layout_.num_value_fields(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(auto column, CopyRows(*rows.column(i), runs));
    columns.push_back(std::move(column));
  }
  auto num_rows = static_cast<int64_t>(kept.rows.size());
  arrow::Int64Builder sequences;
  arrow::Int8Builder row_kinds;
  FRESHET_RETURN_NOT_OK_ARROW(sequences.Reserve(num_rows));
  FRESHET_RETURN_NOT_OK_ARROW(row_kinds.Reserve(num_rows));
  for (int64_t row : kept.rows) {
    FRESHET_RETURN_NOT_OK_ARROW(sequences.Append(bucket->next_sequence++));
    FRESHET_RETURN_NOT_OK_ARROW(
        row_kinds.Append(static_cast<int8_t>(kinds[static_cast<size_t>(row)])));
  }
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto sequence_column, sequences.Finish());
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto kind_column, row_kinds.Finish());
  columns.push_back(std::move(sequence_column));
  columns.push_back(std::move(kind_column));
  return mergetree::MergeBatch::Make(
      arrow::RecordBatch::Make(layout_.arrow_schema(), num_rows, std::move(columns)), layout_);
}

void KeyValueTableWrite::ReturnFreedMemory() {
  // The allocator keeps what a spill or a flush freed for reuse, yet the next allocations differ
  // in size (records, then encoded pages): unreturned, the process would grow past twice
  // write-buffer-size.
  arrow::default_memory_pool()->ReleaseUnused();
}

int64_t KeyValueTableWrite::buffered_bytes() const {
  int64_t total = 0;
  for (const auto& [key, bucket] : buckets_) total += bucket->buffer.memory_bytes();
  return total;
}

Status KeyValueTableWrite::KeepWithinMemory() {
  // As Java's memory pool: the buffers share the budget, and the largest one makes room.
  while (buffered_bytes() > write_buffer_size_) {
    Bucket* largest = nullptr;
    for (const auto& [key, bucket] : buckets_) {
      if (!largest || bucket->buffer.memory_bytes() > largest->buffer.memory_bytes()) {
        largest = bucket.get();
      }
    }
    if (spillable_) {
      FRESHET_RETURN_NOT_OK(largest->buffer.Spill());
      ++spilled_runs_;
    } else {
      FRESHET_RETURN_NOT_OK(Flush(largest));
    }
    ReturnFreedMemory();
  }
  return Status::OK();
}

Status KeyValueTableWrite::SpillBeforeLargeFlush() {
  // A bucket's flush needs memory of its own (the merge, an open row group or stripe) while the
  // other buckets still hold their records. Once a buffer has spilled, this commit's input was
  // larger than the buffer anyway: spilling the rest too keeps the flushes to the writer's own
  // memory, at the cost of at most one buffer of extra local I/O.
  if (!spillable_) return Status::OK();
  bool any_spilled = false;
  for (const auto& [key, bucket] : buckets_) any_spilled |= bucket->buffer.num_spilled_runs() > 0;
  if (!any_spilled) return Status::OK();
  for (auto& [key, bucket] : buckets_) FRESHET_RETURN_NOT_OK(bucket->buffer.Spill());
  ReturnFreedMemory();
  return Status::OK();
}

Status KeyValueTableWrite::Flush(Bucket* bucket) {
  if (bucket->buffer.empty()) return Status::OK();
  size_t mark = bucket->files.num_files();
  size_t changelog_mark = bucket->changelog ? bucket->changelog->num_files() : 0;
  Status written = bucket->changelog ? WriteInputChangelog(bucket) : Status::OK();
  if (written.ok()) written = WriteMerged(bucket);
  if (!written.ok()) {
    // The buffer stays for a retry, which writes it again: this attempt's files must go.
    std::vector<std::string> attempt = bucket->files.DropFilesSince(mark);
    if (bucket->changelog) {
      for (auto& path : bucket->changelog->DropFilesSince(changelog_mark)) {
        attempt.push_back(std::move(path));
      }
    }
    for (const auto& path : attempt) (void)file_io_->Delete(path, false);
    return written;
  }
  bucket->buffer.Clear();
  return CompactAfterFlush(bucket, bucket->files.FilesSince(mark));
}

Status KeyValueTableWrite::CompactAfterFlush(Bucket* bucket,
                                             const std::vector<meta::DataFileMeta>& flushed) {
  if (!bucket->compaction) return Status::OK();
  FRESHET_RETURN_NOT_OK(bucket->compaction->AddNewFiles(flushed));
  // Back-pressure: past the stop trigger the writer waits for the running compaction.
  FRESHET_RETURN_NOT_OK(CollectCompaction(bucket, bucket->compaction->MustWait()));
  return bucket->compaction->Trigger(false);
}

Status KeyValueTableWrite::CollectCompaction(Bucket* bucket, bool blocking) {
  if (!bucket->compaction) return Status::OK();
  FRESHET_ASSIGN_OR_RETURN(auto result, bucket->compaction->TakeResult(blocking));
  if (!result) return Status::OK();
  // Merged with what is pending, as Java's writer does: a file an earlier, uncommitted
  // compaction wrote or moved and this one replaced leaves both lists; if that compaction wrote
  // it, it was never committed and leaves the disk too.
  std::set<std::string> kept;
  for (const auto& file : result->after) kept.insert(file.file_name);
  for (auto& file : result->before) {
    auto pending = std::find_if(
        bucket->compact_after.begin(), bucket->compact_after.end(), [&](const auto& after) {
          return after.file_name == file.file_name && after.level == file.level;
        });
    if (pending == bucket->compact_after.end()) {
      bucket->compact_before.push_back(std::move(file));
      continue;
    }
    bucket->compact_after.erase(pending);
    if (kept.count(file.file_name)) continue;
    // Only a file an earlier compaction wrote can go: an upgraded one is a flushed or
    // committed file that other snapshots need.
    FRESHET_ASSIGN_OR_RETURN(std::string path,
                             paths_.FilePath(bucket->partition, bucket->bucket, file));
    auto written = std::find(bucket->compact_written.begin(), bucket->compact_written.end(), path);
    if (written == bucket->compact_written.end()) continue;
    FRESHET_ASSIGN_OR_RETURN(auto paths,
                             paths_.ExtraFilePaths(bucket->partition, bucket->bucket, file));
    paths.push_back(path);
    for (const std::string& gone : paths) {
      std::erase(bucket->compact_written, gone);
      (void)file_io_->Delete(gone, false);
    }
  }
  for (auto& file : result->after) bucket->compact_after.push_back(std::move(file));
  for (auto& path : result->written) bucket->compact_written.push_back(std::move(path));
  // A later compaction never replaces changelog: each one describes its own compaction.
  for (auto& file : result->changelog) bucket->compact_changelog.push_back(std::move(file));
  SupersedeIndexFiles(bucket, std::move(result->index_files));
  return Status::OK();
}

void KeyValueTableWrite::SupersedeIndexFiles(Bucket* bucket, meta::IndexIncrement later) {
  if (later.added.empty()) return;
  meta::IndexIncrement& pending = bucket->compact_index;
  if (pending.added.empty()) {
    pending = std::move(later);
    return;
  }
  // The earlier file was never committed: it leaves the disk, and the new file replaces what
  // the earlier one replaced.
  for (const auto& entry : pending.added) {
    std::string path = io::JoinPath(io::JoinPath(paths_.table_path(), "index"), entry.file_name);
    auto written = std::find(bucket->compact_written.begin(), bucket->compact_written.end(), path);
    if (written != bucket->compact_written.end()) bucket->compact_written.erase(written);
    (void)file_io_->Delete(path, false);
  }
  pending.added = std::move(later.added);
}

Status KeyValueTableWrite::WriteMerged(Bucket* bucket) {
  FRESHET_ASSIGN_OR_RETURN(auto merge, mergetree::MakeMergeFunction(schema_, layout_));
  std::unique_ptr<mergetree::MergeBatchReader> merged;
  // A deduplicate buffer that did not spill: its sort keeps each key's newest version itself.
  if (merge->KeepsNewestVersion()) merged = bucket->buffer.NewestVersionsRun();
  if (!merged) {
    FRESHET_ASSIGN_OR_RETURN(auto runs, bucket->buffer.Runs());
    FRESHET_ASSIGN_OR_RETURN(
        merged, mergetree::SortMergeReader::Make(layout_, std::move(runs), std::move(merge)));
  }
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, merged->Next());
    if (!batch) break;
    FRESHET_RETURN_NOT_OK(bucket->files.Write(*batch));
  }
  return bucket->files.Close();
}

Status KeyValueTableWrite::WriteInputChangelog(Bucket* bucket) {
  FRESHET_ASSIGN_OR_RETURN(auto runs, bucket->buffer.Runs());
  // No merge function: every record of every key, oldest first.
  FRESHET_ASSIGN_OR_RETURN(auto records,
                           mergetree::SortMergeReader::Make(layout_, std::move(runs), nullptr));
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, records->Next());
    if (!batch) break;
    FRESHET_RETURN_NOT_OK(bucket->changelog->Write(*batch));
  }
  return bucket->changelog->Close();
}

Result<std::vector<meta::CommitMessage>> KeyValueTableWrite::PrepareCommit() {
  return PrepareCommit(PrepareOptions{});
}

Result<std::vector<meta::CommitMessage>> KeyValueTableWrite::PrepareCommit(
    const PrepareOptions& options) {
  FRESHET_RETURN_NOT_OK(SpillBeforeLargeFlush());
  // Lookup tables (lookup-wait): the compaction that pushes this commit's level-0 files up, and
  // writes their lookup changelog, joins this commit.
  bool lookup_wait =
      compaction_runner_ && compaction_options_->need_lookup && compaction_options_->lookup_wait;
  // Flush every bucket first: if one fails, no bucket has handed its files out yet and Abort()
  // deletes them all.
  for (auto& [key, bucket] : buckets_) {
    FRESHET_RETURN_NOT_OK(Flush(bucket.get()));
    ReturnFreedMemory();
  }
  bool full = compaction_runner_ && mergetree::compact::FullCompactionDue(
                                        *compaction_options_, options.commit_identifier);
  for (auto& [key, bucket] : buckets_) {
    if (!bucket->compaction) continue;
    if (full) {
      // Java's full-compaction.delta-commits: after the running compaction, everything.
      FRESHET_RETURN_NOT_OK(CollectCompaction(bucket.get(), true));
      FRESHET_RETURN_NOT_OK(bucket->compaction->Trigger(true));
    } else if (lookup_wait) {
      // Java's flushWriteBuffer(waitForLatestCompaction): the running compaction may have
      // started before the last flush; the next one takes what is left at level 0.
      FRESHET_RETURN_NOT_OK(CollectCompaction(bucket.get(), true));
      FRESHET_RETURN_NOT_OK(bucket->compaction->Trigger(false));
    }
    FRESHET_RETURN_NOT_OK(
        CollectCompaction(bucket.get(), options.wait_compaction || full || lookup_wait));
  }
  // Before any bucket hands its files out: a failure here leaves them all for Abort().
  HashIndexIncrements index_files;
  if (dynamic_buckets_) {
    FRESHET_ASSIGN_OR_RETURN(index_files, dynamic_buckets_->PrepareCommit());
  }
  std::vector<meta::CommitMessage> messages;
  for (auto& [key, bucket] : buckets_) {
    meta::CommitMessage message;
    message.partition = bucket->partition;
    message.bucket = bucket->bucket;
    message.total_buckets = options_.bucket();
    message.new_files = bucket->files.TakeFiles();
    if (bucket->changelog) message.changelog_files = bucket->changelog->TakeFiles();
    message.compact_changelog_files = std::exchange(bucket->compact_changelog, {});
    message.compact_before = std::exchange(bucket->compact_before, {});
    message.compact_after = std::exchange(bucket->compact_after, {});
    message.compact_index_files = std::exchange(bucket->compact_index, {});
    bucket->compact_written.clear();  // the caller commits or aborts them now
    if (!message.IsEmpty()) messages.push_back(std::move(message));
  }
  AddHashIndexFiles(std::move(index_files), options_.bucket(), &messages);
  // Sequence numbers continue in memory: the next commit's records follow these.
  return messages;
}

Status KeyValueTableWrite::Abort(const std::vector<meta::CommitMessage>& uncommitted) {
  std::vector<std::string> pending;
  for (auto& [key, bucket] : buckets_) {
    bucket->buffer.Clear();
    for (auto& path : bucket->files.DropFilesSince(0)) pending.push_back(std::move(path));
    if (bucket->changelog) {
      for (auto& path : bucket->changelog->DropFilesSince(0)) pending.push_back(std::move(path));
    }
    for (auto& path : bucket->compact_written) pending.push_back(std::move(path));
    bucket->compact_written.clear();
  }
  // The buckets' levels held the aborted files: the next write restores them from the latest
  // snapshot (destroying a bucket waits for its running compaction and deletes its files).
  std::vector<std::pair<std::string, int32_t>> keys;
  for (const auto& [key, bucket] : buckets_) keys.push_back(key);
  buckets_.clear();
  if (compaction_runner_) {
    for (const auto& [partition, bucket] : keys) compaction_runner_->Forget(partition, bucket);
  }
  live_files_.reset();
  // The hash index forgets the aborted keys too: reloaded from the latest snapshot.
  Status index = dynamic_buckets_ ? dynamic_buckets_->Abort(uncommitted) : Status::OK();
  Status files = DeleteUncommittedFiles(*file_io_, paths_, pending, uncommitted);
  return files.ok() ? index : files;
}

Status KeyValueTableWrite::CheckCommitBase(const std::vector<meta::CommitMessage>& messages,
                                           const std::optional<meta::Snapshot>& base) {
  return dynamic_buckets_ ? dynamic_buckets_->CheckCommitBase(messages, base) : Status::OK();
}

Status KeyValueTableWrite::CompactionsRejected(const std::vector<meta::CommitMessage>& messages,
                                               bool delete_files) {
  live_files_.reset();  // the latest snapshot has changed under this writer
  Status first_error;
  for (const auto& message : messages) {
    if (message.compact_before.empty() && message.compact_after.empty() &&
        message.compact_changelog_files.empty() && message.compact_index_files.empty()) {
      continue;
    }
    for (const auto& entry : delete_files ? message.compact_index_files.added
                                          : std::vector<meta::IndexManifestEntry>{}) {
      (void)file_io_->Delete(
          io::JoinPath(io::JoinPath(paths_.table_path(), "index"), entry.file_name), false);
    }
    std::vector<meta::DataFileMeta> refused = NewCompactedFiles(message);
    refused.insert(refused.end(), message.compact_changelog_files.begin(),
                   message.compact_changelog_files.end());
    for (const auto& file : delete_files ? refused : std::vector<meta::DataFileMeta>{}) {
      auto path = paths_.FilePath(message.partition, message.bucket, file);
      if (path.ok()) (void)file_io_->Delete(*path, false);
      auto extras = paths_.ExtraFilePaths(message.partition, message.bucket, file);
      for (const auto& extra : extras.ok() ? *extras : std::vector<std::string>{}) {
        (void)file_io_->Delete(extra, false);
      }
    }
    auto it = buckets_.find({message.partition, message.bucket});
    if (it == buckets_.end() || !it->second->compaction) continue;
    // The levels as the latest snapshot has them, plus what this writer flushed since.
    Result<const BucketFiles*> live = LiveFiles();
    if (!live.ok()) return live.status();
    auto files_it = (*live)->find(it->first);
    std::vector<meta::DataFileMeta> files =
        files_it == (*live)->end() ? std::vector<meta::DataFileMeta>{} : files_it->second;
    for (const auto& file : it->second->files.FilesSince(0)) files.push_back(file);
    // Results not handed out yet were planned on the refused levels too.
    Bucket& bucket = *it->second;
    for (const auto& path : bucket.compact_written) (void)file_io_->Delete(path, false);
    bucket.compact_written.clear();
    bucket.compact_before.clear();
    bucket.compact_after.clear();
    bucket.compact_changelog.clear();
    bucket.compact_index = {};
    Status reset = bucket.compaction->Reset(std::move(files));
    if (!reset.ok() && first_error.ok()) first_error = reset;
  }
  return first_error;
}

}  // namespace freshet::write
