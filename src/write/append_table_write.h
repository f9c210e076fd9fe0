// AppendTableWrite: writes rows of an append (no primary key) table into data files.
//
// Rows are routed to their partition-bucket with Java's bucket function; each partition-bucket has
// a rolling writer that starts a new file at `target-file-size`. Sequence numbers continue from
// the highest one the bucket already has on disk, one per row, as Java assigns them.
// PrepareCommit() closes the open files and returns one CommitMessage per partition-bucket.
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/format_writer.h"
#include "io/file_io.h"
#include "meta/manifest/commit_message.h"
#include "meta/options/core_options.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "write/rolling_file_writer.h"
#include "write/row_keys.h"
#include "write/table_write.h"

namespace freshet::write {

class BucketWriter;

class AppendTableWrite : public TableWrite {
 public:
  // NotImplemented for a primary-key table (KeyValueTableWrite writes those).
  static Result<std::unique_ptr<AppendTableWrite>> Make(std::shared_ptr<io::FileIO> file_io,
                                                        std::string table_path,
                                                        meta::TableSchema schema);
  ~AppendTableWrite() override;

  // Writes a batch in the table's Arrow schema, routing every row.
  Status Write(const arrow::RecordBatch& batch) override;
  // Writes a batch whose rows all belong to one partition-bucket the caller computed.
  Status WriteBucket(const std::string& serialized_partition, int32_t bucket,
                     const arrow::RecordBatch& batch);

  // Closes every open file; the messages list the new files per partition-bucket.
  Result<std::vector<meta::CommitMessage>> PrepareCommit() override;
  Status Abort(const std::vector<meta::CommitMessage>& uncommitted = {}) override;

  const meta::TableSchema& schema() const override { return schema_; }

 private:
  AppendTableWrite(meta::TableSchema schema, meta::CoreOptions options, meta::DataFilePaths paths,
                   write::RowKeyExtractor keys, DataFileSettings files);
  Result<BucketWriter*> WriterFor(const std::string& partition, int32_t bucket);

  meta::TableSchema schema_;
  meta::CoreOptions options_;
  meta::DataFilePaths paths_;
  write::RowKeyExtractor keys_;
  DataFileSettings files_;
  // Highest sequence number per partition-bucket in the latest snapshot (read once).
  std::optional<MaxSequenceNumbers> max_sequence_numbers_;
  std::map<std::pair<std::string, int32_t>, std::unique_ptr<BucketWriter>> writers_;
};

}  // namespace freshet::write
