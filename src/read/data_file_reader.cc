#include "read/data_file_reader.h"

#include <arrow/api.h>

#include "format/deletion_vector.h"
#include "format/format_reader.h"
#include "meta/schema/schema_manager.h"
#include "read/predicate_filter.h"

namespace freshet::read {

namespace {

// A data file as a batch stream that must deliver exactly the rows its manifest entry counts: a
// damaged footer or page index can make a format library return fewer rows without an error.
class CountedFileReader : public format::BatchReader {
 public:
  CountedFileReader(std::unique_ptr<format::FormatReader> file, std::string path,
                    int64_t expected_rows)
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

// Leaves out the rows a deletion vector deletes, by their position in the file.
class DeletionVectorReader : public format::BatchReader {
 public:
  DeletionVectorReader(std::unique_ptr<format::BatchReader> file, format::DeletionVector deleted)
      : file_(std::move(file)), deleted_(std::move(deleted)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(auto batch, file_->Next());
      if (!batch) return batch;
      int64_t start = position_;
      int64_t rows = batch->num_rows();
      position_ += rows;
      if (deleted_.CountDeleted(start, rows) == 0) return batch;
      marks_.resize(static_cast<size_t>(rows));
      deleted_.MarkDeleted(start, rows, marks_.data());
      std::vector<RowRun> kept;
      for (int64_t row = 0; row < rows;) {
        while (row < rows && marks_[static_cast<size_t>(row)]) ++row;
        int64_t begin = row;
        while (row < rows && !marks_[static_cast<size_t>(row)]) ++row;
        if (row > begin) kept.emplace_back(begin, row);
      }
      if (kept.empty()) continue;
      return SelectRowRuns(batch, kept);
    }
  }

 private:
  std::unique_ptr<format::BatchReader> file_;
  format::DeletionVector deleted_;
  int64_t position_ = 0;
  std::vector<uint8_t> marks_;
};

}  // namespace

DataFileOpener::DataFileOpener(std::shared_ptr<io::FileIO> file_io,
                               const meta::DataFilePaths* paths, int64_t read_schema_id,
                               int64_t batch_size)
    : file_io_(std::move(file_io)),
      paths_(paths),
      read_schema_id_(read_schema_id),
      batch_size_(batch_size) {}

Result<std::unique_ptr<format::BatchReader>> DataFileOpener::Open(
    const scan::DataSplit& split, size_t index, const std::vector<meta::DataField>& fields,
    const std::vector<meta::DataField>& system_fields) {
  const meta::DataFileMeta& file = split.files[index];
  FRESHET_ASSIGN_OR_RETURN(std::string path, paths_->FilePath(split.partition, split.bucket, file));
  format::FormatReaderOptions options;
  options.batch_size = batch_size_;
  options.exact_schema = file.schema_id == read_schema_id_;
  if (!options.exact_schema) {
    FRESHET_ASSIGN_OR_RETURN(const meta::TableSchema* file_schema, SchemaOf(file.schema_id));
    options.file_schema = file_schema->fields();
    options.file_schema.insert(options.file_schema.end(), system_fields.begin(),
                               system_fields.end());
  }
  FRESHET_ASSIGN_OR_RETURN(auto file_reader, format::FormatReader::Open(
                                                 *file_io_, path, file.file_size, fields, options));
  if (file_reader->num_rows() != file.row_count) {
    return Status::Corruption("data file ", path, " holds ", file_reader->num_rows(),
                              " rows by its own metadata, its manifest entry says ",
                              file.row_count);
  }
  std::unique_ptr<format::BatchReader> reader =
      std::make_unique<CountedFileReader>(std::move(file_reader), path, file.row_count);
  if (const scan::DeletionFile* deletion = split.DeletionFileOf(index)) {
    FRESHET_ASSIGN_OR_RETURN(format::DeletionVector deleted,
                             format::ReadDeletionVector(*file_io_, deletion->path, deletion->offset,
                                                        deletion->length, deletion->cardinality));
    if (!deleted.empty()) {
      reader = std::make_unique<DeletionVectorReader>(std::move(reader), std::move(deleted));
    }
  }
  return reader;
}

Result<const meta::TableSchema*> DataFileOpener::SchemaOf(int64_t schema_id) {
  auto known = file_schemas_.find(schema_id);
  if (known != file_schemas_.end()) return &known->second;
  FRESHET_ASSIGN_OR_RETURN(
      meta::TableSchema schema,
      meta::SchemaManager(file_io_, paths_->table_path()).ReadSchema(schema_id));
  return &file_schemas_.emplace(schema_id, std::move(schema)).first->second;
}

}  // namespace freshet::read
