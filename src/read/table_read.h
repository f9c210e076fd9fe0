// TableRead: turns data splits into Arrow record batches in a (projected) read schema.
//
// Append tables concatenate the files of a split in sequence order; primary-key tables merge them
// by key through the table's merge engine (read/primary_key_read.h). A large read of several
// splits reads them on worker threads ahead of its caller, returning the same batches in the same
// order (read/split_prefetch.h). Every file is read through
// the data-file format layer, which maps its columns to the read schema by field id, so files
// written under older schemas evolve on read. Every file must deliver exactly its manifest
// entry's row count, and a file that claims the read schema must match it (Corruption if not).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "format/batch_reader.h"
#include "io/file_io.h"
#include "mergetree/sort_merge_reader.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "read/key_selection.h"
#include "scan/predicate.h"
#include "scan/table_scan.h"

namespace freshet::read {

struct PrimaryKeyReadPlan;

using format::BatchReader;

struct ReadOptions {
  // Columns to return, by name, in this order; empty = every column of the schema.
  std::vector<std::string> projection;
  int64_t batch_size = 4096;
  // Only rows for which this is TRUE are returned (bound to the schema read with). Its columns
  // are read even when not projected, and dropped before batches are returned.
  std::shared_ptr<const scan::Predicate> predicate;
  // Primary-key tables: only these keys' rows are read from files (read/key_selection.h); the
  // merge of the selected keys is unchanged. Null: every row.
  std::shared_ptr<const KeySelection> key_selection;
  // As format::FormatReaderOptions::parallel_decode: false for background work (compaction).
  bool parallel_decode = true;
};

class TableRead {
 public:
  // `schema` is the schema to read with: the table's latest, or the one of a time-travel snapshot.
  static Result<TableRead> Make(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                const meta::TableSchema& schema, ReadOptions options = {});
  // A read with other `options` that ask for the same columns (the same LayoutKey): everything
  // derived from the schema and the columns is shared, not built again.
  TableRead WithOptions(ReadOptions options) const;
  // Equal for reads of one schema whose options ask for the same columns (projection and the
  // predicate's columns), whatever the predicate's literals.
  static std::string LayoutKey(const meta::TableSchema& schema, const ReadOptions& options);

  // The fields read from files: the projection, then any further columns the predicate needs.
  const std::vector<meta::DataField>& read_fields() const { return layout_->read_fields; }
  // The same, shared with the read's layout (for objects a query keeps, without a copy).
  std::shared_ptr<const std::vector<meta::DataField>> shared_read_fields() const {
    return {layout_, &layout_->read_fields};
  }
  // The Arrow schema of read_fields(): the schema of tail readers' batches.
  const std::shared_ptr<arrow::Schema>& read_schema() const { return layout_->read_schema; }
  const std::shared_ptr<arrow::Schema>& output_schema() const { return layout_->output_schema; }
  const ReadOptions& options() const { return options_; }
  // The id of the schema read with; files that claim it are read in exact mode (no evolution).
  int64_t schema_id() const { return layout_->schema_id; }
  // How a primary-key table merges; null for append tables.
  const PrimaryKeyReadPlan* primary_key_plan() const { return layout_->primary_key_plan.get(); }
  // `read.prefetch.max-memory`: bytes of batches a read of several splits may decode ahead of its
  // caller on other threads (read/split_prefetch.h); 0 reads them on the caller's thread alone.
  int64_t prefetch_memory() const { return layout_->prefetch_memory; }

  Result<std::unique_ptr<BatchReader>> CreateReader(const scan::DataSplit& split) const;
  // All splits, one after another, then the `tail` readers: the seam through which the
  // real-time layer appends uncommitted rows. Tail readers yield batches of read_fields() (in
  // read_schema()); they are filtered and projected like file batches.
  Result<std::unique_ptr<BatchReader>> CreateReader(
      std::vector<scan::DataSplit> splits,
      std::vector<std::unique_ptr<BatchReader>> tail = {}) const;
  // Primary-key tables: the splits, each merged with its newer sorted runs (`newer_runs[i]` for
  // `splits[i]`, records in primary_key_plan()->layout; read/primary_key_read.h): the seam
  // through which the real-time layer merges uncommitted rows. A split may have no files.
  Result<std::unique_ptr<BatchReader>> CreateMergingReader(
      std::vector<scan::DataSplit> splits,
      std::vector<std::vector<std::unique_ptr<mergetree::MergeBatchReader>>> newer_runs) const;

 private:
  // What a read derives from its schema and columns (immutable, shared by WithOptions copies).
  struct Layout {
    int64_t schema_id = 0;
    meta::DataFilePaths paths;
    std::vector<meta::DataField> read_fields;
    std::shared_ptr<arrow::Schema> read_schema;  // of read_fields
    std::shared_ptr<arrow::Schema> output_schema;
    std::shared_ptr<const PrimaryKeyReadPlan> primary_key_plan;
    int64_t prefetch_memory = 0;
  };
  TableRead(std::shared_ptr<io::FileIO> file_io, std::shared_ptr<const Layout> layout,
            ReadOptions options);

  std::shared_ptr<io::FileIO> file_io_;
  std::shared_ptr<const Layout> layout_;
  ReadOptions options_;
};

}  // namespace freshet::read
