// FileIndexWriter: the file index of one data file being written (meta/fileindex/file_index.h),
// fed the same Arrow batches as the file. Hashes whole arrays by their Arrow type, with no
// per-row allocation.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/fileindex/file_index.h"

namespace freshet::format {

class FileIndexWriter {
 public:
  // A writer for files with the columns `fields` (matched to the spec's columns by name: the
  // value columns of primary-key files carry the table's names); nullptr when the spec indexes
  // none of them.
  static Result<std::unique_ptr<FileIndexWriter>> Make(const meta::FileIndexSpec& spec,
                                                       const std::vector<meta::DataField>& fields);
  ~FileIndexWriter();

  // Adds the values of a batch with the file's columns.
  Status Add(const arrow::RecordBatch& batch);
  // The container bytes, in Java's layout.
  std::string Finish() const;

 private:
  struct Column;
  FileIndexWriter();
  std::vector<Column> columns_;
};

}  // namespace freshet::format
