// ORC data files through Arrow's ORC adapter. Field ids travel as the ORC type attribute
// `paimon.id`, which the adapter writes from and reads into Arrow field metadata.
#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include "format/arrow_status.h"
#include "format/data/arrow_io.h"
#include "format/data/arrow_schema.h"
#include "format/data/format_internal.h"
#include "io/file_io.h"

namespace freshet::format::internal {
namespace {

namespace orc = arrow::adapters::orc;

std::shared_ptr<arrow::DataType> OrcType(const std::shared_ptr<arrow::DataType>& type);

// The field as the ORC writer should see it: only the `paimon.id` attribute (Java's key), and
// types ORC lacks replaced by their storage (TIME is an ORC INT holding millis, as in Java).
std::shared_ptr<arrow::Field> OrcField(const arrow::Field& field) {
  std::shared_ptr<const arrow::KeyValueMetadata> metadata;
  if (auto id = FieldIdOf(field)) {
    metadata = arrow::key_value_metadata({kOrcFieldIdKey}, {std::to_string(*id)});
  }
  return arrow::field(field.name(), OrcType(field.type()), field.nullable(), metadata);
}

std::shared_ptr<arrow::DataType> OrcType(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::TIME32:
      return arrow::int32();
    case arrow::Type::LIST:
      return arrow::list(OrcField(*static_cast<const arrow::ListType&>(*type).value_field()));
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return std::make_shared<arrow::MapType>(OrcField(*map.key_field()),
                                              OrcField(*map.item_field()));
    }
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& child : type->fields()) fields.push_back(OrcField(*child));
      return arrow::struct_(fields);
    }
    default:
      return type;
  }
}

// `data` relabelled with `type`, which has the same physical layout at every level.
std::shared_ptr<arrow::ArrayData> Relabel(const std::shared_ptr<arrow::ArrayData>& data,
                                          const std::shared_ptr<arrow::DataType>& type) {
  auto copy = data->Copy();
  copy->type = type;
  for (size_t i = 0; i < copy->child_data.size(); ++i) {
    std::shared_ptr<arrow::DataType> child_type =
        type->id() == arrow::Type::MAP ? static_cast<const arrow::MapType&>(*type).value_type()
                                       : type->field(static_cast<int>(i))->type();
    copy->child_data[i] = Relabel(copy->child_data[i], child_type);
  }
  return copy;
}

class OrcFormatWriter : public FormatWriter {
 public:
  static Result<std::unique_ptr<FormatWriter>> Make(WriterParts parts,
                                                    const FormatWriterOptions& options) {
    FRESHET_ASSIGN_OR_RETURN(int codec, ArrowCompressionOf(options.compression));
    arrow::FieldVector fields;
    for (const auto& field : parts.arrow_schema->fields()) fields.push_back(OrcField(*field));
    auto writer = std::unique_ptr<OrcFormatWriter>(new OrcFormatWriter(std::move(parts)));
    writer->orc_schema_ = arrow::schema(fields);
    writer->sink_ = MakeArrowOutputStream(writer->out());
    orc::WriteOptions write_options;
    write_options.compression = static_cast<arrow::Compression::type>(codec);
    auto orc_writer = orc::ORCFileWriter::Open(writer->sink_.get(), write_options);
    if (!orc_writer.ok()) return FromArrowStatus(orc_writer.status());
    writer->writer_ = std::move(orc_writer).ValueUnsafe();
    return std::unique_ptr<FormatWriter>(std::move(writer));
  }

 protected:
  Status WriteBatch(const arrow::RecordBatch& batch) override {
    arrow::ArrayVector columns;
    for (int i = 0; i < batch.num_columns(); ++i) {
      columns.push_back(
          arrow::MakeArray(Relabel(batch.column(i)->data(), orc_schema_->field(i)->type())));
    }
    auto orc_batch = arrow::RecordBatch::Make(orc_schema_, batch.num_rows(), columns);
    int64_t before = out()->Position();
    FRESHET_RETURN_NOT_OK_ARROW(writer_->Write(*orc_batch));
    // Bytes written since the ORC writer last flushed a stripe approximate what it buffers.
    if (out()->Position() != before) buffered_bytes_ = 0;
    buffered_bytes_ += arrow::util::TotalBufferSize(batch);
    return Status::OK();
  }
  int64_t BufferedBytes() const override { return buffered_bytes_; }
  Status CloseFormat() override {
    if (row_count() == 0) {
      // The adapter only starts the file on the first batch; an empty file still needs a footer.
      auto empty = arrow::RecordBatch::MakeEmpty(orc_schema_);
      if (!empty.ok()) return FromArrowStatus(empty.status());
      FRESHET_RETURN_NOT_OK_ARROW(writer_->Write(**empty));
    }
    FRESHET_RETURN_NOT_OK_ARROW(writer_->Close());
    return FromArrowStatus(sink_->Close());
  }

 private:
  explicit OrcFormatWriter(WriterParts parts)
      : FormatWriter(std::move(parts.out), std::move(parts.schema), std::move(parts.arrow_schema),
                     std::move(parts.stats)) {}

  std::shared_ptr<arrow::Schema> orc_schema_;
  std::shared_ptr<arrow::io::OutputStream> sink_;
  std::unique_ptr<orc::ORCFileWriter> writer_;
  int64_t buffered_bytes_ = 0;
};

class OrcPhysicalReader : public PhysicalReader {
 public:
  static Result<std::unique_ptr<PhysicalReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size) {
    auto reader = std::make_unique<OrcPhysicalReader>();
    auto orc_reader = orc::ORCFileReader::Open(MakeArrowInputFile(std::move(file), size),
                                               arrow::default_memory_pool());
    if (!orc_reader.ok()) {
      return Status::Corruption("not a readable ORC file: ", orc_reader.status().message());
    }
    reader->reader_ = std::move(orc_reader).ValueUnsafe();
    auto schema = reader->reader_->ReadSchema();
    if (!schema.ok()) return FromArrowStatus(schema.status());
    reader->schema_ = *schema;
    return std::unique_ptr<PhysicalReader>(std::move(reader));
  }

  const std::shared_ptr<arrow::Schema>& schema() const override { return schema_; }
  int64_t num_rows() const override { return reader_->NumberOfRows(); }

  Status Select(const std::vector<int>& fields, int64_t batch_size) override {
    batch_size_ = batch_size;
    remaining_rows_ = num_rows();
    if (fields.empty()) return Status::OK();  // rows only; see Next()
    std::vector<std::string> names;
    for (int field : fields) names.push_back(schema_->field(field)->name());
    auto batches = reader_->GetRecordBatchReader(batch_size, names);
    if (!batches.ok()) return FromArrowStatus(batches.status());
    batches_ = *batches;
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (batches_ == nullptr) {
      if (remaining_rows_ <= 0) return std::shared_ptr<arrow::RecordBatch>();
      int64_t rows = std::min(remaining_rows_, batch_size_);
      remaining_rows_ -= rows;
      return arrow::RecordBatch::Make(arrow::schema({}), rows, arrow::ArrayVector{});
    }
    std::shared_ptr<arrow::RecordBatch> batch;
    auto status = batches_->ReadNext(&batch);
    if (!status.ok()) return Status::Corruption("cannot decode ORC data: ", status.message());
    return batch;
  }

 private:
  std::unique_ptr<orc::ORCFileReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::RecordBatchReader> batches_;
  int64_t batch_size_ = 1024;
  int64_t remaining_rows_ = 0;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> MakeOrcWriter(WriterParts parts,
                                                    const FormatWriterOptions& options) {
  return OrcFormatWriter::Make(std::move(parts), options);
}

Result<std::unique_ptr<PhysicalReader>> OpenOrcReader(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size) {
  return OrcPhysicalReader::Open(std::move(file), size);
}

}  // namespace freshet::format::internal
