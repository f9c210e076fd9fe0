#include "format/format_writer.h"

#include <arrow/api.h>
#include <arrow/util/compression.h>

#include <cctype>

#include "bridge/arrow_schema.h"
#include "format/format_internal.h"
#include "io/file_io.h"
#include "meta/options/option_registry.h"

namespace freshet::format {

namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string lower = Lower(name);
  if (lower == "parquet") return FileFormat::kParquet;
  if (lower == "orc") return FileFormat::kOrc;
  if (lower == "avro") return FileFormat::kAvro;
  return Status::NotImplemented("file format '", name, "' (supported: parquet, orc, avro)");
}

Result<FileFormat> FileFormatFromPath(std::string_view path) {
  std::string_view name = io::BaseName(path);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) {
    return Status::Invalid("data file '", path, "' has no extension naming its format");
  }
  auto format = ParseFileFormat(name.substr(dot + 1));
  if (!format.ok()) return format.status().WithContext(std::string(path));
  return format;
}

const char* FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "parquet";
    case FileFormat::kOrc:
      return "orc";
    case FileFormat::kAvro:
      return "avro";
  }
  return "?";
}

Result<FormatWriterOptions> FormatWriterOptions::FromTableOptions(
    const std::vector<meta::DataField>& fields, const meta::Options& options) {
  // Every value is parsed by the option registry (meta/options/option_registry.h).
  FormatWriterOptions out;
  FRESHET_ASSIGN_OR_RETURN(out.compression, meta::GetStringOption(options, "file.compression"));
  FRESHET_ASSIGN_OR_RETURN(out.zstd_level,
                           meta::GetIntOption(options, "file.compression.zstd-level"));
  FRESHET_RETURN_NOT_OK(internal::ArrowCompressionOf(out.compression).status());
  FRESHET_ASSIGN_OR_RETURN(out.stats_modes, StatsModesFromOptions(fields, options));
  FRESHET_ASSIGN_OR_RETURN(out.parquet_page_checksums,
                           meta::GetBoolOption(options, "parquet.page.write-checksum.enabled"));
  FRESHET_ASSIGN_OR_RETURN(out.parquet_row_group_bytes,
                           meta::GetMemorySizeOption(options, "parquet.block.size"));
  FRESHET_ASSIGN_OR_RETURN(out.parquet_parallel_columns,
                           meta::GetBoolOption(options, "parquet.write.parallel-columns"));
  FRESHET_ASSIGN_OR_RETURN(out.orc_stripe_bytes,
                           meta::GetMemorySizeOption(options, "orc.stripe.size"));
  return out;
}

namespace internal {

Result<int> ArrowCompressionOf(const std::string& compression) {
  std::string lower = Lower(compression);
  if (lower == "zstd") return arrow::Compression::ZSTD;
  if (lower == "snappy") return arrow::Compression::SNAPPY;
  if (lower == "gzip" || lower == "deflate" || lower == "zlib") return arrow::Compression::GZIP;
  if (lower == "lz4") return arrow::Compression::LZ4;
  if (lower == "none" || lower == "uncompressed") return arrow::Compression::UNCOMPRESSED;
  return Status::Invalid("option file.compression: unsupported codec '", compression, "'");
}

}  // namespace internal

Result<std::unique_ptr<FormatWriter>> FormatWriter::Open(FileFormat format,
                                                         std::unique_ptr<io::OutputStream> out,
                                                         std::vector<meta::DataField> schema,
                                                         FormatWriterOptions options) {
  if (out == nullptr) return Status::Invalid("FormatWriter needs an output stream");
  std::string path = out->path();
  auto context = [&](const Status& status) { return status.WithContext("data file " + path); };
  auto arrow_schema = bridge::ToArrowSchema(schema);
  if (!arrow_schema.ok()) return context(arrow_schema.status());
  std::vector<StatsMode> modes = options.stats_modes;
  if (modes.empty()) modes.assign(schema.size(), StatsMode::Default());
  if (format == FileFormat::kParquet) {
    // Java's Parquet writer leaves nested columns out of the stats (and lists the others in
    // _VALUE_STATS_COLS); ORC and Avro keep them with null bounds.
    for (size_t i = 0; i < schema.size() && i < modes.size(); ++i) {
      if (schema[i].type->IsComposite()) modes[i] = StatsMode{StatsMode::Kind::kNone, 0};
    }
  }
  auto stats = StatsCollector::Make(schema, modes);
  if (!stats.ok()) return context(stats.status());
  internal::WriterParts parts{std::move(out), std::move(schema), *arrow_schema,
                              std::move(stats).MoveValueUnsafe()};
  Result<std::unique_ptr<FormatWriter>> writer = Status::Internal("unreachable");
  switch (format) {
    case FileFormat::kParquet:
      writer = internal::MakeParquetWriter(std::move(parts), options);
      break;
    case FileFormat::kOrc:
      writer = internal::MakeOrcWriter(std::move(parts), options);
      break;
    case FileFormat::kAvro:
      writer = internal::MakeAvroWriter(std::move(parts), options);
      break;
  }
  if (!writer.ok()) return context(writer.status());
  return writer;
}

FormatWriter::FormatWriter(std::unique_ptr<io::OutputStream> out,
                           std::vector<meta::DataField> schema,
                           std::shared_ptr<arrow::Schema> arrow_schema, StatsCollector stats)
    : out_(std::move(out)),
      schema_(std::move(schema)),
      arrow_schema_(std::move(arrow_schema)),
      stats_(std::move(stats)) {}

FormatWriter::~FormatWriter() = default;

const std::string& FormatWriter::path() const { return out_->path(); }

Status FormatWriter::Validate(const arrow::RecordBatch& batch) const {
  if (batch.num_columns() != arrow_schema_->num_fields()) {
    return Status::Invalid("batch has ", batch.num_columns(), " columns, the file schema ",
                           arrow_schema_->num_fields());
  }
  for (int i = 0; i < batch.num_columns(); ++i) {
    const auto& field = arrow_schema_->field(i);
    const auto& column = batch.column(i);
    if (!column->type()->Equals(*field->type(), /*check_metadata=*/false)) {
      return Status::Invalid("column ", field->name(), " has Arrow type ",
                             column->type()->ToString(), ", expected ", field->type()->ToString());
    }
    if (!field->nullable() && column->null_count() > 0) {
      return Status::Invalid("column ", field->name(), " is NOT NULL but the batch holds ",
                             column->null_count(), " nulls");
    }
  }
  return Status::OK();
}

Status FormatWriter::Write(const arrow::RecordBatch& batch) {
  if (finished_) return Status::Invalid("data file ", path(), " is already finished");
  auto context = [&](const Status& status) { return status.WithContext("data file " + path()); };
  FRESHET_RETURN_NOT_OK(context(Validate(batch)));
  if (batch.num_rows() == 0) return Status::OK();
  // Re-label the columns with the file schema (field ids, nullability): the batch may come from
  // anywhere as long as its types match.
  auto relabeled = arrow::RecordBatch::Make(arrow_schema_, batch.num_rows(), batch.columns());
  FRESHET_RETURN_NOT_OK(context(stats_.Update(*relabeled)));
  FRESHET_RETURN_NOT_OK(context(WriteBatch(*relabeled)));
  row_count_ += batch.num_rows();
  return Status::OK();
}

int64_t FormatWriter::EstimatedFileSize() const { return out_->Position() + BufferedBytes(); }

Result<FormatWriteResult> FormatWriter::Finish() {
  if (finished_) return Status::Invalid("data file ", path(), " is already finished");
  finished_ = true;
  auto context = [&](const Status& status) { return status.WithContext("data file " + path()); };
  FRESHET_RETURN_NOT_OK(context(CloseFormat()));
  FormatWriteResult result;
  result.file_size = out_->Position();
  FRESHET_RETURN_NOT_OK(context(out_->Close()));
  result.row_count = row_count_;
  auto stats = stats_.Finish();
  if (!stats.ok()) return context(stats.status());
  result.stats = std::move(stats->stats);
  result.stats_columns = std::move(stats->columns);
  return result;
}

}  // namespace freshet::format
