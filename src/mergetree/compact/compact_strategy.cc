#include "mergetree/compact/compact_strategy.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <ctime>

#include "mergetree/primary_key_support.h"
#include "meta/options/option_registry.h"

namespace freshet::mergetree::compact {

namespace {

using Runs = std::vector<LevelSortedRun>;

int64_t SystemNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int SystemLocalHour() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  return local.tm_hour;
}

// A local wall-clock time stored as if it were UTC (DataFileMeta::creation_time_millis), as
// epoch milliseconds in the system time zone.
int64_t LocalWallToEpochMillis(int64_t wall_millis) {
  int64_t seconds = wall_millis / 1000 - (wall_millis % 1000 < 0 ? 1 : 0);
  std::time_t wall_seconds = static_cast<std::time_t>(seconds);
  std::tm fields{};
  gmtime_r(&wall_seconds, &fields);
  fields.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&fields)) * 1000 + (wall_millis - seconds * 1000);
}

// Java's long multiplication, which wraps on overflow.
int64_t JavaMultiply(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Java's MathUtils.addSafely / incrementSafely / multiplySafely: INT_MAX on overflow.
int SaturatingAdd(int a, int b) {
  int64_t sum = static_cast<int64_t>(a) + b;
  return sum > INT_MAX ? INT_MAX : static_cast<int>(sum);
}
int SaturatingMultiply(int a, int b) {
  int64_t product = static_cast<int64_t>(a) * b;
  return product > INT_MAX ? INT_MAX : static_cast<int>(product);
}

int64_t TotalSize(std::span<const LevelSortedRun> runs) {
  int64_t total = 0;
  for (const auto& run : runs) total += run.run.TotalSize();
  return total;
}

int RunCount(const Runs& runs) { return static_cast<int>(runs.size()); }

Result<std::optional<int64_t>> OptionalNumber(const meta::Options& options, std::string_view key) {
  FRESHET_ASSIGN_OR_RETURN(auto value, meta::LookupOption(options, key));
  if (!value) return std::optional<int64_t>();
  return std::optional<int64_t>(value->number);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// CompactUnit, clock, options

CompactUnit CompactUnit::FromRuns(int output_level, std::span<const LevelSortedRun> runs) {
  CompactUnit unit;
  unit.output_level = output_level;
  for (const auto& run : runs) {
    unit.files.insert(unit.files.end(), run.run.files.begin(), run.run.files.end());
  }
  return unit;
}

CompactionClock CompactionClock::System() { return {SystemNowMillis, SystemLocalHour}; }

Result<CompactionOptions> CompactionOptions::FromTableOptions(const meta::Options& options) {
  using meta::GetBoolOption;
  using meta::GetIntOption;
  CompactionOptions o;
  FRESHET_ASSIGN_OR_RETURN(o.num_sorted_run_compaction_trigger,
                           GetIntOption(options, "num-sorted-run.compaction-trigger"));
  int trigger = o.num_sorted_run_compaction_trigger;
  FRESHET_ASSIGN_OR_RETURN(auto stop, OptionalNumber(options, "num-sorted-run.stop-trigger"));
  o.num_sorted_run_stop_trigger =
      std::max(trigger, stop ? static_cast<int>(*stop) : SaturatingAdd(trigger, 3));
  FRESHET_ASSIGN_OR_RETURN(auto levels, OptionalNumber(options, "num-levels"));
  o.num_levels = levels ? static_cast<int>(*levels) : SaturatingAdd(trigger, 1);
  FRESHET_ASSIGN_OR_RETURN(o.max_size_amplification_percent,
                           GetIntOption(options, "compaction.max-size-amplification-percent"));
  FRESHET_ASSIGN_OR_RETURN(o.size_ratio, GetIntOption(options, "compaction.size-ratio"));
  FRESHET_ASSIGN_OR_RETURN(o.offpeak_start_hour,
                           GetIntOption(options, "compaction.offpeak.start.hour"));
  FRESHET_ASSIGN_OR_RETURN(o.offpeak_end_hour,
                           GetIntOption(options, "compaction.offpeak.end.hour"));
  FRESHET_ASSIGN_OR_RETURN(o.offpeak_ratio, GetIntOption(options, "compaction.offpeak-ratio"));
  FRESHET_ASSIGN_OR_RETURN(o.optimization_interval_millis,
                           OptionalNumber(options, "compaction.optimization-interval"));
  FRESHET_ASSIGN_OR_RETURN(o.total_size_threshold,
                           OptionalNumber(options, "compaction.total-size-threshold"));
  FRESHET_ASSIGN_OR_RETURN(o.incremental_size_threshold,
                           OptionalNumber(options, "compaction.incremental-size-threshold"));
  FRESHET_ASSIGN_OR_RETURN(o.force_up_level_0,
                           GetBoolOption(options, "compaction.force-up-level-0"));
  FRESHET_ASSIGN_OR_RETURN(o.force_rewrite_all_files,
                           GetBoolOption(options, "compaction.force-rewrite-all-files"));
  FRESHET_ASSIGN_OR_RETURN(auto delta, OptionalNumber(options, "full-compaction.delta-commits"));
  if (delta) o.full_compaction_delta_commits = static_cast<int32_t>(*delta);
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(options, "changelog-producer"));
  FRESHET_ASSIGN_OR_RETURN(bool deletion_vectors,
                           GetBoolOption(options, "deletion-vectors.enabled"));
  o.changelog_full_compaction = producer == "full-compaction";
  FRESHET_ASSIGN_OR_RETURN(o.need_lookup, NeedsLookup(options));
  FRESHET_ASSIGN_OR_RETURN(o.lookup_wait, GetBoolOption(options, "lookup-wait"));
  o.deletion_vectors = deletion_vectors;
  FRESHET_ASSIGN_OR_RETURN(std::string mode, meta::GetStringOption(options, "lookup-compact"));
  o.lookup_compact = mode == "GENTLE" ? LookupCompactMode::kGentle : LookupCompactMode::kRadical;
  FRESHET_ASSIGN_OR_RETURN(auto interval, OptionalNumber(options, "lookup-compact.max-interval"));
  o.lookup_compact_max_interval =
      std::max(trigger, interval ? static_cast<int>(*interval) : SaturatingMultiply(trigger, 2));
  FRESHET_ASSIGN_OR_RETURN(o.write_only, GetBoolOption(options, "write-only"));
  return o;
}

// ---------------------------------------------------------------------------------------------
// OffPeakHours, EarlyFullCompaction

std::optional<OffPeakHours> OffPeakHours::Create(int start_hour, int end_hour, int ratio) {
  if (start_hour == -1 || end_hour == -1 || start_hour == end_hour) return std::nullopt;
  return OffPeakHours(start_hour, end_hour, ratio);
}

int OffPeakHours::CurrentRatio(int hour) const {
  bool off_peak = start_hour_ <= end_hour_ ? start_hour_ <= hour && hour < end_hour_
                                           : hour < end_hour_ || start_hour_ <= hour;
  return off_peak ? ratio_ : 0;
}

EarlyFullCompaction::EarlyFullCompaction(std::optional<int64_t> interval_millis,
                                         std::optional<int64_t> total_size_threshold,
                                         std::optional<int64_t> incremental_size_threshold,
                                         std::optional<int64_t> last_full_compaction_millis,
                                         std::function<int64_t()> now_millis)
    : interval_millis_(interval_millis),
      total_size_threshold_(total_size_threshold),
      incremental_size_threshold_(incremental_size_threshold),
      last_full_compaction_(last_full_compaction_millis),
      now_millis_(now_millis ? std::move(now_millis) : SystemNowMillis) {}

std::optional<EarlyFullCompaction> EarlyFullCompaction::Create(
    const CompactionOptions& options, std::optional<int64_t> last_full_compaction,
    std::function<int64_t()> now_millis) {
  if (!options.optimization_interval_millis && !options.total_size_threshold &&
      !options.incremental_size_threshold) {
    return std::nullopt;
  }
  return EarlyFullCompaction(options.optimization_interval_millis, options.total_size_threshold,
                             options.incremental_size_threshold, last_full_compaction,
                             std::move(now_millis));
}

std::optional<CompactUnit> EarlyFullCompaction::TryFullCompact(int num_levels, const Runs& runs) {
  if (runs.size() == 1) return std::nullopt;
  int max_level = num_levels - 1;
  bool full = false;
  if (interval_millis_) {
    full = !last_full_compaction_ || now_millis_() - *last_full_compaction_ > *interval_millis_;
  }
  if (!full && total_size_threshold_) full = TotalSize(runs) < *total_size_threshold_;
  if (!full && incremental_size_threshold_) {
    int64_t incremental = 0;
    for (const auto& run : runs) incremental += run.level != max_level ? run.run.TotalSize() : 0;
    full = incremental > *incremental_size_threshold_;
  }
  if (!full) return std::nullopt;
  RecordFullCompaction();
  return CompactUnit::FromRuns(max_level, runs);
}

// ---------------------------------------------------------------------------------------------
// UniversalCompaction

UniversalCompaction::UniversalCompaction(int max_size_amplification_percent, int size_ratio,
                                         int num_run_compaction_trigger,
                                         std::optional<EarlyFullCompaction> early_full,
                                         std::optional<OffPeakHours> off_peak,
                                         std::function<int()> local_hour)
    : max_size_amp_(max_size_amplification_percent),
      size_ratio_(size_ratio),
      num_run_compaction_trigger_(num_run_compaction_trigger),
      early_full_(std::move(early_full)),
      off_peak_(off_peak),
      local_hour_(local_hour ? std::move(local_hour) : SystemLocalHour) {}

std::optional<CompactUnit> UniversalCompaction::Pick(int num_levels, const Runs& runs) {
  int max_level = num_levels - 1;
  if (early_full_) {
    if (auto unit = early_full_->TryFullCompact(num_levels, runs)) return unit;
  }
  if (auto unit = PickForSizeAmp(max_level, runs)) return unit;
  if (auto unit = PickForSizeRatio(max_level, runs)) return unit;
  if (RunCount(runs) > num_run_compaction_trigger_) {
    int candidate_count = RunCount(runs) - num_run_compaction_trigger_ + 1;
    return PickForSizeRatio(max_level, runs, candidate_count);
  }
  return std::nullopt;
}

std::optional<CompactUnit> UniversalCompaction::ForcePickL0(int num_levels, const Runs& runs) {
  int level0_runs = 0;
  while (level0_runs < RunCount(runs) && runs[static_cast<size_t>(level0_runs)].level == 0) {
    ++level0_runs;
  }
  if (level0_runs == 0) return std::nullopt;
  return PickForSizeRatio(num_levels - 1, runs, level0_runs, true);
}

std::optional<CompactUnit> UniversalCompaction::PickForSizeAmp(int max_level, const Runs& runs) {
  if (runs.empty() || RunCount(runs) < num_run_compaction_trigger_) return std::nullopt;
  int64_t candidate_size = TotalSize(std::span(runs).first(runs.size() - 1));
  int64_t earliest_run_size = runs.back().run.TotalSize();
  // Size amplification: the percentage of additional size over the oldest run.
  if (JavaMultiply(candidate_size, 100) <= JavaMultiply(max_size_amp_, earliest_run_size)) {
    return std::nullopt;
  }
  if (early_full_) early_full_->RecordFullCompaction();
  return CompactUnit::FromRuns(max_level, runs);
}

std::optional<CompactUnit> UniversalCompaction::PickForSizeRatio(int max_level, const Runs& runs) {
  if (RunCount(runs) < num_run_compaction_trigger_) return std::nullopt;
  return PickForSizeRatio(max_level, runs, 1);
}

std::optional<CompactUnit> UniversalCompaction::PickForSizeRatio(int max_level, const Runs& runs,
                                                                 int candidate_count,
                                                                 bool force_pick) {
  int64_t candidate_size = TotalSize(std::span(runs).first(static_cast<size_t>(candidate_count)));
  bool triggered = force_pick || candidate_count > 1;
  double ratio = 100.0 + size_ratio_ + OffPeakRatio();
  for (size_t i = static_cast<size_t>(candidate_count); i < runs.size(); ++i) {
    const LevelSortedRun& next = runs[i];
    if (static_cast<double>(candidate_size) * ratio / 100.0 <
        static_cast<double>(next.run.TotalSize())) {
      if (!triggered || next.level > 1) break;
    }
    candidate_size += next.run.TotalSize();
    ++candidate_count;
    triggered = true;
  }
  if (!triggered) return std::nullopt;
  return CreateUnit(runs, max_level, candidate_count);
}

CompactUnit UniversalCompaction::CreateUnit(const Runs& runs, int max_level, int run_count) {
  int output_level = run_count == RunCount(runs)
                         ? max_level
                         : std::max(0, runs[static_cast<size_t>(run_count)].level - 1);
  if (output_level == 0) {
    // Never output to level 0: take level-0 runs until one above.
    while (run_count < RunCount(runs)) {
      int level = runs[static_cast<size_t>(run_count++)].level;
      if (level != 0) {
        output_level = level;
        break;
      }
    }
  }
  if (run_count == RunCount(runs)) {
    if (early_full_) early_full_->RecordFullCompaction();
    output_level = max_level;
  }
  return CompactUnit::FromRuns(output_level, std::span(runs).first(static_cast<size_t>(run_count)));
}

int UniversalCompaction::OffPeakRatio() const {
  return off_peak_ ? off_peak_->CurrentRatio(local_hour_()) : 0;
}

// ---------------------------------------------------------------------------------------------
// ForceUpLevel0Compaction, the factory, full compaction

ForceUpLevel0Compaction::ForceUpLevel0Compaction(UniversalCompaction universal,
                                                 std::optional<int> max_compact_interval)
    : universal_(std::move(universal)), max_compact_interval_(max_compact_interval) {}

std::optional<CompactUnit> ForceUpLevel0Compaction::Pick(int num_levels, const Runs& runs) {
  if (auto unit = universal_.Pick(num_levels, runs)) return unit;
  if (!max_compact_interval_) return universal_.ForcePickL0(num_levels, runs);
  if (++skipped_picks_ != *max_compact_interval_) return std::nullopt;
  skipped_picks_ = 0;
  return universal_.ForcePickL0(num_levels, runs);
}

std::unique_ptr<CompactStrategy> MakeCompactStrategy(
    const CompactionOptions& options, std::optional<int64_t> last_full_compaction_millis,
    const CompactionClock& clock) {
  UniversalCompaction universal(
      options.max_size_amplification_percent, options.size_ratio,
      options.num_sorted_run_compaction_trigger,
      EarlyFullCompaction::Create(options, last_full_compaction_millis, clock.now_millis),
      OffPeakHours::Create(options.offpeak_start_hour, options.offpeak_end_hour,
                           options.offpeak_ratio),
      clock.local_hour);
  if (options.need_lookup) {
    std::optional<int> interval;
    if (options.lookup_compact == LookupCompactMode::kGentle) {
      interval = options.lookup_compact_max_interval;
    }
    return std::make_unique<ForceUpLevel0Compaction>(std::move(universal), interval);
  }
  if (options.force_up_level_0) {
    return std::make_unique<ForceUpLevel0Compaction>(std::move(universal), std::nullopt);
  }
  return std::make_unique<UniversalCompaction>(std::move(universal));
}

std::optional<int64_t> EstimateLastFullCompaction(const std::vector<meta::DataFileMeta>& files,
                                                  int num_levels) {
  std::optional<int64_t> newest;
  for (const auto& file : files) {
    if (file.level != num_levels - 1 || !file.creation_time_millis) continue;
    int64_t millis = LocalWallToEpochMillis(*file.creation_time_millis);
    if (millis >= 0 && (!newest || millis > *newest)) newest = millis;
  }
  return newest;
}

std::optional<CompactUnit> PickFullCompaction(int num_levels, const Runs& runs,
                                              const FullCompactionFilter& filter) {
  int max_level = num_levels - 1;
  if (runs.empty()) return std::nullopt;
  if (runs.size() > 1 || runs[0].level != max_level) return CompactUnit::FromRuns(max_level, runs);
  CompactUnit unit{max_level, {}, true};
  for (const auto& file : runs[0].run.files) {
    if (filter.force_rewrite_all_files ||
        (filter.may_hold_expired_records && filter.may_hold_expired_records(file)) ||
        (filter.has_deletion_vector && filter.has_deletion_vector(file))) {
      unit.files.push_back(file);
    }
  }
  if (unit.files.empty()) return std::nullopt;
  return unit;
}

// ---------------------------------------------------------------------------------------------
// Around a pick

bool WorthCompacting(const CompactUnit& unit) {
  return unit.files.size() > 1 ||
         (unit.files.size() == 1 && unit.files[0].level != unit.output_level);
}

bool CanDropDelete(const CompactUnit& unit, int non_empty_highest_level, bool deletion_vectors,
                   bool force_keep_delete) {
  return !force_keep_delete && unit.output_level != 0 &&
         (unit.output_level >= non_empty_highest_level || deletion_vectors);
}

bool MustWaitForCompaction(int number_of_sorted_runs, const CompactionOptions& options) {
  return number_of_sorted_runs > options.num_sorted_run_stop_trigger;
}

bool FullCompactionDue(const CompactionOptions& options, int64_t commit_identifier) {
  int delta = options.full_compaction_delta_commits.value_or(-1);
  if (!options.changelog_full_compaction && delta < 0) return false;
  delta = std::max(delta, 1);
  return commit_identifier % delta == 0 || commit_identifier == INT64_MAX;
}

}  // namespace freshet::mergetree::compact
