// KeyValueFileWriter: level-0 data files of one partition-bucket of a primary-key table, in the
// key-value layout (mergetree::KeyValueFileFields), with the DataFileMeta Java's
// KeyValueDataFileWriter produces:
//  * `_MIN_KEY` / `_MAX_KEY`: the trimmed primary key of the file's first / last record;
//  * `_KEY_STATS`: stats of the `_KEY_` columns, every column listed (all mode);
//  * `_VALUE_STATS` / `_VALUE_STATS_COLS`: stats of the table columns, dense (columns in stats
//    mode `none` left out and named in `_VALUE_STATS_COLS`, which is null when none is);
//  * stats modes as Java's StatsCollectorFactories picks them: `fields.<name>.stats-mode` when
//    set, else truncate(128) for the `_KEY_` columns, _SEQUENCE_NUMBER, _VALUE_KIND and the
//    primary-key value columns, else `metadata.stats-mode`;
//  * min/max sequence number over the records, `_DELETE_ROW_COUNT` = records of kind -U/-D,
//    the writer's level and file source (0 and APPEND for a flush).
#pragma once

#include <arrow/type_fwd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "mergetree/key_value.h"
#include "meta/manifest/manifest.h"
#include "meta/options/core_options.h"
#include "meta/schema/table_schema.h"
#include "write/rolling_file_writer.h"

namespace freshet::write {

// What every key-value file of one table write shares.
class KeyValueFileFormat {
 public:
  // `layout` holds every field of `schema` in table order (MakeMergeLayout(schema,
  // schema.fields())) and must outlive the format.
  static Result<KeyValueFileFormat> Make(std::shared_ptr<io::FileIO> file_io,
                                         const meta::TableSchema& schema,
                                         const meta::CoreOptions& options,
                                         const mergetree::MergeLayout* layout);

  const DataFileSettings& settings() const { return settings_; }
  const std::vector<meta::DataField>& file_fields() const { return file_fields_; }
  // The types of the trimmed primary key (what `minKey`/`maxKey` rows hold).
  const std::vector<meta::DataTypePtr>& key_types() const { return key_types_; }

  // The records of `batch` (in the layout) as a file batch: the key columns are the primary-key
  // value columns again (no copy).
  std::shared_ptr<arrow::RecordBatch> ToFileBatch(const mergetree::MergeBatch& batch) const;
  // The serialized BinaryRow of the trimmed primary key of record `row`.
  Result<std::string> KeyOf(const mergetree::MergeBatch& batch, int64_t row) const;

  // What a file's records contributed besides what the format writer returns.
  struct Records {
    std::string min_key;
    std::string max_key;
    int64_t min_sequence = std::numeric_limits<int64_t>::max();
    int64_t max_sequence = std::numeric_limits<int64_t>::min();
    int64_t retracts = 0;
  };
  Result<meta::DataFileMeta> ToFileMeta(ClosedFile closed, const Records& records, int32_t level,
                                        meta::FileSource source) const;

 private:
  KeyValueFileFormat() = default;

  DataFileSettings settings_;
  std::vector<meta::DataField> file_fields_;
  std::shared_ptr<arrow::Schema> file_schema_;
  const mergetree::MergeLayout* layout_ = nullptr;
  std::vector<meta::DataTypePtr> key_types_;
  int64_t schema_id_ = 0;
};

class KeyValueFileWriter {
 public:
  // `format` must outlive the writer. Files are of `level`, from `source` (a flush writes level
  // 0 as APPEND, a compaction its output level as COMPACT).
  KeyValueFileWriter(const KeyValueFileFormat* format, std::string directory, int32_t level = 0,
                     meta::FileSource source = meta::FileSource::kAppend);

  // Appends merged records (sorted by key, at most one per key, after any written before since
  // the last Close()).
  Status Write(const mergetree::MergeBatch& batch);
  // Closes the open file; a flush ends with it.
  Status Close();

  // The finished files since the last call.
  std::vector<meta::DataFileMeta> TakeFiles();
  // Finished files not handed out yet.
  size_t num_files() const { return done_.size(); }
  // Those finished after the first `mark` ones.
  std::vector<meta::DataFileMeta> FilesSince(size_t mark) const {
    return {done_.begin() + static_cast<std::ptrdiff_t>(std::min(mark, done_.size())), done_.end()};
  }
  // Forgets the files finished after the first `mark` ones and the open one; returns their
  // paths for the caller to delete (mark 0: everything not handed out, for Abort()).
  std::vector<std::string> DropFilesSince(size_t mark);

 private:
  Status AddFile(ClosedFile closed);

  const KeyValueFileFormat* format_;
  int32_t level_;
  meta::FileSource source_;
  RollingFileWriter files_;
  KeyValueFileFormat::Records records_;
  std::vector<meta::DataFileMeta> done_;
};

}  // namespace freshet::write
