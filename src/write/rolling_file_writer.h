// RollingFileWriter: the data files of one partition-bucket, named and rolled as Java names and
// rolls them. Append and primary-key writes share it; each builds its own DataFileMeta from the
// closed files.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/file_index_writer.h"
#include "format/format_writer.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"
#include "meta/schema/table_schema.h"

namespace freshet::write {

// `_CREATION_TIME` of a new file: Java stores the local wall-clock time as if it were UTC.
int64_t FileCreationTimeMillis();

// What every data file of one table write shares.
struct DataFileSettings {
  std::shared_ptr<io::FileIO> file_io;
  format::FileFormat format = format::FileFormat::kParquet;
  format::FormatWriterOptions writer_options;  // stats modes per written field
  int64_t target_file_size = 0;
  std::string file_prefix;  // `data-file.prefix`
  // `file-index.*`: the index each file gets (none when it asks for no column).
  std::shared_ptr<const meta::FileIndexSpec> file_index;
};

// The settings every data file writer reads from the table's options.
Status SetFileIndexSettings(const meta::TableSchema& schema, DataFileSettings* settings);

// A finished data file.
struct ClosedFile {
  std::string name;
  format::FormatWriteResult result;
  // Its file index: inlined (small) or the name of the `<name>.index` file beside it.
  std::optional<std::string> embedded_index;
  std::optional<std::string> index_file;
};

// Records a closed file's index in its manifest metadata.
void AttachFileIndex(ClosedFile* closed, meta::DataFileMeta* file);

class RollingFileWriter {
 public:
  // Files go to `directory` with the columns `fields`; `settings` must outlive the writer.
  RollingFileWriter(const DataFileSettings* settings, std::string directory,
                    std::vector<meta::DataField> fields);
  ~RollingFileWriter();

  // Appends `batch` to the open file, opening one first. Returns the file when this batch made
  // it reach `target-file-size` and it was closed.
  Result<std::optional<ClosedFile>> Write(const arrow::RecordBatch& batch);
  // Closes the open file, if any. On failure the file stays open, so that Abort() deletes it.
  Result<std::optional<ClosedFile>> Close();

  // Path of the file being written, if any (for Abort()); its index is written only when it
  // closes.
  std::optional<std::string> open_path() const;
  // Forgets the open file without finishing it (the caller deletes it).
  void DropOpenFile();
  std::string PathOf(const std::string& file_name) const;
  // The paths of a file this writer wrote: the data file and its extra files.
  std::vector<std::string> PathsOf(const meta::DataFileMeta& file) const;

 private:
  Status OpenFile();
  // Writes the open file's index (before the file is finished, so that a failure leaves the
  // file open for Abort()) into `closed`.
  Status WriteIndex(ClosedFile* closed);

  const DataFileSettings* settings_;
  std::string directory_;
  std::vector<meta::DataField> fields_;
  std::string uuid_;  // Java: one UUID per writer, a counter per file
  int64_t next_file_number_ = 0;
  std::unique_ptr<format::FormatWriter> current_;
  std::unique_ptr<format::FileIndexWriter> index_;  // of the open file, when the table has one
  std::string current_name_;
};

}  // namespace freshet::write
