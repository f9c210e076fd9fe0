// StreamScan: the plans of a streaming or incremental read (docs/streaming-reads.md), as Java
// Paimon's DataTableStreamScan makes them: a starting plan chosen by `scan.mode` (a full plan of
// one snapshot, or none), then one plan per following snapshot with changes (DeltaFollowUpScanner:
// the files an APPEND snapshot added; COMPACT snapshots add nothing new and are skipped), or, for
// `incremental-between`, one plan of the files the APPEND snapshots of a range added
// (IncrementalDeltaStartingScanner). Full plans come from TableScan; delta plans read the
// snapshots' delta manifest lists.
//
// Tables with a `changelog-producer` are followed through their changelog files instead
// (ChangelogFollowUpScanner): every snapshot with a changelog manifest list, whatever its kind
// (COMPACT snapshots carry the changelog of `full-compaction` and `lookup`); incremental reads
// in `incremental-between-scan-mode` auto or changelog read the changelog of the range's
// snapshots but OVERWRITE ones. A streaming full starting plan then reads only what the
// producer has already described: levels above 0 (`lookup`), the highest level
// (`full-compaction`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/file_io.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot.h"
#include "meta/snapshot/tag_manager.h"
#include "scan/predicate.h"
#include "scan/table_scan.h"

namespace freshet::scan {

// Java's `scan.mode` (CoreOptions.StartupMode), the values freshet implements.
enum class StartupMode : int8_t {
  kDefault,           // "default": resolved by ResolveStreamScanOptions
  kLatestFull,        // "latest-full" ("full"): a full plan of the latest snapshot, then changes
  kLatest,            // "latest": the changes of snapshots after the latest
  kFromSnapshot,      // "from-snapshot": the changes from snapshot `snapshot_id` on
  kFromSnapshotFull,  // "from-snapshot-full": a full plan of `snapshot_id`, then changes
  kFromTimestamp,     // "from-timestamp": the changes of snapshots committed at or after
  kIncremental,       // "incremental": the changes of `incremental_between` (batch only)
};
Result<StartupMode> ParseStartupMode(std::string_view text);
const char* StartupModeName(StartupMode mode);

struct StreamScanOptions {
  StartupMode mode = StartupMode::kDefault;
  std::optional<int64_t> snapshot_id;       // scan.snapshot-id
  std::optional<int64_t> timestamp_millis;  // scan.timestamp-millis
  std::string tag_name;                     // scan.tag-name (batch reads only)
  // incremental-between: (start, end], start exclusive, end inclusive.
  std::optional<std::pair<int64_t, int64_t>> incremental_between;
  // The range named two tags (then read as a diff unless incremental-between-tag-to-snapshot).
  bool incremental_between_tags = false;
  // incremental-between-timestamp: (start, end] in epoch milliseconds, resolved to snapshots when
  // the scan starts.
  std::optional<std::pair<int64_t, int64_t>> incremental_between_timestamps;
  // false: Java's batch scan of the same options (one plan, then the scan is finished; full
  // plans skip level-0 files where batch scans do).
  bool streaming = true;
  // Streaming: the scan is finished once it is past this snapshot.
  std::optional<int64_t> end_snapshot_id;
  // Prunes partitions (full plans also files, as TableScan does); rows are filtered by the read.
  std::shared_ptr<const Predicate> predicate;
};

// Parses incremental-between-timestamp "A,B": two epoch-millisecond numbers, or two local times
// "yyyy-MM-dd HH:mm:ss[.SSS]" (Java's DateTimeUtils in the default time zone), A <= B.
Result<std::pair<int64_t, int64_t>> ParseIncrementalBetweenTimestamps(std::string_view text);

// Parses "A,B": two tag names when `tags` has both (Java looks for tags first; their snapshot ids
// are returned and `*named_tags` set), else two snapshot ids, A <= B.
Result<std::pair<int64_t, int64_t>> ParseIncrementalBetween(std::string_view text,
                                                            const meta::TagManager* tags = nullptr,
                                                            bool* named_tags = nullptr);

// `given` completed as Java resolves a scan: when it names no mode, snapshot, time or range, the
// table's own options `scan.mode`, `scan.snapshot-id`, `scan.timestamp-millis` and
// `incremental-between` apply; then `default` becomes from-timestamp, from-snapshot, incremental
// or latest-full (CoreOptions.startupMode()). Invalid when a mode lacks what it needs.
Result<StreamScanOptions> ResolveStreamScanOptions(StreamScanOptions given,
                                                   const meta::TableSchema& schema,
                                                   const meta::TagManager* tags = nullptr);

struct StreamPlan {
  enum class Kind : int8_t {
    kFull,   // every live file of a snapshot: primary-key buckets are merged by key
    kDelta,  // files added by one snapshot (or a range): read as they are, row kinds kept
    // A primary-key diff of two snapshots (read/diff_read.h): per partition-bucket, `splits`
    // holds the files only the end snapshot has, `before_splits` (same order, same bucket) the
    // files only the start snapshot has; each side is merged, then compared by key.
    kDiff,
  };
  Kind kind = Kind::kDelta;
  // The snapshot read (full), whose changes these are (delta), or the range's end (incremental).
  int64_t snapshot_id = 0;
  std::vector<DataSplit> splits;
  std::vector<DataSplit> before_splits;  // kDiff only

  bool merge() const { return kind == Kind::kFull; }
};

class StreamScan {
 public:
  // `schema`: the table's schema (its options decide the changelog source and overwrites).
  static Result<StreamScan> Make(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                 meta::TableSchema schema, StreamScanOptions options);

  enum class State : int8_t {
    kPlan,           // `plan` holds the next plan
    kNoSnapshotYet,  // streaming: nothing new yet; call again later (WaitForSnapshot)
    kFinished,       // the scan ended (batch, or past end_snapshot_id)
  };
  struct Step {
    State state = State::kFinished;
    std::optional<StreamPlan> plan;
  };
  // The starting plan (when the mode has one), then one plan per snapshot with changes; snapshots
  // without any (COMPACT, ANALYZE, OVERWRITE unless streaming-read-overwrite, an APPEND whose
  // files all fall outside the predicate's partitions) are passed over.
  Result<Step> Next();

  // Whether a snapshot the scan has not looked at exists now (true once finished).
  Result<bool> HasNewSnapshot() const;
  // Java's checkpoint(): the snapshot the next follow-up plan starts from (nullopt before the
  // starting plan).
  std::optional<int64_t> next_snapshot_id() const { return next_snapshot_id_; }
  bool finished() const { return finished_; }
  const StreamScanOptions& options() const { return options_; }

 private:
  StreamScan(std::shared_ptr<io::FileIO> file_io, std::string table_path, meta::TableSchema schema,
             StreamScanOptions options);

  Result<Step> StartingPlan();
  Result<Step> FollowUpPlan();
  Result<StreamPlan> FullPlan(const meta::Snapshot& snapshot) const;
  // The levels a streaming full plan of a changelog table reads (DataTableStreamScan's level
  // filter): all of them when it has no producer or `input`.
  Result<std::function<bool(int32_t)>> StartingLevels() const;
  // The files snapshot `snapshot` added (its delta, or later its changelog).
  Result<StreamPlan> DeltaPlan(const meta::Snapshot& snapshot) const;
  Result<StreamPlan> IncrementalPlan(int64_t start_exclusive, int64_t end_inclusive) const;
  // IncrementalDiffStartingScanner: the files that differ between two snapshots (from snapshot/
  // or, expired, from a tag), per partition-bucket; an append table's plan is the end's files.
  Result<StreamPlan> DiffPlan(int64_t start, int64_t end) const;
  // incremental-between-timestamp: the range resolved to snapshots as Java's betweenTimestamps.
  Result<Step> TimestampRangePlan();
  // The manifest lists holding a snapshot's changes: its changelog manifest list when the scan
  // reads changelog (none when the snapshot has no changelog), else its delta manifest list.
  Result<std::vector<std::string>> ChangeManifestLists(const meta::Snapshot& snapshot) const;
  // ADD entries of `lists`' manifests (a delta holds ADD entries only; Java takes the ADDs),
  // pruned by partition and grouped into one split per partition-bucket.
  Result<std::vector<DataSplit>> AddedFileSplits(
      const std::vector<std::pair<int64_t, std::vector<std::string>>>& lists) const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  meta::TableSchema schema_;
  StreamScanOptions options_;
  bool read_overwrite_ = false;              // streaming-read-overwrite
  std::string changelog_producer_ = "none";  // changelog-producer
  bool read_changelog_ = false;              // follow-up and incremental plans read changelog
  bool read_diff_ = false;                   // the incremental plan is a diff
  std::optional<int64_t> latest_at_start_;   // kLatest: the latest when the scan was made
  bool started_ = false;                     // the starting plan was made
  std::optional<int64_t> next_snapshot_id_;  // of the next follow-up plan
  bool finished_ = false;
};

}  // namespace freshet::scan
