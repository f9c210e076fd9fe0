// FormatReader: reads one Paimon data file (Parquet, ORC or Avro) as Arrow record batches in a
// requested read schema.
//
// Columns are matched by Paimon field id (Parquet field_id, ORC `paimon.id`), or by name for files
// that carry no ids (old Java files, Avro). That resolves schema evolution the way Java does: a
// renamed column keeps its id, an added column is missing from old files and reads as null, a
// dropped column is simply not requested, and a widened type (INT -> BIGINT, FLOAT -> DOUBLE,
// DECIMAL precision up, ...) is cast. Output batches have exactly ToArrowSchema(read_schema).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/types/data_type.h"

namespace freshet::io {
class FileIO;
class RandomAccessFile;
}  // namespace freshet::io

namespace freshet::format {

namespace internal {
class PhysicalReader;
}  // namespace internal

struct FormatReaderOptions {
  int64_t batch_size = 1024;  // rows per batch (the last one may be shorter)
  // A large Parquet file's columns are decoded on freshet's column threads, this thread waiting
  // for each batch (faster reads for some more CPU). False keeps the decoding on the reading
  // thread: background work such as compaction, which should not take more cores.
  bool parallel_decode = true;
  // The file claims the very schema the read fields come from (its manifest entry's schema id is
  // the read schema's): every read field must then be in the file, under its field id, in a
  // column of the same type family. A missing field or another type is Corruption, where a file
  // of an older schema would evolve (NULLs for added fields, casts for changed types).
  bool exact_schema = false;
  // The fields of the schema the file was written with (its manifest entry's schema id), when
  // that is not the read schema. A file without field ids (Java Paimon 0.9 Parquet) has its
  // columns matched by name to these, and through their ids to the read fields, as Java does; so
  // a renamed or dropped-and-re-added column is read as the column it was. Empty: by name.
  std::vector<meta::DataField> file_schema;
};

class FormatReader {
 public:
  // Opens `file` (of `file_size` bytes, e.g. from the manifest). The format is taken from the
  // file's extension, as Java does. Only the columns the read schema needs are decoded.
  static Result<std::unique_ptr<FormatReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                    int64_t file_size,
                                                    std::vector<meta::DataField> read_schema,
                                                    FormatReaderOptions options = {});
  // Convenience: opens `path` through `file_io`.
  static Result<std::unique_ptr<FormatReader>> Open(io::FileIO& file_io, const std::string& path,
                                                    int64_t file_size,
                                                    std::vector<meta::DataField> read_schema,
                                                    FormatReaderOptions options = {});
  ~FormatReader();

  // The file's own columns (Arrow types as the format library decodes them, field ids in the
  // metadata when present).
  const std::shared_ptr<arrow::Schema>& file_schema() const;
  // ToArrowSchema(read_schema): the schema of every returned batch.
  const std::shared_ptr<arrow::Schema>& output_schema() const { return output_schema_; }
  int64_t num_rows() const;

  // The next batch, or null at the end of the file. Errors name the file.
  Result<std::shared_ptr<arrow::RecordBatch>> Next();

 private:
  FormatReader() = default;
  Status Plan();
  Result<std::shared_ptr<arrow::RecordBatch>> Conform(const arrow::RecordBatch& batch) const;

  std::string path_;
  std::unique_ptr<internal::PhysicalReader> physical_;
  std::vector<meta::DataField> read_schema_;
  std::shared_ptr<arrow::Schema> output_schema_;
  // Per read field: the name of the file column it reads from, or "" when it is missing.
  std::vector<std::string> sources_;
  FormatReaderOptions options_;
};

// Reads a whole data file into one batch per file batch (tests and small files).
Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> ReadAllBatches(FormatReader* reader);

}  // namespace freshet::format
