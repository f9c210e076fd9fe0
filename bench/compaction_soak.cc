// freshet_compaction_soak: a table that stays fast under a never-ending stream (docs/benchmarks.md,
// "Compaction soak"). One writer upserts and deletes random keys of a `deduplicate` primary-key
// table and commits every --commit-ms, its writer compacting in the background (Java's defaults:
// universal compaction, trigger 5, stop trigger 8); one reader queries the latest snapshot
// back-to-back the whole time. Every query is checked:
//
//  * plain tables: a batch read of snapshot S equals the model after the commit that made S
//    (COMPACT snapshots hold the same rows as the APPEND snapshot before them);
//  * --dv (deletion-vectors.enabled, one bucket): a batch read skips level-0 files, so it shows
//    the table as of the last commit whose level-0 files compaction has pushed up. The read must
//    equal the model after one of the commits up to S, never older than the previous query's: the
//    soak reports how many commits behind the reads were ("lag").
//
// A mismatch ends the run with exit code 1. Every --window-s seconds a CSV line reports: elapsed
// seconds, latest snapshot, files per bucket (max and mean over buckets) and level-0 files of the
// latest snapshot, sorted runs of the fullest bucket, queries and their p50/p99/max latency in the
// window, rows written per second, COMPACT snapshots so far, the read lag (--dv) and the rows of
// the latest snapshot (what a query reads). bench/
// plot_soak.py draws the files-per-bucket and query-p99 curves from it.
//
//   freshet_compaction_soak [--seconds 300] [--dir D] [--dv] [--keys 200000] [--buckets 2]
//                           [--rows-per-commit 5000] [--commit-ms 1000] [--window-s 10]
//                           [--format parquet] [--seed 1] [--csv FILE]
#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_rows.h"
#include "freshet/table.h"

namespace {

using freshet::bench::Check;
using freshet::bench::Clock;
using freshet::bench::Die;
using freshet::bench::Mix;
using freshet::bench::Seconds;
using freshet::bench::Take;
namespace fs = std::filesystem;

struct Args {
  double seconds = 300;
  std::string dir = "/tmp/freshet-soak";
  bool dv = false;
  int64_t keys = 200'000;
  int buckets = 2;
  int64_t rows_per_commit = 5'000;
  int64_t commit_ms = 1'000;
  double window_s = 10;
  std::string format = "parquet";
  uint64_t seed = 1;
  std::string csv;
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("option " + k + " needs a value");
      return argv[++i];
    };
    if (k == "--seconds") {
      a.seconds = std::stod(value());
    } else if (k == "--dir") {
      a.dir = value();
    } else if (k == "--dv") {
      a.dv = true;
    } else if (k == "--keys") {
      a.keys = std::stoll(value());
    } else if (k == "--buckets") {
      a.buckets = std::stoi(value());
    } else if (k == "--rows-per-commit") {
      a.rows_per_commit = std::stoll(value());
    } else if (k == "--commit-ms") {
      a.commit_ms = std::stoll(value());
    } else if (k == "--window-s") {
      a.window_s = std::stod(value());
    } else if (k == "--format") {
      a.format = value();
    } else if (k == "--seed") {
      a.seed = std::stoull(value());
    } else if (k == "--csv") {
      a.csv = value();
    } else {
      Die("unknown option " + k + " (see the comment at the top of bench/compaction_soak.cc)");
    }
  }
  if (a.dv) a.buckets = 1;  // the lag check needs one bucket (see above)
  if (a.seconds <= 0 || a.keys <= 0 || a.buckets <= 0 || a.rows_per_commit <= 0 ||
      a.window_s <= 0) {
    Die("--seconds, --keys, --buckets, --rows-per-commit and --window-s must be > 0");
  }
  return a;
}

// The rows of a table as one order-independent value: the sum of a hash of each (id, v).
struct State {
  uint64_t sum = 0;
  int64_t rows = 0;
  bool operator==(const State&) const = default;
};

uint64_t RowHash(int64_t id, int64_t v) {
  return Mix(static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(v));
}

// What the writer has committed: the state after each commit, and which commit made each
// snapshot (an APPEND snapshot and the COMPACT one after it share their commit).
class Model {
 public:
  void Committed(int64_t commit, State state, const std::vector<int64_t>& snapshot_ids) {
    std::lock_guard<std::mutex> lock(mu_);
    states_.push_back(state);
    for (int64_t id : snapshot_ids) {
      if (id > last_snapshot_) commit_of_[id] = commit;
    }
    if (!snapshot_ids.empty()) last_snapshot_ = std::max(last_snapshot_, snapshot_ids.back());
  }
  // The commit that made `snapshot`, or -1 while the writer has not recorded it yet.
  int64_t CommitOf(int64_t snapshot) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = commit_of_.find(snapshot);
    return it == commit_of_.end() ? -1 : it->second;
  }
  State StateAfter(int64_t commit) const {
    std::lock_guard<std::mutex> lock(mu_);
    return states_[static_cast<size_t>(commit)];
  }
  // The newest commit in [from, to] whose state is `state`, or -1.
  int64_t FindState(const State& state, int64_t from, int64_t to) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t c = to; c >= from; --c) {
      if (states_[static_cast<size_t>(c)] == state) return c;
    }
    return -1;
  }

 private:
  mutable std::mutex mu_;
  std::vector<State> states_;  // index: commit number (0 = the empty table before any commit)
  std::map<int64_t, int64_t> commit_of_;
  int64_t last_snapshot_ = 0;
};

std::string Schema(const Args& a) {
  return std::string(R"({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},)") +
         R"({"name": "v", "type": "BIGINT"}, {"name": "s", "type": "STRING"}],)" +
         R"("primaryKeys": ["id"], "options": {"bucket": ")" + std::to_string(a.buckets) +
         R"(", "file.format": ")" + a.format + R"(", "deletion-vectors.enabled": ")" +
         (a.dv ? "true" : "false") + R"("}})";
}

// One commit's worth of random upserts (90 %) and deletes (10 %) of keys in [0, keys).
std::shared_ptr<arrow::RecordBatch> RandomOps(const Args& a, std::mt19937_64& rng, int64_t* next_v,
                                              std::vector<int64_t>* values, State* state) {
  arrow::Int64Builder ids, vs;
  arrow::StringBuilder ss, kinds;
  for (int64_t i = 0; i < a.rows_per_commit; ++i) {
    int64_t id = static_cast<int64_t>(rng() % static_cast<uint64_t>(a.keys));
    int64_t& current = (*values)[static_cast<size_t>(id)];
    if (current >= 0) {
      state->sum -= RowHash(id, current);
      --state->rows;
    }
    bool remove = rng() % 10 == 0;
    int64_t v = remove ? std::max<int64_t>(current, 0) : ++*next_v;
    current = remove ? -1 : v;
    if (!remove) {
      state->sum += RowHash(id, v);
      ++state->rows;
    }
    Check(ids.Append(id), "append");
    Check(vs.Append(v), "append");
    Check(ss.Append("payload-" + std::to_string(v % 9973)), "append");
    Check(kinds.Append(remove ? "-D" : "+U"), "append");
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("v", arrow::int64()),
                     arrow::field("s", arrow::utf8()), arrow::field("_ROW_KIND", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, a.rows_per_commit,
                                  {Take(ids.Finish(), "finish"), Take(vs.Finish(), "finish"),
                                   Take(ss.Finish(), "finish"), Take(kinds.Finish(), "finish")});
}

// A batch read of `snapshot`: its rows as a State.
State ReadState(const freshet::Table& table, int64_t snapshot) {
  freshet::ReadOptions options;
  options.snapshot_id = snapshot;
  options.columns = {"id", "v"};
  auto reader = Take(table.NewReader(options), "reader");
  ArrowSchema c_schema;
  Check(reader->ExportArrowSchema(&c_schema), "schema");
  auto schema = Take(arrow::ImportSchema(&c_schema), "import schema");
  State state;
  while (true) {
    ArrowArray array;
    if (!Take(reader->Next(&array), "read")) break;
    auto batch = Take(arrow::ImportRecordBatch(&array, schema), "import batch");
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    const auto& vs = static_cast<const arrow::Int64Array&>(*batch->column(1));
    for (int64_t i = 0; i < batch->num_rows(); ++i) state.sum += RowHash(ids.Value(i), vs.Value(i));
    state.rows += batch->num_rows();
  }
  return state;
}

// What one window of the run saw.
struct Window {
  std::vector<double> query_ms;
  int64_t rows_written = 0;
  int64_t max_lag = 0;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

class Soak {
 public:
  explicit Soak(Args a) : a_(std::move(a)) {}

  int Run() {
    table_path_ = a_.dir + "/soak.db/t" + (a_.dv ? "_dv" : "");
    fs::remove_all(table_path_);
    fs::create_directories(fs::path(table_path_).parent_path());
    table_ = Take(freshet::Table::Create(table_path_, Schema(a_)), "create");
    model_.Committed(0, State{}, {});
    out_ = a_.csv.empty() ? stdout : std::fopen(a_.csv.c_str(), "w");
    if (out_ == nullptr) Die("cannot write " + a_.csv);
    std::fprintf(out_,
                 "elapsed_s,snapshot,files_per_bucket_max,files_per_bucket_mean,level0_files,"
                 "sorted_runs_max,queries,query_p50_ms,query_p99_ms,query_max_ms,"
                 "rows_per_s,compact_snapshots,read_lag_commits,table_rows\n");
    start_ = Clock::now();
    std::thread writer([this] { WriterLoop(); });
    std::thread reader([this] { ReaderLoop(); });
    ReportLoop();
    writer.join();
    reader.join();
    if (out_ != stdout) std::fclose(out_);
    std::fprintf(stderr, "%s: %" PRId64 " commits, %" PRId64 " queries, %s\n",
                 failed_ ? "FAIL" : "OK", commits_.load(), queries_.load(),
                 failed_ ? failure_.c_str() : "every query equal to the model");
    return failed_ ? 1 : 0;
  }

 private:
  bool Running() const { return !failed_ && Seconds(start_, Clock::now()) < a_.seconds; }

  void Fail(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failed_) failure_ = why;
    failed_ = true;
  }

  void WriterLoop() {
    std::mt19937_64 rng(a_.seed);
    std::vector<int64_t> values(static_cast<size_t>(a_.keys), -1);
    State state;
    int64_t next_v = 0;
    auto writer = Take(table_->NewWriter(), "writer");
    for (int64_t commit = 1; Running(); ++commit) {
      auto t0 = Clock::now();
      auto batch = RandomOps(a_, rng, &next_v, &values, &state);
      ArrowArray array;
      ArrowSchema schema;
      Check(arrow::ExportRecordBatch(*batch, &array, &schema), "export");
      Check(writer->Write(&array, &schema), "write");
      auto committed = writer->Commit();
      if (!committed.ok()) return Fail("commit: " + committed.status().ToString());
      auto ids = Take(table_->SnapshotIds(), "snapshots");
      model_.Committed(commit, state, ids);
      commits_ = commit;
      {
        std::lock_guard<std::mutex> lock(mu_);
        window_.rows_written += a_.rows_per_commit;
      }
      auto rest = std::chrono::milliseconds(a_.commit_ms) - (Clock::now() - t0);
      if (rest.count() > 0) std::this_thread::sleep_for(rest);
    }
  }

  void ReaderLoop() {
    int64_t last_seen_commit = 0;
    while (Running()) {
      auto ids = Take(table_->SnapshotIds(), "snapshots");
      if (ids.empty() || model_.CommitOf(ids.back()) < 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      int64_t snapshot = ids.back();
      auto t0 = Clock::now();
      State got = ReadState(*table_, snapshot);
      double ms = Seconds(t0, Clock::now()) * 1e3;
      int64_t commit = model_.CommitOf(snapshot);
      int64_t lag = 0;
      if (!a_.dv) {
        if (!(got == model_.StateAfter(commit))) {
          return Fail("snapshot " + std::to_string(snapshot) + " differs from the model");
        }
      } else {
        int64_t seen = model_.FindState(got, last_seen_commit, commit);
        if (seen < 0) {
          return Fail("snapshot " + std::to_string(snapshot) +
                      " holds no committed state since the last query's");
        }
        last_seen_commit = seen;
        lag = commit - seen;
      }
      ++queries_;
      std::lock_guard<std::mutex> lock(mu_);
      window_.query_ms.push_back(ms);
      window_.max_lag = std::max(window_.max_lag, lag);
    }
  }

  void ReportLoop() {
    auto next = start_;
    while (true) {
      next += std::chrono::microseconds(static_cast<int64_t>(a_.window_s * 1e6));
      while (Clock::now() < next && Running()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (!Running() && Clock::now() < next) return;  // a partial last window is not reported
      Window w;
      {
        std::lock_guard<std::mutex> lock(mu_);
        std::swap(w, window_);
      }
      Report(w);
    }
  }

  void Report(const Window& w) {
    auto ids = Take(table_->SnapshotIds(), "snapshots");
    if (ids.empty()) return;
    std::map<int32_t, int64_t> files;
    std::map<int32_t, std::map<int32_t, int64_t>> levels;  // bucket -> level -> files
    int64_t level0 = 0;
    for (const auto& f : Take(table_->DataFiles(ids.back()), "files")) {
      ++files[f.bucket];
      ++levels[f.bucket][f.level];
      level0 += f.level == 0;
    }
    int64_t max_files = 0, total = 0, max_runs = 0;
    for (const auto& [bucket, n] : files) {
      max_files = std::max(max_files, n);
      total += n;
    }
    for (const auto& [bucket, by_level] : levels) {
      int64_t runs = 0;
      for (const auto& [level, n] : by_level) runs += level == 0 ? n : 1;
      max_runs = std::max(max_runs, runs);
    }
    for (int64_t id : ids) {
      if (id <= counted_snapshot_) continue;
      compact_snapshots_ += Take(table_->Snapshot(id), "snapshot").commit_kind == "COMPACT";
      counted_snapshot_ = id;
    }
    int64_t commit = model_.CommitOf(ids.back());
    int64_t table_rows = commit < 0 ? 0 : model_.StateAfter(commit).rows;
    std::fprintf(out_,
                 "%.0f,%" PRId64 ",%" PRId64 ",%.2f,%" PRId64 ",%" PRId64
                 ",%zu,%.2f,%.2f,%.2f,%.0f,%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                 Seconds(start_, Clock::now()), ids.back(), max_files,
                 static_cast<double>(total) / std::max<size_t>(files.size(), 1), level0, max_runs,
                 w.query_ms.size(), Percentile(w.query_ms, 0.5), Percentile(w.query_ms, 0.99),
                 Percentile(w.query_ms, 1.0), static_cast<double>(w.rows_written) / a_.window_s,
                 compact_snapshots_, w.max_lag, table_rows);
    std::fflush(out_);
  }

  Args a_;
  std::string table_path_;
  std::shared_ptr<freshet::Table> table_;
  Model model_;
  FILE* out_ = nullptr;
  Clock::time_point start_;
  std::mutex mu_;
  Window window_;
  std::atomic<bool> failed_{false};
  std::string failure_;
  std::atomic<int64_t> commits_{0};
  std::atomic<int64_t> queries_{0};
  int64_t counted_snapshot_ = 0;  // COMPACT snapshots counted up to this id (report thread)
  int64_t compact_snapshots_ = 0;
};

}  // namespace

int main(int argc, char** argv) { return Soak(Parse(argc, argv)).Run(); }
