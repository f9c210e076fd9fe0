// SchemaImportCache: imports record batches through the Arrow C Data Interface without importing
// the same schema again on every call.
//
// A writer receives an ArrowSchema with every batch, almost always the same one. Importing it
// (Arrow fields, the struct type, their allocations) was a fifth of a small real-time Write.
// The cache keeps the last imported schema with a fingerprint of its C description (formats,
// names, flags, metadata, children, dictionaries); a schema with the same fingerprint is only
// released, and the batch is imported against the kept one.
#pragma once

#include <arrow/c/abi.h>
#include <arrow/type_fwd.h>

#include <memory>
#include <mutex>
#include <string>

#include "freshet/result.h"

namespace freshet::bridge {

class SchemaImportCache {
 public:
  // Imports `array` as a record batch of `schema`, taking ownership of both (both are released,
  // also on error, as arrow::ImportRecordBatch does). Safe to call from several threads.
  Result<std::shared_ptr<arrow::RecordBatch>> ImportRecordBatch(ArrowArray* array,
                                                                ArrowSchema* schema);

  // The fingerprint of a C schema (exposed for tests): equal fingerprints, equal imports.
  static void Fingerprint(const ArrowSchema& schema, std::string* out);

 private:
  std::mutex mutex_;
  std::string fingerprint_;                    // of schema_, guarded by mutex_
  std::shared_ptr<arrow::Schema> schema_;      // guarded by mutex_
  std::shared_ptr<arrow::DataType> row_type_;  // struct of schema_'s fields, guarded by mutex_
};

}  // namespace freshet::bridge
