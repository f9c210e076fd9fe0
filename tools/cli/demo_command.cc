// freshet demo: the README's first command, a live tour of the real-time layer.
//
// It creates an append table with `realtime.enabled` = true in a local warehouse and runs three
// threads for a few seconds: one ingests a synthetic event stream, one commits every few seconds,
// one queries a few times per second. A status line shows rows ingested, committed and visible
// (committed files + rows still in memory) and how soon a written row becomes visible. At the end
// a final commit must leave every ingested row in the table's committed files, which the demo
// checks by reading them back without the in-memory rows.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <stop_token>
#include <thread>

#include "cli/arrow_batches.h"
#include "cli/cli.h"
#include "freshet/realtime/realtime_context.h"
#include "freshet/table.h"
#include "textrows/columns.h"
#include "textrows/json_rows.h"

namespace freshet::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// ---------------------------------------------------------------------------------------------
// What the demo does, and how fast.

constexpr char kTableDir[] = "demo.db/realtime_events";
// Marks the table as the demo's own: a rerun deletes the table only when it carries this comment.
constexpr char kTableComment[] = "freshet demo table, recreated by every run of `freshet demo`";
constexpr int64_t kRowsPerSecond = 25000;
constexpr int64_t kBatchRows = 250;  // 100 small batches a second
constexpr auto kCommitInterval = std::chrono::seconds(3);
constexpr auto kQueryInterval = milliseconds(250);
constexpr auto kDrainTimeout = std::chrono::seconds(3);  // for queries after ingestion stops

// clang-format off
constexpr char kSchemaTemplate[] = R"json({
  "fields": [
    {"name": "event_id", "type": "BIGINT NOT NULL"},
    {"name": "event_time", "type": "TIMESTAMP(3)"},
    {"name": "user_id", "type": "BIGINT"},
    {"name": "kind", "type": "STRING"},
    {"name": "amount", "type": "DECIMAL(10, 2)"},
    {"name": "dt", "type": "STRING"}
  ],
  "partitionKeys": ["dt"],
  "comment": "%s",
  "options": {"bucket": "4", "bucket-key": "user_id", "file.format": "parquet",
              "realtime.enabled": "true"}
})json";
// clang-format on

struct DemoConfig {
  std::string table_path;  // absolute
  int64_t seconds = 10;
};

Result<DemoConfig> ParseConfig(const Args& args) {
  DemoConfig config;
  std::string warehouse = args.Get("warehouse").value_or("warehouse");
  config.table_path = (fs::absolute(warehouse) / kTableDir).lexically_normal().string();
  FRESHET_ASSIGN_OR_RETURN(config.seconds, args.GetInt("seconds", 10));
  if (config.seconds < 1 || config.seconds > 3600) {
    return Status::Invalid("--seconds must be between 1 and 3600, not ", config.seconds);
  }
  return config;
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

double Millis(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// 1234567 -> "1,234,567".
std::string Thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// Sleeps until `deadline`; returns false at once when a stop is requested.
bool SleepUntil(const std::stop_token& stop, Clock::time_point deadline) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_until(lock, stop, deadline, [] { return false; });
  return !stop.stop_requested();
}

// How to call this binary again: relative to the working directory when it lies below it.
std::string SelfCommand() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "freshet";
  fs::path relative = self.lexically_relative(fs::current_path(ec));
  if (!ec && !relative.empty() && *relative.begin() != "..") return relative.string();
  return self.string();
}

// The first error of any demo thread; the other threads see it and stop.
class FirstError {
 public:
  void Set(const Status& status) {
    std::lock_guard lock(mu_);
    if (status_.ok()) status_ = status;
    failed_ = true;
  }
  bool failed() const { return failed_; }
  Status status() const {
    std::lock_guard lock(mu_);
    return status_;
  }

 private:
  mutable std::mutex mu_;
  Status status_;
  std::atomic<bool> failed_{false};
};

// ---------------------------------------------------------------------------------------------
// The table.

// Deletes what a previous demo run left at `path`, and nothing else: anything there that is not
// a table carrying the demo's comment is left alone and reported.
Status RemovePreviousDemoTable(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::OK();
  bool ours = false;
  {
    auto table = Table::Open(path);  // released before the directory is deleted
    ours = table.ok() && (*table)->Schema().comment == kTableComment;
  }
  if (!ours) {
    return Status::AlreadyExists("'", path,
                                 "' exists and is not a table made by freshet demo; it was left "
                                 "as it is, pass another --warehouse");
  }
  fs::remove_all(path, ec);
  if (ec) {
    return Status::IOError("cannot delete the previous demo table '", path, "': ", ec.message());
  }
  return Status::OK();
}

Result<std::shared_ptr<Table>> CreateDemoTable(const std::string& path) {
  FRESHET_RETURN_NOT_OK(RemovePreviousDemoTable(path));
  char spec[2048];
  std::snprintf(spec, sizeof(spec), kSchemaTemplate, kTableComment);
  return Table::Create(path, spec);
}

Result<std::shared_ptr<arrow::Schema>> TableArrowSchema(const Table& table) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(table.ExportArrowSchema(&c_schema));
  return FromArrowResult(arrow::ImportSchema(&c_schema));
}

// Rows in the files of a snapshot (its total record count), remembered per snapshot.
class SnapshotSizes {
 public:
  Result<int64_t> RowsIn(const Table& table, std::optional<int64_t> snapshot) {
    if (!snapshot) return 0;
    if (rows_.count(*snapshot) == 0) {
      FRESHET_ASSIGN_OR_RETURN(auto snapshots, table.Snapshots());
      for (const SnapshotInfo& s : snapshots) rows_[s.id] = s.total_record_count;
    }
    auto it = rows_.find(*snapshot);
    if (it == rows_.end()) return Status::NotFound("snapshot ", *snapshot, " is not listed");
    return it->second;
  }

 private:
  std::map<int64_t, int64_t> rows_;
};

// ---------------------------------------------------------------------------------------------
// The event stream: event_id counts up from 0, event_time is now, dt is today (UTC).

class EventSource {
 public:
  explicit EventSource(std::shared_ptr<arrow::Schema> schema) : schema_(std::move(schema)) {}

  int64_t next_id() const { return next_id_; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next(int64_t rows) {
    const auto now = std::chrono::system_clock::now();
    const int64_t now_ms = std::chrono::duration_cast<milliseconds>(now.time_since_epoch()).count();
    const std::string day = UtcDay(now);
    auto* pool = arrow::default_memory_pool();
    arrow::Int64Builder ids, users;
    arrow::TimestampBuilder times(schema_->GetFieldByName("event_time")->type(), pool);
    arrow::StringBuilder kinds, days;
    arrow::Decimal128Builder amounts(schema_->GetFieldByName("amount")->type(), pool);
    arrow::Status st;
    for (int64_t i = 0; i < rows; ++i) {
      const Kind& kind = PickKind();
      st &= ids.Append(next_id_++);
      st &= times.Append(now_ms);
      st &= users.Append(user_(random_));
      st &= kinds.Append(kind.name);
      st &= kind.buys ? amounts.Append(arrow::Decimal128(cents_(random_))) : amounts.AppendNull();
      st &= days.Append(day);
    }
    std::vector<std::shared_ptr<arrow::Array>> columns(6);
    st &= ids.Finish(&columns[0]);
    st &= times.Finish(&columns[1]);
    st &= users.Finish(&columns[2]);
    st &= kinds.Finish(&columns[3]);
    st &= amounts.Finish(&columns[4]);
    st &= days.Finish(&columns[5]);
    FRESHET_RETURN_NOT_OK(FromArrowStatus(st));
    return arrow::RecordBatch::Make(schema_, rows, std::move(columns));
  }

 private:
  struct Kind {
    const char* name;
    int percent;
    bool buys;  // has an amount
  };

  const Kind& PickKind() {
    static const Kind kKinds[] = {
        {"view", 70, false}, {"click", 20, false}, {"add_to_cart", 7, true}, {"purchase", 3, true}};
    int roll = percent_(random_);
    for (const Kind& kind : kKinds) {
      if (roll < kind.percent) return kind;
      roll -= kind.percent;
    }
    return kKinds[0];
  }

  static std::string UtcDay(std::chrono::system_clock::time_point at) {
    std::time_t t = std::chrono::system_clock::to_time_t(at);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char day[16];
    std::strftime(day, sizeof(day), "%Y-%m-%d", &tm);
    return day;
  }

  std::shared_ptr<arrow::Schema> schema_;
  std::mt19937_64 random_{20261130};
  std::uniform_int_distribution<int> percent_{0, 99};
  std::uniform_int_distribution<int64_t> user_{1, 50000};
  std::uniform_int_distribution<int64_t> cents_{199, 29999};
  int64_t next_id_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Queries: count the rows of the table (by event_id) as a reader returns them.

struct SeenRow {
  int64_t id;
  Clock::time_point at;  // when the reader returned the batch holding it
};

struct QueryResult {
  int64_t rows = 0;
  int64_t id_sum = 0;  // with ids 0..n-1 exactly once, n(n-1)/2: none missing, none twice
  int64_t newest_id = -1;
  std::optional<int64_t> snapshot_id;
  std::vector<SeenRow> tracked;  // the rows with id >= the query's track_from
};

Result<QueryResult> QueryEvents(const Table& table, bool include_uncommitted,
                                int64_t track_from = std::numeric_limits<int64_t>::max()) {
  ReadOptions options;
  options.columns = {"event_id"};
  options.include_uncommitted = include_uncommitted;
  FRESHET_ASSIGN_OR_RETURN(auto reader, table.NewReader(options));
  QueryResult result;
  result.snapshot_id = reader->snapshot_id();
  FRESHET_ASSIGN_OR_RETURN(auto batches, BatchStream::Open(std::move(reader)));
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, batches->Next());
    if (!batch) break;
    const auto at = Clock::now();
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t i = 0; i < ids.length(); ++i) {
      const int64_t id = ids.Value(i);
      result.id_sum += id;
      result.newest_id = std::max(result.newest_id, id);
      if (id >= track_from) result.tracked.push_back({id, at});
    }
    result.rows += batch->num_rows();
  }
  return result;
}

int64_t ExpectedIdSum(int64_t rows) { return rows * (rows - 1) / 2; }

Result<std::shared_ptr<arrow::RecordBatch>> ReadBatch(const Table& table,
                                                      const ReadOptions& options) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, table.NewReader(options));
  FRESHET_ASSIGN_OR_RETURN(auto batches, BatchStream::Open(std::move(reader)));
  std::vector<std::shared_ptr<arrow::RecordBatch>> collected;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, batches->Next());
    if (!batch) break;
    collected.push_back(std::move(batch));
  }
  FRESHET_ASSIGN_OR_RETURN(auto combined, FromArrowResult(arrow::Table::FromRecordBatches(
                                              batches->schema(), collected)));
  return FromArrowResult(combined->CombineChunksToBatch());
}

// ---------------------------------------------------------------------------------------------
// Write-to-visible latency. The first row of every written batch is a marker: the writer notes
// when its Write started, and the first query that returns it notes when it saw it.

struct LatencyFigures {
  int64_t markers = 0;  // seen so far
  double p50_ms = 0;
  double max_ms = 0;
};

class LatencyTracker {
 public:
  void WriteStarting(int64_t marker_id, Clock::time_point at) {
    std::lock_guard lock(mu_);
    pending_.emplace(marker_id, at);
    last_marker_ = marker_id;
  }

  // The smallest id a query that starts now must look out for: every marker it can see is at
  // or above it (markers registered later have higher ids).
  int64_t TrackFrom() const {
    std::lock_guard lock(mu_);
    return pending_.empty() ? last_marker_ + 1 : pending_.begin()->first;
  }

  void Seen(const std::vector<SeenRow>& rows) {
    std::lock_guard lock(mu_);
    for (const SeenRow& row : rows) {
      auto it = pending_.find(row.id);
      if (it == pending_.end()) continue;
      latencies_ms_.push_back(Millis(row.at - it->second));
      pending_.erase(it);
    }
  }

  size_t pending() const {
    std::lock_guard lock(mu_);
    return pending_.size();
  }

  LatencyFigures Figures() const {
    std::lock_guard lock(mu_);
    LatencyFigures out;
    out.markers = static_cast<int64_t>(latencies_ms_.size());
    if (latencies_ms_.empty()) return out;
    std::vector<double> sorted = latencies_ms_;
    auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
    std::nth_element(sorted.begin(), middle, sorted.end());
    out.p50_ms = *middle;
    out.max_ms = *std::max_element(sorted.begin(), sorted.end());
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::map<int64_t, Clock::time_point> pending_;  // marker id -> when its Write started
  int64_t last_marker_ = -1;
  std::vector<double> latencies_ms_;
};

// ---------------------------------------------------------------------------------------------
// The three threads.

// Writes kRowsPerSecond events in batches of kBatchRows, paced by the clock.
class Ingestor {
 public:
  Ingestor(std::unique_ptr<TableWriter> writer, EventSource source, LatencyTracker& tracker,
           FirstError& errors)
      : writer_(std::move(writer)),
        source_(std::move(source)),
        tracker_(tracker),
        errors_(errors) {}

  void Run(std::stop_token stop) {
    const auto interval = std::chrono::nanoseconds(1'000'000'000LL * kBatchRows / kRowsPerSecond);
    const auto started = Clock::now();
    auto due = started;
    while (!errors_.failed() && SleepUntil(stop, due)) {
      Status st = IngestOneBatch();
      if (!st.ok()) return errors_.Set(st.WithContext("ingest"));
      seconds_ = std::chrono::duration<double>(Clock::now() - started).count();
      due += interval;
      // A stalled machine resumes the steady rate instead of bursting to catch up.
      due = std::max(due, Clock::now() - std::chrono::seconds(1));
    }
  }

  int64_t rows() const { return rows_; }
  double seconds() const { return seconds_; }  // from the first batch to the end of the last
  int64_t back_pressure_waits() const { return back_pressure_waits_; }

 private:
  Status IngestOneBatch() {
    FRESHET_ASSIGN_OR_RETURN(auto batch, source_.Next(kBatchRows));
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    tracker_.WriteStarting(ids.Value(0), Clock::now());
    FRESHET_RETURN_NOT_OK(WriteWithBackPressure(*batch));
    rows_ += batch->num_rows();
    return Status::OK();
  }

  // Past realtime.memory.hard-limit Write refuses rows until a commit frees memory: wait.
  Status WriteWithBackPressure(const arrow::RecordBatch& batch) {
    while (true) {
      ArrowArray array;
      ArrowSchema schema;
      FRESHET_RETURN_NOT_OK(FromArrowStatus(arrow::ExportRecordBatch(batch, &array, &schema)));
      Status st = writer_->Write(&array, &schema);
      if (!st.IsResourceExhausted() || errors_.failed()) return st;
      ++back_pressure_waits_;
      std::this_thread::sleep_for(milliseconds(10));
    }
  }

  std::unique_ptr<TableWriter> writer_;
  EventSource source_;
  LatencyTracker& tracker_;
  FirstError& errors_;
  std::atomic<int64_t> rows_{0};
  std::atomic<double> seconds_{0};
  std::atomic<int64_t> back_pressure_waits_{0};
};

struct CommitFigures {
  int64_t snapshots = 0;  // commits that made one
  std::optional<int64_t> last_snapshot;
  int64_t rows_committed = 0;
  double min_ms = 0;
  double max_ms = 0;
};

// Commits every kCommitInterval, and once more when asked.
class Committer {
 public:
  Committer(std::unique_ptr<TableWriter> writer, std::shared_ptr<realtime::RealtimeContext> context,
            FirstError& errors)
      : writer_(std::move(writer)), context_(std::move(context)), errors_(errors) {}

  void Run(std::stop_token stop) {
    auto due = Clock::now() + kCommitInterval;
    while (!errors_.failed() && SleepUntil(stop, due)) {
      auto committed = CommitNow();
      if (!committed.ok()) return errors_.Set(committed.status().WithContext("commit"));
      due += kCommitInterval;
    }
  }

  Result<std::optional<int64_t>> CommitNow() {
    const auto started = Clock::now();
    FRESHET_ASSIGN_OR_RETURN(auto snapshot, writer_->Commit());
    const double ms = Millis(Clock::now() - started);
    std::lock_guard lock(mu_);
    if (snapshot) {
      figures_.min_ms = figures_.snapshots == 0 ? ms : std::min(figures_.min_ms, ms);
      figures_.max_ms = std::max(figures_.max_ms, ms);
      ++figures_.snapshots;
      figures_.last_snapshot = snapshot;
    }
    figures_.rows_committed = context_->Usage().rows_committed;
    return snapshot;
  }

  CommitFigures Figures() const {
    std::lock_guard lock(mu_);
    return figures_;
  }

 private:
  std::unique_ptr<TableWriter> writer_;
  std::shared_ptr<realtime::RealtimeContext> context_;
  FirstError& errors_;
  mutable std::mutex mu_;
  CommitFigures figures_;
};

struct QueryFigures {
  int64_t queries = 0;
  int64_t visible = 0;  // rows the last query returned: disk + memory
  int64_t disk = 0;     // of those, in the files of the snapshot it read
  std::optional<int64_t> snapshot;
};

// Queries every kQueryInterval: a count of the visible rows and the newest event, split into
// the rows of the snapshot's files and the rows still in memory.
class Querier {
 public:
  Querier(const Table& table, LatencyTracker& tracker, FirstError& errors)
      : table_(table), tracker_(tracker), errors_(errors) {}

  void Run(std::stop_token stop) {
    auto due = Clock::now();
    while (!errors_.failed() && !Drained() && SleepUntil(stop, due)) {
      Status st = QueryOnce();
      if (!st.ok()) return errors_.Set(st.WithContext("query"));
      due += kQueryInterval;
    }
  }

  // After ingestion stops, queries go on until every marker has been seen (or a timeout).
  void IngestStopped() { ingest_stopped_at_ = Clock::now().time_since_epoch().count(); }

  QueryFigures Figures() const {
    std::lock_guard lock(mu_);
    return figures_;
  }

 private:
  bool Drained() const {
    const int64_t stopped = ingest_stopped_at_;
    if (stopped == 0) return false;
    const auto since = Clock::now() - Clock::time_point(Clock::duration(stopped));
    return tracker_.pending() == 0 || since > kDrainTimeout;
  }

  Status QueryOnce() {
    const int64_t track_from = tracker_.TrackFrom();
    FRESHET_ASSIGN_OR_RETURN(QueryResult result, QueryEvents(table_, true, track_from));
    tracker_.Seen(result.tracked);
    FRESHET_ASSIGN_OR_RETURN(int64_t disk, sizes_.RowsIn(table_, result.snapshot_id));
    if (disk > result.rows) {
      return Status::Internal("a query of snapshot ", result.snapshot_id.value_or(0), " returned ",
                              result.rows, " rows, fewer than its files hold (", disk, ")");
    }
    std::lock_guard lock(mu_);
    figures_ = QueryFigures{figures_.queries + 1, result.rows, disk, result.snapshot_id};
    return Status::OK();
  }

  const Table& table_;
  LatencyTracker& tracker_;
  FirstError& errors_;
  SnapshotSizes sizes_;
  std::atomic<int64_t> ingest_stopped_at_{0};
  mutable std::mutex mu_;
  QueryFigures figures_;
};

// ---------------------------------------------------------------------------------------------
// The live status line.

struct LiveFigures {
  double seconds = 0;
  int64_t ingested = 0;
  CommitFigures commits;
  QueryFigures queries;
  LatencyFigures latency;
};

// One line per second, or on a terminal one line rewritten in place five times a second.
class LivePrinter {
 public:
  LivePrinter() : tty_(isatty(fileno(stdout)) != 0) {}

  Clock::duration interval() const {
    return tty_ ? Clock::duration(milliseconds(200)) : Clock::duration(std::chrono::seconds(1));
  }

  void Header() const {
    std::printf("%6s %9s %9s %4s %9s   %8s   %8s %14s\n", "time", "ingested", "committed", "snap",
                "visible", "on disk", "memory", "write->visible");
    std::fflush(stdout);
  }

  void Update(const LiveFigures& f) const {
    const int64_t memory = f.queries.visible - f.queries.disk;
    std::string snapshot =
        f.commits.last_snapshot ? "#" + std::to_string(*f.commits.last_snapshot) : std::string("-");
    char latency[64] = "-";
    if (f.latency.markers > 0) {
      std::snprintf(latency, sizeof(latency), "%.0f / %.0f ms", f.latency.p50_ms, f.latency.max_ms);
    }
    std::printf("%s%5.1fs %9s %9s %4s %9s = %8s + %8s %14s%s", tty_ ? "\r" : "", f.seconds,
                Thousands(f.ingested).c_str(), Thousands(f.commits.rows_committed).c_str(),
                snapshot.c_str(), Thousands(f.queries.visible).c_str(),
                Thousands(f.queries.disk).c_str(), Thousands(memory).c_str(), latency,
                tty_ ? "\033[K" : "\n");
    std::fflush(stdout);
  }

  void Finish() const {
    if (tty_) std::printf("\n");
    std::fflush(stdout);
  }

 private:
  bool tty_;
};

// ---------------------------------------------------------------------------------------------
// One run: the live phase with its three threads, then a final commit and the checks.

struct Verification {
  int64_t ingested = 0;
  QueryResult before_commit;  // with the rows in memory, before the final commit
  int64_t before_commit_disk = 0;
  std::optional<int64_t> final_snapshot;
  QueryResult committed;  // committed files only, after the final commit
  std::vector<std::string> problems;
};

class DemoRun {
 public:
  static Result<std::unique_ptr<DemoRun>> Make(std::shared_ptr<Table> table) {
    FRESHET_ASSIGN_OR_RETURN(auto context, table->Realtime());
    FRESHET_ASSIGN_OR_RETURN(auto arrow_schema, TableArrowSchema(*table));
    FRESHET_ASSIGN_OR_RETURN(auto ingest_writer, table->NewWriter());
    FRESHET_ASSIGN_OR_RETURN(auto commit_writer, table->NewWriter());
    return std::unique_ptr<DemoRun>(new DemoRun(std::move(table), std::move(context),
                                                std::move(arrow_schema), std::move(ingest_writer),
                                                std::move(commit_writer)));
  }

  // Runs the three threads for `duration`, printing the status line.
  Status RunLive(Clock::duration duration) {
    LivePrinter printer;
    printer.Header();
    start_ = Clock::now();
    {
      std::jthread ingest([this](std::stop_token stop) { ingestor_.Run(stop); });
      std::jthread commit([this](std::stop_token stop) { committer_.Run(stop); });
      std::jthread query([this](std::stop_token stop) { querier_.Run(stop); });
      const auto end = start_ + duration;
      for (auto tick = start_ + printer.interval(); !errors_.failed() && Clock::now() < end;
           tick += printer.interval()) {
        std::this_thread::sleep_until(std::min(tick, end));
        printer.Update(Live());
      }
      ingest.request_stop();
      ingest.join();
      querier_.IngestStopped();
      query.join();
      commit.request_stop();
    }
    printer.Update(Live());
    printer.Finish();
    return errors_.status();
  }

  // Reads everything with the rows in memory, commits them, and reads the committed files alone.
  Result<Verification> FinishAndVerify() {
    Verification v;
    v.ingested = ingestor_.rows();
    FRESHET_ASSIGN_OR_RETURN(v.before_commit, QueryEvents(*table_, true));
    SnapshotSizes sizes;
    FRESHET_ASSIGN_OR_RETURN(v.before_commit_disk,
                             sizes.RowsIn(*table_, v.before_commit.snapshot_id));
    CheckAllRows("a query before the final commit", v.before_commit, v.ingested, &v.problems);
    FRESHET_ASSIGN_OR_RETURN(auto committed, committer_.CommitNow());
    v.final_snapshot = committed ? committed : committer_.Figures().last_snapshot;
    FRESHET_ASSIGN_OR_RETURN(v.committed, QueryEvents(*table_, false));
    CheckAllRows("the committed files", v.committed, v.ingested, &v.problems);
    if (v.committed.snapshot_id != v.final_snapshot) {
      v.problems.push_back("the committed read used snapshot " +
                           std::to_string(v.committed.snapshot_id.value_or(0)) +
                           ", not the final one");
    }
    if (latency_.pending() > 0) {
      v.problems.push_back(std::to_string(latency_.pending()) +
                           " marker rows were never seen by a query while the demo ran");
    }
    return v;
  }

  // The newest event (all columns) from the committed files, as a small text table.
  Result<std::string> NewestEventTable(int64_t newest_id) const {
    ReadOptions options;
    options.filter = "event_id = " + std::to_string(newest_id);
    options.include_uncommitted = false;
    FRESHET_ASSIGN_OR_RETURN(auto batch, ReadBatch(*table_, options));
    FRESHET_ASSIGN_OR_RETURN(auto columns, textrows::Columns::Of(*table_));
    return textrows::FormatTableRows(*batch, columns.fields());
  }

  double seconds() const { return ingestor_.seconds(); }
  int64_t back_pressure_waits() const { return ingestor_.back_pressure_waits(); }
  CommitFigures commits() const { return committer_.Figures(); }
  QueryFigures queries() const { return querier_.Figures(); }
  LatencyFigures latency() const { return latency_.Figures(); }

 private:
  DemoRun(std::shared_ptr<Table> table, std::shared_ptr<realtime::RealtimeContext> context,
          std::shared_ptr<arrow::Schema> arrow_schema, std::unique_ptr<TableWriter> ingest_writer,
          std::unique_ptr<TableWriter> commit_writer)
      : table_(std::move(table)),
        ingestor_(std::move(ingest_writer), EventSource(std::move(arrow_schema)), latency_,
                  errors_),
        committer_(std::move(commit_writer), std::move(context), errors_),
        querier_(*table_, latency_, errors_) {}

  LiveFigures Live() const {
    return LiveFigures{std::chrono::duration<double>(Clock::now() - start_).count(),
                       ingestor_.rows(), committer_.Figures(), querier_.Figures(),
                       latency_.Figures()};
  }

  static void CheckAllRows(const std::string& what, const QueryResult& got, int64_t ingested,
                           std::vector<std::string>* problems) {
    if (got.rows != ingested) {
      problems->push_back(what + " returned " + Thousands(got.rows) + " rows, " +
                          Thousands(ingested) + " were ingested");
    } else if (got.id_sum != ExpectedIdSum(ingested)) {
      problems->push_back(what + " returned some events twice and missed others");
    }
  }

  std::shared_ptr<Table> table_;
  FirstError errors_;
  LatencyTracker latency_;
  Ingestor ingestor_;
  Committer committer_;
  Querier querier_;
  Clock::time_point start_;
};

// ---------------------------------------------------------------------------------------------
// What the user reads.

void PrintIntro(const DemoConfig& config) {
  std::printf(
      "freshet demo: rows queryable the moment they are written, in a plain Apache Paimon table\n"
      "\n"
      "Table  %s\n"
      "       append table, partitioned by dt (day), 4 buckets by user_id, Parquet,\n"
      "       realtime.enabled = true\n"
      "For %lld s, one thread writes about %s events a second in batches of %lld, a second\n"
      "commits every %lld s, and a third queries the table every %lld ms (count and newest "
      "event).\n"
      "\"visible\" is what the latest query saw: rows in the committed snapshot's files on disk\n"
      "plus rows still only in memory. \"write->visible\" is how long after a row's Write began a\n"
      "query first returned it.\n\n",
      config.table_path.c_str(), static_cast<long long>(config.seconds),
      Thousands(kRowsPerSecond).c_str(), static_cast<long long>(kBatchRows),
      static_cast<long long>(kCommitInterval.count()),
      static_cast<long long>(kQueryInterval.count()));
}

void PrintWhatHappened(const DemoRun& run, const Verification& v) {
  const CommitFigures commits = run.commits();
  const QueryFigures queries = run.queries();
  const LatencyFigures latency = run.latency();
  std::printf(
      "\nWhat happened\n"
      "  In %.1f s one thread wrote %s events (%s a second) while a second thread committed\n"
      "  them every %lld s, then once more after writing stopped: %lld snapshots, the last #%lld.\n"
      "  Each commit took %.0f to %.0f ms, and writes kept flowing while it ran.\n",
      run.seconds(), Thousands(v.ingested).c_str(),
      Thousands(static_cast<int64_t>(v.ingested / std::max(run.seconds(), 0.001))).c_str(),
      static_cast<long long>(kCommitInterval.count()), static_cast<long long>(commits.snapshots),
      static_cast<long long>(v.final_snapshot.value_or(0)), commits.min_ms, commits.max_ms);
  std::printf(
      "  Meanwhile a third thread ran %lld queries. They did not wait for commits: a new row\n"
      "  was visible %.0f ms after its Write began (median of %lld rows timed; worst %.0f ms),\n"
      "  mostly the wait for the next query (one every %lld ms), while commits came only\n"
      "  every %lld s.\n",
      static_cast<long long>(queries.queries), latency.p50_ms,
      static_cast<long long>(latency.markers), latency.max_ms,
      static_cast<long long>(kQueryInterval.count()),
      static_cast<long long>(kCommitInterval.count()));
  if (run.back_pressure_waits() > 0) {
    std::printf("  Memory reached its hard limit %lld times; writes waited for a commit.\n",
                static_cast<long long>(run.back_pressure_waits()));
  }
}

void PrintCheck(const Verification& v) {
  std::printf(
      "\nCheck\n"
      "  Rows ingested:  %s\n"
      "  Rows visible before the final commit: %s (%s of them only in memory)\n"
      "  Rows committed: %s (snapshot #%lld, read from its files alone, without memory)\n",
      Thousands(v.ingested).c_str(), Thousands(v.before_commit.rows).c_str(),
      Thousands(v.before_commit.rows - v.before_commit_disk).c_str(),
      Thousands(v.committed.rows).c_str(), static_cast<long long>(v.final_snapshot.value_or(0)));
  if (v.problems.empty()) {
    std::printf("  OK: every ingested row is committed, none missing and none twice.\n");
  }
  for (const std::string& problem : v.problems) std::printf("  FAILED: %s\n", problem.c_str());
}

void PrintNext(const DemoConfig& config, const std::string& newest_event) {
  if (!newest_event.empty()) std::printf("\nThe newest event:\n\n%s", newest_event.c_str());
  const std::string self = SelfCommand();
  std::printf(
      "\nThe table is a plain Apache Paimon table: Java Paimon, Spark and Flink read it at\n"
      "  %s\n"
      "Try next:\n"
      "  %s read %s --where \"kind = 'purchase'\" --limit 5 --format table\n"
      "  %s inspect %s\n",
      config.table_path.c_str(), self.c_str(), config.table_path.c_str(), self.c_str(),
      config.table_path.c_str());
}

Status RunDemoImpl(const Args& args) {
  FRESHET_ASSIGN_OR_RETURN(DemoConfig config, ParseConfig(args));
  PrintIntro(config);
  FRESHET_ASSIGN_OR_RETURN(auto table, CreateDemoTable(config.table_path));
  FRESHET_ASSIGN_OR_RETURN(auto run, DemoRun::Make(table));
  FRESHET_RETURN_NOT_OK(run->RunLive(std::chrono::seconds(config.seconds)));
  std::printf("Writing stopped; committing the rest.\n");
  FRESHET_ASSIGN_OR_RETURN(Verification v, run->FinishAndVerify());
  PrintWhatHappened(*run, v);
  PrintCheck(v);
  std::string newest_event;
  if (v.problems.empty() && v.ingested > 0) {
    FRESHET_ASSIGN_OR_RETURN(newest_event, run->NewestEventTable(v.committed.newest_id));
  }
  PrintNext(config, newest_event);
  std::fflush(stdout);
  if (!v.problems.empty()) {
    return Status::Internal("the check failed: ", v.problems.front());
  }
  return Status::OK();
}

}  // namespace

int RunDemo(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {}, {"warehouse", "seconds"});
  if (!args.ok()) return Fail("demo", args.status());
  Status st = RunDemoImpl(*args);
  return st.ok() ? 0 : Fail("demo", st);
}

}  // namespace freshet::cli
