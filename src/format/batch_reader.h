// BatchReader: a pull stream of Arrow record batches, the shape every reader in freshet has
// (data files, sorted-run merges, table reads, memory views of the real-time layer).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <utility>
#include <vector>

#include "freshet/result.h"

namespace freshet::format {

class BatchReader {
 public:
  virtual ~BatchReader() = default;
  // The next batch, or null at the end.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
};

// Batches already in memory, in order.
class VectorBatchReader : public BatchReader {
 public:
  explicit VectorBatchReader(std::vector<std::shared_ptr<arrow::RecordBatch>> batches)
      : batches_(std::move(batches)) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= batches_.size()) return std::shared_ptr<arrow::RecordBatch>();
    return std::move(batches_[next_++]);
  }

 private:
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  size_t next_ = 0;
};

// The batches of a sequence of readers, one after another (the files of a split, the sections of
// a bucket, ...). Subclasses say which reader comes next and may rewrite each batch; batches left
// empty are skipped.
class ChainedBatchReader : public BatchReader {
 public:
  Result<std::shared_ptr<arrow::RecordBatch>> Next() final;

 protected:
  // The next reader of the sequence; null at its end.
  virtual Result<std::unique_ptr<BatchReader>> OpenNext() = 0;
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Transform(
      std::shared_ptr<arrow::RecordBatch> batch) {
    return batch;
  }

 private:
  std::unique_ptr<BatchReader> current_;
};

}  // namespace freshet::format
