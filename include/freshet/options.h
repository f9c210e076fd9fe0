// Plain option and result structs of the public API (include/freshet/table.h), in a header of
// their own so that every layer can name them without depending on the table API. They are plain
// values (no locking inside): read from any number of threads, written by one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace freshet {

struct ReadOptions {
  std::optional<int64_t> snapshot_id;       // default: the latest snapshot
  std::optional<int64_t> timestamp_millis;  // or the newest snapshot at or before this time
  // Or the snapshot of this tag (Java's `scan.tag-name`), which may have expired from snapshot/.
  std::string tag_name;
  std::vector<std::string> columns;  // projection by name; empty = all columns
  int64_t batch_size = 4096;
  // Only rows for which this expression is TRUE (SQL three-valued logic), e.g.
  // "dt = '2024-01-01' AND (amount >= 10.5 OR user IN ('ada', 'grace')) AND note IS NOT NULL".
  // Also prunes partitions and files by statistics. Empty = every row. See docs/predicates.md.
  std::string filter;
  // With realtime.enabled: also return rows written in this process but not committed yet
  // (reads of the latest snapshot only; time travel reads committed files).
  bool include_uncommitted = true;
};

// Table::Lookup (`freshet get`): the live rows of primary-key values.
struct LookupOptions {
  std::vector<std::string> columns;  // projection by name; empty = all columns
  // With realtime.enabled: rows written in this process but not committed yet count too.
  bool include_uncommitted = true;
};
// The BOOLEAN column Table::Lookup adds after the requested ones: false for a key without a row.
inline constexpr char kLookupFoundColumn[] = "_FOUND";

struct CommitOptions {
  // Replace the partitions written (or the whole table when `overwrite_all`) instead of adding.
  bool overwrite = false;
  bool overwrite_all = false;
  std::map<std::string, std::string> properties;  // stored in the snapshot
  // Primary-key tables compact in the background of their writer (docs/compaction.md): a
  // finished compaction joins the next commit as a COMPACT snapshot. With this set, the commit
  // first waits for the running compactions, so that their results join it (Java's batch
  // write).
  bool wait_compaction = false;
};

// Table::Compact (`freshet compact`): one compaction pass over a primary-key table.
struct CompactOptions {
  // Every file of each partition-bucket into the highest level (Java's full compaction) instead
  // of what the table's compaction strategy picks.
  bool full = false;
  // Partitions to compact, each as key -> value (the text of partition paths, e.g. {"dt",
  // "2024-01-01"}); a spec may name some partition keys only. Empty: every partition.
  std::vector<std::map<std::string, std::string>> partitions;
};

struct CompactResult {
  std::optional<int64_t> snapshot_id;  // the COMPACT snapshot; nullopt: nothing to compact
  int64_t buckets = 0;                 // partition-buckets compacted
  int64_t files_before = 0;            // files replaced
  int64_t files_after = 0;             // files that replaced them
  int conflicts = 0;  // plans given up because another commit changed a bucket first
};

// realtime.enabled: how TableWriter::WriteWithOffsets treats a row whose offset is not above its
// partition-bucket's last offset (committed, or written by this process).
enum class OffsetMode {
  kStrict,  // the whole batch is refused (Invalid) and nothing is stored
  // The row is skipped and counted: it was committed (or written) before. Replaying a source
  // log from the lowest committed end, min(RealtimeContext::CommittedProgress()), in batches of
  // any size is then exactly-once.
  kReplay,
};

struct WriteStats {
  int64_t rows_written = 0;
  int64_t rows_skipped = 0;  // OffsetMode::kReplay: rows whose offset was already taken
};

// Table::RemoveOrphanFiles (`freshet remove-orphans`): files under the table directory that no
// snapshot, tag or changelog references (docs/expiration.md, "Orphan files").
struct RemoveOrphanFilesOptions {
  // Only files last modified before this time (ms since the epoch) are removed, since a running
  // writer may be about to commit younger ones. Default: now minus one day (Java's default).
  // Invalid when not before now.
  std::optional<int64_t> older_than_millis;
  bool dry_run = false;  // list what would be removed, remove nothing
};

struct OrphanFilesResult {
  struct File {
    std::string path;  // relative to the table directory, e.g. "dt=1/bucket-0/data-....parquet"
    int64_t size = 0;  // bytes
    int64_t modification_time_millis = 0;
  };
  std::vector<File> files;  // removed (or, with dry_run, to be removed), by path
  int64_t total_bytes = 0;
};

}  // namespace freshet
