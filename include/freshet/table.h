// freshet's public table API: create or open an Apache Paimon table, write Arrow record batches,
// commit them as snapshots, and read any snapshot back as Arrow record batches.
//
//   auto table = freshet::Table::Create("/data/wh/db.db/events", R"({"fields": [
//       {"name": "id", "type": "BIGINT"}, {"name": "msg", "type": "STRING"}]})");
//   auto writer = (*table)->NewWriter();
//   (*writer)->Write(&array, &schema);     // Arrow C Data Interface, ownership moves in
//   auto snapshot = (*writer)->Commit();   // one Paimon snapshot, readable by Java Paimon
//   auto reader = (*table)->NewReader();
//   while (*(*reader)->Next(&out)) { ... } // struct arrays, one per batch
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "freshet/arrow_c.h"
#include "freshet/options.h"
#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet {

class TableWriter;
class TableReader;
namespace realtime {
class RealtimeContext;
}

// Where rows go: their partition (column, value pairs, as in CommittedProgress) and bucket.
struct PartitionBucketId {
  std::vector<std::pair<std::string, std::string>> partition;
  int32_t bucket = 0;
};
struct RowRouting {
  std::vector<PartitionBucketId> partition_buckets;  // distinct, in order of first row
  std::vector<int32_t> of_row;                       // per row: index into partition_buckets
};

struct SnapshotInfo {
  int64_t id = 0;
  std::string commit_kind;  // APPEND, COMPACT, OVERWRITE, ANALYZE
  int64_t time_millis = 0;
  int64_t total_record_count = 0;
};

class Table {
 public:
  // Creates a table at `path` from a schema spec (JSON; see docs/schema-spec.md):
  // {"fields": [{"name", "type"}...], "partitionKeys": [...], "primaryKeys": [...],
  //  "options": {"bucket": "4", ...}}. AlreadyExists unless `ignore_if_exists`. Invalid, before
  // any directory is made, for an empty path or one with a ".." component.
  static Result<std::shared_ptr<Table>> Create(const std::string& path,
                                               const std::string& schema_spec_json,
                                               bool ignore_if_exists = false);
  // Opens an existing table (written by freshet, Java Paimon, Flink, Spark, pypaimon...).
  // Invalid for an empty path.
  static Result<std::shared_ptr<Table>> Open(const std::string& path);
  ~Table();

  const std::string& path() const;
  // The table's current schema file (`schema/schema-N`) as JSON.
  std::string SchemaJson() const;
  // The Arrow schema of the table's rows; the caller owns (and releases) `out`.
  Status ExportArrowSchema(ArrowSchema* out) const;
  Result<std::vector<SnapshotInfo>> Snapshots() const;

  // With realtime.enabled = true, every writer and reader of this table in the process shares
  // one real-time context (include/freshet/realtime/realtime_context.h): written rows are
  // readable before they are committed. Invalid when the option is off.
  Result<std::shared_ptr<realtime::RealtimeContext>> Realtime() const;

  Result<std::unique_ptr<TableWriter>> NewWriter() const;
  Result<std::unique_ptr<TableReader>> NewReader(const ReadOptions& options = {}) const;

  // The partition and bucket each row of a struct array of the table's columns is written to
  // (Java Paimon's bucket function). Borrows `array` and `schema`: the caller still owns them,
  // and can write the same batch afterwards.
  Result<RowRouting> RouteRows(const ArrowArray* array, const ArrowSchema* schema) const;

  class Impl;

 private:
  explicit Table(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class TableWriter {
 public:
  ~TableWriter();
  // Writes the rows of a struct array whose fields are the table's columns. Takes ownership of
  // `array` (and releases `schema` after reading it), even on error. With realtime.enabled the
  // rows are readable when Write returns, and Write may be called from many threads at once
  // (one thread calls Commit); ResourceExhausted past realtime.memory.hard-limit. One Write is
  // one unit: all its rows are stored or none; a query (or snapshot) holds all of them or none,
  // and sees them only with every Write that returned before this one began.
  Status Write(ArrowArray* array, ArrowSchema* schema);
  // realtime.enabled only: like Write, with the application's _OFFSET of every row (`offsets`
  // has one per row), strictly increasing per partition-bucket, gaps allowed; e.g. a source
  // log position, so that after a crash the application replays from the committed progress.
  Status WriteWithOffsets(ArrowArray* array, ArrowSchema* schema, const int64_t* offsets);
  // The same, in `mode`; OffsetMode::kReplay skips the rows whose offsets are taken.
  Result<WriteStats> WriteWithOffsets(ArrowArray* array, ArrowSchema* schema,
                                      const int64_t* offsets, OffsetMode mode);
  // Flushes every file written so far and commits them as one snapshot. Returns its id, or
  // nullopt when nothing was written. On error nothing is committed and the files stay until
  // Abort() or a retried Commit(). With realtime.enabled, rows written meanwhile by other
  // threads keep flowing into memory and land in the next commit; the snapshot records the
  // committed _OFFSET progress of every partition-bucket.
  Result<std::optional<int64_t>> Commit(const CommitOptions& options = {});
  // Deletes the files written since the last successful Commit().
  Status Abort();

  class Impl;

 private:
  friend class Table;
  explicit TableWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class TableReader {
 public:
  ~TableReader();
  // The Arrow schema of the batches (projected columns).
  Status ExportArrowSchema(ArrowSchema* out) const;
  // Fills `out` with the next batch as a struct array; returns false (leaving `out` untouched)
  // at the end.
  Result<bool> Next(ArrowArray* out);
  // The snapshot being read, if the table has one.
  std::optional<int64_t> snapshot_id() const;

  // Moves `reader` into an Arrow C stream, for callers that consume streams (pyarrow's
  // RecordBatchReader._import_from_c, DuckDB, nanoarrow, ...): get_schema as ExportArrowSchema,
  // get_next gives each batch and then a released array at the end, and an error is an errno
  // value with get_last_error() naming it ("Corruption: data file ... holds 240 rows ...").
  static Status ExportArrowStream(std::unique_ptr<TableReader> reader, ArrowArrayStream* out);

  class Impl;

 private:
  friend class Table;
  explicit TableReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace freshet
