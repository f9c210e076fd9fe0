#include "write/key_value_table_write.h"

#include <arrow/api.h>

#include <algorithm>

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
        files(&*write.file_format_, std::move(directory)) {}

  std::string partition;  // serialized BinaryRow
  int32_t bucket;
  int64_t next_sequence;
  SortBuffer buffer;
  KeyValueFileWriter files;
};

KeyValueTableWrite::KeyValueTableWrite(std::shared_ptr<io::FileIO> file_io,
                                       meta::TableSchema schema, meta::CoreOptions options,
                                       meta::DataFilePaths paths, RowKeyExtractor keys,
                                       RowKindExtractor kinds, mergetree::MergeLayout layout)
    : file_io_(std::move(file_io)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      paths_(std::move(paths)),
      keys_(std::move(keys)),
      kinds_(std::move(kinds)),
      layout_(std::move(layout)) {}

KeyValueTableWrite::~KeyValueTableWrite() = default;

Result<std::unique_ptr<KeyValueTableWrite>> KeyValueTableWrite::Make(
    std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema) {
  if (schema.primary_keys().empty()) {
    return Status::Invalid("table '", table_path, "' has no primary key");
  }
  // Options freshet cannot honour (merge engine, bucket mode, changelog producer) are refused
  // before anything is written.
  FRESHET_RETURN_NOT_OK(mergetree::CheckPrimaryKeyTable(schema, mergetree::PrimaryKeyUse::kWrite));
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::CoreOptions::Make(schema.options(), true));
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path, schema));
  FRESHET_ASSIGN_OR_RETURN(auto keys, RowKeyExtractor::Make(schema));
  FRESHET_ASSIGN_OR_RETURN(auto kinds, RowKindExtractor::Make(schema));
  FRESHET_ASSIGN_OR_RETURN(auto layout, mergetree::MakeMergeLayout(schema, schema.fields()));
  std::unique_ptr<KeyValueTableWrite> write(new KeyValueTableWrite(
      std::move(file_io), std::move(schema), std::move(options), std::move(paths), std::move(keys),
      std::move(kinds), std::move(layout)));
  FRESHET_RETURN_NOT_OK(write->Init());
  return write;
}

Status KeyValueTableWrite::Init() {
  // The order and the file format point into layout_: made here, once it has its address.
  FRESHET_ASSIGN_OR_RETURN(order_, RecordOrder::Make(layout_));
  FRESHET_ASSIGN_OR_RETURN(file_format_,
                           KeyValueFileFormat::Make(file_io_, schema_, options_, &layout_));
  FRESHET_ASSIGN_OR_RETURN(ignore_delete_, mergetree::IgnoreDelete(schema_));
  FRESHET_ASSIGN_OR_RETURN(write_buffer_size_,
                           meta::GetMemorySizeOption(schema_.options(), "write-buffer-size"));
  FRESHET_ASSIGN_OR_RETURN(spillable_,
                           meta::GetBoolOption(schema_.options(), "write-buffer-spillable"));
  return Status::OK();
}

Result<KeyValueTableWrite::Bucket*> KeyValueTableWrite::BucketFor(const std::string& partition,
                                                                  int32_t bucket) {
  auto key = std::make_pair(partition, bucket);
  if (auto it = buckets_.find(key); it != buckets_.end()) return it->second.get();
  if (!max_sequence_numbers_) {
    FRESHET_ASSIGN_OR_RETURN(max_sequence_numbers_,
                             LoadMaxSequenceNumbers(file_io_, paths_.table_path()));
  }
  FRESHET_ASSIGN_OR_RETURN(std::string directory, paths_.BucketDirectory(partition, bucket));
  auto state = std::make_unique<Bucket>(
      partition, bucket, NextSequenceNumber(*max_sequence_numbers_, partition, bucket), *this,
      spillable_ ? &spill_ : nullptr, std::move(directory));
  Bucket* raw = state.get();
  buckets_.emplace(std::move(key), std::move(state));
  return raw;
}

Status KeyValueTableWrite::Write(const arrow::RecordBatch& batch) {
  // Every check on the input happens here, before any record is buffered.
  FRESHET_ASSIGN_OR_RETURN(KindedBatch input, kinds_.Extract(batch));
  FRESHET_ASSIGN_OR_RETURN(RowKeys keys, keys_.Extract(*input.rows));
  for (const RowGroup& group : keys.Groups()) {
    FRESHET_ASSIGN_OR_RETURN(Bucket * bucket,
                             BucketFor(meta::SerializeBinaryRow(group.partition), group.bucket));
    FRESHET_ASSIGN_OR_RETURN(auto records, ToRecords(*input.rows, input.kinds, group, bucket));
    if (records) bucket->buffer.Add(std::move(records));
    FRESHET_RETURN_NOT_OK(KeepWithinMemory());
  }
  return Status::OK();
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
  Status written = WriteMerged(bucket);
  if (!written.ok()) {
    // The buffer stays for a retry, which writes it again: this attempt's files must go.
    for (const auto& path : bucket->files.DropFilesSince(mark)) {
      (void)file_io_->Delete(path, false);
    }
    return written;
  }
  bucket->buffer.Clear();
  return Status::OK();
}

Status KeyValueTableWrite::WriteMerged(Bucket* bucket) {
  FRESHET_ASSIGN_OR_RETURN(auto runs, bucket->buffer.Runs());
  FRESHET_ASSIGN_OR_RETURN(auto merge, mergetree::MakeMergeFunction(schema_, layout_));
  FRESHET_ASSIGN_OR_RETURN(
      auto merged, mergetree::SortMergeReader::Make(layout_, std::move(runs), std::move(merge)));
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, merged->Next());
    if (!batch) break;
    FRESHET_RETURN_NOT_OK(bucket->files.Write(*batch));
  }
  return bucket->files.Close();
}

Result<std::vector<meta::CommitMessage>> KeyValueTableWrite::PrepareCommit() {
  FRESHET_RETURN_NOT_OK(SpillBeforeLargeFlush());
  // Flush every bucket first: if one fails, no bucket has handed its files out yet and Abort()
  // deletes them all.
  for (auto& [key, bucket] : buckets_) {
    FRESHET_RETURN_NOT_OK(Flush(bucket.get()));
    ReturnFreedMemory();
  }
  std::vector<meta::CommitMessage> messages;
  for (auto& [key, bucket] : buckets_) {
    meta::CommitMessage message;
    message.partition = bucket->partition;
    message.bucket = bucket->bucket;
    message.total_buckets = options_.bucket();
    message.new_files = bucket->files.TakeFiles();
    if (!message.IsEmpty()) messages.push_back(std::move(message));
  }
  // Sequence numbers continue in memory: the next commit's records follow these.
  return messages;
}

Status KeyValueTableWrite::Abort(const std::vector<meta::CommitMessage>& uncommitted) {
  std::vector<std::string> pending;
  for (auto& [key, bucket] : buckets_) {
    bucket->buffer.Clear();
    for (auto& path : bucket->files.DropFilesSince(0)) pending.push_back(std::move(path));
  }
  return DeleteUncommittedFiles(*file_io_, paths_, pending, uncommitted);
}

}  // namespace freshet::write
