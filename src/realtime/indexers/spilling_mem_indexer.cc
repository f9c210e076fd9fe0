#include "realtime/indexers/spilling_mem_indexer.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/message.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/arrow_status.h"
#include "common/uuid.h"
#include "meta/options/core_options.h"
#include "realtime/indexers/mem_indexer_registry.h"

namespace freshet::realtime {

namespace {

namespace fs = std::filesystem;

// Spill file layout (Arrow IPC *stream* format, readable with any Arrow IPC stream reader): the
// table's columns, then
//   _freshet_offset           int64, every row's offset (explicit even when contiguous),
//   _freshet_row_kind         int8, only when a batch of the segment had row kinds,
//   _freshet_sequence_number  int64, only when a batch had sequence numbers (null for rows of
//                             batches without),
// in record batches of at most kSpillBatchRows rows; schema metadata "freshet.spill" = "1". The
// byte position of each batch is kept in memory, so that a query starts at the first batch it
// needs. The stream format (not the file format) because it reads synchronously: the file
// format's reader opens through Arrow's I/O thread pool.
constexpr const char* kOffsetColumn = "_freshet_offset";
constexpr const char* kRowKindColumn = "_freshet_row_kind";
constexpr const char* kSequenceColumn = "_freshet_sequence_number";
constexpr int64_t kSpillBatchRows = 64 * 1024;

// Distinguishes the spill files of processes sharing a directory.
const std::string& ProcessToken() {
  static const std::string token = RandomUuid();
  return token;
}

bool HasDictionary(const arrow::DataType& type) {
  if (type.id() == arrow::Type::DICTIONARY) return true;
  for (const auto& child : type.fields()) {
    if (HasDictionary(*child->type())) return true;
  }
  return false;
}

Result<std::shared_ptr<arrow::Array>> MaterializeOffsets(const RowBatch& batch) {
  if (batch.offsets != nullptr) return std::shared_ptr<arrow::Array>(batch.offsets);
  arrow::Int64Builder builder;
  FRESHET_RETURN_NOT_OK_ARROW(builder.Reserve(batch.num_rows()));
  for (int64_t i = 0; i < batch.num_rows(); ++i) builder.UnsafeAppend(batch.first_offset + i);
  return FromArrowResult(builder.Finish());
}

// What is where in a spill file.
struct SpillLayout {
  struct Batch {
    int64_t position;  // of its message (batch 0: of the stream, the schema message first)
    int64_t first_offset;
    int64_t end_offset;
  };
  std::shared_ptr<arrow::Schema> schema;  // the file's: table columns + the columns above
  std::vector<Batch> batches;
  int64_t data_end = 0;  // where the end-of-stream marker begins
  bool has_kinds = false;
  bool has_sequences = false;
};

// A sealed segment's rows in a spill file; deletes the file when destroyed.
class SpillFile final : public SegmentData {
 public:
  SpillFile(std::shared_ptr<IndexerAccounting> accounting,
            std::shared_ptr<arrow::Schema> table_schema, std::string path, int64_t file_bytes,
            std::shared_ptr<arrow::io::RandomAccessFile> file, SpillLayout layout)
      : SegmentData(std::move(accounting)),
        table_schema_(std::move(table_schema)),
        path_(std::move(path)),
        file_bytes_(file_bytes),
        file_(std::move(file)),
        layout_(std::move(layout)) {
    accounting_->spilled_bytes.fetch_add(file_bytes_, std::memory_order_relaxed);
    accounting_->segments.fetch_add(1, std::memory_order_relaxed);
  }

  ~SpillFile() override {
    accounting_->spilled_bytes.fetch_sub(file_bytes_, std::memory_order_relaxed);
    accounting_->segments.fetch_sub(1, std::memory_order_relaxed);
    // Batches still mapped by a caller stay readable: the mapping outlives the unlinked file.
    std::error_code ignored;
    fs::remove(path_, ignored);
  }

  Result<std::unique_ptr<RowBatchReader>> NewReader(SegmentScan scan) const override;

  const std::shared_ptr<arrow::io::RandomAccessFile>& file() const { return file_; }
  const SpillLayout& layout() const { return layout_; }
  const std::string& path() const { return path_; }

  Result<RowBatch> ToRowBatch(const std::shared_ptr<arrow::RecordBatch>& stored) const {
    int columns = table_schema_->num_fields();
    if (stored->num_columns() != layout_.schema->num_fields() || stored->num_rows() == 0) {
      return Status::Corruption("spill file '", path_, "' has a batch of ", stored->num_columns(),
                                " columns and ", stored->num_rows(), " rows");
    }
    const auto& all = stored->columns();
    RowBatch out;
    out.rows = arrow::RecordBatch::Make(
        table_schema_, stored->num_rows(),
        std::vector<std::shared_ptr<arrow::Array>>(all.begin(), all.begin() + columns));
    auto offsets = std::static_pointer_cast<arrow::Int64Array>(stored->column(columns));
    int64_t n = stored->num_rows();
    out.first_offset = offsets->Value(0);
    // Offsets are strictly increasing, so a span of n - 1 means contiguous: no array needed.
    if (offsets->Value(n - 1) - offsets->Value(0) != n - 1) out.offsets = offsets;
    int next = columns + 1;
    if (layout_.has_kinds) {
      out.row_kinds = std::static_pointer_cast<arrow::Int8Array>(stored->column(next++));
    }
    if (layout_.has_sequences) {
      out.sequence_numbers = std::static_pointer_cast<arrow::Int64Array>(stored->column(next));
    }
    return out;
  }

 private:
  const std::shared_ptr<arrow::Schema> table_schema_;
  const std::string path_;
  const int64_t file_bytes_;
  const std::shared_ptr<arrow::io::RandomAccessFile> file_;  // memory-mapped, thread-safe ReadAt
  const SpillLayout layout_;
};

// Reads the record batches of a spill file that hold rows in [from, end), zero-copy from the
// mapping.
class SpillChunkSource final : public ChunkSource {
 public:
  SpillChunkSource(std::shared_ptr<const SpillFile> file, int64_t from_offset, int64_t end_offset)
      : file_(std::move(file)), end_(end_offset) {
    const auto& batches = file_->layout().batches;
    next_ = std::partition_point(
                batches.begin(), batches.end(),
                [&](const SpillLayout::Batch& b) { return b.end_offset <= from_offset; }) -
            batches.begin();
  }

  Result<std::optional<RowBatch>> Next() override {
    const SpillLayout& layout = file_->layout();
    if (next_ >= layout.batches.size() || layout.batches[next_].first_offset >= end_) {
      return std::optional<RowBatch>();
    }
    Result<std::shared_ptr<arrow::RecordBatch>> stored = ReadNext(layout);
    if (!stored.ok()) return stored.status().WithContext("spill file '" + file_->path() + "'");
    ++next_;
    FRESHET_ASSIGN_OR_RETURN(RowBatch batch, file_->ToRowBatch(*stored));
    return std::optional<RowBatch>(std::move(batch));
  }

 private:
  Result<std::shared_ptr<arrow::RecordBatch>> ReadNext(const SpillLayout& layout) {
    if (messages_ == nullptr) {  // opened on first use: creating readers stays cheap
      int64_t position = layout.batches[next_].position;
      FRESHET_ASSIGN_OR_RETURN_ARROW(
          auto stream, arrow::io::RandomAccessFile::GetStream(file_->file(), position,
                                                              layout.data_end - position));
      messages_ = arrow::ipc::MessageReader::Open(stream);
    }
    while (true) {
      FRESHET_ASSIGN_OR_RETURN_ARROW(std::unique_ptr<arrow::ipc::Message> message,
                                     messages_->ReadNextMessage());
      if (message == nullptr) return Status::Corruption("batch ", next_, " is missing");
      if (message->type() == arrow::ipc::MessageType::SCHEMA) continue;  // before batch 0
      auto options = arrow::ipc::IpcReadOptions::Defaults();
      options.use_threads = false;
      return FromArrowResult(
          arrow::ipc::ReadRecordBatch(*message, layout.schema, nullptr, options));
    }
  }

  std::shared_ptr<const SpillFile> file_;
  const int64_t end_;
  size_t next_ = 0;
  std::unique_ptr<arrow::ipc::MessageReader> messages_;
};

Result<std::unique_ptr<RowBatchReader>> SpillFile::NewReader(SegmentScan scan) const {
  auto self = std::static_pointer_cast<const SpillFile>(shared_from_this());
  auto source =
      std::make_unique<SpillChunkSource>(std::move(self), scan.from_offset, scan.end_offset);
  return MakeSegmentReader(std::move(source), std::move(scan));
}

std::shared_ptr<arrow::Schema> SpillSchema(const arrow::Schema& table_schema, bool has_kinds,
                                           bool has_sequences) {
  arrow::FieldVector fields = table_schema.fields();
  fields.push_back(arrow::field(kOffsetColumn, arrow::int64(), false));
  if (has_kinds) fields.push_back(arrow::field(kRowKindColumn, arrow::int8(), false));
  if (has_sequences) fields.push_back(arrow::field(kSequenceColumn, arrow::int64()));
  auto metadata = table_schema.metadata() ? table_schema.metadata()->Copy()
                                          : std::make_shared<arrow::KeyValueMetadata>();
  metadata->Append("freshet.spill", "1");
  return arrow::schema(std::move(fields), std::move(metadata));
}

// The chunks of a segment as one record batch of the spill schema (a copy: spilling runs off the
// write path, and few large batches read back faster than many small ones).
Result<std::shared_ptr<arrow::RecordBatch>> CombineForSpill(const std::vector<RowBatch>& chunks,
                                                            const arrow::Schema& table_schema,
                                                            SpillLayout* layout) {
  for (const auto& field : table_schema.fields()) {
    if (HasDictionary(*field->type())) {
      return Status::NotImplemented("column '", field->name(),
                                    "' is dictionary-encoded: spilling does not support it");
    }
  }
  layout->has_kinds = std::any_of(chunks.begin(), chunks.end(),
                                  [](const RowBatch& c) { return c.row_kinds != nullptr; });
  layout->has_sequences = std::any_of(chunks.begin(), chunks.end(), [](const RowBatch& c) {
    return c.sequence_numbers != nullptr;
  });
  layout->schema = SpillSchema(table_schema, layout->has_kinds, layout->has_sequences);

  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (const RowBatch& chunk : chunks) {
    int64_t n = chunk.num_rows();
    std::vector<std::shared_ptr<arrow::Array>> columns = chunk.rows->columns();
    FRESHET_ASSIGN_OR_RETURN(auto offsets, MaterializeOffsets(chunk));
    columns.push_back(std::move(offsets));
    if (layout->has_kinds) {
      std::shared_ptr<arrow::Array> kinds = chunk.row_kinds;
      if (kinds == nullptr) {  // all kInsert
        FRESHET_ASSIGN_OR_RETURN_ARROW(kinds, arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), n));
      }
      columns.push_back(std::move(kinds));
    }
    if (layout->has_sequences) {
      std::shared_ptr<arrow::Array> sequences = chunk.sequence_numbers;
      if (sequences == nullptr) {
        FRESHET_ASSIGN_OR_RETURN_ARROW(sequences, arrow::MakeArrayOfNull(arrow::int64(), n));
      }
      columns.push_back(std::move(sequences));
    }
    batches.push_back(arrow::RecordBatch::Make(layout->schema, n, std::move(columns)));
  }
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto table,
                                 arrow::Table::FromRecordBatches(layout->schema, batches));
  return FromArrowResult(table->CombineChunksToBatch());
}

// Writes `combined` as an IPC stream; records where its batches are in `layout`.
Status WriteIpcStream(const arrow::RecordBatch& combined, const std::string& path,
                      SpillLayout* layout) {
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto out, arrow::io::FileOutputStream::Open(path));
  auto options = arrow::ipc::IpcWriteOptions::Defaults();
  options.use_threads = false;
  FRESHET_ASSIGN_OR_RETURN_ARROW(auto writer,
                                 arrow::ipc::MakeStreamWriter(out, layout->schema, options));
  int offset_column =
      combined.num_columns() - 1 - (layout->has_kinds ? 1 : 0) - (layout->has_sequences ? 1 : 0);
  auto offsets = std::static_pointer_cast<arrow::Int64Array>(combined.column(offset_column));
  for (int64_t start = 0; start < combined.num_rows(); start += kSpillBatchRows) {
    int64_t length = std::min(kSpillBatchRows, combined.num_rows() - start);
    FRESHET_ASSIGN_OR_RETURN_ARROW(int64_t position, out->Tell());
    FRESHET_RETURN_NOT_OK_ARROW(writer->WriteRecordBatch(*combined.Slice(start, length)));
    layout->batches.push_back(
        {position, offsets->Value(start), offsets->Value(start + length - 1) + 1});
  }
  FRESHET_ASSIGN_OR_RETURN_ARROW(layout->data_end, out->Tell());
  FRESHET_RETURN_NOT_OK_ARROW(writer->Close());
  FRESHET_RETURN_NOT_OK_ARROW(out->Close());
  return Status::OK();
}

// Writes the spill file through a temporary name, so that no partial file keeps the final name.
Status WriteSpillFile(const arrow::RecordBatch& combined, const std::string& path,
                      SpillLayout* layout) {
  std::string temp = path + ".tmp";
  Status st = WriteIpcStream(combined, temp, layout);
  if (st.ok()) {
    std::error_code ec;
    fs::rename(temp, path, ec);
    if (ec) st = Status::IOError("cannot rename '", temp, "' to '", path, "': ", ec.message());
  }
  if (!st.ok()) {
    std::error_code ignored;
    fs::remove(temp, ignored);
  }
  return st;
}

class SpillingFactory final : public MemIndexerFactory {
 public:
  std::string name() const override { return "spilling"; }
  Result<std::unique_ptr<MemIndexer>> Create(const MemIndexerOptions& options) override {
    FRESHET_ASSIGN_OR_RETURN(auto indexer, SpillingMemIndexer::Make(options));
    return std::unique_ptr<MemIndexer>(std::move(indexer));
  }
};

}  // namespace

Result<std::unique_ptr<SpillingMemIndexer>> SpillingMemIndexer::Make(
    const MemIndexerOptions& options) {
  FRESHET_RETURN_NOT_OK(ValidateOptions(options));
  EnsureBuiltinMemIndexers();  // the option registry knows kDirOption and kThresholdOption
  const meta::Options table_options(options.table_options.begin(), options.table_options.end());
  FRESHET_ASSIGN_OR_RETURN(auto dir, meta::LookupOption(table_options, kDirOption));
  if (!dir || dir->text.empty()) {
    return Status::Invalid("the spilling MemIndexer needs table option '", kDirOption,
                           "' (a local directory for spill files)");
  }
  FRESHET_ASSIGN_OR_RETURN(int64_t threshold,
                           meta::GetMemorySizeOption(table_options, kThresholdOption));
  return std::unique_ptr<SpillingMemIndexer>(
      new SpillingMemIndexer(options, std::move(dir->text), threshold));
}

SpillingMemIndexer::SpillingMemIndexer(const MemIndexerOptions& options, std::string dir,
                                       int64_t threshold)
    : ColumnarMemIndexer(options), dir_(std::move(dir)), threshold_(threshold) {}

Result<RowBatchReaders> SpillingMemIndexer::CreateCommitReaders(
    const std::shared_ptr<SealedSegment>& segment) {
  FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<SegmentEntry> entry, OwnEntry(segment));
  std::shared_ptr<const SegmentData> data = DataOf(*entry);
  if (data == nullptr) return ColumnarMemIndexer::CreateCommitReaders(segment);  // reclaimed
  if (OverThreshold()) FRESHET_RETURN_NOT_OK(Spill(*entry));
  // The flush reads the form it found (memory, usually): no read-back of the file just written.
  return CommitReadersOver(*entry, data);
}

Status SpillingMemIndexer::last_spill_status() const {
  std::lock_guard lock(status_mu_);
  return last_spill_status_;
}

void SpillingMemIndexer::AfterReclaim() {
  for (const std::shared_ptr<SegmentEntry>& entry : HeldEntries()) {
    if (!OverThreshold()) break;
    // A failing directory fails every segment alike: leave the rest for the next Reclaim.
    if (!Spill(*entry).ok()) break;
    DrainFreed();  // so that the threshold check sees the memory the spill released
  }
}

bool SpillingMemIndexer::OverThreshold() const {
  return accounting()->bytes.load(std::memory_order_relaxed) > threshold_;
}

Status SpillingMemIndexer::Spill(SegmentEntry& entry) {
  std::lock_guard convert(ConvertMutex(entry));
  Status st = WriteAndSwap(entry);
  std::lock_guard lock(status_mu_);
  last_spill_status_ = st;
  return st;
}

Status SpillingMemIndexer::WriteAndSwap(SegmentEntry& entry) {
  std::shared_ptr<const SegmentData> data = DataOf(entry);
  auto memory = std::dynamic_pointer_cast<const MemChunks>(data);
  if (memory == nullptr) return Status::OK();  // spilled already, or reclaimed

  std::string path =
      (fs::path(dir_) / ("freshet-spill-" + ProcessToken() + "-" + std::to_string(id()) + "-" +
                         std::to_string(entry.id()) + ".arrows"))
          .string();
  auto context = [&](const Status& st) {
    return st.WithContext("spilling rows [" + std::to_string(entry.range().begin) + ", " +
                          std::to_string(entry.range().end) + ") of bucket " +
                          std::to_string(options().partition_bucket.bucket) + " to '" + path +
                          "' (table option " + kDirOption + ")");
  };
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return context(Status::IOError("cannot create directory '", dir_, "': ", ec.message()));

  SpillLayout layout;
  auto combined = CombineForSpill(memory->Chunks(entry.range().end), *options().schema, &layout);
  if (!combined.ok()) return context(combined.status());
  Status written = WriteSpillFile(**combined, path, &layout);
  if (!written.ok()) return context(written);

  auto size = fs::file_size(path, ec);
  auto mapped = FromArrowResult(arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ));
  if (ec || !mapped.ok()) {
    fs::remove(path, ec);
    return context(mapped.ok() ? Status::IOError("cannot stat '", path, "'") : mapped.status());
  }
  auto file =
      std::make_unique<SpillFile>(accounting(), options().schema, path, static_cast<int64_t>(size),
                                  std::move(mapped).MoveValueUnsafe(), std::move(layout));
  // Reclaimed meanwhile: the replacement is dropped, and its file deleted at the next drain.
  ReplaceData(entry, data, Adopt(std::move(file)));
  return Status::OK();
}

std::shared_ptr<MemIndexerFactory> MakeSpillingMemIndexerFactory() {
  return std::make_shared<SpillingFactory>();
}

std::vector<meta::OptionDef> SpillingMemIndexerOptions() {
  meta::OptionDef dir;
  dir.name = SpillingMemIndexer::kDirOption;
  dir.type = meta::OptionType::kString;
  dir.default_note = "none: required by the spilling plugin";
  dir.description = "Local directory of the spilling plugin's spill files (made on first spill).";
  meta::OptionDef threshold;
  threshold.name = SpillingMemIndexer::kThresholdOption;
  threshold.type = meta::OptionType::kMemorySize;
  threshold.default_value = "0 b";
  threshold.min = 0;
  threshold.description =
      "The spilling plugin spills sealed segments while its memory exceeds this (0: always).";
  return {std::move(dir), std::move(threshold)};
}

}  // namespace freshet::realtime
