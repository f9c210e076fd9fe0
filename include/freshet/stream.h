// Streaming and incremental reads of a table, with Java Paimon's semantics
// (docs/streaming-reads.md):
//
//   freshet::StreamOptions options;
//   options.mode = freshet::ScanMode::kLatestFull;   // every live row, then each change
//   options.with_row_kind = true;                     // a leading `_ROW_KIND` column
//   auto reader = (*table)->NewStreamReader(options);
//   while (!(*reader)->finished()) {
//     ArrowArray batch;
//     while (*(*reader)->Next(&batch)) { /* ... */ batch.release(&batch); }
//     (*reader)->WaitForNext(1000);                  // until another snapshot is committed
//   }
//
// A streaming read starts with a plan chosen by the scan mode (the live rows of a snapshot, or
// nothing), then reads, snapshot after snapshot, what each APPEND snapshot added: appended rows
// (+I), and the records of primary-key tables with their kinds (+I, -U, +U, -D; not merged across
// files), or, with a `changelog-producer`, each snapshot's changelog files. COMPACT snapshots add
// nothing new and are passed over (they carry full-compaction and lookup changelog); OVERWRITE
// snapshots too, unless the table sets streaming-read-overwrite (append tables). Everything here is
// exported from libfreshet.so (FRESHET_EXPORT).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "freshet/arrow_c.h"
#include "freshet/export.h"
#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet {

// Java Paimon's `scan.mode` values (CoreOptions.StartupMode) that freshet reads.
enum class ScanMode : int8_t {
  // from-timestamp with timestamp_millis, else from-snapshot with snapshot_id, else incremental
  // with incremental_between, else latest-full. With none of them set, the table's own options
  // scan.mode, scan.snapshot-id, scan.timestamp-millis and incremental-between apply.
  kDefault,
  kLatestFull,        // "latest-full": the latest snapshot's rows, then the changes after it
  kLatest,            // "latest": the changes of the snapshots after the latest
  kFromSnapshot,      // "from-snapshot": the changes of snapshot_id and those after it
  kFromSnapshotFull,  // "from-snapshot-full": snapshot_id's rows, then the changes after it
  kFromTimestamp,     // "from-timestamp": the changes of snapshots committed at or after it
  kIncremental,       // "incremental": the changes of incremental_between (batch reads only)
};
// "default", "latest-full" (or "full"), "latest", "from-snapshot", "from-snapshot-full",
// "from-timestamp", "incremental"; case-insensitive. NotImplemented for Java's other modes.
FRESHET_EXPORT Result<ScanMode> ParseScanMode(const std::string& text);
FRESHET_EXPORT const char* ScanModeName(ScanMode mode);

// The column with_row_kind adds: Java's RowKind short strings "+I", "-U", "+U", "-D" (utf8).
inline constexpr char kRowKindColumn[] = "_ROW_KIND";

// A plain value (no locking inside).
struct StreamOptions {
  ScanMode mode = ScanMode::kDefault;
  std::optional<int64_t> snapshot_id;       // scan.snapshot-id
  std::optional<int64_t> timestamp_millis;  // scan.timestamp-millis (commit time, epoch ms)
  // scan.tag-name: a batch read (streaming = false) of the tag's snapshot, which may have expired
  // (docs/tags.md); Invalid for a streaming read, as in Java.
  std::string tag_name;
  // incremental-between: "A,B", two snapshot ids: the changes of the APPEND snapshots after A up
  // to and including B (Java's default `auto` scan mode without a changelog producer: the files
  // they added, primary-key records not merged, kinds kept). Or two tag names, read the same way
  // between the tags' snapshots when the table sets incremental-between-tag-to-snapshot = true
  // (NotImplemented otherwise: Java then reads a diff of the two snapshots).
  std::string incremental_between;
  // incremental-between-timestamp: "A,B", two commit times (epoch ms, or local
  // "yyyy-MM-dd HH:mm:ss[.SSS]"), A exclusive: the changes of the snapshots committed in between,
  // as Java resolves them to snapshots (or their diff with incremental-between-scan-mode = diff).
  std::string incremental_between_timestamp;
  // true: a streaming read (starting plan, then one plan per new snapshot). false: Java's batch
  // read of the same options: the starting plan's rows, or the incremental range, then the end
  // (where a batch scan skips level-0 files, deletion-vector and first-row tables, so does this).
  bool streaming = true;
  // A streaming read ends (finished()) once past this snapshot; unset: it never ends.
  std::optional<int64_t> end_snapshot_id;
  std::vector<std::string> columns;  // projection by name; empty = all columns
  // Only rows for which this is TRUE (ReadOptions::filter; a primary-key change record is kept
  // or dropped by its own values). Also prunes partitions.
  std::string filter;
  int64_t batch_size = 4096;
  // Adds a first column `_ROW_KIND` (kRowKindColumn) with each row's kind. A merged primary-key
  // row has its merged kind, as Java's reads give it (+I, or +U when the winning version was
  // an update; partial-update and aggregation give +I); appended rows are +I.
  bool with_row_kind = false;
  // How often WaitForNext looks for a new snapshot.
  int64_t poll_interval_millis = 100;
  // Java's `consumer-id` (else the table option of that name): a streaming read records its
  // progress in `<table>/consumer/consumer-<id>` once all rows of a snapshot were handed out (the
  // next call to Next), starts from the recorded progress when there is one (unless
  // consumer_ignore_progress or the table option `consumer.ignore-progress`), and snapshot
  // expiration keeps what the consumer has not read yet.
  std::string consumer_id;
  bool consumer_ignore_progress = false;
};

// Not thread-safe: one thread at a time (a reader may move between threads). Rows committed
// only: the real-time layer's uncommitted rows are not read. Tables with a changelog producer
// are followed through their changelog files (docs/streaming-reads.md, "Changelog producers").
class FRESHET_EXPORT TableStreamReader {
 public:
  ~TableStreamReader();
  // The Arrow schema of the batches (`_ROW_KIND` first when asked, then the projected columns).
  Status ExportArrowSchema(ArrowSchema* out) const;
  // Fills `out` with the next batch; returns false (leaving `out` untouched) when the reader has
  // nothing more now: it read every committed snapshot (call WaitForNext, then Next again) or
  // it is finished(). A batch holds rows of one plan (one snapshot) only.
  Result<bool> Next(ArrowArray* out);
  // Waits up to `timeout_millis` for a snapshot the reader has not read yet. Returns true when
  // one exists (or the reader is finished), false on timeout.
  Result<bool> WaitForNext(int64_t timeout_millis);
  // A batch read that returned its rows, or a streaming read past end_snapshot_id.
  bool finished() const;
  // The snapshot whose rows the last batch holds (the starting plan's snapshot, a change's
  // snapshot, or an incremental range's end); nullopt before the first batch.
  std::optional<int64_t> snapshot_id() const;
  // Progress, as Java's checkpoint: the snapshot the next change plan reads from (every
  // snapshot before it was read); nullopt before the starting plan was made.
  std::optional<int64_t> next_snapshot_id() const;

  class FRESHET_NO_EXPORT Impl;

 private:
  friend class Table;
  FRESHET_NO_EXPORT explicit TableStreamReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace freshet
