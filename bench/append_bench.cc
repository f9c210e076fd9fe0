// freshet_append_bench: writes N generated rows into a fresh append table through the public API
// (Table::Create, TableWriter::Write with the Arrow C Data Interface, one Commit), reads the table
// back fully (TableReader::Next) and prints one `RESULT key=value ...` line with wall times,
// rows/s, data-file bytes, peak RSS and a checksum of every value read.
//
// The rows come from the generator documented in docs/benchmarks.md ("Generator"); the Java
// harness's `bench` command (interop/java, BenchRows.java) implements the same one, so both
// engines write identical values and print the same checksum.
//
//   freshet_append_bench [--rows N] [--format parquet|orc] [--dir D] [--batch B] [--seed S]
//                        [--runs R] [--keep] [--table-option KEY=VALUE]...
//   freshet_append_bench --verify <table path>   # only read a table (any writer) and checksum it
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <sys/resource.h>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench_rows.h"
#include "freshet/table.h"

namespace {

using namespace freshet::bench;  // NOLINT: the shared rows, checksum and helpers
namespace fs = std::filesystem;

// Reads the whole table; returns the checksum of what was read.
Checksum ReadAll(const std::string& path, int64_t batch_size, double* seconds) {
  auto table = Take(freshet::Table::Open(path), "open");
  freshet::ReadOptions options;
  options.batch_size = batch_size;
  return freshet::bench::ReadAll(*table, options, seconds);
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

double PeakRssMib() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct Args {
  int64_t rows = 10'000'000;
  std::string format = "parquet";
  std::string dir = "/tmp/freshet-bench";
  int64_t batch = 65536;
  uint64_t seed = 42;
  int runs = 1;
  bool keep = false;
  std::string verify;
  std::string table_options;  // extra `"key": "value"` pairs of the table's options, JSON
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("option " + k + " needs a value");
      return argv[++i];
    };
    if (k == "--rows") {
      a.rows = std::stoll(value());
    } else if (k == "--format") {
      a.format = value();
    } else if (k == "--dir") {
      a.dir = value();
    } else if (k == "--batch") {
      a.batch = std::stoll(value());
    } else if (k == "--seed") {
      a.seed = std::stoull(value());
    } else if (k == "--runs") {
      a.runs = std::stoi(value());
    } else if (k == "--keep") {
      a.keep = true;
    } else if (k == "--verify") {
      a.verify = value();
    } else if (k == "--table-option") {
      // A table option beside file.format, e.g. parquet.write.parallel-columns=false.
      std::string pair = value();
      size_t eq = pair.find('=');
      if (eq == std::string::npos) Die("--table-option needs KEY=VALUE, got " + pair);
      a.table_options += ", \"" + pair.substr(0, eq) + "\": \"" + pair.substr(eq + 1) + "\"";
    } else {
      Die("unknown option " + k +
          " (usage: [--rows N] [--format parquet|orc] [--dir D] [--batch B] [--seed S] "
          "[--runs R] [--keep] [--table-option KEY=VALUE]... | --verify TABLE)");
    }
  }
  if (a.format != "parquet" && a.format != "orc") Die("--format must be parquet or orc");
  if (a.rows <= 0 || a.batch <= 0 || a.runs <= 0) Die("--rows, --batch, --runs must be > 0");
  return a;
}

int RunOnce(const Args& a, int run) {
  std::string table_path = a.dir + "/bench.db/freshet_" + a.format + "_" + std::to_string(a.rows) +
                           "_r" + std::to_string(run);
  fs::remove_all(table_path);
  fs::create_directories(fs::path(table_path).parent_path());
  std::string schema = std::string("{") + kFields + R"(, "options": {"file.format": ")" + a.format +
                       "\"" + a.table_options + "}}";

  double cpu_start = ProcessCpuSeconds();
  Generator g(a.seed);
  Checksum expect;
  double gen_s = 0, write_s = 0;
  auto t_start = Clock::now();
  auto table = Take(freshet::Table::Create(table_path, schema), "create");
  auto writer = Take(table->NewWriter(), "new writer");
  write_s += Seconds(t_start, Clock::now());
  for (int64_t first = 0; first < a.rows; first += a.batch) {
    int64_t n = std::min(a.batch, a.rows - first);
    auto t0 = Clock::now();
    auto batch = MakeBatch(g, first, n, &expect);
    ArrowArray c_array;
    ArrowSchema c_schema;
    Check(arrow::ExportArray(*batch, &c_array, &c_schema), "export");
    batch.reset();
    auto t1 = Clock::now();
    Check(writer->Write(&c_array, &c_schema), "write");
    auto t2 = Clock::now();
    gen_s += Seconds(t0, t1);
    write_s += Seconds(t1, t2);
  }
  auto t_commit = Clock::now();
  auto snapshot = Take(writer->Commit(), "commit");
  writer.reset();
  double commit_s = Seconds(t_commit, Clock::now());
  write_s += commit_s;
  if (!snapshot) Die("nothing committed");

  int64_t bytes = 0, files = 0;
  DataFiles(table_path, &bytes, &files);
  double read_s = 0;
  Checksum got = ReadAll(table_path, 4096, &read_s);
  if (got.rows != a.rows)
    Die("read " + std::to_string(got.rows) + " rows, wrote " + std::to_string(a.rows));
  if (got.Value() != expect.Value()) Die("checksum of the rows read differs from the rows written");

  std::printf(
      "RESULT engine=freshet format=%s run=%d rows=%" PRId64
      " gen_s=%.3f write_s=%.3f "
      "commit_s=%.3f write_rows_per_s=%.0f read_s=%.3f read_rows_per_s=%.0f data_bytes=%" PRId64
      " data_files=%" PRId64 " cpu_s=%.3f peak_rss_mib=%.0f checksum=%016" PRIx64 " table=%s\n",
      a.format.c_str(), run, a.rows, gen_s, write_s, commit_s, a.rows / write_s, read_s,
      a.rows / read_s, bytes, files, ProcessCpuSeconds() - cpu_start, PeakRssMib(), got.Value(),
      table_path.c_str());
  std::fflush(stdout);
  if (!a.keep) fs::remove_all(table_path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = Parse(argc, argv);
  if (!a.verify.empty()) {
    double s = 0;
    Checksum got = ReadAll(a.verify, 4096, &s);
    std::printf("VERIFY engine=freshet rows=%" PRId64 " read_s=%.3f checksum=%016" PRIx64 "\n",
                got.rows, s, got.Value());
    return 0;
  }
  for (int run = 1; run <= a.runs; ++run) RunOnce(a, run);
  return 0;
}
