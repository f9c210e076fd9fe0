// The CLI's bridge between the public API (Arrow C Data Interface) and Arrow C++, which the text
// printers work on: a read as Arrow record batches.
#pragma once

#include <arrow/api.h>

#include <memory>
#include <utility>

#include "common/arrow_status.h"  // FromArrowStatus, FromArrowResult
#include "freshet/table.h"

namespace freshet::cli {

// The batches of a read, through the reader's Arrow C stream (TableReader::ExportArrowStream);
// a failed read is the reader's own Status (TableReader::LastStreamError).
// Not thread-safe: one thread at a time.
class BatchStream {
 public:
  static Result<std::unique_ptr<BatchStream>> Open(std::unique_ptr<TableReader> reader);
  ~BatchStream();
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // The batches' schema (the read's projected columns).
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  // The next batch, or nullptr at the end.
  Result<std::shared_ptr<arrow::RecordBatch>> Next();

 private:
  BatchStream() = default;
  ArrowArrayStream stream_{};
  std::shared_ptr<arrow::Schema> schema_;
};

}  // namespace freshet::cli
