// DataFileOpener: opens the data files of splits as batch streams in some read fields, the one
// place where a file's schema, its manifest row count and its deletion vector are honoured.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "format/batch_reader.h"
#include "io/file_io.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "read/key_selection.h"
#include "scan/table_scan.h"

namespace freshet::read {

class DataFileOpener {
 public:
  // `read_schema_id`: files that claim it are read in exact mode (no evolution).
  DataFileOpener(std::shared_ptr<io::FileIO> file_io, const meta::DataFilePaths* paths,
                 int64_t read_schema_id, int64_t batch_size);

  // The schema files of `schema_id` were written with (read once; schema files are immutable).
  Result<const meta::TableSchema*> SchemaOf(int64_t schema_id);

  // files[index] of `split`, read as `fields`. `system_fields` are columns every file holds
  // beyond its schema's (the key-value fields of primary-key tables), so that files without
  // field ids find them by name. Batches leave out the rows the file's deletion vector deletes;
  // the file must deliver exactly its manifest row count (Corruption otherwise).
  Result<std::unique_ptr<format::BatchReader>> Open(
      const scan::DataSplit& split, size_t index, const std::vector<meta::DataField>& fields,
      const std::vector<meta::DataField>& system_fields = {});

  // Files of primary-key tables opened from now on yield only the rows of these keys, found in
  // whole decoded files of the process-wide cache (read/key_selection.h). Null: every row.
  void SelectKeys(std::shared_ptr<const KeySelection> keys) { keys_ = std::move(keys); }
  // Files opened from now on decode on the reading thread alone (format::FormatReaderOptions).
  void DecodeOnReadingThread() { parallel_decode_ = false; }

 private:
  // The file's rows as the format library decodes them, checked against the manifest's count;
  // its deletion vector not applied.
  Result<std::unique_ptr<format::BatchReader>> OpenWhole(
      const scan::DataSplit& split, size_t index, const std::string& path,
      const std::vector<meta::DataField>& fields,
      const std::vector<meta::DataField>& system_fields);
  // The selected keys' rows of the file, from the decoded file cache.
  Result<std::unique_ptr<format::BatchReader>> OpenSelected(
      const scan::DataSplit& split, size_t index, const std::string& path,
      const std::vector<meta::DataField>& fields,
      const std::vector<meta::DataField>& system_fields);

  std::shared_ptr<io::FileIO> file_io_;
  const meta::DataFilePaths* paths_;
  int64_t read_schema_id_;
  int64_t batch_size_;
  std::map<int64_t, meta::TableSchema> file_schemas_;
  std::shared_ptr<const KeySelection> keys_;
  bool parallel_decode_ = true;
};

}  // namespace freshet::read
