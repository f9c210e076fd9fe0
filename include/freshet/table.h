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
//
// Everything here is exported from libfreshet.so (FRESHET_EXPORT); see docs/architecture.md,
// "Public boundary".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "freshet/arrow_c.h"
#include "freshet/export.h"
#include "freshet/options.h"
#include "freshet/result.h"
#include "freshet/status.h"
#include "freshet/stream.h"

namespace freshet {

class TableWriter;
class TableReader;
namespace realtime {
class RealtimeContext;
}

// The structs of this header are plain values (no locking inside): share them as any value,
// read from any number of threads, written by one.

// Where rows go: their partition (column, value pairs, as in CommittedProgress) and bucket.
struct PartitionBucketId {
  std::vector<std::pair<std::string, std::string>> partition;
  int32_t bucket = 0;
};
struct RowRouting {
  std::vector<PartitionBucketId> partition_buckets;  // distinct, in order of first row
  std::vector<int32_t> of_row;                       // per row: index into partition_buckets
};

// A snapshot, as its file `snapshot/snapshot-<id>` describes it (without its files).
struct SnapshotInfo {
  int64_t id = 0;
  std::string commit_kind;  // APPEND, COMPACT, OVERWRITE, ANALYZE
  int64_t time_millis = 0;
  int64_t total_record_count = 0;  // rows in the snapshot's live files (0 when not recorded)
  int64_t delta_record_count = 0;  // rows the commit added minus rows it deleted (0 when absent)
  int64_t schema_id = 0;           // the schema the snapshot was written with
  std::string commit_user;
  int64_t commit_identifier = 0;
  std::map<std::string, std::string> properties;  // e.g. freshet.realtime.progress
};

// A tag: a name for one snapshot (`tag/tag-<name>`), which stays readable after the snapshot
// expires (Java Paimon's tags; docs/tags.md).
struct TagInfo {
  std::string name;
  SnapshotInfo snapshot;
  // Set when the tag was created with a retention time, as Java's Jackson writes them: the local
  // creation time as [year, month, day, hour, minute, second, nanos], the retention in seconds.
  std::optional<std::string> create_time;
  std::optional<std::string> time_retained;
};

// One column of a table's schema.
struct FieldInfo {
  int32_t id = 0;  // the Paimon field id (data files name columns by it)
  std::string name;
  std::string type;  // Paimon's SQL text, e.g. "BIGINT NOT NULL", "DECIMAL(10, 2)", "ARRAY<INT>"
  std::optional<std::string> description;
};

// A table's schema, as its schema file `schema/schema-<id>` holds it.
struct SchemaInfo {
  int64_t id = 0;
  std::vector<FieldInfo> fields;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  // The options set on the table, in the file's order (Table::Options() adds the defaults).
  std::vector<std::pair<std::string, std::string>> options;
  std::optional<std::string> comment;
};

// One live data file of a snapshot, from the manifests alone (the file is not opened).
struct DataFileInfo {
  // The partition's (column, value) pairs, as in PartitionBucketId, and its directory as Java
  // names it ("dt=2024-01-01/hr=10", values escaped); both empty for an unpartitioned table.
  std::vector<std::pair<std::string, std::string>> partition;
  std::string partition_path;
  int32_t bucket = 0;
  // The file lies at <table>/<partition_path>/bucket-<bucket>/<file_name> (no partition_path
  // component when it is empty), unless external_path names it.
  std::string file_name;
  std::optional<std::string> external_path;
  int32_t level = 0;  // LSM level (0 for append tables)
  int64_t row_count = 0;
  int64_t file_size = 0;  // bytes
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  // Primary-key tables: the file's first and last key, as (column, value) pairs of the primary
  // key minus the partition keys, values as text (as partition values are); empty otherwise.
  std::vector<std::pair<std::string, std::string>> min_key;
  std::vector<std::pair<std::string, std::string>> max_key;
  int64_t schema_id = 0;                        // the schema the file was written with
  std::optional<int64_t> creation_time_millis;  // the writer's local wall clock, as if UTC
  std::optional<int64_t> delete_row_count;
  // Value statistics: the columns they cover (empty: every column of schema `schema_id`, in
  // order) and each one's null count (nullopt: unknown; empty: no statistics).
  std::vector<std::string> stats_columns;
  std::vector<std::optional<int64_t>> null_counts;
};

// Thread-safe: a Table is immutable once opened (its schema is the one loaded by Open); any number
// of threads may call its methods at once and use the writers and readers it makes independently.
class FRESHET_EXPORT Table {
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
  // The table's current schema (the latest when the table was opened).
  SchemaInfo Schema() const;
  // The same schema file (`schema/schema-N`) as JSON, exactly as Java Paimon writes it.
  std::string SchemaJson() const;
  // Schema file `schema/schema-<schema_id>` as JSON: the columns of a snapshot written before a
  // schema change (SnapshotInfo::schema_id), which a read of that snapshot returns.
  Result<std::string> SchemaJson(int64_t schema_id) const;
  // Every option with its effective value, as `freshet inspect` prints them: the options set on
  // the table and the defaults freshet applies (as Java Paimon does) to those not set. Invalid
  // for an option value that freshet cannot use, naming the option.
  Result<std::vector<std::pair<std::string, std::string>>> Options() const;
  // The Arrow schema of the table's rows; the caller owns (and releases) `out`.
  Status ExportArrowSchema(ArrowSchema* out) const;

  // Every snapshot, oldest first (reads every snapshot file).
  Result<std::vector<SnapshotInfo>> Snapshots() const;
  // The ids of the snapshots, ascending (lists the snapshot directory, reads no snapshot).
  Result<std::vector<int64_t>> SnapshotIds() const;
  // One snapshot; NotFound when it does not exist.
  Result<SnapshotInfo> Snapshot(int64_t id) const;
  // The live data files of a snapshot (its manifests merged: files added and not deleted
  // since), in manifest order. Corruption when they do not hold the snapshot's total row count.
  Result<std::vector<DataFileInfo>> DataFiles(int64_t snapshot_id) const;

  // Tags (docs/tags.md). CreateTag names `snapshot_id` (default: the latest snapshot; a snapshot
  // that expired but is tagged counts) with `name`; `time_retained` ("1 d", "12 h", as
  // `tag.default-time-retained`, which applies when it is empty) is recorded as Java records it.
  // AlreadyExists for an existing name, NotFound without such a snapshot, Invalid for a blank
  // name or one that is not a plain file name.
  Status CreateTag(const std::string& name, std::optional<int64_t> snapshot_id = std::nullopt,
                   const std::string& time_retained = "") const;
  // Removes a tag (NotFound when there is none). The files only its expired snapshot held become
  // unreferenced: RemoveOrphanFiles removes them.
  Status DeleteTag(const std::string& name) const;
  // Every tag, by snapshot id, then name.
  Result<std::vector<TagInfo>> Tags() const;

  // With realtime.enabled = true, every writer and reader of this table in the process shares
  // one real-time context (include/freshet/realtime/realtime_context.h): written rows are
  // readable before they are committed. Invalid when the option is off.
  Result<std::shared_ptr<realtime::RealtimeContext>> Realtime() const;

  Result<std::unique_ptr<TableWriter>> NewWriter() const;
  Result<std::unique_ptr<TableReader>> NewReader(const ReadOptions& options = {}) const;
  // Point lookup in a primary-key table: the live row of each key of `keys` (a struct array whose
  // fields are the primary-key columns, by name, in any order, of the table's types; borrowed:
  // the caller still owns it), merged by the table's merge engine exactly as NewReader merges.
  // `out` gets one row per key, in the order of `keys` (a key may repeat): the requested columns,
  // then the BOOLEAN column kLookupFoundColumn, false (and every other column null) when the key
  // has no live row. Only the partition-buckets of the keys are read, and their files pruned by
  // key range. With realtime.enabled the rows in memory count (LookupOptions). Invalid for an
  // append table, a missing or mistyped key column, or a null key value.
  Status Lookup(const ArrowArray* keys, const ArrowSchema* keys_schema, ArrowArray* out,
                ArrowSchema* out_schema, const LookupOptions& options = {}) const;
  // A streaming or incremental read, or a batch read with row kinds (include/freshet/stream.h).
  Result<std::unique_ptr<TableStreamReader>> NewStreamReader(const StreamOptions& options) const;

  // One compaction pass over a primary-key table, committed as a COMPACT snapshot
  // (docs/compaction.md). A pass that conflicts with another commit is planned again on the new
  // snapshot, a few times. NotImplemented for append tables and deletion-vector tables.
  Result<CompactResult> Compact(const CompactOptions& options = {}) const;

  // Removes the files under the table directory that no snapshot, tag or changelog references
  // and that are older than options.older_than_millis (Java's RemoveOrphanFiles; docs/
  // expiration.md, "Orphan files"): data files of crashed writers, manifests of failed commits.
  // Snapshot, schema, tag and consumer files are never touched. Safe beside running writers and
  // committers as long as none of them holds a file older than the cut-off uncommitted.
  Result<OrphanFilesResult> RemoveOrphanFiles(const RemoveOrphanFilesOptions& options = {}) const;

  // The partition and bucket each row of a struct array of the table's columns is written to
  // (Java Paimon's bucket function). Borrows `array` and `schema`: the caller still owns them,
  // and can write the same batch afterwards.
  Result<RowRouting> RouteRows(const ArrowArray* array, const ArrowSchema* schema) const;

  class FRESHET_NO_EXPORT Impl;

 private:
  FRESHET_NO_EXPORT explicit Table(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Not thread-safe, except with realtime.enabled: then Write and WriteWithOffsets may be called
// from any number of threads at once (on one writer or many), while Commit and Abort are for one
// thread at a time per table (they act on the table's shared real-time state, see below).
class FRESHET_EXPORT TableWriter {
 public:
  ~TableWriter();
  // Writes the rows of a struct array whose fields are the table's columns. Takes ownership of
  // `array` (and releases `schema` after reading it), even on error. With realtime.enabled the
  // rows are readable when Write returns; ResourceExhausted past realtime.memory.hard-limit. One
  // Write is one unit: all its rows are stored or none; a query (or snapshot) holds all of them
  // or none, and sees them only with every Write that returned before this one began.
  // Primary-key tables: the struct may add a `_ROW_KIND` column (int8 0..3 or utf8 "+I", "-U",
  // "+U", "-D") giving each row's kind, or the table option `rowkind.field` names a column that
  // does; rows are inserts otherwise. Without realtime, a Write that fails validation (a null key,
  // a bad row kind) stores nothing.
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
  // Abort() or a retried Commit(). The writer's finished background compactions join as a
  // COMPACT snapshot after it (the id returned is then that one's); a compaction another commit
  // made obsolete is dropped, with its files, without failing the commit.
  //
  // With realtime.enabled, Commit acts on the table's real-time context, shared by every writer
  // of the table in the process (docs/realtime.md, "Life of a row"):
  //   * It commits the rows of every writer, not only this one's: each partition-bucket is cut
  //     at one point of the write order, so the snapshot holds every Write that returned before
  //     Commit began and whole Writes only. Rows written meanwhile, by any thread, keep flowing
  //     into memory (Write never waits for the flush) and land in the next commit.
  //   * Rows stay readable throughout: from memory until the snapshot is published, then from
  //     its files; a query sees each row once.
  //   * The snapshot records the committed _OFFSET progress of every partition-bucket ever
  //     committed; RealtimeContext::CommittedProgress() reports it once the snapshot is
  //     published. A range that does not continue the progress of the snapshot it builds on
  //     (another process committed the same partition-buckets) fails the commit, naming the gap
  //     or overlap, before anything is published.
  //   * On error nothing is published and the progress does not move. No row is lost: rows stay
  //     in memory, still readable; files of a failed flush are deleted, and files flushed but
  //     not committed are kept and committed by the next Commit (or deleted by Abort, after
  //     which the next Commit writes their rows again).
  Result<std::optional<int64_t>> Commit(const CommitOptions& options = {});
  // Deletes the files written since the last successful Commit(), and drops their rows. With
  // realtime.enabled, rows written are never dropped: Abort deletes the files a failed Commit
  // flushed but did not publish (of every writer of the table), their rows stay in memory,
  // readable, and the next Commit flushes them again; the progress does not move.
  Status Abort();

  class FRESHET_NO_EXPORT Impl;

 private:
  friend class Table;
  FRESHET_NO_EXPORT explicit TableWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Not thread-safe: one thread at a time (a reader may move between threads). Readers are
// independent of each other and of writers: each reads the snapshot (and, with realtime.enabled,
// the uncommitted rows) it pinned when it was made.
class FRESHET_EXPORT TableReader {
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
  // RecordBatchReader._import_from_c, DuckDB, nanoarrow, Arrow C++'s ImportRecordBatchReader...):
  // get_schema as ExportArrowSchema, get_next gives each batch and then a released array at the
  // end. An error is an errno value (EINVAL for Invalid, ENOENT NotFound, EEXIST AlreadyExists,
  // ENOSYS NotImplemented, ENOMEM ResourceExhausted, EIO otherwise) with get_last_error() giving
  // Status::ToString() ("Corruption: data file ... holds 240 rows ..."); it is sticky: every later
  // call fails the same way. The stream, like the reader, is for one thread at a time.
  static Status ExportArrowStream(std::unique_ptr<TableReader> reader, ArrowArrayStream* out);
  // The error of the last failed call of a stream that ExportArrowStream made, as the Status the
  // reader returned (code and message); OK when no call failed. For a stream made elsewhere, an
  // IOError with its get_last_error() text.
  static Status LastStreamError(ArrowArrayStream* stream);

  class FRESHET_NO_EXPORT Impl;

 private:
  friend class Table;
  FRESHET_NO_EXPORT explicit TableReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace freshet
