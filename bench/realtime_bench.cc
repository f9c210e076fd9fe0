// freshet_realtime_bench: figures of the real-time layer (table option realtime.enabled = true),
// through the public API only (Table, TableWriter, TableReader, RealtimeContext::Usage). Five
// measurements, each printing `RESULT bench=<name> key=value ...` lines, then a human summary:
//
//   memory   bytes per row the MemIndexer reports (Usage) and the process really allocates, vs
//            the Arrow size of the same rows: "columnar" with 65,536-row and 100-row writes, then
//            "spilling" (its in-memory and spilled bytes, sampled during the commit).
//   read     union read rows/s: all rows in memory, all on disk (committed, memory reclaimed),
//            half and half; plus the disk-only read (include_uncommitted = false).
//   visible  write-to-visible latency with a concurrent commit thread (docs/benchmarks.md
//            defines both figures: same-thread and query-thread).
//   ingest   Write loop + final Commit rows/s, real-time on vs off, same rows, same process.
//   stall    Write latency while one Commit flushes >= --flush-bytes of Arrow data (real-time:
//            writer and committer on two threads) vs a plain writer (Write and Commit on one
//            thread).
//   lookup   (primary-key tables, not in the default list) Table::Lookup latency of one key in
//            memory, on disk and missing, with --lookup-keys keys of which the last
//            --lookup-memory-keys are uncommitted.
//   plan     (not in the default list) committed-only point query of a table that does not
//            change between queries: planning alone (every file is pruned by its statistics),
//            with --plan-commits commits of one file per bucket (--plan-buckets) behind it; the
//            first query, the warm ones, and one after each further commit (issue 14).
//
// Rows: the generator of bench/append_bench.cc (docs/benchmarks.md "Generator"), 10 columns.
//
//   freshet_realtime_bench [--dir D] [--format parquet|orc] [--seed S] [--only a,b,...] [--keep]
//       [--read-rows N] [--read-runs R]
//       [--visible-batches K] [--visible-batch-rows B] [--visible-interval-us U]
//       [--visible-query-thread 0|1] [--commit-interval-ms C]
//       [--ingest-rows N] [--ingest-batch B] [--ingest-runs R] [--ingest-modes plain,realtime]
//       [--flush-bytes SIZE] [--stall-batch B] [--stall-interval-us U]
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <arrow/util/byte_size.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench_rows.h"
#include "freshet/realtime/realtime_context.h"
#include "freshet/table.h"

namespace {

using namespace freshet::bench;  // NOLINT: the shared rows, checksum and helpers
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Small helpers

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

int64_t Nanos(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

int64_t NowNanos() { return Nanos(Clock::now()); }

// Resident set size now (VmRSS), in bytes.
int64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  }
  return 0;
}

// Thread CPU time and context switches of the calling thread, to tell why a Write was slow.
struct ThreadClock {
  double cpu_s = 0;
  int64_t voluntary = 0;    // the thread blocked (a lock, I/O, a page fault waiting on a lock...)
  int64_t involuntary = 0;  // the scheduler preempted it (other runnable threads)
};

ThreadClock ReadThreadClock() {
  ThreadClock c;
  struct rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  c.voluntary = ru.ru_nvcsw;
  c.involuntary = ru.ru_nivcsw;
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  c.cpu_s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  return c;
}

double ProcessSysSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6;
}

int64_t ProcessMinorFaults() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

// Writes slower than a threshold, by cause: `blocked` = the thread switched out voluntarily
// during the Write, `preempted` = only involuntarily, `busy` = it spent more than half the wall
// time on the CPU (real work: allocation, page faults, copying).
struct SlowWrites {
  double threshold_us = 1000;
  int64_t slow = 0, blocked = 0, preempted = 0, busy = 0;
  double slow_cpu_us = 0, slow_wall_us = 0;

  void Add(double wall_us, const ThreadClock& before, const ThreadClock& after) {
    if (wall_us < threshold_us) return;
    ++slow;
    double cpu_us = (after.cpu_s - before.cpu_s) * 1e6;
    slow_cpu_us += cpu_us;
    slow_wall_us += wall_us;
    if (after.voluntary > before.voluntary) {
      ++blocked;
    } else if (after.involuntary > before.involuntary) {
      ++preempted;
    }
    if (cpu_us > 0.5 * wall_us) ++busy;
  }
  std::string Fields(const std::string& prefix) const {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s_over_1ms=%" PRId64 " %s_over_1ms_blocked=%" PRId64
                  " %s_over_1ms_preempted=%" PRId64 " %s_over_1ms_busy=%" PRId64
                  " %s_over_1ms_cpu_share=%.3f",
                  prefix.c_str(), slow, prefix.c_str(), blocked, prefix.c_str(), preempted,
                  prefix.c_str(), busy, prefix.c_str(), slow ? slow_cpu_us / slow_wall_us : 0.0);
    return buf;
  }
};

// Nearest-rank percentiles of a sample (micro- or milliseconds, whatever was pushed).
struct Stats {
  int64_t n = 0;
  double p50 = 0, p99 = 0, p999 = 0, max = 0, mean = 0;
};

Stats Summarize(std::vector<double> v) {
  Stats s;
  s.n = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    auto i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(i, 1, v.size()) - 1];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.p999 = rank(0.999);
  s.max = v.back();
  double total = 0;
  for (double x : v) total += x;
  s.mean = total / static_cast<double>(v.size());
  return s;
}

// "prefix_n=.. prefix_p50=.. ..." for a RESULT line.
std::string Fields(const std::string& prefix, const Stats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s_n=%" PRId64 " %s_p50=%.1f %s_p99=%.1f %s_p999=%.1f %s_max=%.1f", prefix.c_str(),
                s.n, prefix.c_str(), s.p50, prefix.c_str(), s.p99, prefix.c_str(), s.p999,
                prefix.c_str(), s.max);
  return buf;
}

int64_t ParseSize(const std::string& text) {
  size_t pos = 0;
  double number = std::stod(text, &pos);
  std::string unit = text.substr(pos);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 1;
  if (unit == "k" || unit == "kb" || unit == "kib") {
    scale = 1024.0;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    scale = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    scale = 1024.0 * 1024 * 1024;
  } else if (!unit.empty()) {
    Die("unknown size unit in '" + text + "' (use k, m or g)");
  }
  return static_cast<int64_t>(number * scale);
}

struct Args {
  std::string dir = "/tmp/freshet-rtbench";
  std::string format = "parquet";
  uint64_t seed = 42;
  std::string only = "memory,read,visible,ingest,stall";  // lookup: primary-key tables
  bool keep = false;
  // Primary-key tables (primary key `id`, `buckets` fixed buckets) instead of append tables, and
  // the MemIndexer plugin of the real-time tables.
  bool primary_key = false;
  int buckets = 4;
  std::string plugin = "columnar";
  // memory + read
  int64_t read_rows = 2'000'000;
  int read_runs = 3;
  // visible
  int64_t visible_batches = 3000;
  int64_t visible_batch_rows = 400;
  int64_t visible_interval_us = 4000;
  int64_t commit_interval_ms = 1000;
  // Primary-key tables: rows per batch that update keys written before (random ids), before the
  // batch's new keys.
  int64_t visible_update_rows = 0;
  // The writer's same-thread query after every this many batches (1: each; a larger value lets
  // the writer keep a high rate, the query thread measures visibility meanwhile).
  int64_t visible_sync_every = 1;
  // Commits of one row each (negative ids, never matched by the markers) made before the run, so
  // that queries plan a table with that many snapshots and live files.
  int64_t visible_preload_commits = 0;
  // Whether a query thread polls the table meanwhile (0: the writer's own queries only, so that
  // its figures show what the other core's load adds).
  bool visible_query_thread = true;
  // lookup (primary-key tables)
  int64_t lookup_keys = 10'000'000;
  int64_t lookup_memory_keys = 100'000;
  int64_t lookup_runs = 2000;
  int64_t lookup_cache_bytes = 4LL << 30;  // lookup.cache-max-memory-size of the lookup table
  // plan
  int64_t plan_commits = 2000;
  int64_t plan_buckets = 5;
  int64_t plan_runs = 2000;
  // ingest
  int64_t ingest_rows = 3'000'000;
  int64_t ingest_batch = 65536;
  int ingest_runs = 4;
  std::string ingest_modes = "plain,realtime";  // for profiling one mode alone
  // stall
  int64_t flush_bytes = 1LL << 30;
  // --samples DIR: raw samples as CSV files there (bench/plot_realtime.py draws them).
  std::string samples_dir;
  int64_t stall_batch = 4096;
  int64_t stall_interval_us = 10'000;

  bool Runs(const std::string& name) const {
    std::stringstream list(only);
    std::string item;
    while (std::getline(list, item, ',')) {
      if (item == name) return true;
    }
    return false;
  }
};

Args Parse(int argc, char** argv) {
  Args a;
  const char* usage =
      "usage: freshet_realtime_bench [--dir D] [--format parquet|orc] [--seed S] "
      "[--only memory,read,visible,ingest,stall,lookup,plan] [--keep] [--primary-key [--buckets "
      "N]] "
      "[--plugin columnar|indexed|spilling] [--read-rows N] [--read-runs R] "
      "[--visible-batches K] [--visible-batch-rows B] [--visible-interval-us U] "
      "[--visible-update-rows U] [--visible-sync-every E] [--visible-preload-commits P] "
      "[--visible-query-thread 0|1] "
      "[--commit-interval-ms C] "
      "[--lookup-keys N] [--lookup-memory-keys M] [--lookup-runs R] [--lookup-cache SIZE] "
      "[--plan-commits C] [--plan-buckets B] [--plan-runs R] "
      "[--ingest-rows N] [--ingest-batch B] [--ingest-runs R] "
      "[--ingest-modes plain,realtime] "
      "[--flush-bytes SIZE] [--stall-batch B] [--stall-interval-us U] [--samples DIR]";
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("option " + k + " needs a value");
      return argv[++i];
    };
    auto integer = [&]() -> int64_t { return std::stoll(value()); };
    if (k == "--dir") {
      a.dir = value();
    } else if (k == "--format") {
      a.format = value();
    } else if (k == "--seed") {
      a.seed = std::stoull(value());
    } else if (k == "--only") {
      a.only = value();
    } else if (k == "--visible-query-thread") {
      a.visible_query_thread = integer() != 0;
    } else if (k == "--visible-preload-commits") {
      a.visible_preload_commits = integer();
    } else if (k == "--keep") {
      a.keep = true;
    } else if (k == "--samples") {
      a.samples_dir = value();
    } else if (k == "--primary-key") {
      a.primary_key = true;
    } else if (k == "--buckets") {
      a.buckets = std::atoi(value().c_str());
    } else if (k == "--plugin") {
      a.plugin = value();
    } else if (k == "--read-rows") {
      a.read_rows = integer();
    } else if (k == "--read-runs") {
      a.read_runs = static_cast<int>(integer());
    } else if (k == "--visible-batches") {
      a.visible_batches = integer();
    } else if (k == "--visible-batch-rows") {
      a.visible_batch_rows = integer();
    } else if (k == "--visible-interval-us") {
      a.visible_interval_us = integer();
    } else if (k == "--visible-update-rows") {
      a.visible_update_rows = integer();
    } else if (k == "--visible-sync-every") {
      a.visible_sync_every = integer();
    } else if (k == "--lookup-cache") {
      a.lookup_cache_bytes = ParseSize(value());
    } else if (k == "--lookup-keys") {
      a.lookup_keys = integer();
    } else if (k == "--lookup-memory-keys") {
      a.lookup_memory_keys = integer();
    } else if (k == "--lookup-runs") {
      a.lookup_runs = integer();
    } else if (k == "--plan-commits") {
      a.plan_commits = integer();
    } else if (k == "--plan-buckets") {
      a.plan_buckets = integer();
    } else if (k == "--plan-runs") {
      a.plan_runs = integer();
    } else if (k == "--commit-interval-ms") {
      a.commit_interval_ms = integer();
    } else if (k == "--ingest-rows") {
      a.ingest_rows = integer();
    } else if (k == "--ingest-batch") {
      a.ingest_batch = integer();
    } else if (k == "--ingest-modes") {
      a.ingest_modes = value();
    } else if (k == "--ingest-runs") {
      a.ingest_runs = static_cast<int>(integer());
    } else if (k == "--flush-bytes") {
      a.flush_bytes = ParseSize(value());
    } else if (k == "--stall-batch") {
      a.stall_batch = integer();
    } else if (k == "--stall-interval-us") {
      a.stall_interval_us = integer();
    } else if (k == "--help" || k == "-h") {
      std::printf("%s\n", usage);
      std::exit(0);
    } else {
      Die("unknown option " + k + " (" + usage + ")");
    }
  }
  if (a.format != "parquet" && a.format != "orc") Die("--format must be parquet or orc");
  if (a.read_rows < 2 || a.read_runs < 1 || a.visible_batches < 1 || a.visible_batch_rows < 1 ||
      a.visible_interval_us < 0 || a.commit_interval_ms < 1 || a.ingest_rows < 1 ||
      a.ingest_batch < 1 || a.ingest_runs < 1 || a.flush_bytes < 1 || a.stall_batch < 1 ||
      a.stall_interval_us < 0 || a.visible_update_rows < 0 || a.lookup_keys < 2 ||
      a.lookup_memory_keys < 1 || a.lookup_memory_keys >= a.lookup_keys || a.lookup_runs < 1 ||
      a.visible_sync_every < 1 || a.lookup_cache_bytes < 1 || a.plan_commits < 1 ||
      a.plan_buckets < 1 || a.plan_runs < 1) {
    Die("sizes must be positive (--read-rows >= 2, --lookup-memory-keys < --lookup-keys)");
  }
  if ((a.visible_update_rows > 0 || a.Runs("lookup")) && !a.primary_key) {
    Die("--visible-update-rows and lookup need --primary-key");
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// Tables, writes, reads

// Table options beyond the format. Tables are unpartitioned append tables with Paimon's default
// bucket = -1 (one partition-bucket), like the append bench's.
using Options = std::map<std::string, std::string>;

Options RealtimeOptions(const std::string& plugin) {
  // Limits far above anything the bench holds: back-pressure is not what is measured here.
  Options o{{"realtime.enabled", "true"},
            {"realtime.memory.soft-limit", "64 gb"},
            {"realtime.memory.hard-limit", "64 gb"}};
  if (plugin != "columnar") o["realtime.mem-indexer"] = plugin;
  return o;
}

std::shared_ptr<freshet::Table> CreateTable(const Args& a, const std::string& name,
                                            Options options) {
  std::string path = a.dir + "/rtbench.db/" + name;
  fs::remove_all(path);
  fs::create_directories(fs::path(path).parent_path());
  options["file.format"] = a.format;
  std::string spec = std::string("{") + kFields;
  if (a.primary_key) {
    // Upserts by `id` into fixed buckets; the bench's ids are distinct, so every row is a key.
    spec += R"(, "primaryKeys": ["id"])";
    if (!options.count("bucket")) options["bucket"] = std::to_string(a.buckets);
  }
  spec += R"(, "options": {)";
  bool first = true;
  for (const auto& [key, value] : options) {
    spec += (first ? "" : ", ") + ("\"" + key + "\": \"" + value + "\"");
    first = false;
  }
  spec += "}}";
  return Take(freshet::Table::Create(path, spec), "create table");
}

void DropTable(const Args& a, std::shared_ptr<freshet::Table>* table) {
  std::string path = (*table)->path();
  table->reset();
  if (!a.keep) fs::remove_all(path);
}

// Hands `batch` to writer.Write (ownership moves in); returns the seconds Write took (the export
// to the C Data Interface before it is not counted).
// With `slow`, also classifies the Write if it was slow (the probes are outside the timing).
double TimedWrite(freshet::TableWriter& writer, std::shared_ptr<arrow::StructArray> batch,
                  SlowWrites* slow = nullptr) {
  ArrowArray c_array;
  ArrowSchema c_schema;
  Check(arrow::ExportArray(*batch, &c_array, &c_schema), "export");
  batch.reset();
  ThreadClock before;
  if (slow) before = ReadThreadClock();
  auto t0 = Clock::now();
  Check(writer.Write(&c_array, &c_schema), "write");
  auto t1 = Clock::now();
  if (slow) slow->Add(Micros(t0, t1), before, ReadThreadClock());
  return Seconds(t0, t1);
}

// Writes rows [first, first + n) in batches; returns the Arrow bytes written.
int64_t WriteRows(freshet::TableWriter& writer, const Generator& g, int64_t first, int64_t n,
                  int64_t batch_rows, Checksum* expect, double* write_s = nullptr) {
  int64_t bytes = 0;
  for (int64_t row = first; row < first + n; row += batch_rows) {
    auto batch = MakeBatch(g, row, std::min(batch_rows, first + n - row), expect);
    bytes += arrow::util::TotalBufferSize(*batch);
    double s = TimedWrite(writer, std::move(batch));
    if (write_s) *write_s += s;
  }
  return bytes;
}

std::optional<int64_t> TimedCommit(freshet::TableWriter& writer, double* seconds) {
  auto t0 = Clock::now();
  auto snapshot = Take(writer.Commit(), "commit");
  *seconds = Seconds(t0, Clock::now());
  return snapshot;
}

// Reads every row and value; returns the checksum.
Checksum ReadAll(const freshet::Table& table, bool include_uncommitted, double* seconds) {
  freshet::ReadOptions options;
  options.include_uncommitted = include_uncommitted;
  return freshet::bench::ReadAll(table, options, seconds);
}

// The `id` values of the rows matching `filter` (column id only).
std::vector<int64_t> ReadIds(const freshet::Table& table, const std::string& filter,
                             bool include_uncommitted = true) {
  freshet::ReadOptions options;
  options.columns = {"id"};
  options.filter = filter;
  options.include_uncommitted = include_uncommitted;
  auto batches = freshet::bench::ReadStream(table, options);
  std::vector<int64_t> ids;
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    Check(batches->ReadNext(&batch), "next");
    if (batch == nullptr) break;
    const auto& col = static_cast<const arrow::Int64Array&>(*batch->column(0));
    const int64_t* p = col.raw_values();
    ids.insert(ids.end(), p, p + col.length());
  }
  return ids;
}

void ExpectRows(const Checksum& got, const Checksum& expect, const char* what) {
  if (got.rows != expect.rows || got.Value() != expect.Value()) {
    Die(std::string(what) + ": read " + std::to_string(got.rows) + " rows (checksum " +
        std::to_string(got.Value()) + "), expected " + std::to_string(expect.rows) + " (checksum " +
        std::to_string(expect.Value()) + ")");
  }
}

freshet::realtime::RealtimeUsage UsageOf(const freshet::Table& table) {
  return Take(table.Realtime(), "realtime context")->Usage();
}

// Human summary lines, printed after all RESULT lines.
std::vector<std::string> summary;

// Raw samples, one CSV file per kind under --samples (nothing without it). Written after the
// timed sections, or between their iterations, never inside a timed span.
class SampleFiles {
 public:
  void Open(const std::string& dir) {
    dir_ = dir;
    if (!dir_.empty()) fs::create_directories(dir_);
  }
  bool enabled() const { return !dir_.empty(); }
  void Row(const std::string& name, const char* header, const std::string& row) {
    if (dir_.empty()) return;
    std::unique_ptr<std::ofstream>& file = files_[name];
    if (!file) {
      file = std::make_unique<std::ofstream>(dir_ + "/" + name + ".csv");
      *file << header << "\n";
    }
    *file << row << "\n";
  }

 private:
  std::string dir_;
  std::map<std::string, std::unique_ptr<std::ofstream>> files_;
};
SampleFiles samples;

void Emit(const std::string& result) {
  std::printf("RESULT %s\n", result.c_str());
  std::fflush(stdout);
}

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// memory + read

// Bytes allocated now from Arrow's default memory pool: the generator's builders, hence every
// buffer a MemIndexer holds zero-copy, and the Parquet writer's buffers.
int64_t PoolBytes() { return arrow::default_memory_pool()->bytes_allocated(); }

// PoolBytes() plus what malloc has handed out (the C++ objects around the buffers: record
// batches, arrays, the MemIndexer's nodes, shared_ptr control blocks).
int64_t HeldBytes() {
  struct mallinfo2 m = mallinfo2();
  return PoolBytes() + static_cast<int64_t>(m.uordblks + m.hblkhd);
}

// Samples Usage() every millisecond while `running`; keeps the moment of peak spilled bytes.
struct UsageSampler {
  std::atomic<bool> running{true};
  freshet::realtime::RealtimeUsage at_peak_spill;
  int64_t peak_memory = 0;
  int64_t peak_rss = 0;   // VmRSS, bytes
  int64_t peak_pool = 0;  // PoolBytes()
  int64_t samples = 0;
  std::thread thread;

  explicit UsageSampler(std::shared_ptr<freshet::realtime::RealtimeContext> context)
      : thread([this, context] {
          while (running) {
            auto u = context->Usage();
            ++samples;
            peak_memory = std::max(peak_memory, u.memory_bytes);
            peak_rss = std::max(peak_rss, RssBytes());
            peak_pool = std::max(peak_pool, PoolBytes());
            if (u.spilled_bytes > at_peak_spill.spilled_bytes) at_peak_spill = u;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }) {}
  void Stop() {
    running = false;
    thread.join();
  }
};

void BenchMemoryAndRead(const Args& a) {
  Generator g(a.seed);

  // One table per case: write the rows, look at Usage, commit (sampling Usage meanwhile), look
  // again. The first table is also read from memory, then from disk; the second writes small
  // batches (per-batch overhead); the third uses the spilling plugin.
  struct MemoryCase {
    std::string plugin;
    int64_t batch_rows;
    int64_t rows;
    bool read;
  };
  const std::vector<MemoryCase> cases = {
      {a.plugin, 65536, a.read_rows, true},
      {"columnar", 100, std::max<int64_t>(100, a.read_rows / 10), false},
      {"spilling", 65536, a.read_rows, false}};
  Checksum expect;
  for (const MemoryCase& mc : cases) {
    const std::string& plugin = mc.plugin;
    const int64_t n = mc.rows;
    const int64_t batch_rows = mc.batch_rows;
    const bool reads = mc.read && a.Runs("read");
    if (!a.Runs("memory") && !reads) continue;
    Options options = RealtimeOptions(plugin);
    std::string spill_dir = a.dir + "/spill";
    if (plugin == "spilling") {
      fs::remove_all(spill_dir);
      options["realtime.spill.dir"] = spill_dir;
    }
    auto table = CreateTable(a, "memory_" + plugin + "_" + std::to_string(batch_rows), options);
    auto context = Take(table->Realtime(), "realtime context");
    auto writer = Take(table->NewWriter(), "new writer");
    // freshet keeps the large blocks a commit or read freed for reuse and returns them after 1 s
    // unused (bridge/memory_pool.h): let those of the previous case go before the baseline, or
    // their return would be counted against this case's Writes.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    int64_t rss0 = RssBytes();
    int64_t pool0 = PoolBytes();
    int64_t held0 = HeldBytes();
    Checksum sum;
    int64_t arrow_bytes = WriteRows(*writer, g, 0, n, batch_rows, &sum);
    int64_t rss1 = RssBytes();
    int64_t pool1 = PoolBytes();
    int64_t held1 = HeldBytes();
    auto before = context->Usage();
    if (before.rows_in_memory != n) {
      Die("rows_in_memory " + std::to_string(before.rows_in_memory) + " after writing " +
          std::to_string(n));
    }
    if (reads) expect = sum;

    std::vector<double> memory_read_s, memory_filtered_s;
    if (reads) {
      for (int r = 0; r < a.read_runs; ++r) {
        double s = 0;
        ExpectRows(ReadAll(*table, true, &s), expect, "memory read");
        memory_read_s.push_back(s);
      }
      // A filter no row passes ("id >= rows"), column id only: what a selective query costs.
      for (int r = 0; r < a.read_runs; ++r) {
        auto t0 = Clock::now();
        if (!ReadIds(*table, "id >= " + std::to_string(n)).empty()) Die("filter matched rows");
        memory_filtered_s.push_back(Seconds(t0, Clock::now()));
      }
    }

    int64_t rss_commit = RssBytes();
    int64_t pool_commit = PoolBytes();
    UsageSampler sampler(context);
    double commit_s = 0;
    if (!TimedCommit(*writer, &commit_s)) Die("nothing committed");
    sampler.Stop();
    context->CollectGarbage();
    auto after = context->Usage();
    int64_t spill_files = 0;
    if (plugin == "spilling" && fs::exists(spill_dir)) {
      for (const auto& e : fs::directory_iterator(spill_dir)) {
        (void)e;
        ++spill_files;
      }
    }
    if (a.Runs("memory")) {
      const auto& peak = sampler.at_peak_spill;
      Emit(Format("bench=memory plugin=%s batch=%" PRId64 " rows=%" PRId64 " arrow_bytes=%" PRId64
                  " memory_bytes=%" PRId64 " rows_in_memory=%" PRId64
                  " arrow_bytes_per_row=%.1f memory_bytes_per_row=%.1f memory_to_arrow=%.3f"
                  " pool_bytes_held=%" PRId64 " pool_bytes_per_row=%.1f held_bytes=%" PRId64
                  " held_bytes_per_row=%.1f rss_delta_bytes=%" PRId64 " commit_s=%.3f"
                  " peak_spilled_bytes=%" PRId64 " memory_bytes_at_peak_spill=%" PRId64
                  " peak_memory_bytes_in_commit=%" PRId64 " pool_growth_in_commit_bytes=%" PRId64
                  " rss_growth_in_commit_bytes=%" PRId64 " usage_samples=%" PRId64
                  " memory_bytes_after=%" PRId64 " spilled_bytes_after=%" PRId64
                  " rows_in_memory_after=%" PRId64 " spill_files_after=%" PRId64,
                  plugin.c_str(), batch_rows, n, arrow_bytes, before.memory_bytes,
                  before.rows_in_memory, double(arrow_bytes) / n,
                  double(before.memory_bytes) / before.rows_in_memory,
                  double(before.memory_bytes) / arrow_bytes, pool1 - pool0,
                  double(pool1 - pool0) / n, held1 - held0, double(held1 - held0) / n, rss1 - rss0,
                  commit_s, peak.spilled_bytes, peak.memory_bytes, sampler.peak_memory,
                  std::max<int64_t>(0, sampler.peak_pool - pool_commit),
                  std::max<int64_t>(0, sampler.peak_rss - rss_commit), sampler.samples,
                  after.memory_bytes, after.spilled_bytes, after.rows_in_memory, spill_files));
      summary.push_back(Format(
          "memory   %-9s batches of %5" PRId64 ", %8" PRId64
          " rows: Arrow %.1f B/row, Usage() %.1f B/row (x%.3f), allocated %.1f B/row; "
          "commit %.2f s, allocations +%.0f MiB meanwhile; peak spilled %.0f MiB (memory "
          "then %.0f MiB); after commit %" PRId64 " B in memory",
          plugin.c_str(), batch_rows, n, double(arrow_bytes) / n,
          double(before.memory_bytes) / before.rows_in_memory,
          double(before.memory_bytes) / arrow_bytes, double(held1 - held0) / n, commit_s,
          std::max<int64_t>(0, sampler.peak_pool - pool_commit) / 1048576.0,
          peak.spilled_bytes / 1048576.0, peak.memory_bytes / 1048576.0, after.memory_bytes));
    }

    if (reads) {
      if (after.rows_in_memory != 0) {
        Die("rows still in memory after commit + CollectGarbage: " +
            std::to_string(after.rows_in_memory));
      }
      std::vector<double> disk_s, disk_only_s, mixed_s, disk_filtered_s;
      for (int r = 0; r < a.read_runs; ++r) {
        double s = 0;
        ExpectRows(ReadAll(*table, true, &s), expect, "disk read (union path)");
        disk_s.push_back(s);
        ExpectRows(ReadAll(*table, false, &s), expect, "disk-only read");
        disk_only_s.push_back(s);
        auto t0 = Clock::now();
        if (!ReadIds(*table, "id >= " + std::to_string(n)).empty()) Die("filter matched rows");
        disk_filtered_s.push_back(Seconds(t0, Clock::now()));
      }
      writer.reset();
      context.reset();
      DropTable(a, &table);

      // Half committed, half in memory.
      auto mixed = CreateTable(a, "read_mixed", RealtimeOptions(a.plugin));
      auto mixed_writer = Take(mixed->NewWriter(), "new writer");
      Checksum mixed_sum;
      WriteRows(*mixed_writer, g, 0, n / 2, batch_rows, &mixed_sum);
      double ignored = 0;
      TimedCommit(*mixed_writer, &ignored);
      WriteRows(*mixed_writer, g, n / 2, n - n / 2, batch_rows, &mixed_sum);
      auto u = UsageOf(*mixed);
      if (u.rows_in_memory != n - n / 2) Die("mixed table: unexpected rows in memory");
      for (int r = 0; r < a.read_runs; ++r) {
        double s = 0;
        ExpectRows(ReadAll(*mixed, true, &s), expect, "mixed read");
        mixed_s.push_back(s);
      }
      mixed_writer.reset();
      DropTable(a, &mixed);

      auto report = [&](const char* source, const std::vector<double>& seconds) {
        Stats st = Summarize(seconds);
        Emit(Format("bench=read source=%s rows=%" PRId64 " runs=%d median_s=%.3f best_s=%.3f"
                    " rows_per_s=%.0f best_rows_per_s=%.0f",
                    source, n, a.read_runs, st.p50,
                    *std::min_element(seconds.begin(), seconds.end()), n / st.p50,
                    n / *std::min_element(seconds.begin(), seconds.end())));
        summary.push_back(Format("read     %-28s %9" PRId64 " rows: %10.0f rows/s (median of %d, "
                                 "%.3f s)",
                                 source, n, n / st.p50, a.read_runs, st.p50));
      };
      report("memory", memory_read_s);
      report("disk", disk_s);
      report("mixed", mixed_s);
      report("disk_only", disk_only_s);
      // The selective query: rows/s here means rows the table holds per second of query.
      Stats mf = Summarize(memory_filtered_s), df = Summarize(disk_filtered_s);
      Emit(Format("bench=read_filtered filter=id_ge_rows rows=%" PRId64
                  " memory_median_s=%.4f disk_median_s=%.4f memory_ns_per_row=%.1f",
                  n, mf.p50, df.p50, mf.p50 * 1e9 / n));
      summary.push_back(Format("read     filter matching nothing, %" PRId64
                               " rows: from memory %.1f ms (%.1f ns per row scanned), from disk "
                               "%.1f ms (files pruned by statistics)",
                               n, mf.p50 * 1e3, mf.p50 * 1e9 / n, df.p50 * 1e3));
    } else {
      writer.reset();
      context.reset();
      DropTable(a, &table);
    }
  }
  if (!a.keep) fs::remove_all(a.dir + "/spill");
}

// ---------------------------------------------------------------------------------------------
// visible

// Sleeps until `*tick` + `interval_us` and advances the tick; behind schedule, the tick restarts
// from now (no catch-up burst).
void Pace(int64_t interval_us, Clock::time_point* tick) {
  *tick += std::chrono::microseconds(interval_us);
  auto now = Clock::now();
  if (*tick > now) {
    std::this_thread::sleep_until(*tick);
  } else {
    *tick = now;
  }
}

// Names the calling thread, so that a profile can be read per role (`perf report --sort comm`).
void NameThread(const char* name) { pthread_setname_np(pthread_self(), name); }

// What a pause costs on this machine, with no freshet code involved: the time to follow a chain of
// pointers through `kib` KiB of the calling thread's own memory (one cache line per link, in a
// random order, as a query follows its objects), back to back and after each of `pause_us` of
// sleep (p50 of 500 walks each). On a VM whose host runs other work while a vCPU idles, the second
// is several times the first: caches and TLBs go cold while the writer sleeps between batches,
// and every Write and query after a pause pays that too.
struct PauseCost {
  double hot_us = 0, after_pause_us = 0;
};
PauseCost MeasurePauseCost(int64_t kib, int64_t pause_us) {
  struct alignas(64) Line {
    const Line* next;
  };
  std::vector<Line> lines(static_cast<size_t>(kib) * 1024 / sizeof(Line));
  std::vector<size_t> order(lines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(7));
  for (size_t i = 0; i < order.size(); ++i) {
    lines[order[i]].next = &lines[order[(i + 1) % order.size()]];
  }
  const Line* at = &lines[0];
  auto walks = [&](int64_t sleep_us) {
    std::vector<double> us;
    for (int i = 0; i < 500; ++i) {
      auto t0 = Clock::now();
      for (size_t n = 0; n < lines.size(); ++n) at = at->next;
      us.push_back(Micros(t0, Clock::now()));
      if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    }
    return Summarize(us).p50;
  };
  PauseCost cost;
  cost.hot_us = walks(0);
  cost.after_pause_us = walks(pause_us);
  asm volatile("" : : "r"(at));  // keeps the loads
  return cost;
}

void BenchVisible(const Args& a) {
  const int64_t k_batches = a.visible_batches;
  const int64_t b = a.visible_batch_rows;
  Generator g(a.seed);
  auto table = CreateTable(a, "visible", RealtimeOptions(a.plugin));
  auto context = Take(table->Realtime(), "realtime context");
  if (a.visible_preload_commits > 0) {
    auto preload = Take(table->NewWriter(), "new writer");
    for (int64_t c = 0; c < a.visible_preload_commits; ++c) {
      int64_t id = -1 - c;
      TimedWrite(*preload, MakeBatch(g, c, 1, &id, nullptr));
      if (!Take(preload->Commit(), "commit")) Die("visible: a preload commit made no snapshot");
    }
  }

  // Start time (steady clock ns) of the Write of batch k; 0 before it starts.
  std::vector<std::atomic<int64_t>> started(k_batches);
  for (auto& s : started) s.store(0);
  std::atomic<bool> queries_done{false}, writes_done{false};
  std::vector<double> write_us, sync_us, async_us, commit_ms, async_query_us;
  std::vector<double> memory_rows_at_query;
  // The writer's query alone: wall and thread CPU time, and how many blocked or were preempted.
  std::vector<double> sync_query_us, sync_query_cpu_us;
  int64_t sync_queries_blocked = 0, sync_queries_preempted = 0;
  std::atomic<int64_t> queries_with_snapshot{0}, commits_done{0};
  std::atomic<bool> committing{false};  // the committer is inside Commit
  std::vector<int64_t> commits_at_write, commits_before_query;
  std::vector<bool> query_met_a_commit;  // a commit ran at the start or the end of the query
  std::vector<std::pair<double, int64_t>> disk_plan_us;  // (us, commits done then)
  SlowWrites slow_writes;
  double writer_s = 0;  // the writer loop's wall time

  std::thread committer([&] {
    NameThread("rt-committer");
    auto writer = Take(table->NewWriter(), "new writer");
    auto next = Clock::now() + std::chrono::milliseconds(a.commit_interval_ms);
    while (!queries_done || !writes_done) {
      if (Clock::now() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      double s = 0;
      committing = true;
      const bool committed = TimedCommit(*writer, &s).has_value();
      committing = false;
      if (committed) {
        commit_ms.push_back(s * 1e3);
        ++commits_done;
      }
      next = Clock::now() + std::chrono::milliseconds(a.commit_interval_ms);
    }
  });

  // The query thread: reads every id from the lowest marker not yet seen on; batch k counts as
  // visible at the end of the first query that started after Write(k) started and returned it.
  std::thread query([&] {
    NameThread("rt-query");
    int64_t lo = a.visible_query_thread ? 0 : k_batches;  // first batch not seen yet
    while (lo < k_batches) {
      int64_t marker = lo * b + b - 1;
      int64_t qs = NowNanos();
      std::vector<int64_t> ids = ReadIds(*table, "id >= " + std::to_string(marker));
      int64_t qe = NowNanos();
      async_query_us.push_back(double(qe - qs) / 1e3);
      if (ids.empty()) continue;
      int64_t max_id = *std::max_element(ids.begin(), ids.end());
      // Union reads are gap-free and duplicate-free: every id in [marker, max_id] exactly once.
      if (static_cast<int64_t>(ids.size()) != max_id - marker + 1) {
        Die("query from id " + std::to_string(marker) + " returned " + std::to_string(ids.size()) +
            " rows up to id " + std::to_string(max_id) + " (gap or duplicate)");
      }
      while (lo < k_batches && lo * b + b - 1 <= max_id) {
        int64_t t0 = started[lo].load();
        if (t0 == 0 || t0 > qs) break;  // written after this query started: the next one counts
        async_us.push_back(double(qe - t0) / 1e3);
        ++lo;
      }
    }
    queries_done = true;
  });

  // The writer thread: paced batches; after each Write, a point query for the batch's marker.
  {
    NameThread("rt-writer");
    auto writer = Take(table->NewWriter(), "new writer");
    auto tick = Clock::now();
    const auto writer_began = tick;
    // Primary-key upserts: the batch's first `u` rows update random keys written before.
    const int64_t u = a.visible_update_rows;
    std::mt19937_64 pick(a.seed);
    std::vector<int64_t> ids(static_cast<size_t>(u + b));
    for (int64_t k = 0; k < k_batches; ++k) {
      std::shared_ptr<arrow::StructArray> batch;
      if (u == 0) {
        batch = MakeBatch(g, k * b, b, nullptr);
      } else {
        const int64_t updates = k == 0 ? 0 : u;  // no key to update in the first batch
        for (int64_t i = 0; i < updates; ++i) {
          ids[i] = static_cast<int64_t>(pick() % static_cast<uint64_t>(k * b));
        }
        for (int64_t i = 0; i < b; ++i) ids[updates + i] = k * b + i;
        // Generator rows past every id: the updates carry values no earlier row had.
        batch = MakeBatch(g, k_batches * b + k * (u + b), updates + b, ids.data(), nullptr);
      }
      const int64_t marker = k * b + b - 1;
      int64_t memory_rows = context->Usage().rows_in_memory;
      ArrowArray c_array;
      ArrowSchema c_schema;
      Check(arrow::ExportArray(*batch, &c_array, &c_schema), "export");
      batch.reset();
      ThreadClock before = ReadThreadClock();
      auto t0 = Clock::now();
      started[k].store(Nanos(t0));
      Check(writer->Write(&c_array, &c_schema), "write");
      auto t1 = Clock::now();
      slow_writes.Add(Micros(t0, t1), before, ReadThreadClock());
      write_us.push_back(Micros(t0, t1));
      if (k % a.visible_sync_every != 0) {
        Pace(a.visible_interval_us, &tick);
        continue;
      }
      // The bench's own bookkeeping above (two clock reads) is left out of the span.
      ThreadClock query_clock = ReadThreadClock();
      commits_before_query.push_back(commits_done.load());
      bool met_a_commit = committing.load();
      auto query_start = Clock::now();
      std::vector<int64_t> ids = ReadIds(*table, "id >= " + std::to_string(marker));
      auto t2 = Clock::now();
      ThreadClock query_clock_end = ReadThreadClock();
      sync_query_us.push_back(Micros(query_start, t2));
      query_met_a_commit.push_back(met_a_commit || committing.load());
      sync_query_cpu_us.push_back((query_clock_end.cpu_s - query_clock.cpu_s) * 1e6);
      if (query_clock_end.voluntary > query_clock.voluntary) ++sync_queries_blocked;
      if (query_clock_end.involuntary > query_clock.involuntary) ++sync_queries_preempted;
      if (ids.size() != 1 || ids[0] != marker) {
        Die("the row written last (id " + std::to_string(marker) +
            ") is not visible: the query "
            "returned " +
            std::to_string(ids.size()) + " rows");
      }
      auto committed = context->CommittedProgress();
      if (!committed.empty() && committed.front().end > 0) ++queries_with_snapshot;
      sync_us.push_back(Micros(t0, t1) + Micros(query_start, t2));
      commits_at_write.push_back(commits_done.load());
      if (sync_us.size() % 10 == 1) {
        // The disk side alone: a committed-files-only query of the same filter (every file is
        // pruned by its id statistics): snapshot + manifests + planning, no memory rows.
        auto p0 = Clock::now();
        // Empty, or the marker alone when a commit took it to disk meanwhile.
        std::vector<int64_t> committed_ids =
            ReadIds(*table, "id >= " + std::to_string(marker), false);
        if (!committed_ids.empty() && committed_ids != std::vector<int64_t>{marker}) {
          Die("a committed-only query returned rows that were never written");
        }
        disk_plan_us.push_back({Micros(p0, Clock::now()), commits_done.load()});
      }
      memory_rows_at_query.push_back(static_cast<double>(memory_rows));
      Pace(a.visible_interval_us, &tick);
    }
    writer_s = Seconds(writer_began, Clock::now());
    writes_done = true;
  }
  query.join();  // without a query thread, done at once
  committer.join();
  // Everything written is committed at the end, and a disk-only read sees every row.
  {
    auto writer = Take(table->NewWriter(), "new writer");
    double s = 0;
    TimedCommit(*writer, &s);
    auto ids = ReadIds(*table, "", false);
    if (static_cast<int64_t>(ids.size()) != k_batches * b + a.visible_preload_commits) {
      Die("visible: rows lost at commit");
    }
  }
  auto snapshots = Take(table->Snapshots(), "snapshots");
  for (double us : sync_us) samples.Row("visible", "kind,us", Format("same-thread,%.2f", us));
  for (double us : async_us) samples.Row("visible", "kind,us", Format("query-thread,%.2f", us));
  Stats w = Summarize(write_us), sync = Summarize(sync_us), async = Summarize(async_us);
  Stats c = Summarize(commit_ms), q = Summarize(async_query_us);
  Stats m = Summarize(memory_rows_at_query);
  Stats sq = Summarize(sync_query_us), sq_cpu = Summarize(sync_query_cpu_us);
  // The writer's queries split into the first after a commit returned, those that met a commit
  // in progress (its flush competes for the cores; its snapshot appears at some point in it), and
  // the others; and those that spent over 1 ms of CPU: what the tail is made of.
  std::vector<double> after_commit_us, during_commit_us, between_commits_us;
  int64_t heavy_queries = 0;  // over 1 ms of thread CPU
  std::string heavy_at;       // the first few of them: "#index" of the query
  for (size_t i = 0; i < sync_query_us.size(); ++i) {
    const bool first_of_snapshot = i > 0 && commits_before_query[i] != commits_before_query[i - 1];
    (first_of_snapshot       ? after_commit_us
     : query_met_a_commit[i] ? during_commit_us
                             : between_commits_us)
        .push_back(sync_query_us[i]);
    if (sync_query_cpu_us[i] > 1000 && ++heavy_queries <= 5) {
      heavy_at += Format("%s#%zu", heavy_at.empty() ? "" : ",", i);
    }
  }
  Stats sq_after = Summarize(after_commit_us), sq_during = Summarize(during_commit_us);
  Stats sq_between = Summarize(between_commits_us);
  // The same-thread figure in the first and the last tenth of the run: queries plan every
  // manifest of the snapshot, and each commit adds one.
  const size_t tenth = std::max<size_t>(1, sync_us.size() / 10);
  Stats first = Summarize({sync_us.begin(), sync_us.begin() + tenth});
  Stats last = Summarize({sync_us.end() - tenth, sync_us.end()});
  const int64_t commits_first = commits_at_write[tenth - 1];
  const int64_t commits_last = commits_at_write.back();
  std::vector<double> plan_first, plan_last, plan_all;
  const size_t plan_tenth = std::max<size_t>(1, disk_plan_us.size() / 10);
  for (size_t i = 0; i < disk_plan_us.size(); ++i) {
    plan_all.push_back(disk_plan_us[i].first);
    if (i < plan_tenth) plan_first.push_back(disk_plan_us[i].first);
    if (i + plan_tenth >= disk_plan_us.size()) plan_last.push_back(disk_plan_us[i].first);
  }
  Stats plan = Summarize(plan_all), plan_f = Summarize(plan_first), plan_l = Summarize(plan_last);
  const double rows_per_s =
      static_cast<double>(k_batches * b + (k_batches - 1) * a.visible_update_rows) / writer_s;
  summary.push_back(Format("visible  %s, %s: %.0f rows/s written (%" PRId64 " new + %" PRId64
                           " updates per batch every %" PRId64
                           " us), same-thread query every %" PRId64 " batches",
                           a.primary_key ? "primary key" : "append", a.plugin.c_str(), rows_per_s,
                           b, a.visible_update_rows, a.visible_interval_us, a.visible_sync_every));
  Emit(Format("bench=visible primary_key=%d plugin=%s update_rows=%" PRId64
              " rows_per_s=%.0f sync_every=%" PRId64 " batches=%" PRId64 " batch_rows=%" PRId64
              " interval_us=%" PRId64 " commit_interval_ms=%" PRId64
              " commits=%zu snapshots=%zu %s %s %s %s commit_ms_p50=%.1f"
              " commit_ms_max=%.1f memory_rows_p50=%.0f memory_rows_max=%.0f"
              " queries_with_a_snapshot=%" PRId64
              " sync_first_tenth_p50_us=%.1f commits_by_first_tenth=%" PRId64
              " sync_last_tenth_p50_us=%.1f commits_by_end=%" PRId64
              " %s disk_query_first_tenth_p50_us=%.1f disk_query_last_tenth_p50_us=%.1f %s"
              " %s %s sync_queries_blocked=%" PRId64 " sync_queries_preempted=%" PRId64
              " %s %s %s sync_queries_over_1ms_cpu=%" PRId64,
              a.primary_key ? 1 : 0, a.plugin.c_str(), a.visible_update_rows, rows_per_s,
              a.visible_sync_every, k_batches, b, a.visible_interval_us, a.commit_interval_ms,
              commit_ms.size(), snapshots.size(), Fields("write_us", w).c_str(),
              Fields("sync_us", sync).c_str(), Fields("async_us", async).c_str(),
              Fields("async_query_us", q).c_str(), c.p50, c.max, m.p50, m.max,
              queries_with_snapshot.load(), first.p50, commits_first, last.p50, commits_last,
              Fields("disk_query_us", plan).c_str(), plan_f.p50, plan_l.p50,
              slow_writes.Fields("write").c_str(), Fields("sync_query_us", sq).c_str(),
              Fields("sync_query_cpu_us", sq_cpu).c_str(), sync_queries_blocked,
              sync_queries_preempted, Fields("sync_query_after_commit_us", sq_after).c_str(),
              Fields("sync_query_during_commit_us", sq_during).c_str(),
              Fields("sync_query_between_commits_us", sq_between).c_str(), heavy_queries));
  summary.push_back(
      Format("visible  Write alone         p50 %8.1f  p99 %8.1f  p999 %8.1f  max %9.1f us", w.p50,
             w.p99, w.p999, w.max));
  summary.push_back(
      Format("visible  same-thread query   p50 %8.1f  p99 %8.1f  p999 %8.1f  max %9.1f us",
             sync.p50, sync.p99, sync.p999, sync.max));
  summary.push_back(Format(
      "visible  of which the query  p50 %8.1f  p99 %8.1f us; its thread CPU time p50 %.1f"
      " p99 %.1f us; %" PRId64 " of %" PRId64 " queries blocked, %" PRId64 " preempted",
      sq.p50, sq.p99, sq_cpu.p50, sq_cpu.p99, sync_queries_blocked, sq.n, sync_queries_preempted));
  summary.push_back(
      Format("visible  the query: first after a commit p50 %8.1f  max %8.1f us (%" PRId64
             "); during a commit p50 %8.1f  p99 %8.1f  max %8.1f us (%" PRId64
             "); the others p50 %8.1f  p99 %8.1f  max %8.1f us; over 1 ms of CPU: %" PRId64 " (%s)",
             sq_after.p50, sq_after.max, sq_after.n, sq_during.p50, sq_during.p99, sq_during.max,
             sq_during.n, sq_between.p50, sq_between.p99, sq_between.max, heavy_queries,
             heavy_at.c_str()));
  summary.push_back(
      Format("visible  query thread        p50 %8.1f  p99 %8.1f  p999 %8.1f  max %9.1f us"
             " (%" PRId64 " queries of p50 %.1f us)",
             async.p50, async.p99, async.p999, async.max, q.n, q.p50));
  summary.push_back(
      Format("visible  %zu commits (p50 %.1f ms, max %.1f ms), memory rows at query "
             "p50 %.0f max %.0f",
             commit_ms.size(), c.p50, c.max, m.p50, m.max));
  summary.push_back(Format("visible  same-thread p50 in the first tenth %.1f us (<= %" PRId64
                           " snapshots), in the last tenth %.1f us (<= %" PRId64 " snapshots)",
                           first.p50, commits_first + 1, last.p50, commits_last + 1));
  summary.push_back(
      Format("visible  committed-only query of the same filter (no memory rows): p50 "
             "%.1f us, first tenth %.1f us, last tenth %.1f us",
             plan.p50, plan_f.p50, plan_l.p50));
  summary.push_back(Format("visible  Writes over 1 ms: %" PRId64 " (blocked %" PRId64
                           ", preempted %" PRId64 ", busy on CPU %" PRId64 ")",
                           slow_writes.slow, slow_writes.blocked, slow_writes.preempted,
                           slow_writes.busy));
  if (a.visible_interval_us > 0) {
    constexpr int64_t kChainKib = 64;  // 1,024 cache lines
    const PauseCost pause = MeasurePauseCost(kChainKib, a.visible_interval_us);
    Emit(Format("bench=visible_pause_cost chain_kib=%" PRId64 " pause_us=%" PRId64
                " hot_us=%.2f after_pause_us=%.2f",
                kChainKib, a.visible_interval_us, pause.hot_us, pause.after_pause_us));
    summary.push_back(Format("visible  this machine: a chain of %" PRId64 " cache lines (%" PRId64
                             " KiB) followed in p50 %.2f us back to "
                             "back, %.2f us after a %" PRId64 " us pause (%.1fx)",
                             kChainKib * 1024 / 64, kChainKib, pause.hot_us, pause.after_pause_us,
                             a.visible_interval_us, pause.after_pause_us / pause.hot_us));
  }
  context.reset();
  DropTable(a, &table);
}

// ---------------------------------------------------------------------------------------------
// ingest

void BenchIngest(const Args& a) {
  Generator g(a.seed);
  const int64_t n = a.ingest_rows;
  std::map<std::string, double> total_s, total_cpu_s;
  for (int run = 1; run <= a.ingest_runs; ++run) {
    // Both modes write the same batches, made before either is timed: a real-time writer holds
    // them until its commit, and generating them in between would put seconds between dropping
    // the last run's table and this run's file writes for one mode only (on a VM that hands freed
    // pages back to its host, the page cache of a late write is then fresh memory, several times
    // slower to fill).
    std::vector<std::shared_ptr<arrow::StructArray>> batches;
    for (int64_t row = 0; row < n; row += a.ingest_batch) {
      batches.push_back(MakeBatch(g, row, std::min(a.ingest_batch, n - row), nullptr));
    }
    // Alternate the order so that neither mode always runs on a warmer (or busier) machine.
    std::vector<bool> modes =
        run % 2 == 1 ? std::vector<bool>{false, true} : std::vector<bool>{true, false};
    for (bool realtime : modes) {
      const char* mode = realtime ? "realtime" : "plain";
      if (a.ingest_modes.find(mode) == std::string::npos) continue;
      auto t_start = Clock::now();
      const double cpu_start = ProcessCpuSeconds();
      const double sys_start = ProcessSysSeconds();
      const int64_t faults_start = ProcessMinorFaults();
      auto table = CreateTable(a, std::string("ingest_") + mode,
                               realtime ? RealtimeOptions(a.plugin) : Options{});
      auto writer = Take(table->NewWriter(), "new writer");
      double write_s = Seconds(t_start, Clock::now());
      int64_t memory_bytes = 0;
      int64_t written = 0;
      for (const auto& batch : batches) {
        write_s += TimedWrite(*writer, batch);
        written += batch->length();
        samples.Row("ingest", "mode,run,event,s,rows",
                    Format("%s,%d,written,%.6f,%" PRId64, mode, run, write_s, written));
      }
      if (realtime) memory_bytes = UsageOf(*table).memory_bytes;
      double commit_s = 0;
      if (!TimedCommit(*writer, &commit_s)) Die("nothing committed");
      samples.Row("ingest", "mode,run,event,s,rows",
                  Format("%s,%d,committed,%.6f,%" PRId64, mode, run, write_s + commit_s, n));
      writer.reset();
      // CPU, system CPU and page faults of create + Write loop + Commit (+ freeing the writer).
      const double cpu_s = ProcessCpuSeconds() - cpu_start;
      const double sys_s = ProcessSysSeconds() - sys_start;
      const int64_t faults = ProcessMinorFaults() - faults_start;
      total_cpu_s[mode] += cpu_s;
      double total = write_s + commit_s;
      auto ids = ReadIds(*table, "", false);
      if (static_cast<int64_t>(ids.size()) != n) Die(std::string(mode) + " ingest: rows lost");
      total_s[mode] += total;
      Emit(Format("bench=ingest mode=%s run=%d rows=%" PRId64 " batch=%" PRId64
                  " write_s=%.3f commit_s=%.3f total_s=%.3f rows_per_s=%.0f"
                  " memory_bytes_before_commit=%" PRId64
                  " cpu_s=%.3f rows_per_cpu_s=%.0f sys_s=%.3f minor_faults=%" PRId64,
                  mode, run, n, a.ingest_batch, write_s, commit_s, total, n / total, memory_bytes,
                  cpu_s, n / cpu_s, sys_s, faults));
      summary.push_back(Format("ingest   %-8s run %d  %9" PRId64 " rows: %10.0f rows/s (Write "
                               "loop %.2f s + Commit %.2f s; %.2f CPU s)",
                               mode, run, n, n / total, write_s, commit_s, cpu_s));
      DropTable(a, &table);
    }
  }
  if (total_s.size() < 2) return;
  double ratio = total_s["plain"] / total_s["realtime"];
  Emit(Format(
      "bench=ingest_ratio runs=%d plain_rows_per_s=%.0f realtime_rows_per_s=%.0f"
      " realtime_over_plain=%.3f cpu_realtime_over_plain=%.3f",
      a.ingest_runs, n * a.ingest_runs / total_s["plain"], n * a.ingest_runs / total_s["realtime"],
      ratio, total_cpu_s["realtime"] / total_cpu_s["plain"]));
  summary.push_back(
      Format("ingest   all runs: plain %.0f rows/s, realtime %.0f rows/s, "
             "realtime/plain = %.3f (CPU seconds realtime/plain = %.3f)",
             n * a.ingest_runs / total_s["plain"], n * a.ingest_runs / total_s["realtime"], ratio,
             total_cpu_s["realtime"] / total_cpu_s["plain"]));
}

// ---------------------------------------------------------------------------------------------
// stall

void BenchStall(const Args& a) {
  Generator g(a.seed);
  const int64_t b = a.stall_batch;

  // Real-time: fill memory with >= flush_bytes, then one thread commits (sealing and flushing all
  // of it) while this thread keeps writing paced batches until the commit returns.
  {
    auto table = CreateTable(a, "stall_realtime", RealtimeOptions(a.plugin));
    auto writer = Take(table->NewWriter(), "new writer");
    int64_t row = 0, bytes = 0;
    std::vector<double> fill_us, during_us;
    while (bytes < a.flush_bytes) {
      auto batch = MakeBatch(g, row, b, nullptr);
      bytes += arrow::util::TotalBufferSize(*batch);
      row += b;
      fill_us.push_back(TimedWrite(*writer, std::move(batch)) * 1e6);
    }
    const int64_t filled_rows = row;
    auto filled = UsageOf(*table);
    std::atomic<bool> committing{true};
    Clock::time_point commit_start, commit_end;
    const Clock::time_point spawned = Clock::now();
    std::vector<std::pair<double, double>> during_at;  // (s since the commit began, us)
    std::thread committer([&] {
      auto commit_writer = Take(table->NewWriter(), "new writer");
      commit_start = Clock::now();
      auto snapshot = Take(commit_writer->Commit(), "commit");
      commit_end = Clock::now();
      if (!snapshot) Die("nothing committed");
      committing = false;
    });
    // Writes that start while the commit runs.
    auto tick = Clock::now();
    int64_t rows_during = 0;
    SlowWrites slow;
    while (committing) {
      auto batch = MakeBatch(g, row, b, nullptr);
      row += b;
      bool during = committing.load();
      const double at = Seconds(spawned, Clock::now());
      double s = TimedWrite(*writer, std::move(batch), during ? &slow : nullptr);
      if (during) {
        during_us.push_back(s * 1e6);
        during_at.emplace_back(at, s * 1e6);
        rows_during += b;
      }
      tick += std::chrono::microseconds(a.stall_interval_us);
      auto now = Clock::now();
      if (tick > now) {
        std::this_thread::sleep_until(tick);
      } else {
        tick = now;
      }
    }
    committer.join();
    for (const auto& [at, us] : during_at) {
      samples.Row("stall", "writer,s,us", Format("realtime,%.6f,%.2f", at, us));
    }
    auto after = UsageOf(*table);
    double commit_s = Seconds(commit_start, commit_end);
    Stats fill = Summarize(fill_us), during = Summarize(during_us);
    Emit(Format("bench=stall mode=realtime batch=%" PRId64 " interval_us=%" PRId64
                " flushed_rows=%" PRId64 " flushed_arrow_bytes=%" PRId64
                " memory_bytes_at_commit=%" PRId64 " commit_s=%.3f rows_committed=%" PRId64
                " rows_written_during_commit=%" PRId64 " %s %s %s",
                b, a.stall_interval_us, filled_rows, bytes, filled.memory_bytes, commit_s,
                after.rows_committed, rows_during, Fields("fill_write_us", fill).c_str(),
                Fields("commit_write_us", during).c_str(), slow.Fields("commit_write").c_str()));
    summary.push_back(Format("stall    realtime: Commit flushing %.2f GiB (%" PRId64
                             " rows) took %.2f s; %" PRId64 " Writes meanwhile: p50 %.1f  p99 "
                             "%.1f  max %.1f us",
                             bytes / double(1LL << 30), filled_rows, commit_s, during.n, during.p50,
                             during.p99, during.max));
    summary.push_back(Format("stall    realtime: Writes over 1 ms during the commit: %" PRId64
                             " (blocked %" PRId64 ", preempted %" PRId64 ", busy on CPU %" PRId64
                             ")",
                             slow.slow, slow.blocked, slow.preempted, slow.busy));
    summary.push_back(
        Format("stall    realtime: Writes before the commit (filling): p50 %.1f  "
               "p99 %.1f  max %.1f us",
               fill.p50, fill.p99, fill.max));
    writer.reset();
    DropTable(a, &table);
  }

  // Plain: the same batches on one thread, Write encodes as it goes; then Commit, during which
  // this (the only) writer thread cannot write.
  {
    auto table = CreateTable(a, "stall_plain", Options{});
    auto writer = Take(table->NewWriter(), "new writer");
    int64_t row = 0, bytes = 0;
    std::vector<double> write_us;
    SlowWrites slow;
    double write_s = 0;
    while (bytes < a.flush_bytes) {
      auto batch = MakeBatch(g, row, b, nullptr);
      bytes += arrow::util::TotalBufferSize(*batch);
      row += b;
      const double at = write_s;
      double s = TimedWrite(*writer, std::move(batch), &slow);
      write_s += s;
      write_us.push_back(s * 1e6);
      samples.Row("stall", "writer,s,us", Format("plain,%.6f,%.2f", at, s * 1e6));
    }
    double commit_s = 0;
    if (!TimedCommit(*writer, &commit_s)) Die("nothing committed");
    samples.Row("stall", "writer,s,us", Format("plain-commit,%.6f,%.2f", write_s, commit_s * 1e6));
    Stats w = Summarize(write_us);
    Emit(Format("bench=stall mode=plain batch=%" PRId64 " rows=%" PRId64 " arrow_bytes=%" PRId64
                " write_s=%.3f commit_s=%.3f %s %s slow_write_s=%.3f",
                b, row, bytes, write_s, commit_s, Fields("write_us", w).c_str(),
                slow.Fields("write").c_str(), slow.slow_wall_us / 1e6));
    summary.push_back(Format("stall    plain:    %" PRId64 " Writes of %.2f GiB: p50 %.1f  p99 "
                             "%.1f  max %.1f us; then Commit blocks the writer %.3f s",
                             w.n, bytes / double(1LL << 30), w.p50, w.p99, w.max, commit_s));
    summary.push_back(Format("stall    plain:    Writes over 1 ms: %" PRId64 " totalling %.2f s "
                             "of the %.2f s Write loop (blocked %" PRId64 ", preempted %" PRId64
                             ", busy on CPU %" PRId64 ")",
                             slow.slow, slow.slow_wall_us / 1e6, write_s, slow.blocked,
                             slow.preempted, slow.busy));
    writer.reset();
    DropTable(a, &table);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// lookup

// Key i of the lookup table has id 2 * i: odd ids are missing keys inside the files' key ranges,
// so statistics cannot rule them out.
int64_t LookupId(int64_t key) { return 2 * key; }

// Table::Lookup of one id, through the C Data Interface as a user calls it; the microseconds the
// call took. Dies when the answer is wrong (`expect_found`, the id of the row found).
double TimedLookup(const freshet::Table& table, int64_t id, bool expect_found) {
  arrow::Int64Builder builder;
  Check(builder.Append(id), "key");
  auto keys = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), 1,
                                       {Take(builder.Finish(), "key")});
  ArrowArray in, out;
  ArrowSchema in_schema, out_schema;
  Check(arrow::ExportRecordBatch(*keys, &in, &in_schema), "export");
  auto t0 = Clock::now();
  Check(table.Lookup(&in, &in_schema, &out, &out_schema), "lookup");
  auto t1 = Clock::now();
  in.release(&in);
  in_schema.release(&in_schema);
  auto result = Take(arrow::ImportRecordBatch(&out, &out_schema), "import");
  const auto& found = static_cast<const arrow::BooleanArray&>(
      *result->GetColumnByName(freshet::kLookupFoundColumn));
  const auto& ids = static_cast<const arrow::Int64Array&>(*result->GetColumnByName("id"));
  if (result->num_rows() != 1 || found.Value(0) != expect_found ||
      (expect_found && ids.Value(0) != id)) {
    Die("lookup of id " + std::to_string(id) + ": expected " +
        (expect_found ? "its row" : "no row") + ", got " + result->ToString());
  }
  return Micros(t0, t1);
}

void BenchLookup(const Args& a) {
  const int64_t n = a.lookup_keys, in_memory = a.lookup_memory_keys, on_disk = n - in_memory;
  Generator g(a.seed);
  Options options = RealtimeOptions(a.plugin);
  options["lookup.cache-max-memory-size"] = std::to_string(a.lookup_cache_bytes) + " b";
  auto table = CreateTable(a, "lookup", options);
  auto writer = Take(table->NewWriter(), "new writer");
  constexpr int64_t kBatch = 65536, kCommitEvery = 1'000'000;
  std::vector<int64_t> ids(kBatch);
  auto write = [&](int64_t first, int64_t count) {
    for (int64_t key = first; key < first + count; key += kBatch) {
      const int64_t rows = std::min(kBatch, first + count - key);
      for (int64_t i = 0; i < rows; ++i) ids[i] = LookupId(key + i);
      TimedWrite(*writer, MakeBatch(g, key, rows, ids.data(), nullptr));
    }
  };
  auto t0 = Clock::now();
  for (int64_t key = 0; key < on_disk; key += kCommitEvery) {
    write(key, std::min(kCommitEvery, on_disk - key));
    Take(writer->Commit(), "commit");
  }
  freshet::CommitOptions wait;
  wait.wait_compaction = true;  // the background compactions of the load land
  Take(writer->Commit(wait), "commit");
  const double load_s = Seconds(t0, Clock::now());
  write(on_disk, in_memory);  // uncommitted
  const auto snapshots = Take(table->Snapshots(), "snapshots");
  const int64_t memory_rows = UsageOf(*table).rows_in_memory;
  if (memory_rows != in_memory) Die("lookup: the memory keys are not all in memory");

  // Cold: the first lookups decode the files they touch into the cache; one per 100,000 keys
  // across the key space touches every file.
  std::vector<double> cold_us;
  for (int64_t key = 0; key < on_disk; key += 100'000) {
    cold_us.push_back(TimedLookup(*table, LookupId(key), true));
  }
  std::mt19937_64 pick(a.seed);
  std::vector<double> memory_us, disk_us, missing_us;
  for (int64_t run = 0; run < a.lookup_runs; ++run) {
    const auto on_disk_key = static_cast<int64_t>(pick() % static_cast<uint64_t>(on_disk));
    const auto memory_key =
        on_disk + static_cast<int64_t>(pick() % static_cast<uint64_t>(in_memory));
    const auto any_key = static_cast<int64_t>(pick() % static_cast<uint64_t>(n));
    memory_us.push_back(TimedLookup(*table, LookupId(memory_key), true));
    disk_us.push_back(TimedLookup(*table, LookupId(on_disk_key), true));
    missing_us.push_back(TimedLookup(*table, LookupId(any_key) + 1, false));
  }
  Stats m = Summarize(memory_us), d = Summarize(disk_us), x = Summarize(missing_us);
  Stats cold = Summarize(cold_us);
  Emit(Format("bench=lookup plugin=%s buckets=%d keys=%" PRId64 " memory_keys=%" PRId64
              " snapshots=%zu load_s=%.1f cache_bytes=%" PRId64 " %s %s %s %s",
              a.plugin.c_str(), a.buckets, n, in_memory, snapshots.size(), load_s,
              a.lookup_cache_bytes, Fields("cold_us", cold).c_str(), Fields("memory_us", m).c_str(),
              Fields("disk_us", d).c_str(), Fields("missing_us", x).c_str()));
  summary.push_back(Format("lookup   %s, %" PRId64 " keys (%" PRId64 " in memory), %d buckets:",
                           a.plugin.c_str(), n, in_memory, a.buckets));
  for (const auto& [what, st] : {std::pair<const char*, Stats>{"in memory", m},
                                 {"on disk", d},
                                 {"missing", x},
                                 {"cold disk", cold}}) {
    summary.push_back(Format("lookup     key %-10s p50 %9.1f  p99 %9.1f  max %9.1f us", what,
                             st.p50, st.p99, st.max));
  }
  writer.reset();
  DropTable(a, &table);
}

// ---------------------------------------------------------------------------------------------
// plan

void BenchPlan(const Args& a) {
  Generator g(a.seed);
  // Append table, fixed buckets, no compaction: every commit adds one file per bucket.
  Options options{{"bucket", std::to_string(a.plan_buckets)},
                  {"bucket-key", "id"},
                  {"write-only", "true"},
                  {"snapshot.num-retained.min", std::to_string(a.plan_commits + 10)},
                  {"snapshot.num-retained.max", std::to_string(a.plan_commits + 10)}};
  Args plain = a;
  plain.primary_key = false;
  auto table = CreateTable(plain, "plan", options);
  auto writer = Take(table->NewWriter(), "new writer");
  const int64_t rows = 20 * a.plan_buckets;  // enough for every bucket to get a file
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  int64_t next_id = 0;
  auto commit_one = [&]() {
    for (auto& id : ids) id = next_id++;
    TimedWrite(*writer, MakeBatch(g, ids.front(), rows, ids.data(), nullptr));
    Take(writer->Commit(), "commit");
  };
  // No row has a negative id: statistics prune every file, what is left is planning. A query
  // of the same filter finds its plan cached; one of a new literal (`id = -2`, `-3`, ...) tests
  // the files of its bucket against their statistics.
  int64_t next_literal = 2;
  auto query_filter = [&](const std::string& filter) {
    auto q0 = Clock::now();
    if (!ReadIds(*table, filter, false).empty()) Die("plan: a query returned rows");
    return Micros(q0, Clock::now());
  };
  auto query = [&]() { return query_filter("id = -1"); };
  auto query_new = [&]() { return query_filter("id = -" + std::to_string(next_literal++)); };
  // With --samples, planning against the number of live files as the table grows, at 20 points
  // of the load (not timed): one commit before a point, a query (the plan cache is many commits
  // behind: a full decode of every manifest); at the point, the first query after its commit (an
  // advance by one delta) and the median of 9 warm ones.
  const int64_t sample_every = std::max<int64_t>(2, a.plan_commits / 20);
  double load_s = 0;
  double full_us = 0;
  for (int64_t c = 0; c < a.plan_commits; ++c) {
    auto t0 = Clock::now();
    commit_one();
    load_s += Seconds(t0, Clock::now());
    if (!samples.enabled()) continue;
    if ((c + 2) % sample_every == 0) full_us = query();
    if ((c + 1) % sample_every != 0 || full_us == 0) continue;
    const double after_commit = query();
    std::vector<double> warm;
    for (int i = 0; i < 9; ++i) warm.push_back(query());
    samples.Row("plan", "files,full_decode_us,after_commit_us,warm_us",
                Format("%" PRId64 ",%.2f,%.2f,%.2f", (c + 1) * a.plan_buckets, full_us,
                       after_commit, Summarize(warm).p50));
  }
  const double first_us = query();
  std::vector<double> warm_us, after_commit_us;
  for (int64_t run = 0; run < a.plan_runs; ++run) warm_us.push_back(query());
  std::vector<double> new_us, new_after_commit_us;
  for (int64_t run = 0; run < a.plan_runs; ++run) new_us.push_back(query_new());
  for (int64_t run = 0; run < std::min<int64_t>(a.plan_runs, 100); ++run) {
    commit_one();
    after_commit_us.push_back(query());
    commit_one();
    new_after_commit_us.push_back(query_new());
  }
  const auto files = Take(table->Snapshots(), "snapshots").size();
  Stats w = Summarize(warm_us), c = Summarize(after_commit_us), n = Summarize(new_us),
        nc = Summarize(new_after_commit_us);
  Emit(Format("bench=plan commits=%" PRId64 " buckets=%" PRId64 " snapshots=%zu load_s=%.1f "
              "first_us=%.1f %s %s %s %s",
              a.plan_commits, a.plan_buckets, files, load_s, first_us, Fields("warm_us", w).c_str(),
              Fields("after_commit_us", c).c_str(), Fields("new_literal_us", n).c_str(),
              Fields("new_literal_after_commit_us", nc).c_str()));
  summary.push_back(Format("plan     %" PRId64 " commits x %" PRId64
                           " files: first %.1f us, warm p50 %.1f p99 %.1f us, after a commit "
                           "p50 %.1f p99 %.1f us",
                           a.plan_commits, a.plan_buckets, first_us, w.p50, w.p99, c.p50, c.p99));
  summary.push_back(
      Format("plan     a new literal: p50 %.1f p99 %.1f us; right after a commit: "
             "p50 %.1f p99 %.1f us",
             n.p50, n.p99, nc.p50, nc.p99));
  writer.reset();
  DropTable(a, &table);
}

int main(int argc, char** argv) {
  Args a = Parse(argc, argv);
  fs::create_directories(a.dir);
  samples.Open(a.samples_dir);
  std::printf("# freshet_realtime_bench format=%s only=%s dir=%s\n", a.format.c_str(),
              a.only.c_str(), a.dir.c_str());
  std::fflush(stdout);
  if (a.Runs("memory") || a.Runs("read")) BenchMemoryAndRead(a);
  if (a.Runs("visible")) BenchVisible(a);
  if (a.Runs("ingest")) BenchIngest(a);
  if (a.Runs("stall")) BenchStall(a);
  if (a.Runs("lookup")) BenchLookup(a);
  if (a.Runs("plan")) BenchPlan(a);
  std::printf("\n");
  for (const std::string& line : summary) std::printf("%s\n", line.c_str());
  if (!a.keep) fs::remove_all(a.dir + "/rtbench.db");
  return 0;
}
