// KindedTableRead: reads splits with each row's kind (docs/streaming-reads.md).
//
// Batches hold the read's output columns, then `_VALUE_KIND` (int8, Java's RowKind byte):
//   * append tables: every row is an insert (+I);
//   * primary-key splits of a full plan (merge = true): merged by key as TableRead does, each live
//     record with its merged kind (+I, or +U when the winning version is an update), as Java's
//     batch read (KeyValueTableRead) gives it;
//   * primary-key splits of a delta (merge = false): each file read as it is, one file after
//     another, no merge across files and retracts (-U, -D) kept, as Java's streaming read of
//     delta splits does (MergeFileSplitRead.createNoMergeReader).
// Rows are filtered by the read's predicate, record by record.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "format/batch_reader.h"
#include "io/file_io.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "read/primary_key_read.h"
#include "read/table_read.h"
#include "scan/table_scan.h"

namespace freshet::read {

class KindedTableRead {
 public:
  static Result<std::shared_ptr<const KindedTableRead>> Make(std::shared_ptr<io::FileIO> file_io,
                                                             std::string table_path,
                                                             meta::TableSchema schema,
                                                             ReadOptions options);

  // The read's columns (without the kind column batches end with).
  const std::shared_ptr<arrow::Schema>& output_schema() const { return read_.output_schema(); }

  // The rows of `splits`, merged by key (`merge`, a full plan) or as the files hold them (a
  // delta). The read must outlive the reader.
  Result<std::unique_ptr<format::BatchReader>> CreateReader(std::vector<scan::DataSplit> splits,
                                                            bool merge) const;

  const TableRead& table_read() const { return read_; }
  const meta::DataFilePaths& paths() const { return paths_; }
  // How primary-key splits merge; null for append tables.
  const PrimaryKeyReadPlan* kind_plan() const { return read_.primary_key_plan(); }
  const std::shared_ptr<io::FileIO>& file_io() const { return file_io_; }

  KindedTableRead(std::shared_ptr<io::FileIO> file_io, TableRead read, meta::DataFilePaths paths);

 private:
  std::shared_ptr<io::FileIO> file_io_;
  TableRead read_;
  meta::DataFilePaths paths_;
};

}  // namespace freshet::read
