#include "read/table_read.h"

#include <arrow/api.h>

#include <map>

#include "bridge/arrow_schema.h"
#include "common/arrow_status.h"
#include "format/format_reader.h"
#include "meta/schema/schema_manager.h"
#include "read/predicate_filter.h"

namespace freshet::read {

namespace {

// A data file as a batch stream that must deliver exactly the rows its manifest entry counts: a
// damaged footer or page index can make a format library return fewer rows without an error.
class FileReader : public BatchReader {
 public:
  FileReader(std::unique_ptr<format::FormatReader> file, std::string path, int64_t expected_rows)
      : file_(std::move(file)), path_(std::move(path)), expected_rows_(expected_rows) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    FRESHET_ASSIGN_OR_RETURN(auto batch, file_->Next());
    delivered_ += batch ? batch->num_rows() : 0;
    if (delivered_ > expected_rows_ || (!batch && delivered_ != expected_rows_)) {
      return Status::Corruption("data file ", path_, " delivered ", delivered_,
                                batch ? " rows or more" : " rows", ", its manifest entry says ",
                                expected_rows_);
    }
    return batch;
  }

 private:
  std::unique_ptr<format::FormatReader> file_;
  const std::string path_;
  const int64_t expected_rows_;
  int64_t delivered_ = 0;
};

// Reads the files of splits one after another (append-table semantics: concatenation).
class ConcatReader : public BatchReader {
 public:
  ConcatReader(const TableRead* read, std::shared_ptr<io::FileIO> file_io,
               const meta::DataFilePaths* paths, format::FormatReaderOptions options,
               std::vector<scan::DataSplit> splits, std::vector<std::unique_ptr<BatchReader>> tail)
      : read_(read),
        file_io_(std::move(file_io)),
        paths_(paths),
        options_(options),
        splits_(std::move(splits)),
        tail_(std::move(tail)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      if (current_) {
        FRESHET_ASSIGN_OR_RETURN(auto batch, current_->Next());
        if (!batch) {
          current_.reset();
          continue;
        }
        FRESHET_ASSIGN_OR_RETURN(batch, Finish(batch));
        if (batch->num_rows() > 0) return batch;
        continue;
      }
      if (split_ >= splits_.size()) {
        if (tail_index_ >= tail_.size()) return std::shared_ptr<arrow::RecordBatch>();
        current_ = std::move(tail_[tail_index_++]);
        continue;
      }
      const scan::DataSplit& split = splits_[split_];
      if (file_ >= split.files.size()) {
        ++split_;
        file_ = 0;
        continue;
      }
      const meta::DataFileMeta& file = split.files[file_++];
      FRESHET_ASSIGN_OR_RETURN(std::string path,
                               paths_->FilePath(split.partition, split.bucket, file));
      format::FormatReaderOptions options = options_;
      options.exact_schema = file.schema_id == read_->schema_id();
      if (!options.exact_schema) {
        FRESHET_ASSIGN_OR_RETURN(options.file_schema, FieldsOfSchema(file.schema_id));
      }
      FRESHET_ASSIGN_OR_RETURN(auto file_reader,
                               format::FormatReader::Open(*file_io_, path, file.file_size,
                                                          read_->read_fields(), options));
      if (file_reader->num_rows() != file.row_count) {
        return Status::Corruption("data file ", path, " holds ", file_reader->num_rows(),
                                  " rows by its own metadata, its manifest entry says ",
                                  file.row_count);
      }
      current_ = std::make_unique<FileReader>(std::move(file_reader), path, file.row_count);
    }
  }

 private:
  // Filters rows by the predicate and drops the columns read only for it.
  Result<std::shared_ptr<arrow::RecordBatch>> Finish(std::shared_ptr<arrow::RecordBatch> batch) {
    const auto& predicate = read_->options().predicate;
    if (!predicate) return batch;
    FRESHET_ASSIGN_OR_RETURN(batch, FilterBatch(*predicate, batch, read_->read_fields()));
    const auto& schema = read_->output_schema();
    if (batch->num_columns() == schema->num_fields()) return batch;
    std::vector<std::shared_ptr<arrow::Array>> columns(
        batch->columns().begin(), batch->columns().begin() + schema->num_fields());
    return arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(columns));
  }

  // The fields of an older schema that files were written with (schema files are immutable).
  Result<std::vector<meta::DataField>> FieldsOfSchema(int64_t schema_id) {
    auto known = file_schemas_.find(schema_id);
    if (known != file_schemas_.end()) return known->second;
    FRESHET_ASSIGN_OR_RETURN(
        meta::TableSchema schema,
        meta::SchemaManager(file_io_, paths_->table_path()).ReadSchema(schema_id));
    return file_schemas_[schema_id] = schema.fields();
  }

  const TableRead* read_;
  std::map<int64_t, std::vector<meta::DataField>> file_schemas_;
  std::shared_ptr<io::FileIO> file_io_;
  const meta::DataFilePaths* paths_;
  format::FormatReaderOptions options_;
  std::vector<scan::DataSplit> splits_;
  size_t split_ = 0;
  size_t file_ = 0;
  std::vector<std::unique_ptr<BatchReader>> tail_;
  size_t tail_index_ = 0;
  std::unique_ptr<BatchReader> current_;
};

}  // namespace

TableRead::TableRead(std::shared_ptr<io::FileIO> file_io, meta::DataFilePaths paths,
                     ReadOptions options, int64_t schema_id,
                     std::vector<meta::DataField> read_fields,
                     std::shared_ptr<arrow::Schema> output_schema)
    : schema_id_(schema_id),
      file_io_(std::move(file_io)),
      paths_(std::move(paths)),
      options_(std::move(options)),
      read_fields_(std::move(read_fields)),
      output_schema_(std::move(output_schema)) {}

Result<TableRead> TableRead::Make(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                  meta::TableSchema schema, ReadOptions options) {
  if (!schema.primary_keys().empty()) {
    return Status::NotImplemented("reading primary-key table '", table_path,
                                  "' (merge-on-read) is not supported yet");
  }
  std::vector<meta::DataField> fields = schema.fields();
  if (!options.projection.empty()) {
    std::vector<meta::DataField> projected;
    for (const std::string& name : options.projection) {
      int index = schema.FieldIndex(name);
      if (index < 0) {
        return Status::Invalid("column '", name, "' does not exist in table '", table_path, "'");
      }
      projected.push_back(fields[static_cast<size_t>(index)]);
    }
    fields = std::move(projected);
  }
  FRESHET_ASSIGN_OR_RETURN(auto output_schema, bridge::ToArrowSchema(fields));
  if (options.predicate) {
    for (const meta::DataField& f : options.predicate->Fields()) {
      bool present = false;
      for (const auto& have : fields) present = present || have.id == f.id;
      if (!present) fields.push_back(f);
    }
  }
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(std::move(table_path), schema));
  return TableRead(std::move(file_io), std::move(paths), std::move(options), schema.id(),
                   std::move(fields), std::move(output_schema));
}

Result<std::unique_ptr<BatchReader>> TableRead::CreateReader(const scan::DataSplit& split) const {
  return CreateReader(std::vector<scan::DataSplit>{split});
}

Result<std::unique_ptr<BatchReader>> TableRead::CreateReader(
    std::vector<scan::DataSplit> splits, std::vector<std::unique_ptr<BatchReader>> tail) const {
  format::FormatReaderOptions options;
  options.batch_size = options_.batch_size;
  return std::unique_ptr<BatchReader>(
      new ConcatReader(this, file_io_, &paths_, options, std::move(splits), std::move(tail)));
}

}  // namespace freshet::read
