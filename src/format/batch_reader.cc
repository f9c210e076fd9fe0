#include "format/batch_reader.h"

#include <arrow/api.h>

namespace freshet::format {

Result<std::shared_ptr<arrow::RecordBatch>> ChainedBatchReader::Next() {
  while (true) {
    if (!current_) {
      FRESHET_ASSIGN_OR_RETURN(current_, OpenNext());
      if (!current_) return std::shared_ptr<arrow::RecordBatch>();
    }
    FRESHET_ASSIGN_OR_RETURN(auto batch, current_->Next());
    if (!batch) {
      current_.reset();
      continue;
    }
    FRESHET_ASSIGN_OR_RETURN(batch, Transform(std::move(batch)));
    if (batch->num_rows() > 0) return batch;
  }
}

}  // namespace freshet::format
