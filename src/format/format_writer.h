// FormatWriter: writes one Paimon data file (Parquet, ORC or Avro) from Arrow record batches, with
// the physical layout Java Paimon writes and reads (field ids, required/optional, physical types;
// see docs/data-files.md) and the per-column statistics that go into the file's DataFileMeta.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/data_file_stats.h"
#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/schema/table_schema.h"
#include "meta/types/data_type.h"

namespace freshet::io {
class OutputStream;
}  // namespace freshet::io

namespace freshet::format {

enum class FileFormat : uint8_t { kParquet, kOrc, kAvro };

// "parquet", "orc", "avro" (case-insensitive, as `file.format`).
Result<FileFormat> ParseFileFormat(std::string_view name);
// The format of a data file from its extension, as Java picks it (".parquet", ".orc", ".avro").
Result<FileFormat> FileFormatFromPath(std::string_view path);
// "parquet", "orc", "avro": the option value and the file extension.
const char* FileFormatName(FileFormat format);

struct FormatWriterOptions {
  // `file.compression`: zstd, snappy, gzip/deflate, lz4 (Parquet/ORC) or none/uncompressed.
  std::string compression = "zstd";
  int32_t zstd_level = 1;  // `file.compression.zstd-level`
  // One per written field; empty = the default mode (truncate(16)) for every field.
  std::vector<StatsMode> stats_modes;
  // `parquet.page.write-checksum.enabled` (parquet-mr's key, which Java Paimon passes through):
  // a CRC per Parquet page, verified on read.
  bool parquet_page_checksums = true;
  // `parquet.block.size`: Arrow bytes of a Parquet row group; `orc.stripe.size`: bytes of an ORC
  // stripe. The writer holds one of them in memory.
  int64_t parquet_row_group_bytes = 128LL << 20;
  int64_t orc_stripe_bytes = 64LL << 20;
  // Top-level columns a Parquet writer encodes without a dictionary: columns known to hold
  // distinct values, where a dictionary never pays and its hash table would cost memory and time.
  std::vector<std::string> parquet_plain_columns;
  // `parquet.write.parallel-columns`: the columns of a Parquet row group are encoded and
  // compressed in parallel on a pool of freshet's own (one thread per core). The bytes are the
  // same either way; only the encoding's wall time changes. Primary-key writers and the real-time
  // flush turn it off unless the table sets it (their memory bound, the Writes' latency).
  bool parquet_parallel_columns = true;

  // From table options: file.compression, file.compression.zstd-level, metadata.stats-mode,
  // fields.<name>.stats-mode, parquet.page.write-checksum.enabled, parquet.block.size,
  // parquet.write.parallel-columns and orc.stripe.size.
  static Result<FormatWriterOptions> FromTableOptions(const std::vector<meta::DataField>& fields,
                                                      const meta::Options& options);
};

struct FormatWriteResult {
  int64_t file_size = 0;
  int64_t row_count = 0;
  meta::SimpleStats stats;
  // Names of the columns `stats` covers when not all of them (`_VALUE_STATS_COLS`).
  std::optional<std::vector<std::string>> stats_columns;
};

class FormatWriter {
 public:
  // Opens a writer of `format` into `out`, which it owns and closes in Finish(). `schema` is the
  // file's Paimon schema (with field ids); written batches have the layout of
  // ToArrowSchema(schema).
  static Result<std::unique_ptr<FormatWriter>> Open(FileFormat format,
                                                    std::unique_ptr<io::OutputStream> out,
                                                    std::vector<meta::DataField> schema,
                                                    FormatWriterOptions options = {});
  virtual ~FormatWriter();
  FormatWriter(const FormatWriter&) = delete;
  FormatWriter& operator=(const FormatWriter&) = delete;

  // Appends the rows of `batch`. Invalid when its column types differ from the schema's, or a NOT
  // NULL column holds nulls.
  Status Write(const arrow::RecordBatch& batch);
  // The size the file would have if finished now (bytes written plus an estimate of buffered
  // data), for rolling files at `target-file-size`.
  int64_t EstimatedFileSize() const;
  int64_t row_count() const { return row_count_; }
  const std::string& path() const;

  // Writes the footer, closes the stream and returns what DataFileMeta needs. The writer cannot
  // be used afterwards.
  Result<FormatWriteResult> Finish();

 protected:
  FormatWriter(std::unique_ptr<io::OutputStream> out, std::vector<meta::DataField> schema,
               std::shared_ptr<arrow::Schema> arrow_schema, StatsCollector stats);

  virtual Status WriteBatch(const arrow::RecordBatch& batch) = 0;
  virtual int64_t BufferedBytes() const = 0;
  // Writes everything still buffered and the footer (the stream stays open).
  virtual Status CloseFormat() = 0;

  io::OutputStream* out() const { return out_.get(); }
  const std::vector<meta::DataField>& schema() const { return schema_; }
  const std::shared_ptr<arrow::Schema>& arrow_schema() const { return arrow_schema_; }

 private:
  Status Validate(const arrow::RecordBatch& batch) const;

  std::unique_ptr<io::OutputStream> out_;
  std::vector<meta::DataField> schema_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  StatsCollector stats_;
  int64_t row_count_ = 0;
  bool finished_ = false;
};

}  // namespace freshet::format
