#include "cli/arrow_batches.h"

#include <arrow/c/bridge.h>

namespace freshet::cli {

Result<std::unique_ptr<BatchStream>> BatchStream::Open(std::unique_ptr<TableReader> reader) {
  std::unique_ptr<BatchStream> batches(new BatchStream());
  FRESHET_RETURN_NOT_OK(TableReader::ExportArrowStream(std::move(reader), &batches->stream_));
  ArrowSchema schema;
  if (batches->stream_.get_schema(&batches->stream_, &schema) != 0) {
    return TableReader::LastStreamError(&batches->stream_);
  }
  FRESHET_ASSIGN_OR_RETURN(batches->schema_, FromArrowResult(arrow::ImportSchema(&schema)));
  return batches;
}

BatchStream::~BatchStream() {
  if (stream_.release != nullptr) stream_.release(&stream_);
}

Result<std::shared_ptr<arrow::RecordBatch>> BatchStream::Next() {
  ArrowArray array;
  if (stream_.get_next(&stream_, &array) != 0) return TableReader::LastStreamError(&stream_);
  if (array.release == nullptr) return std::shared_ptr<arrow::RecordBatch>();
  return FromArrowResult(arrow::ImportRecordBatch(&array, schema_));
}

}  // namespace freshet::cli
