// Compaction strategies of primary-key tables: which sorted runs of a bucket's merge tree to
// rewrite, and into which level, picked as Java Paimon picks them (UniversalCompaction,
// ForceUpLevel0Compaction, EarlyFullCompaction, CompactStrategy.pickFullCompaction; see
// docs/compaction.md, "Strategy"). Pure logic: no I/O; time comes from a CompactionClock.
//
// A compaction manager keeps a bucket's Levels (mergetree/compact/levels.h), asks
// `strategy->Pick(levels.NumberOfLevels(), levels.LevelSortedRuns())` for a unit, runs it when
// WorthCompacting, and gives the rewrite's inputs and outputs to Levels::Update.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "freshet/result.h"
#include "mergetree/compact/levels.h"
#include "meta/manifest/manifest.h"
#include "meta/schema/table_schema.h"

namespace freshet::mergetree::compact {

// What one compaction rewrites (Java's CompactUnit): `files` go to `output_level`. Normally
// they are merged; with `file_rewrite` each file is rewritten on its own (files already at the
// top level, to apply their deletion vectors or drop expired records).
struct CompactUnit {
  int output_level = 0;
  std::vector<meta::DataFileMeta> files;
  bool file_rewrite = false;

  // Every file of `runs`, in order, merged into `output_level`.
  static CompactUnit FromRuns(int output_level, std::span<const LevelSortedRun> runs);
};

// The time the strategies see; tests substitute their own. An unset function reads the system's.
struct CompactionClock {
  std::function<int64_t()> now_millis;  // milliseconds since the epoch
  std::function<int()> local_hour;      // hour of the local time of day, 0 to 23
  static CompactionClock System();
};

enum class LookupCompactMode : uint8_t { kRadical, kGentle };

// The options that shape compaction, with Java's defaults and derived values.
struct CompactionOptions {
  int num_sorted_run_compaction_trigger = 5;  // num-sorted-run.compaction-trigger
  int num_sorted_run_stop_trigger = 8;       // num-sorted-run.stop-trigger: max(trigger, set or +3)
  int num_levels = 6;                        // num-levels: set, else trigger + 1
  int max_size_amplification_percent = 200;  // compaction.max-size-amplification-percent
  int size_ratio = 1;                        // compaction.size-ratio
  int offpeak_start_hour = -1;               // compaction.offpeak.start.hour
  int offpeak_end_hour = -1;                 // compaction.offpeak.end.hour
  int offpeak_ratio = 0;                     // compaction.offpeak-ratio
  std::optional<int64_t> optimization_interval_millis;   // compaction.optimization-interval
  std::optional<int64_t> total_size_threshold;           // compaction.total-size-threshold
  std::optional<int64_t> incremental_size_threshold;     // compaction.incremental-size-threshold
  bool force_up_level_0 = false;                         // compaction.force-up-level-0
  bool force_rewrite_all_files = false;                  // compaction.force-rewrite-all-files
  std::optional<int32_t> full_compaction_delta_commits;  // full-compaction.delta-commits
  bool changelog_full_compaction = false;                // changelog-producer = full-compaction
  // Java's LookupStrategy.needLookup: first-row, changelog-producer = lookup,
  // deletion-vectors.enabled or force-lookup. Such tables push level-0 files up at once.
  bool need_lookup = false;
  // lookup-wait (need_lookup tables): a commit waits for the compaction that pushes its level-0
  // files up, so that its changelog joins the same commit.
  bool lookup_wait = true;
  LookupCompactMode lookup_compact = LookupCompactMode::kRadical;  // lookup-compact
  // lookup-compact.max-interval: max(trigger, set or 2 * trigger).
  int lookup_compact_max_interval = 10;
  bool write_only = false;        // write-only: writers never compact
  bool deletion_vectors = false;  // deletion-vectors.enabled: rewrites always drop retracts

  // Reads the options through the registry (meta/options/option_registry.h); an invalid value
  // is an error naming the option.
  static Result<CompactionOptions> FromTableOptions(const meta::Options& options);
};

// Off-peak hours raise the size ratio (Java's OffPeakHours).
class OffPeakHours {
 public:
  // nullopt when either hour is -1 or both are equal (off-peak disabled).
  static std::optional<OffPeakHours> Create(int start_hour, int end_hour, int ratio);
  // `ratio` when `hour` is in [start, end) (wrapping past midnight when start > end), else 0.
  int CurrentRatio(int hour) const;

 private:
  OffPeakHours(int start_hour, int end_hour, int ratio)
      : start_hour_(start_hour), end_hour_(end_hour), ratio_(ratio) {}
  int start_hour_;
  int end_hour_;
  int ratio_;
};

// Full compactions triggered before the size rules (Java's EarlyFullCompaction): when the last
// full compaction is older than the interval, when the bucket is smaller than the total-size
// threshold, or when the runs below the top level outgrew the incremental-size threshold.
class EarlyFullCompaction {
 public:
  EarlyFullCompaction(std::optional<int64_t> interval_millis,
                      std::optional<int64_t> total_size_threshold,
                      std::optional<int64_t> incremental_size_threshold,
                      std::optional<int64_t> last_full_compaction_millis = std::nullopt,
                      std::function<int64_t()> now_millis = CompactionClock::System().now_millis);
  // nullopt when none of the three options is set.
  static std::optional<EarlyFullCompaction> Create(const CompactionOptions& options,
                                                   std::optional<int64_t> last_full_compaction,
                                                   std::function<int64_t()> now_millis);

  // A unit of every run into the top level, or nullopt (always for a single run).
  std::optional<CompactUnit> TryFullCompact(int num_levels,
                                            const std::vector<LevelSortedRun>& runs);
  // Remembers now as the time of the last full compaction.
  void RecordFullCompaction() { last_full_compaction_ = now_millis_(); }

 private:
  std::optional<int64_t> interval_millis_;
  std::optional<int64_t> total_size_threshold_;
  std::optional<int64_t> incremental_size_threshold_;
  std::optional<int64_t> last_full_compaction_;
  std::function<int64_t()> now_millis_;
};

// Picks what a bucket compacts next (Java's CompactStrategy). `runs` are
// Levels::LevelSortedRuns(): level-0 files newest first, then the levels above, lowest first.
// Pick may keep state (time of the last full compaction, a trigger count).
class CompactStrategy {
 public:
  virtual ~CompactStrategy() = default;
  virtual std::optional<CompactUnit> Pick(int num_levels,
                                          const std::vector<LevelSortedRun>& runs) = 0;
};

// RocksDB-style universal compaction (Java's UniversalCompaction), trying in turn: an early
// full compaction, size amplification, size ratio, and the number of sorted runs.
class UniversalCompaction : public CompactStrategy {
 public:
  UniversalCompaction(int max_size_amplification_percent, int size_ratio,
                      int num_run_compaction_trigger,
                      std::optional<EarlyFullCompaction> early_full = std::nullopt,
                      std::optional<OffPeakHours> off_peak = std::nullopt,
                      std::function<int()> local_hour = CompactionClock::System().local_hour);

  std::optional<CompactUnit> Pick(int num_levels, const std::vector<LevelSortedRun>& runs) override;
  // The leading level-0 runs, plus the runs the size ratio adds; nullopt without level-0 runs.
  std::optional<CompactUnit> ForcePickL0(int num_levels, const std::vector<LevelSortedRun>& runs);

  // The steps of Pick (tests follow Java's, which call them one by one).
  // Every run into `max_level` when the runs above the oldest exceed
  // max-size-amplification-percent of it (with at least trigger runs).
  std::optional<CompactUnit> PickForSizeAmp(int max_level, const std::vector<LevelSortedRun>& runs);
  // PickForSizeRatio from one candidate, with at least trigger runs.
  std::optional<CompactUnit> PickForSizeRatio(int max_level,
                                              const std::vector<LevelSortedRun>& runs);
  // Grows the first `candidate_count` runs while the next run is at most size-ratio percent
  // (plus the off-peak ratio) larger than them, or lies at level 0 or 1 once triggered.
  // Triggered by `force_pick` or more than one candidate; nullopt when not triggered.
  std::optional<CompactUnit> PickForSizeRatio(int max_level,
                                              const std::vector<LevelSortedRun>& runs,
                                              int candidate_count, bool force_pick = false);
  // The first `run_count` runs into the level below the next run (never level 0: level-0 runs
  // are added until a higher one; all runs go to `max_level`).
  CompactUnit CreateUnit(const std::vector<LevelSortedRun>& runs, int max_level, int run_count);

 private:
  int OffPeakRatio() const;

  int max_size_amp_;
  int size_ratio_;
  int num_run_compaction_trigger_;
  std::optional<EarlyFullCompaction> early_full_;
  std::optional<OffPeakHours> off_peak_;
  std::function<int()> local_hour_;
};

// Universal compaction that, when it picks nothing, still pushes the level-0 files up (Java's
// ForceUpLevel0Compaction): at every pick, or with `max_compact_interval` (gentle lookup
// compaction) at every max_compact_interval-th pick that found nothing.
class ForceUpLevel0Compaction : public CompactStrategy {
 public:
  ForceUpLevel0Compaction(UniversalCompaction universal, std::optional<int> max_compact_interval);

  std::optional<CompactUnit> Pick(int num_levels, const std::vector<LevelSortedRun>& runs) override;

 private:
  UniversalCompaction universal_;
  std::optional<int> max_compact_interval_;
  int skipped_picks_ = 0;
};

// Java's choice for a bucket (MergeTreeCompactManagerFactory): lookup tables get
// ForceUpLevel0Compaction (gentle: with lookup-compact.max-interval), so do tables with
// compaction.force-up-level-0; the others UniversalCompaction. `last_full_compaction_millis`:
// EstimateLastFullCompaction of the bucket's files.
std::unique_ptr<CompactStrategy> MakeCompactStrategy(
    const CompactionOptions& options, std::optional<int64_t> last_full_compaction_millis,
    const CompactionClock& clock = CompactionClock::System());

// The newest creation time (epoch milliseconds, the local wall clock Java stores read in the
// system time zone) of the files at level num_levels - 1; nullopt when there is none.
std::optional<int64_t> EstimateLastFullCompaction(const std::vector<meta::DataFileMeta>& files,
                                                  int num_levels);

// Which top-level files a full compaction rewrites when they are all there is.
struct FullCompactionFilter {
  bool force_rewrite_all_files = false;  // compaction.force-rewrite-all-files
  // The file has a deletion vector; unset without deletion vectors.
  std::function<bool(const meta::DataFileMeta&)> has_deletion_vector;
  // The file may hold records past record-level.expire-time; unset without expiry.
  std::function<bool(const meta::DataFileMeta&)> may_hold_expired_records;
};

// A full compaction (Java's CompactStrategy.pickFullCompaction): every run into the top level;
// when the only run is the top level, a file rewrite of the files `filter` selects (nullopt when
// it selects none); nullopt without runs.
std::optional<CompactUnit> PickFullCompaction(int num_levels,
                                              const std::vector<LevelSortedRun>& runs,
                                              const FullCompactionFilter& filter = {});

// What Java's MergeTreeCompactManager does around a pick:
// a picked unit is run when it has more than one file or moves its one file to another level;
bool WorthCompacting(const CompactUnit& unit);
// its rewrite drops retractions (-U/-D) when its output is above level 0 and nothing older stays
// above it (output level >= the highest non-empty level), or with deletion vectors;
bool CanDropDelete(const CompactUnit& unit, int non_empty_highest_level, bool deletion_vectors,
                   bool force_keep_delete = false);
// writes wait for the running compaction while the bucket has more sorted runs than the stop
// trigger;
bool MustWaitForCompaction(int number_of_sorted_runs, const CompactionOptions& options);
// and, with full-compaction.delta-commits (or changelog-producer = full-compaction: every
// commit), the commit of `commit_identifier` fully compacts the buckets written since the last
// one (Java's Flink writer: identifier % max(delta, 1) == 0; a batch commit, Long.MAX_VALUE,
// always).
bool FullCompactionDue(const CompactionOptions& options, int64_t commit_identifier);

}  // namespace freshet::mergetree::compact
