#include "read/data_file_reader.h"

#include <arrow/api.h>

#include "bridge/arrow_schema.h"
#include "common/arrow_status.h"
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

// Every batch of `reader`, as one batch (an empty one in `fields` for a file without rows).
Result<std::shared_ptr<arrow::RecordBatch>> ReadWhole(format::BatchReader& reader,
                                                      const std::vector<meta::DataField>& fields) {
  arrow::RecordBatchVector batches;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader.Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  if (batches.size() == 1) return batches.front();
  if (batches.empty()) {
    FRESHET_ASSIGN_OR_RETURN(auto schema, bridge::ToArrowSchema(fields));
    auto empty = arrow::RecordBatch::MakeEmpty(schema);
    if (!empty.ok()) return FromArrowStatus(empty.status());
    return *empty;
  }
  auto whole = arrow::ConcatenateRecordBatches(batches);
  if (!whole.ok()) return FromArrowStatus(whole.status());
  return *whole;
}

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
  if (keys_) return OpenSelected(split, index, path, fields, system_fields);
  FRESHET_ASSIGN_OR_RETURN(auto reader, OpenWhole(split, index, path, fields, system_fields));
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

Result<std::unique_ptr<format::BatchReader>> DataFileOpener::OpenWhole(
    const scan::DataSplit& split, size_t index, const std::string& path,
    const std::vector<meta::DataField>& fields, const std::vector<meta::DataField>& system_fields) {
  const meta::DataFileMeta& file = split.files[index];
  format::FormatReaderOptions options;
  options.batch_size = batch_size_;
  options.parallel_decode = parallel_decode_;
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
  return std::unique_ptr<format::BatchReader>(
      std::make_unique<CountedFileReader>(std::move(file_reader), path, file.row_count));
}

Result<std::unique_ptr<format::BatchReader>> DataFileOpener::OpenSelected(
    const scan::DataSplit& split, size_t index, const std::string& path,
    const std::vector<meta::DataField>& fields, const std::vector<meta::DataField>& system_fields) {
  // Cached per path and read fields (with the schema the file is read in: evolution renames).
  std::string cache_key = path + "#" + std::to_string(read_schema_id_) + "#" +
                          std::to_string(split.files[index].schema_id);
  for (const auto& field : fields) cache_key += "," + std::to_string(field.id) + ":" + field.name;
  FRESHET_ASSIGN_OR_RETURN(
      std::shared_ptr<arrow::RecordBatch> whole,
      DecodedFileCache::Instance().GetOrLoad(
          cache_key, keys_->cache_bytes(), [&]() -> Result<std::shared_ptr<arrow::RecordBatch>> {
            FRESHET_ASSIGN_OR_RETURN(auto reader,
                                     OpenWhole(split, index, path, fields, system_fields));
            return ReadWhole(*reader, fields);
          }));
  FRESHET_ASSIGN_OR_RETURN(std::vector<RowRun> runs, keys_->RowsOf(*whole));
  if (const scan::DeletionFile* deletion = split.DeletionFileOf(index); deletion && !runs.empty()) {
    FRESHET_ASSIGN_OR_RETURN(format::DeletionVector deleted,
                             format::ReadDeletionVector(*file_io_, deletion->path, deletion->offset,
                                                        deletion->length, deletion->cardinality));
    std::vector<RowRun> live;
    for (const auto& [begin, end] : runs) {
      for (int64_t row = begin; row < end; ++row) {
        if (deleted.IsDeleted(row)) continue;
        if (!live.empty() && live.back().second == row) {
          ++live.back().second;
        } else {
          live.emplace_back(row, row + 1);
        }
      }
    }
    runs = std::move(live);
  }
  std::vector<std::shared_ptr<arrow::RecordBatch>> selected;
  if (!runs.empty()) {
    FRESHET_ASSIGN_OR_RETURN(auto rows, SelectRowRuns(whole, runs));
    selected.push_back(std::move(rows));
  }
  return std::unique_ptr<format::BatchReader>(
      std::make_unique<format::VectorBatchReader>(std::move(selected)));
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
