// BatchReader: a pull stream of Arrow record batches, the shape every reader in freshet has
// (data files, sorted-run merges, table reads, memory views of the real-time layer).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>

#include "freshet/result.h"

namespace freshet::format {

class BatchReader {
 public:
  virtual ~BatchReader() = default;
  // The next batch, or null at the end.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
};

}  // namespace freshet::format
