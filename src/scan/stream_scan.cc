#include "scan/stream_scan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <map>
#include <set>

#include "meta/manifest/manifest_file.h"
#include "meta/options/option_registry.h"
#include "meta/row/value_text.h"
#include "meta/snapshot/long_lived_changelog.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::scan {

namespace {

struct ModeName {
  StartupMode mode;
  const char* name;
};
constexpr ModeName kModeNames[] = {
    {StartupMode::kDefault, "default"},
    {StartupMode::kLatestFull, "latest-full"},
    {StartupMode::kLatest, "latest"},
    {StartupMode::kFromSnapshot, "from-snapshot"},
    {StartupMode::kFromSnapshotFull, "from-snapshot-full"},
    {StartupMode::kFromTimestamp, "from-timestamp"},
    {StartupMode::kIncremental, "incremental"},
};

// A table option freshet's registry does not describe (scan options are read options: Java keeps
// them in the table's options or passes them per read), as given.
std::optional<std::string> RawOption(const meta::TableSchema& schema, std::string_view key) {
  for (const auto& [k, v] : schema.options()) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Result<int64_t> ParseId(std::string_view text, std::string_view what) {
  size_t begin = text.find_first_not_of(' ');
  size_t end = text.find_last_not_of(' ');
  if (begin == std::string_view::npos) return Status::Invalid(what, " is empty");
  text = text.substr(begin, end - begin + 1);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return Status::Invalid(what, " must be a number, not '", text, "'");
  }
  return value;
}

bool IsTrue(const std::optional<std::string>& value) {
  if (!value) return false;
  std::string lower;
  for (char c : *value) lower.push_back(static_cast<char>(std::tolower(c)));
  return lower == "true";
}

}  // namespace

Result<StartupMode> ParseStartupMode(std::string_view text) {
  std::string lower;
  for (char c : text) lower.push_back(static_cast<char>(std::tolower(c)));
  if (lower == "full") return StartupMode::kLatestFull;  // Java's deprecated alias
  for (const ModeName& m : kModeNames) {
    if (lower == m.name) return m.mode;
  }
  return Status::NotImplemented(
      "scan.mode '", text,
      "': freshet reads default, latest, latest-full, from-snapshot, from-snapshot-full, "
      "from-timestamp and incremental");
}

const char* StartupModeName(StartupMode mode) {
  for (const ModeName& m : kModeNames) {
    if (m.mode == mode) return m.name;
  }
  return "?";
}

namespace {

// Two tags named by "A,B": their snapshot ids, when `tags` has both.
Result<std::optional<std::pair<int64_t, int64_t>>> TagsBetween(std::string_view start,
                                                               std::string_view end,
                                                               const meta::TagManager& tags) {
  using Between = std::optional<std::pair<int64_t, int64_t>>;
  if (!meta::TagManager::ValidateName(start).ok() || !meta::TagManager::ValidateName(end).ok()) {
    return Between();
  }
  FRESHET_ASSIGN_OR_RETURN(auto start_tag, tags.Get(start));
  FRESHET_ASSIGN_OR_RETURN(auto end_tag, tags.Get(end));
  if (!start_tag || !end_tag) return Between();
  if (end_tag->snapshot.id < start_tag->snapshot.id) {
    return Status::Invalid("incremental-between: tag '", end, "' (snapshot ", end_tag->snapshot.id,
                           ") is before tag '", start, "' (snapshot ", start_tag->snapshot.id, ")");
  }
  return Between(std::make_pair(start_tag->snapshot.id, end_tag->snapshot.id));
}

// Epoch milliseconds of a local wall-clock time "yyyy-MM-dd HH:mm:ss[.SSS]".
std::optional<int64_t> LocalTimeMillis(std::string_view text) {
  size_t begin = text.find_first_not_of(' ');
  size_t end = text.find_last_not_of(' ');
  if (begin == std::string_view::npos) return std::nullopt;
  auto wall = meta::ParseTimestampText(text.substr(begin, end - begin + 1), 3, false);
  if (!wall) return std::nullopt;
  const int64_t millis = ((wall->millis % 1000) + 1000) % 1000;
  const auto seconds = static_cast<std::time_t>((wall->millis - millis) / 1000);
  std::tm fields{};
  gmtime_r(&seconds, &fields);
  fields.tm_isdst = -1;
  const std::time_t local = std::mktime(&fields);
  if (local == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(local) * 1000 + millis;
}

}  // namespace

Result<std::pair<int64_t, int64_t>> ParseIncrementalBetweenTimestamps(std::string_view text) {
  const size_t comma = text.find(',');
  auto invalid = [&] {
    return Status::Invalid(
        "incremental-between-timestamp must be 'A,B', two epoch milliseconds or two local times "
        "'yyyy-MM-dd HH:mm:ss', not '",
        text, "'");
  };
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) {
    return invalid();
  }
  std::pair<int64_t, int64_t> range;
  auto start = ParseId(text.substr(0, comma), "incremental-between-timestamp");
  auto end = ParseId(text.substr(comma + 1), "incremental-between-timestamp");
  if (start.ok() && end.ok()) {
    range = {*start, *end};
  } else {
    auto start_time = LocalTimeMillis(text.substr(0, comma));
    auto end_time = LocalTimeMillis(text.substr(comma + 1));
    if (!start_time || !end_time) return invalid();
    range = {*start_time, *end_time};
  }
  if (range.second < range.first) {
    return Status::Invalid("incremental-between-timestamp '", text, "': the ending time ",
                           range.second, " is before the starting time ", range.first);
  }
  return range;
}

Result<std::pair<int64_t, int64_t>> ParseIncrementalBetween(std::string_view text,
                                                            const meta::TagManager* tags,
                                                            bool* named_tags) {
  size_t comma = text.find(',');
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) {
    return Status::Invalid("incremental-between must be 'A,B', two tags or two snapshot ids, not '",
                           text, "'");
  }
  if (tags != nullptr) {
    FRESHET_ASSIGN_OR_RETURN(auto between,
                             TagsBetween(text.substr(0, comma), text.substr(comma + 1), *tags));
    if (between) {
      if (named_tags != nullptr) *named_tags = true;
      return *between;
    }
  }
  FRESHET_ASSIGN_OR_RETURN(int64_t start, ParseId(text.substr(0, comma), "incremental-between"));
  FRESHET_ASSIGN_OR_RETURN(int64_t end, ParseId(text.substr(comma + 1), "incremental-between"));
  if (end < start) {
    return Status::Invalid("incremental-between '", text, "': the ending snapshot ", end,
                           " is before the starting snapshot ", start);
  }
  return std::make_pair(start, end);
}

Result<StreamScanOptions> ResolveStreamScanOptions(StreamScanOptions given,
                                                   const meta::TableSchema& schema,
                                                   const meta::TagManager* tags) {
  const bool names_nothing = given.mode == StartupMode::kDefault && !given.snapshot_id &&
                             !given.timestamp_millis && !given.incremental_between &&
                             !given.incremental_between_timestamps && given.tag_name.empty();
  if (names_nothing) {
    if (auto mode = RawOption(schema, "scan.mode")) {
      FRESHET_ASSIGN_OR_RETURN(given.mode, ParseStartupMode(*mode));
    }
    if (auto id = RawOption(schema, "scan.snapshot-id")) {
      FRESHET_ASSIGN_OR_RETURN(given.snapshot_id, ParseId(*id, "scan.snapshot-id"));
    }
    if (auto millis = RawOption(schema, "scan.timestamp-millis")) {
      FRESHET_ASSIGN_OR_RETURN(given.timestamp_millis, ParseId(*millis, "scan.timestamp-millis"));
    }
    if (auto tag = RawOption(schema, "scan.tag-name")) given.tag_name = *tag;
    if (auto times = RawOption(schema, "incremental-between-timestamp")) {
      FRESHET_ASSIGN_OR_RETURN(given.incremental_between_timestamps,
                               ParseIncrementalBetweenTimestamps(*times));
    }
    if (auto between = RawOption(schema, "incremental-between")) {
      FRESHET_ASSIGN_OR_RETURN(
          given.incremental_between,
          ParseIncrementalBetween(*between, tags, &given.incremental_between_tags));
    }
  }
  // CoreOptions.startupMode(): what `default` means.
  if (given.mode == StartupMode::kDefault) {
    if (given.timestamp_millis) {
      given.mode = StartupMode::kFromTimestamp;
    } else if (given.snapshot_id || !given.tag_name.empty()) {
      given.mode = StartupMode::kFromSnapshot;
    } else if (given.incremental_between || given.incremental_between_timestamps) {
      given.mode = StartupMode::kIncremental;
    } else {
      given.mode = StartupMode::kLatestFull;
    }
  }
  switch (given.mode) {
    case StartupMode::kFromSnapshot:
    case StartupMode::kFromSnapshotFull:
      if (!given.tag_name.empty()) {
        if (given.snapshot_id) {
          return Status::Invalid("a read names a tag (scan.tag-name) or a snapshot, not both");
        }
        if (given.streaming) {
          // AbstractDataTableScan: "Cannot scan from tag in streaming mode."
          return Status::Invalid("scan.tag-name is a batch read, not a streaming one");
        }
        break;
      }
      if (!given.snapshot_id) {
        return Status::Invalid("scan.mode ", StartupModeName(given.mode),
                               " needs scan.snapshot-id");
      }
      break;
    case StartupMode::kFromTimestamp:
      if (!given.timestamp_millis) {
        return Status::Invalid("scan.mode from-timestamp needs scan.timestamp-millis");
      }
      break;
    case StartupMode::kIncremental:
      if (!given.incremental_between && !given.incremental_between_timestamps) {
        return Status::Invalid(
            "scan.mode incremental needs incremental-between or incremental-between-timestamp");
      }
      if (given.streaming) {
        // AbstractDataTableScan: "Cannot read incremental in streaming mode."
        return Status::Invalid("incremental-between is a batch read, not a streaming one");
      }
      break;
    default:
      break;
  }
  return given;
}

StreamScan::StreamScan(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                       meta::TableSchema schema, StreamScanOptions options)
    : file_io_(std::move(file_io)),
      table_path_(std::move(table_path)),
      schema_(std::move(schema)),
      options_(std::move(options)) {}

Result<StreamScan> StreamScan::Make(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                                    meta::TableSchema schema, StreamScanOptions options) {
  const meta::TagManager tags(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(options, ResolveStreamScanOptions(std::move(options), schema, &tags));
  FRESHET_ASSIGN_OR_RETURN(std::string producer,
                           meta::GetStringOption(schema.options(), "changelog-producer"));
  // DataTableStreamScan follows the changelog when the table has a producer; an incremental read
  // reads it in scan mode auto (with a producer) or changelog.
  bool read_changelog = producer != "none";
  bool read_diff = false;
  if (options.mode == StartupMode::kIncremental) {
    std::string scan_mode =
        RawOption(schema, "incremental-between-scan-mode").value_or(std::string("auto"));
    for (char& c : scan_mode) c = static_cast<char>(std::tolower(c));
    if (scan_mode != "auto" && scan_mode != "delta" && scan_mode != "changelog" &&
        scan_mode != "diff") {
      return Status::Invalid("incremental-between-scan-mode '", scan_mode,
                             "': must be auto, delta, changelog or diff");
    }
    if (scan_mode != "auto") read_changelog = scan_mode == "changelog";
    // Two tags are read as a diff (IncrementalDiffStartingScanner.betweenTags) unless
    // incremental-between-tag-to-snapshot asks for the changes between their snapshots.
    std::string to_snapshot =
        RawOption(schema, "incremental-between-tag-to-snapshot").value_or("false");
    for (char& c : to_snapshot) c = static_cast<char>(std::tolower(c));
    read_diff = scan_mode == "diff" || (options.incremental_between_tags && to_snapshot != "true");
  }
  StreamScan scan(std::move(file_io), std::move(table_path), std::move(schema), std::move(options));
  scan.changelog_producer_ = producer;
  scan.read_changelog_ = read_changelog;
  scan.read_diff_ = read_diff;
  scan.read_overwrite_ = IsTrue(RawOption(scan.schema_, "streaming-read-overwrite"));
  if (scan.options_.mode == StartupMode::kLatest && scan.options_.streaming) {
    meta::SnapshotManager snapshots(scan.file_io_, scan.table_path_);
    FRESHET_ASSIGN_OR_RETURN(scan.latest_at_start_, snapshots.LatestSnapshotId());
  }
  return scan;
}

Result<StreamScan::Step> StreamScan::Next() {
  if (finished_) return Step{State::kFinished, std::nullopt};
  if (!started_) return StartingPlan();
  return FollowUpPlan();
}

Result<bool> StreamScan::HasNewSnapshot() const {
  if (finished_) return true;
  meta::SnapshotManager snapshots(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestSnapshotId());
  if (!latest) return false;
  if (!started_ || !next_snapshot_id_) return true;
  return *latest >= *next_snapshot_id_;
}

Result<StreamScan::Step> StreamScan::StartingPlan() {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  const StreamScanOptions& o = options_;
  // A full plan of `snapshot`, after which the follow-up plans start at the next snapshot.
  auto full_then_follow = [&](const meta::Snapshot& snapshot) -> Result<Step> {
    FRESHET_ASSIGN_OR_RETURN(StreamPlan plan, FullPlan(snapshot));
    started_ = true;
    next_snapshot_id_ = snapshot.id + 1;
    if (!o.streaming || (o.end_snapshot_id && snapshot.id >= *o.end_snapshot_id)) {
      finished_ = true;
    }
    return Step{State::kPlan, std::move(plan)};
  };
  auto follow_from = [&](int64_t next) -> Result<Step> {
    started_ = true;
    next_snapshot_id_ = next;
    return FollowUpPlan();
  };
  auto no_snapshot_yet = [&]() -> Result<Step> {
    if (!o.streaming) {  // a batch read of a table without snapshots is empty
      finished_ = true;
      return Step{State::kFinished, std::nullopt};
    }
    return Step{State::kNoSnapshotYet, std::nullopt};
  };

  switch (o.mode) {
    case StartupMode::kDefault:  // resolved in Make
    case StartupMode::kLatestFull:
    case StartupMode::kLatest: {
      FRESHET_ASSIGN_OR_RETURN(std::optional<meta::Snapshot> latest, snapshots.LatestSnapshot());
      if (!latest) return no_snapshot_yet();
      if (o.mode == StartupMode::kLatest && o.streaming) {
        // ContinuousLatestStartingScanner: a table that had no snapshot when the read began has
        // every snapshot read as a change.
        if (!latest_at_start_) {
          FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
          return follow_from(earliest.value_or(1));
        }
        return follow_from(latest->id + 1);
      }
      return full_then_follow(*latest);
    }
    case StartupMode::kFromSnapshot:
    case StartupMode::kFromSnapshotFull: {
      if (!o.tag_name.empty()) {
        // StaticFromTagStartingScanner: a full plan of the tag's snapshot (batch only).
        FRESHET_ASSIGN_OR_RETURN(meta::Tag tag,
                                 meta::TagManager(file_io_, table_path_).GetOrError(o.tag_name));
        return full_then_follow(tag.snapshot);
      }
      if (!o.streaming) {
        // StaticFromSnapshotStartingScanner: a full plan of that snapshot.
        FRESHET_ASSIGN_OR_RETURN(meta::Snapshot snapshot, snapshots.ReadSnapshot(*o.snapshot_id));
        return full_then_follow(snapshot);
      }
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
      if (!earliest) return no_snapshot_yet();
      if (read_changelog_ && o.mode == StartupMode::kFromSnapshot) {
        // ContinuousFromSnapshotStartingScanner: kept changelog of expired snapshots counts.
        FRESHET_ASSIGN_OR_RETURN(auto kept, meta::LongLivedChangelogIds(*file_io_, table_path_));
        if (!kept.empty()) earliest = std::min(*earliest, kept.front());
      }
      // An expired start reads from the earliest snapshot, as Java does.
      int64_t start = std::max(*o.snapshot_id, *earliest);
      if (o.mode == StartupMode::kFromSnapshot) return follow_from(start);
      FRESHET_ASSIGN_OR_RETURN(meta::Snapshot snapshot, snapshots.ReadSnapshot(start));
      return full_then_follow(snapshot);
    }
    case StartupMode::kFromTimestamp: {
      const int64_t millis = *o.timestamp_millis;
      if (!o.streaming) {
        FRESHET_ASSIGN_OR_RETURN(std::optional<meta::Snapshot> at,
                                 snapshots.SnapshotAtOrBefore(millis));
        if (!at) {
          return Status::NotFound("table '", table_path_, "' has no snapshot at or before ", millis,
                                  " ms");
        }
        return full_then_follow(*at);
      }
      // ContinuousFromTimestampStartingScanner: the changes of the snapshots committed at or
      // after the time, i.e. from the one after the newest committed before it.
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestSnapshotId());
      if (!earliest || !latest) return no_snapshot_yet();
      int64_t before = *earliest - 1;
      for (int64_t id = *latest; id >= *earliest; --id) {
        FRESHET_ASSIGN_OR_RETURN(meta::Snapshot s, snapshots.ReadSnapshot(id));
        if (s.time_millis < millis) {
          before = id;
          break;
        }
      }
      return follow_from(before + 1);
    }
    case StartupMode::kIncremental: {
      if (!o.incremental_between) return TimestampRangePlan();
      auto [start, end] = *o.incremental_between;
      started_ = true;
      finished_ = true;
      next_snapshot_id_ = end + 1;
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestSnapshotId());
      if (start == end || (!read_diff_ && (!earliest || !latest))) {
        return Step{State::kPlan, StreamPlan{StreamPlan::Kind::kDelta, end, {}, {}}};
      }
      if (read_diff_) {
        FRESHET_ASSIGN_OR_RETURN(StreamPlan plan, DiffPlan(start, end));
        return Step{State::kPlan, std::move(plan)};
      }
      // IncrementalDeltaStartingScanner.betweenSnapshotIds: the start may be one before the
      // earliest (it is exclusive).
      if (start < *earliest - 1 || end > *latest) {
        return Status::Invalid("incremental-between ", start, ",", end,
                               " is out of the table's snapshot range [", *earliest, ", ", *latest,
                               "]");
      }
      FRESHET_ASSIGN_OR_RETURN(StreamPlan plan, IncrementalPlan(start, end));
      return Step{State::kPlan, std::move(plan)};
    }
  }
  return Status::Internal("unknown scan mode");
}

Result<StreamScan::Step> StreamScan::TimestampRangePlan() {
  auto [start_millis, end_millis] = *options_.incremental_between_timestamps;
  meta::SnapshotManager snapshots(file_io_, table_path_);
  started_ = true;
  finished_ = true;
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest_id, snapshots.EarliestSnapshotId());
  std::optional<meta::Snapshot> earliest;
  if (earliest_id) {
    FRESHET_ASSIGN_OR_RETURN(earliest, snapshots.ReadSnapshot(*earliest_id));
  }
  FRESHET_ASSIGN_OR_RETURN(std::optional<meta::Snapshot> latest, snapshots.LatestSnapshot());
  auto empty = [&](int64_t end) {
    next_snapshot_id_ = end + 1;
    return Step{State::kPlan, StreamPlan{StreamPlan::Kind::kDelta, end, {}, {}}};
  };
  if (!earliest || !latest) return empty(0);
  if (start_millis == end_millis || start_millis > latest->time_millis ||
      end_millis < earliest->time_millis) {
    return empty(latest->id);
  }
  FRESHET_ASSIGN_OR_RETURN(auto at_start, snapshots.SnapshotAtOrBefore(start_millis));
  FRESHET_ASSIGN_OR_RETURN(auto at_end, snapshots.SnapshotAtOrBefore(end_millis));
  const int64_t end = at_end ? at_end->id : latest->id;
  next_snapshot_id_ = end + 1;
  if (read_diff_) {
    // IncrementalDiffStartingScanner.betweenTimestamps of the releases (1.3 to 2.0): a start
    // before the earliest snapshot diffs from the earliest (Java's unreleased master reads the
    // end whole instead when the history starts at snapshot 1).
    const int64_t start = at_start ? at_start->id : earliest->id;
    FRESHET_ASSIGN_OR_RETURN(StreamPlan plan, DiffPlan(start, end));
    return Step{State::kPlan, std::move(plan)};
  }
  // IncrementalDeltaStartingScanner.betweenTimestamps: a start before the earliest snapshot
  // includes it.
  const int64_t start =
      !at_start || earliest->time_millis > start_millis ? earliest->id - 1 : at_start->id;
  if (start >= end) return empty(end);
  FRESHET_ASSIGN_OR_RETURN(StreamPlan plan, IncrementalPlan(start, end));
  return Step{State::kPlan, std::move(plan)};
}

Result<StreamScan::Step> StreamScan::FollowUpPlan() {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  while (true) {
    const int64_t id = *next_snapshot_id_;
    if (options_.end_snapshot_id && id > *options_.end_snapshot_id) {
      finished_ = true;
      return Step{State::kFinished, std::nullopt};
    }
    FRESHET_ASSIGN_OR_RETURN(bool exists, file_io_->Exists(snapshots.SnapshotPath(id)));
    if (!exists && read_changelog_) {
      // An expired snapshot whose changelog the table keeps (NextSnapshotFetcher).
      FRESHET_ASSIGN_OR_RETURN(auto changelog,
                               meta::ReadLongLivedChangelog(*file_io_, table_path_, id));
      if (changelog) {
        ++*next_snapshot_id_;
        FRESHET_ASSIGN_OR_RETURN(StreamPlan plan, DeltaPlan(*changelog));
        if (!plan.splits.empty()) return Step{State::kPlan, std::move(plan)};
        continue;
      }
    }
    if (!exists) {
      FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestSnapshotId());
      if (earliest && *earliest > id) {
        // NextSnapshotFetcher: the snapshot expired before the read reached it.
        return Status::NotFound("snapshot ", id, " of table '", table_path_,
                                "' expired before the streaming read reached it (the earliest "
                                "is ",
                                *earliest, ")");
      }
      return Step{State::kNoSnapshotYet, std::nullopt};
    }
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot snapshot, snapshots.ReadSnapshot(id));
    ++*next_snapshot_id_;
    std::optional<StreamPlan> plan;
    if (read_changelog_ &&
        (snapshot.commit_kind != meta::CommitKind::kOverwrite || !read_overwrite_)) {
      // ChangelogFollowUpScanner: every snapshot with changelog files, whatever its kind.
      FRESHET_ASSIGN_OR_RETURN(plan, DeltaPlan(snapshot));
      if (!plan->splits.empty()) return Step{State::kPlan, std::move(plan)};
      continue;
    }
    switch (snapshot.commit_kind) {
      case meta::CommitKind::kAppend: {  // DeltaFollowUpScanner: APPEND snapshots only
        FRESHET_ASSIGN_OR_RETURN(plan, DeltaPlan(snapshot));
        break;
      }
      case meta::CommitKind::kOverwrite:
        // DataTableStreamScan.handleOverwriteSnapshot: with streaming-read-overwrite, an append
        // table's overwrite is read as its delta (the files it added); a primary-key table's as
        // the difference of the overwritten buckets (not implemented). Skipped otherwise.
        if (read_overwrite_) {
          if (!schema_.primary_keys().empty()) {
            return Status::NotImplemented(
                "streaming-read-overwrite on a primary-key table (snapshot ", id,
                " overwrites): freshet does not compute overwrite changes yet");
          }
          FRESHET_ASSIGN_OR_RETURN(plan, DeltaPlan(snapshot));
        }
        break;
      default:  // COMPACT rewrites rows already read; ANALYZE adds statistics
        break;
    }
    if (plan && !plan->splits.empty()) return Step{State::kPlan, std::move(plan)};
  }
}

Result<StreamPlan> StreamScan::FullPlan(const meta::Snapshot& snapshot) const {
  TableScan scan(file_io_, table_path_);
  ScanOptions scan_options;
  if (options_.tag_name.empty()) {
    scan_options.snapshot_id = snapshot.id;
  } else {
    scan_options.snapshot = std::make_shared<const meta::Snapshot>(snapshot);  // may have expired
  }
  scan_options.predicate = options_.predicate;
  scan_options.read_level0 = options_.streaming;
  FRESHET_ASSIGN_OR_RETURN(ScanPlan full, scan.Plan(scan_options));
  if (!options_.streaming) {
    return StreamPlan{StreamPlan::Kind::kFull, snapshot.id, std::move(full.splits), {}};
  }
  FRESHET_ASSIGN_OR_RETURN(auto read_level, StartingLevels());
  std::vector<DataSplit> splits;
  for (DataSplit& split : full.splits) {
    auto unread = std::remove_if(split.files.begin(), split.files.end(),
                                 [&](const meta::DataFileMeta& f) { return !read_level(f.level); });
    split.files.erase(unread, split.files.end());
    if (!split.files.empty()) splits.push_back(std::move(split));
  }
  return StreamPlan{StreamPlan::Kind::kFull, snapshot.id, std::move(splits), {}};
}

Result<std::function<bool(int32_t)>> StreamScan::StartingLevels() const {
  // Level-0 files of `lookup` tables, and everything below the highest level of
  // `full-compaction` tables, are described by changelog still to come.
  if (changelog_producer_ == "lookup")
    return std::function<bool(int32_t)>([](int32_t l) { return l > 0; });
  if (changelog_producer_ != "full-compaction") {
    return std::function<bool(int32_t)>([](int32_t) { return true; });
  }
  // Java's CoreOptions.numLevels(): num-levels, else num-sorted-run.compaction-trigger + 1.
  FRESHET_ASSIGN_OR_RETURN(auto levels, meta::LookupOption(schema_.options(), "num-levels"));
  int64_t num_levels = 0;
  if (levels) {
    num_levels = levels->number;
  } else {
    FRESHET_ASSIGN_OR_RETURN(
        int32_t trigger,
        meta::GetIntOption(schema_.options(), "num-sorted-run.compaction-trigger"));
    num_levels = static_cast<int64_t>(trigger) + 1;
  }
  const int64_t top = num_levels - 1;
  return std::function<bool(int32_t)>([top](int32_t l) { return l == top; });
}

Result<std::vector<std::string>> StreamScan::ChangeManifestLists(
    const meta::Snapshot& snapshot) const {
  if (!read_changelog_) return std::vector<std::string>{snapshot.delta_manifest_list};
  if (!snapshot.changelog_manifest_list) return std::vector<std::string>{};
  return std::vector<std::string>{*snapshot.changelog_manifest_list};
}

Result<StreamPlan> StreamScan::DeltaPlan(const meta::Snapshot& snapshot) const {
  FRESHET_ASSIGN_OR_RETURN(auto lists, ChangeManifestLists(snapshot));
  FRESHET_ASSIGN_OR_RETURN(auto splits, AddedFileSplits({{snapshot.id, std::move(lists)}}));
  return StreamPlan{StreamPlan::Kind::kDelta, snapshot.id, std::move(splits), {}};
}

Result<StreamPlan> StreamScan::IncrementalPlan(int64_t start_exclusive,
                                               int64_t end_inclusive) const {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  std::vector<std::pair<int64_t, std::vector<std::string>>> lists;
  for (int64_t id = start_exclusive + 1; id <= end_inclusive; ++id) {
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot snapshot, snapshots.ReadSnapshot(id));
    // ScanMode.DELTA: COMPACT and OVERWRITE snapshots are left out; CHANGELOG: OVERWRITE ones.
    if (snapshot.commit_kind == meta::CommitKind::kOverwrite) continue;
    if (!read_changelog_ && snapshot.commit_kind != meta::CommitKind::kAppend) continue;
    FRESHET_ASSIGN_OR_RETURN(auto of_snapshot, ChangeManifestLists(snapshot));
    lists.emplace_back(id, std::move(of_snapshot));
  }
  FRESHET_ASSIGN_OR_RETURN(auto splits, AddedFileSplits(lists));
  return StreamPlan{StreamPlan::Kind::kDelta, end_inclusive, std::move(splits), {}};
}

namespace {

// The files of one partition-bucket on the two sides of a diff.
struct DiffSides {
  DataSplit before;
  DataSplit after;
};

void AddFile(DataSplit* side, const DataSplit& from, size_t i) {
  side->snapshot_id = from.snapshot_id;
  side->partition = from.partition;
  side->bucket = from.bucket;
  side->total_buckets = from.total_buckets;
  side->files.push_back(from.files[i]);
  side->deletion_files.push_back(from.deletion_files.empty() ? std::nullopt
                                                             : from.deletion_files[i]);
}

// Drops the files both sides hold (Java's deduplicate: the same file at the same level), and
// the deletion-file vector of a side that has none.
void DropCommonFiles(DiffSides* sides) {
  auto identity = [](const meta::DataFileMeta& f) {
    return f.file_name + '\n' + std::to_string(f.level);
  };
  std::set<std::string> before, after;
  for (const auto& f : sides->before.files) before.insert(identity(f));
  for (const auto& f : sides->after.files) after.insert(identity(f));
  for (auto [side, other] :
       {std::pair{&sides->before, &after}, std::pair{&sides->after, &before}}) {
    DataSplit kept = *side;
    kept.files.clear();
    kept.deletion_files.clear();
    for (size_t i = 0; i < side->files.size(); ++i) {
      if (!other->count(identity(side->files[i]))) AddFile(&kept, *side, i);
    }
    const bool any_deletion = std::any_of(kept.deletion_files.begin(), kept.deletion_files.end(),
                                          [](const auto& d) { return d.has_value(); });
    if (!any_deletion) kept.deletion_files.clear();
    *side = std::move(kept);
  }
}

}  // namespace

Result<StreamPlan> StreamScan::DiffPlan(int64_t start, int64_t end) const {
  const meta::TagManager tags(file_io_, table_path_);
  std::map<std::pair<std::string, int32_t>, DiffSides> buckets;
  for (const bool is_after : {false, true}) {
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot snapshot, tags.FindSnapshot(is_after ? end : start));
    ScanOptions scan_options;
    scan_options.snapshot = std::make_shared<const meta::Snapshot>(std::move(snapshot));
    scan_options.predicate = options_.predicate;
    scan_options.read_level0 = true;  // ScanMode.ALL: every file of each bucket
    FRESHET_ASSIGN_OR_RETURN(ScanPlan plan, TableScan(file_io_, table_path_).Plan(scan_options));
    for (const DataSplit& split : plan.splits) {
      DiffSides& sides = buckets[{split.partition, split.bucket}];
      for (size_t i = 0; i < split.files.size(); ++i) {
        AddFile(is_after ? &sides.after : &sides.before, split, i);
      }
    }
  }
  StreamPlan plan{StreamPlan::Kind::kDiff, end, {}, {}};
  const bool primary_key = !schema_.primary_keys().empty();
  if (!primary_key) plan.kind = StreamPlan::Kind::kDelta;  // RawFileSplitRead: the after files
  for (auto& [key, sides] : buckets) {
    DropCommonFiles(&sides);
    if (sides.after.files.empty() && (!primary_key || sides.before.files.empty())) continue;
    // A side without files still names its bucket.
    for (DataSplit* side : {&sides.before, &sides.after}) {
      side->snapshot_id = end;
      side->partition = key.first;
      side->bucket = key.second;
    }
    plan.splits.push_back(std::move(sides.after));
    if (primary_key) plan.before_splits.push_back(std::move(sides.before));
  }
  return plan;
}

Result<std::vector<DataSplit>> StreamScan::AddedFileSplits(
    const std::vector<std::pair<int64_t, std::vector<std::string>>>& lists) const {
  meta::ManifestFile manifests(file_io_, table_path_);
  std::map<std::pair<std::string, int32_t>, size_t> index;
  std::vector<DataSplit> splits;
  for (const auto& [snapshot_id, of_snapshot] : lists) {
    FRESHET_ASSIGN_OR_RETURN(auto entries, meta::ReadEntriesOfLists(manifests, of_snapshot));
    for (meta::ManifestEntry& entry : entries) {
      if (entry.kind != meta::FileKind::kAdd) continue;
      if (options_.predicate) {
        FRESHET_ASSIGN_OR_RETURN(Outcomes outcomes,
                                 EvaluatePartition(*options_.predicate, entry.partition));
        if (!(outcomes & kTrue)) continue;
      }
      auto [it, inserted] =
          index.emplace(std::make_pair(entry.partition, entry.bucket), splits.size());
      if (inserted) {
        splits.push_back(
            DataSplit{snapshot_id, entry.partition, entry.bucket, entry.total_buckets, {}, {}});
      }
      splits[it->second].snapshot_id = snapshot_id;
      splits[it->second].files.push_back(std::move(entry.file));
    }
  }
  return splits;
}

}  // namespace freshet::scan
