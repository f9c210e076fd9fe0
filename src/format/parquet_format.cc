// Parquet data files through Arrow's Parquet library, in the layout Java Paimon writes.
#include <arrow/api.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/file_writer.h>
#include <parquet/schema.h>

#include <algorithm>
#include <exception>
#include <thread>

#include "bridge/arrow_io.h"
#include "bridge/memory_pool.h"
#include "common/arrow_status.h"
#include "format/format_internal.h"
#include "format/parquet_dictionary.h"
#include "io/file_io.h"

namespace freshet::format::internal {
namespace {

constexpr char kJavaMessageName[] = "paimon_schema";

using parquet::schema::GroupNode;
using parquet::schema::Node;
using parquet::schema::NodePtr;
using parquet::schema::PrimitiveNode;

bool IsNanosTimestamp(const PrimitiveNode& node) {
  const auto& logical = node.logical_type();
  if (!logical || !logical->is_timestamp()) return false;
  const auto& timestamp = static_cast<const parquet::TimestampLogicalType&>(*logical);
  return timestamp.time_unit() == parquet::LogicalType::TimeUnit::NANOS;
}

// A copy of `node` as Java lays it out: TIMESTAMP precision 7-9 is INT96 (no annotation), which is
// the only form Java's reader accepts for them; TIME is adjusted to UTC.
NodePtr ToJavaLayout(const Node& node, const std::string& name) {
  if (node.is_primitive()) {
    const auto& primitive = static_cast<const PrimitiveNode&>(node);
    if (IsNanosTimestamp(primitive)) {
      return PrimitiveNode::Make(name, node.repetition(), parquet::LogicalType::None(),
                                 parquet::Type::INT96, -1, node.field_id());
    }
    if (node.logical_type() && node.logical_type()->is_time()) {
      // Java annotates TIME as adjusted to UTC; Arrow writes time32 as local.
      return PrimitiveNode::Make(
          name, node.repetition(),
          parquet::LogicalType::Time(true, parquet::LogicalType::TimeUnit::MILLIS),
          primitive.physical_type(), primitive.type_length(), node.field_id());
    }
    return PrimitiveNode::Make(name, node.repetition(), node.logical_type(),
                               primitive.physical_type(), primitive.type_length(), node.field_id());
  }
  const auto& group = static_cast<const GroupNode&>(node);
  parquet::schema::NodeVector children;
  for (int i = 0; i < group.field_count(); ++i) {
    children.push_back(ToJavaLayout(*group.field(i), group.field(i)->name()));
  }
  const auto& logical = node.logical_type();
  return GroupNode::Make(name, node.repetition(), children,
                         logical && !logical->is_none() ? logical : nullptr, node.field_id());
}

// `plain_columns`: top-level columns written without a dictionary, besides the options' own.
Result<std::shared_ptr<parquet::WriterProperties>> WriterProperties(
    const FormatWriterOptions& options, const std::vector<std::string>& plain_columns = {}) {
  FRESHET_ASSIGN_OR_RETURN(int codec, ArrowCompressionOf(options.compression));
  parquet::WriterProperties::Builder builder;
  builder.memory_pool(bridge::DataMemoryPool());
  builder.compression(static_cast<arrow::Compression::type>(codec));
  if (codec == arrow::Compression::ZSTD) builder.compression_level(options.zstd_level);
  builder.created_by("freshet");
  builder.enable_store_decimal_as_integer();
  // A CRC per page, as Java's parquet-mr writes by default: Parquet's only guard against a
  // damaged data page, which would otherwise decode to other values without an error.
  if (options.parquet_page_checksums) builder.enable_page_checksum();
  for (const std::string& column : options.parquet_plain_columns) {
    builder.disable_dictionary(column);
  }
  for (const std::string& column : plain_columns) builder.disable_dictionary(column);
  return builder.build();
}

// Column chunks are streamed through a buffer of this size. Arrow's buffered stream copies every
// read that fits its buffer out of it, and reads larger ones straight into their destination, so a
// buffer smaller than most compressed pages (up to 1 MiB of values each) passes the pages without
// a copy: 64 KiB instead of 1 MiB took 2-5% off the CPU of Parquet reads and compactions
// (docs/benchmarks.md).
constexpr int64_t kColumnReadBufferBytes = 64 << 10;
// Files from which a read decodes its columns in parallel (ParquetPhysicalReader).
constexpr int64_t kParallelDecodeMinRows = 65'536;
constexpr int64_t kParallelDecodeMinBytes = 4 << 20;

// Pages that carry a CRC (files of Java and of freshet) are verified when read, so that a damaged
// page is an error instead of other values.
parquet::ReaderProperties ChecksummedReaderProperties() {
  parquet::ReaderProperties properties(bridge::DataMemoryPool());
  properties.set_page_checksum_verification(true);
  properties.enable_buffered_stream();
  properties.set_buffer_size(kColumnReadBufferBytes);
  return properties;
}

// The threads that encode (write) or decode (read) the columns of a file in parallel. They are
// freshet's own, not Arrow's CPU pool: a writer or reader waits for its columns, and one running
// on a thread of the pool it waits for could deadlock it (Arrow's warning on
// ArrowWriterProperties::set_use_threads). Column tasks never wait for anything, so writers and
// readers on any threads share this pool safely.
Result<arrow::internal::Executor*> ColumnPool() {
  static const arrow::Result<std::shared_ptr<arrow::internal::ThreadPool>> pool =
      arrow::internal::ThreadPool::MakeEternal(
          static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  if (!pool.ok()) return FromArrowStatus(pool.status());
  return pool->get();
}

class ParquetFormatWriter : public FormatWriter {
 public:
  static Result<std::unique_ptr<FormatWriter>> Make(WriterParts parts,
                                                    const FormatWriterOptions& options) {
    // Arrow's Parquet code reports some errors as exceptions.
    try {
      return MakeUnsafe(std::move(parts), options);
    } catch (const parquet::ParquetException& e) {
      return Status::Invalid("cannot start Parquet file: ", e.what());
    }
  }

 protected:
  Status WriteBatch(const arrow::RecordBatch& batch) override {
    try {
      return WriteBatchUnsafe(batch);
    } catch (const parquet::ParquetException& e) {
      return Status::IOError("cannot write Parquet data: ", e.what());
    }
  }
  // Uncompressed Arrow bytes of the open row group: an overestimate, so files roll early rather
  // than late.
  int64_t BufferedBytes() const override { return buffered_bytes_; }
  Status CloseFormat() override {
    try {
      if (!writer_) FRESHET_RETURN_NOT_OK(OpenFileWriter(nullptr));
      FRESHET_RETURN_NOT_OK_ARROW(writer_->Close());
    } catch (const parquet::ParquetException& e) {
      return Status::IOError("cannot finish Parquet file: ", e.what());
    }
    return FromArrowStatus(sink_->Close());
  }

 private:
  static Result<std::unique_ptr<FormatWriter>> MakeUnsafe(WriterParts parts,
                                                          const FormatWriterOptions& options) {
    FRESHET_ASSIGN_OR_RETURN(auto properties, WriterProperties(options));
    // Java stores DECIMAL p <= 9 as INT32 and p <= 18 as INT64; no ARROW:schema in the footer.
    parquet::ArrowWriterProperties::Builder arrow_builder;
    if (options.parquet_parallel_columns && parts.arrow_schema->num_fields() > 1) {
      FRESHET_ASSIGN_OR_RETURN(arrow::internal::Executor * pool, ColumnPool());
      arrow_builder.set_use_threads(true)->set_executor(pool);
    }
    auto arrow_properties = arrow_builder.build();
    std::shared_ptr<parquet::SchemaDescriptor> descriptor;
    FRESHET_RETURN_NOT_OK_ARROW(parquet::arrow::ToParquetSchema(
        parts.arrow_schema.get(), *properties, *arrow_properties, &descriptor));
    auto root = std::static_pointer_cast<GroupNode>(
        ToJavaLayout(*descriptor->schema_root(), kJavaMessageName));
    auto writer = std::unique_ptr<ParquetFormatWriter>(new ParquetFormatWriter(std::move(parts)));
    writer->options_ = options;
    writer->root_ = std::move(root);
    writer->arrow_properties_ = std::move(arrow_properties);
    writer->row_group_bytes_ = options.parquet_row_group_bytes;
    writer->sink_ = bridge::MakeArrowOutputStream(writer->out());
    return std::unique_ptr<FormatWriter>(std::move(writer));
  }

  // The file is started with its first batch, whose values decide which columns go without a
  // dictionary (format/parquet_dictionary.h); `first` is null for a file without rows.
  Status OpenFileWriter(const arrow::RecordBatch* first) {
    std::vector<std::string> plain;
    if (first != nullptr) plain = ColumnsADictionaryWouldNotShrink(*first);
    FRESHET_ASSIGN_OR_RETURN(auto properties, WriterProperties(options_, plain));
    auto file_writer = parquet::ParquetFileWriter::Open(sink_, root_, properties);
    FRESHET_RETURN_NOT_OK_ARROW(
        parquet::arrow::FileWriter::Make(bridge::DataMemoryPool(), std::move(file_writer),
                                         arrow_schema(), arrow_properties_, &writer_));
    return Status::OK();
  }

  Status WriteBatchUnsafe(const arrow::RecordBatch& batch) {
    if (!writer_) {
      if (batch.num_rows() == 0) return Status::OK();
      FRESHET_RETURN_NOT_OK(OpenFileWriter(&batch));
    }
    FRESHET_RETURN_NOT_OK_ARROW(writer_->WriteRecordBatch(batch));
    buffered_bytes_ += arrow::util::TotalBufferSize(batch);
    // Java closes a row group at parquet.block.size of buffered (encoded) bytes; the Arrow bytes
    // counted here are more, so row groups come out somewhat smaller than Java's.
    if (buffered_bytes_ >= row_group_bytes_) {
      FRESHET_RETURN_NOT_OK_ARROW(writer_->NewBufferedRowGroup());
      buffered_bytes_ = 0;
    }
    return Status::OK();
  }

  explicit ParquetFormatWriter(WriterParts parts)
      : FormatWriter(std::move(parts.out), std::move(parts.schema), std::move(parts.arrow_schema),
                     std::move(parts.stats)) {}

  FormatWriterOptions options_;
  std::shared_ptr<GroupNode> root_;
  std::shared_ptr<parquet::ArrowWriterProperties> arrow_properties_;
  std::shared_ptr<arrow::io::OutputStream> sink_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;  // made by the first batch
  int64_t row_group_bytes_ = 0;
  int64_t buffered_bytes_ = 0;
};

// Leaf column indices of a schema field and its descendants.
void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.column_index >= 0) out->push_back(field.column_index);
  for (const auto& child : field.children) CollectLeaves(child, out);
}

class ParquetPhysicalReader : public PhysicalReader {
 public:
  static Result<std::unique_ptr<PhysicalReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size) {
    auto reader = std::make_unique<ParquetPhysicalReader>();
    std::unique_ptr<parquet::ParquetFileReader> file_reader;
    try {
      reader->input_ = bridge::MakeArrowInputFile(std::move(file), size);
      file_reader = parquet::ParquetFileReader::Open(reader->input_, ChecksummedReaderProperties());
    } catch (const parquet::ParquetException& e) {
      return Status::Corruption("not a readable Parquet file: ", e.what());
    }
    reader->properties_.set_batch_size(1024);
    // Column chunks stream through a small buffer instead of being read whole (Arrow's pre-buffer
    // holds every chunk of a row group, ~100 MB for 128 MB row groups): a read's working set stays
    // ~15 MB, so it touches few fresh pages (bridge/memory_pool.h).
    reader->properties_.set_pre_buffer(false);
    FRESHET_RETURN_NOT_OK_ARROW(parquet::arrow::FileReader::Make(bridge::DataMemoryPool(),
                                                                 std::move(file_reader),
                                                                 reader->properties_)
                                    .Value(&reader->reader_));
    FRESHET_RETURN_NOT_OK_ARROW(reader->reader_->GetSchema(&reader->schema_));
    return std::unique_ptr<PhysicalReader>(std::move(reader));
  }

  const std::shared_ptr<arrow::Schema>& schema() const override { return schema_; }
  int64_t num_rows() const override { return reader_->parquet_reader()->metadata()->num_rows(); }

  Status Select(const std::vector<int>& fields, int64_t batch_size, bool parallel_decode) override {
    reader_->set_batch_size(batch_size);
    std::vector<int> leaves;
    for (int field : fields) CollectLeaves(reader_->manifest().schema_fields[field], &leaves);
    std::vector<int> row_groups(reader_->num_row_groups());
    for (size_t i = 0; i < row_groups.size(); ++i) row_groups[i] = static_cast<int>(i);
    selected_ = fields;
    batch_size_ = batch_size;
    batches_.reset();
    columns_.clear();
    if (leaves.empty()) {
      // No column needed (e.g. every requested field is missing): only the row count matters.
      remaining_rows_ = num_rows();
      return Status::OK();
    }
    if (parallel_decode && DecodeColumnsInParallel(fields, leaves)) {
      columns_.resize(fields.size());
      std::vector<std::shared_ptr<arrow::Field>> selected;
      for (size_t i = 0; i < fields.size(); ++i) {
        FRESHET_RETURN_NOT_OK_ARROW(reader_->GetColumn(fields[i], &columns_[i]));
        selected.push_back(schema_->field(fields[i]));
      }
      selected_schema_ = arrow::schema(std::move(selected));
      return Status::OK();
    }
    FRESHET_ASSIGN_OR_RETURN_ARROW(batches_, reader_->GetRecordBatchReader(row_groups, leaves));
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (!columns_.empty()) return NextDecodedInParallel();
    if (batches_ == nullptr) return NextEmpty();
    std::shared_ptr<arrow::RecordBatch> batch;
    try {
      arrow::Status read = batches_->ReadNext(&batch);
      if (!read.ok()) return DecodeError(read);
    } catch (const parquet::ParquetException& e) {
      return DecodeError(arrow::Status::IOError(e.what()));
    }
    return batch;
  }

 private:
  // Columns are decoded on the column pool when there are several flat ones (Arrow's per-column
  // readers take no nested column) and the file is large enough for a batch's decoding to
  // outweigh handing it to other threads (a query of a small file stays on its own thread).
  bool DecodeColumnsInParallel(const std::vector<int>& fields, const std::vector<int>& leaves) {
    if (fields.size() < 2 || leaves.size() != fields.size()) return false;
    if (num_rows() < kParallelDecodeMinRows) return false;
    int64_t bytes = 0;
    auto metadata = reader_->parquet_reader()->metadata();
    for (int g = 0; g < metadata->num_row_groups(); ++g) {
      bytes += metadata->RowGroup(g)->total_compressed_size();
    }
    return bytes >= kParallelDecodeMinBytes;
  }

  // One batch: each column's next `batch_size_` values, decoded on the pool's threads and this
  // one (which takes the first column).
  Result<std::shared_ptr<arrow::RecordBatch>> NextDecodedInParallel() {
    const int n = static_cast<int>(columns_.size());
    std::vector<std::shared_ptr<arrow::ChunkedArray>> decoded(static_cast<size_t>(n));
    std::vector<std::string> corrupt(static_cast<size_t>(n));  // what Parquet threw, per column
    auto decode = [&](int i) -> arrow::Status {
      const auto column = static_cast<size_t>(i);
      try {
        return columns_[column]->NextBatch(batch_size_, &decoded[column]);
      } catch (const parquet::ParquetException& e) {
        corrupt[column] = e.what();
        return arrow::Status::Invalid(e.what());
      } catch (const std::exception& e) {  // must not escape a pool thread
        return arrow::Status::UnknownError("decoding a Parquet column: ", e.what());
      }
    };
    FRESHET_ASSIGN_OR_RETURN(arrow::internal::Executor * pool, ColumnPool());
    std::vector<arrow::Future<>> others;
    arrow::Status status;
    for (int i = 1; i < n; ++i) {
      auto submitted = pool->Submit(decode, i);
      if (submitted.ok()) {
        others.push_back(std::move(submitted).ValueUnsafe());
      } else {
        status &= decode(i);  // the pool is shutting down: decode it here
      }
    }
    status &= decode(0);
    // Every task must end before this frame does: they write `decoded` and `corrupt`.
    for (auto& other : others) status &= other.status();
    for (const std::string& what : corrupt) {
      if (!what.empty()) return DecodeError(arrow::Status::IOError(what));
    }
    if (!status.ok()) return DecodeError(status);
    return AssembleBatch(decoded);
  }

  // An error of Arrow's decoding: the file's own when one of its reads failed (Arrow's page reader
  // turns those into exceptions too); Corruption when every read succeeded and the bytes are
  // wrong (a page CRC, a run past its page's end: IOError or Invalid from Arrow); any other Arrow
  // error (out of memory) as it is.
  Status DecodeError(const arrow::Status& status) const {
    Status read = bridge::ReadErrorOf(*input_);
    if (!read.ok()) return read.WithContext("reading Parquet data");
    if (status.IsIOError() || status.IsInvalid()) {
      return Status::Corruption("cannot decode Parquet data: ", status.message());
    }
    return FromArrowStatus(status);
  }

  Result<std::shared_ptr<arrow::RecordBatch>> AssembleBatch(
      const std::vector<std::shared_ptr<arrow::ChunkedArray>>& decoded) {
    const int64_t rows = decoded[0] == nullptr ? 0 : decoded[0]->length();
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    for (const auto& column : decoded) {
      if ((column == nullptr ? 0 : column->length()) != rows) {
        return Status::Corruption("Parquet columns of one file end at different rows");
      }
      if (rows == 0) continue;
      if (column->num_chunks() == 1) {
        arrays.push_back(column->chunk(0));
      } else {  // a string column past 2 GiB in one batch comes in pieces
        FRESHET_ASSIGN_OR_RETURN_ARROW(auto joined, arrow::Concatenate(column->chunks()));
        arrays.push_back(std::move(joined));
      }
    }
    if (rows == 0) return std::shared_ptr<arrow::RecordBatch>();
    return arrow::RecordBatch::Make(selected_schema_, rows, std::move(arrays));
  }

  Result<std::shared_ptr<arrow::RecordBatch>> NextEmpty() {
    if (remaining_rows_ <= 0) return std::shared_ptr<arrow::RecordBatch>();
    int64_t rows = std::min(remaining_rows_, batch_size_);
    remaining_rows_ -= rows;
    return arrow::RecordBatch::Make(arrow::schema({}), rows, arrow::ArrayVector{});
  }

  parquet::ArrowReaderProperties properties_;
  std::shared_ptr<arrow::io::RandomAccessFile> input_;  // the file, through freshet's FileIO
  std::unique_ptr<parquet::arrow::FileReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int> selected_;
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  std::vector<std::unique_ptr<parquet::arrow::ColumnReader>> columns_;  // parallel decoding
  std::shared_ptr<arrow::Schema> selected_schema_;                      // of columns_
  int64_t remaining_rows_ = 0;
  int64_t batch_size_ = 1024;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> MakeParquetWriter(WriterParts parts,
                                                        const FormatWriterOptions& options) {
  return ParquetFormatWriter::Make(std::move(parts), options);
}

Result<std::unique_ptr<PhysicalReader>> OpenParquetReader(
    std::shared_ptr<io::RandomAccessFile> file, int64_t size) {
  return ParquetPhysicalReader::Open(std::move(file), size);
}

}  // namespace freshet::format::internal
