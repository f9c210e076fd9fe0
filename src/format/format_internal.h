// Internal seams between FormatWriter/FormatReader and the per-format implementations.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "format/format_writer.h"
#include "freshet/result.h"

namespace freshet::io {
class RandomAccessFile;
}  // namespace freshet::io

namespace freshet::format::internal {

struct WriterParts {
  std::unique_ptr<io::OutputStream> out;
  std::vector<meta::DataField> schema;
  std::shared_ptr<arrow::Schema> arrow_schema;  // bridge::ToArrowSchema(schema), with field ids
  StatsCollector stats;
};

Result<std::unique_ptr<FormatWriter>> MakeParquetWriter(WriterParts parts,
                                                        const FormatWriterOptions& options);
Result<std::unique_ptr<FormatWriter>> MakeOrcWriter(WriterParts parts,
                                                    const FormatWriterOptions& options);
Result<std::unique_ptr<FormatWriter>> MakeAvroWriter(WriterParts parts,
                                                     const FormatWriterOptions& options);

// Reads a file's own columns. Batches have the file's Arrow schema restricted to the selected
// top-level fields (in file order); FormatReader maps them onto the read schema.
class PhysicalReader {
 public:
  virtual ~PhysicalReader() = default;
  // The file's columns as Arrow fields, with field ids in metadata when the file has them.
  virtual const std::shared_ptr<arrow::Schema>& schema() const = 0;
  virtual int64_t num_rows() const = 0;
  // Starts reading the given top-level fields (indices into schema()); `parallel_decode` as in
  // FormatReaderOptions.
  virtual Status Select(const std::vector<int>& fields, int64_t batch_size,
                        bool parallel_decode) = 0;
  // The next batch of the selected fields, or null at the end.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
};

Result<std::unique_ptr<PhysicalReader>> OpenParquetReader(
    std::shared_ptr<io::RandomAccessFile> file, int64_t size);
Result<std::unique_ptr<PhysicalReader>> OpenOrcReader(std::shared_ptr<io::RandomAccessFile> file,
                                                      int64_t size);
Result<std::unique_ptr<PhysicalReader>> OpenAvroReader(std::shared_ptr<io::RandomAccessFile> file,
                                                       int64_t size);

// "zstd" -> arrow::Compression::ZSTD etc.; Invalid names the option value.
Result<int> ArrowCompressionOf(const std::string& compression);

}  // namespace freshet::format::internal
