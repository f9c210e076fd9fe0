// freshet_primary_key_bench: the primary-key benchmark (docs/benchmarks.md, "Primary-key tables:
// upsert write and merge-on-read"). Two workloads on a 4-bucket `deduplicate` table with primary
// key `id` (the append bench's 10 columns), both written through the public API (Table::Create,
// TableWriter::Write with the Arrow C Data Interface, several Commit()s):
//
//  * upsert: an event stream of N rows, 20 % updates (+U) and 2 % deletes (-D) of earlier keys,
//    the rest inserts (+I) of new keys; one commit every --commit-rows events (default 1M).
//  * mor:    N upserts in 8 commits, each of N/8 rows with keys drawn uniformly from [0, N): every
//    bucket holds 8 overlapping level-0 sorted runs, the input of the merge-on-read measured by
//    --read.
//
// The event stream is the generator of bench_rows.h plus the rules below, identical in the Java
// harness (interop/java BenchPk.java, command `bench-pk`), so both engines write the same rows and
// print the same checksum of the merged table. The write run prints one `RESULT` line (write and
// commit wall time, rows/s, CPU seconds spent writing without the generator's, peak RSS, and the
// checksum the merged table must have); `--read` reads tables fully (merge-on-read) and prints one
// `READ` line per table (rows, data-file records, rows/s, CPU, peak RSS, checksum).
//
// --compaction writes the table without `write-only`: the writer compacts in the background as
// Java's does, and the last commit waits for it. --full-compact then times one full compaction of
// every bucket (Table::Compact) and prints a COMPACT line. --buckets sets the table's buckets (4).
//
//   freshet_primary_key_bench --workload upsert|mor [--rows N] [--format parquet|orc] [--dir D]
//                             [--commit-rows C] [--batch B] [--seed S] [--buckets K]
//                             [--compaction] [--full-compact] [--keep]
//   freshet_primary_key_bench --read <table>[,<table>...] [--batch B]
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_rows.h"
#include "freshet/table.h"

namespace {

using namespace freshet::bench;  // NOLINT: the shared rows, checksum and helpers
namespace fs = std::filesystem;

constexpr int8_t kInsert = 0, kUpdateAfter = 2, kDelete = 3;  // Paimon's row kind bytes
constexpr int kMorCommits = 8;

// The event stream (docs/benchmarks.md, "Primary-key generator"). Event e writes generator row e
// (its values) with id Key(e) and row kind Kind(e).
struct Events {
  const Generator& g;
  std::string workload;
  int64_t rows;  // N

  int8_t Kind(int64_t e) const {
    if (workload == "mor" || e == 0) return kInsert;
    uint64_t r = g.H(e, 10) % 100;
    return r < 2 ? kDelete : r < 22 ? kUpdateAfter : kInsert;
  }
  int64_t Key(int64_t e) const {
    if (workload == "mor") return static_cast<int64_t>(g.H(e, 12) % static_cast<uint64_t>(rows));
    // upsert: an insert writes key e; an update or delete writes the key of an earlier event.
    while (Kind(e) != kInsert) e = static_cast<int64_t>(g.H(e, 11) % static_cast<uint64_t>(e));
    return e;
  }
};

// The checksum of the merged table: per key, the last event that wrote it, unless a delete.
Checksum Expected(const Events& ev) {
  std::vector<bool> seen(static_cast<size_t>(ev.rows));
  Checksum sum;
  for (int64_t e = ev.rows - 1; e >= 0; --e) {
    int64_t key = ev.Key(e);
    if (seen[static_cast<size_t>(key)]) continue;
    seen[static_cast<size_t>(key)] = true;
    if (ev.Kind(e) != kDelete) AddRow(ev.g, e, key, &sum);
  }
  return sum;
}

double PeakRssMib() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Bytes and count of the data files (everything under bucket-* directories).
void DataFiles(const std::string& table, int64_t* bytes, int64_t* files) {
  *bytes = 0;
  *files = 0;
  for (const auto& e : fs::recursive_directory_iterator(table)) {
    if (!e.is_regular_file()) continue;
    std::string parent = e.path().parent_path().filename().string();
    if (parent.rfind("bucket-", 0) != 0) continue;
    *bytes += static_cast<int64_t>(e.file_size());
    ++*files;
  }
}

struct Args {
  std::string workload;
  int64_t rows = 10'000'000;
  std::string format = "parquet";
  std::string dir = "/tmp/freshet-bench";
  int64_t commit_rows = 1'000'000;
  int64_t batch = 65536;
  uint64_t seed = 42;
  bool keep = false;
  std::string read;
  int buckets = 4;
  bool compaction = false;    // writers compact in the background (not write-only)
  bool full_compact = false;  // after writing, time a full compaction of every bucket
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("option " + k + " needs a value");
      return argv[++i];
    };
    if (k == "--workload") {
      a.workload = value();
    } else if (k == "--rows") {
      a.rows = std::stoll(value());
    } else if (k == "--format") {
      a.format = value();
    } else if (k == "--dir") {
      a.dir = value();
    } else if (k == "--commit-rows") {
      a.commit_rows = std::stoll(value());
    } else if (k == "--batch") {
      a.batch = std::stoll(value());
    } else if (k == "--seed") {
      a.seed = std::stoull(value());
    } else if (k == "--keep") {
      a.keep = true;
    } else if (k == "--read") {
      a.read = value();
    } else if (k == "--buckets") {
      a.buckets = std::stoi(value());
    } else if (k == "--compaction") {
      a.compaction = true;
    } else if (k == "--full-compact") {
      a.full_compact = true;
    } else {
      Die("unknown option " + k +
          " (usage: --workload upsert|mor [--rows N] [--format parquet|orc] [--dir D] "
          "[--commit-rows C] [--batch B] [--seed S] [--buckets K] [--compaction] "
          "[--full-compact] [--keep] | --read TABLE[,TABLE...])");
    }
  }
  if (a.read.empty() && a.workload != "upsert" && a.workload != "mor")
    Die("--workload must be upsert or mor");
  if (a.format != "parquet" && a.format != "orc") Die("--format must be parquet or orc");
  if (a.rows <= 0 || a.batch <= 0 || a.commit_rows <= 0 || a.buckets <= 0)
    Die("--rows, --batch, --commit-rows, --buckets must be > 0");
  return a;
}

// Times one full compaction of every bucket (Table::Compact, as `freshet compact --full`) and
// prints a COMPACT line: the records it read and the files it replaced and wrote.
void FullCompact(const freshet::Table& table, const Args& a) {
  int64_t records = 0;
  auto ids = Take(table.SnapshotIds(), "snapshots");
  for (const auto& f : Take(table.DataFiles(ids.back()), "data files")) records += f.row_count;
  double cpu0 = ProcessCpuSeconds();
  auto t0 = Clock::now();
  freshet::CompactOptions options;
  options.full = true;
  auto result = Take(table.Compact(options), "full compaction");
  double s = Seconds(t0, Clock::now());
  double cpu = ProcessCpuSeconds() - cpu0;
  std::printf("COMPACT engine=freshet workload=%s format=%s run=1 buckets=%d records=%" PRId64
              " files_before=%" PRId64 " files_after=%" PRId64
              " compact_s=%.3f compact_records_per_s=%.0f compact_cpu_s=%.3f compact_cores=%.2f"
              " compact_records_per_cpu_s=%.0f peak_rss_mib=%.0f\n",
              a.workload.c_str(), a.format.c_str(), a.buckets, records, result.files_before,
              result.files_after, s, records / s, cpu, cpu / s, records / cpu, PeakRssMib());
  std::fflush(stdout);
}

int Write(const Args& a) {
  std::string table_path =
      a.dir + "/bench.db/freshet_" + a.workload + "_" + a.format + "_" + std::to_string(a.rows);
  fs::remove_all(table_path);
  fs::create_directories(fs::path(table_path).parent_path());
  std::string schema =
      std::string("{") + kFields + R"(, "primaryKeys": ["id"], "options": {)" + R"("bucket": ")" +
      std::to_string(a.buckets) + R"(", )" + R"("merge-engine": "deduplicate", "write-only": ")" +
      (a.compaction ? "false" : "true") + R"(", "file.format": ")" + a.format + R"("}})";
  Generator g(a.seed);
  Events ev{g, a.workload, a.rows};
  // Commit boundaries: every --commit-rows events (upsert), or N/8 (mor).
  std::vector<int64_t> ends;
  if (a.workload == "mor") {
    for (int c = 1; c <= kMorCommits; ++c) ends.push_back(a.rows * c / kMorCommits);
  } else {
    for (int64_t e = a.commit_rows; e < a.rows; e += a.commit_rows) ends.push_back(e);
    ends.push_back(a.rows);
  }

  double cpu_start = ProcessCpuSeconds();
  double gen_s = 0, write_s = 0, commit_s = 0, gen_cpu = 0;
  auto t_start = Clock::now();
  auto table = Take(freshet::Table::Create(table_path, schema), "create");
  auto writer = Take(table->NewWriter(), "new writer");
  write_s += Seconds(t_start, Clock::now());
  std::vector<int64_t> ids(static_cast<size_t>(a.batch));
  std::vector<int8_t> kinds(static_cast<size_t>(a.batch));
  int64_t first = 0, commits = 0;
  for (int64_t end : ends) {
    while (first < end) {
      int64_t n = std::min(a.batch, end - first);
      auto t0 = Clock::now();
      double c0 = ProcessCpuSeconds();
      for (int64_t i = 0; i < n; ++i) {
        ids[i] = ev.Key(first + i);
        kinds[i] = ev.Kind(first + i);
      }
      auto batch =
          MakeBatch(g, first, n, ids.data(), a.workload == "upsert" ? kinds.data() : nullptr);
      ArrowArray c_array;
      ArrowSchema c_schema;
      Check(arrow::ExportArray(*batch, &c_array, &c_schema), "export");
      batch.reset();
      gen_cpu += ProcessCpuSeconds() - c0;
      auto t1 = Clock::now();
      Check(writer->Write(&c_array, &c_schema), "write");
      auto t2 = Clock::now();
      gen_s += Seconds(t0, t1);
      write_s += Seconds(t1, t2);
      first += n;
    }
    auto t0 = Clock::now();
    // The last commit waits for the writer's compactions, so their work is in the figures.
    freshet::CommitOptions commit;
    commit.wait_compaction = end == ends.back();
    auto snapshot = Take(writer->Commit(commit), "commit");
    double s = Seconds(t0, Clock::now());
    commit_s += s;
    write_s += s;
    if (!snapshot) Die("nothing committed");
    ++commits;
  }
  writer.reset();
  double cpu_s = ProcessCpuSeconds() - cpu_start;
  double write_cpu = cpu_s - gen_cpu;
  double rss = PeakRssMib();

  // Not timed: the checksum the merged table must have.
  auto t0 = Clock::now();
  Checksum expect = Expected(ev);
  double expect_s = Seconds(t0, Clock::now());
  int64_t bytes = 0, files = 0;
  DataFiles(table_path, &bytes, &files);
  std::printf(
      "RESULT engine=freshet workload=%s format=%s compaction=%s run=1 rows=%" PRId64
      " commits=%" PRId64
      " gen_s=%.3f write_s=%.3f commit_s=%.3f write_rows_per_s=%.0f write_cpu_s=%.3f"
      " write_cores=%.2f write_rows_per_cpu_s=%.0f data_bytes=%" PRId64 " data_files=%" PRId64
      " peak_rss_mib=%.0f expect_s=%.3f merged_rows=%" PRId64 " checksum=%016" PRIx64 " table=%s\n",
      a.workload.c_str(), a.format.c_str(), a.compaction ? "on" : "off", a.rows, commits, gen_s,
      write_s, commit_s, a.rows / write_s, write_cpu, write_cpu / write_s, a.rows / write_cpu,
      bytes, files, rss, expect_s, expect.rows, expect.Value(), table_path.c_str());
  std::fflush(stdout);
  if (a.full_compact) FullCompact(*table, a);
  if (!a.keep) fs::remove_all(table_path);
  return 0;
}

// `run`: the how-many-th read of this table in this process (later reads find the memory the
// first one allocated: the process is warm, as a JVM's later reads are).
void Read(const std::string& path, int64_t batch, int run) {
  double cpu0 = ProcessCpuSeconds();
  auto t0 = Clock::now();
  auto table = Take(freshet::Table::Open(path), "open");
  freshet::ReadOptions options;
  options.batch_size = batch;
  double scan_s = 0;
  Checksum got = freshet::bench::ReadAll(*table, options, &scan_s);
  double read_s = Seconds(t0, Clock::now());
  double cpu = ProcessCpuSeconds() - cpu0;
  // Not timed: the records in the data files (the merge's input).
  int64_t records = 0, files = 0;
  auto ids = Take(table->SnapshotIds(), "snapshots");
  if (!ids.empty()) {
    for (const auto& f : Take(table->DataFiles(ids.back()), "data files")) {
      records += f.row_count;
      ++files;
    }
  }
  std::printf("READ engine=freshet run=%d rows=%" PRId64 " records=%" PRId64 " files=%" PRId64
              " read_s=%.3f read_rows_per_s=%.0f read_records_per_s=%.0f read_cpu_s=%.3f"
              " read_cores=%.2f read_rows_per_cpu_s=%.0f peak_rss_mib=%.0f checksum=%016" PRIx64
              " table=%s\n",
              run, got.rows, records, files, read_s, got.rows / read_s, records / read_s, cpu,
              cpu / read_s, got.rows / cpu, PeakRssMib(), got.Value(), path.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args a = Parse(argc, argv);
  if (!a.read.empty()) {
    std::stringstream tables(a.read);
    std::map<std::string, int> runs;
    for (std::string t; std::getline(tables, t, ',');) Read(t, 4096, ++runs[t]);
    return 0;
  }
  return Write(a);
}
