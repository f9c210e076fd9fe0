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
//                        [--runs R] [--keep]
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

#include "freshet/table.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Generator (docs/benchmarks.md): splitmix64-based, stateless per (row, column).

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr int kColumns = 10;

uint64_t Mix(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

struct Generator {
  uint64_t base;
  explicit Generator(uint64_t seed) : base(Mix(seed)) {}
  uint64_t H(int64_t row, int col) const {
    return Mix(base + static_cast<uint64_t>(row) * 16 + static_cast<uint64_t>(col));
  }
  int32_t K1(int64_t row) const { return static_cast<int32_t>(H(row, 1) >> 44); }
  int32_t K2(int64_t row) const {
    return static_cast<int32_t>(static_cast<uint32_t>(H(row, 2) >> 32));
  }
  int64_t V(int64_t row) const { return static_cast<int64_t>(H(row, 3)); }
  double D(int64_t row, int col) const {
    return static_cast<double>(H(row, col) >> 11) * 0x1.0p-53 * 2000.0 - 1000.0;
  }
  // Appends the string of (row, col) to `out`; returns its length (8..32).
  int S(int64_t row, int col, char* out) const {
    uint64_t h = H(row, col);
    int len = 8 + static_cast<int>(h % 25);
    for (int j = 0; j < len; ++j) {
      uint64_t w = Mix(h + 1 + static_cast<uint64_t>(j / 10));
      out[j] = kAlphabet[(w >> (6 * (j % 10))) & 63];
    }
    return len;
  }
};

// ---------------------------------------------------------------------------------------------
// Checksum: per-column wrapping sums of the values (integers sign-extended to 64 bits, doubles
// as their IEEE bits, strings as FNV-1a 64 of their UTF-8 bytes), folded with Mix.

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

uint64_t DoubleBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

struct Checksum {
  uint64_t sums[kColumns] = {};
  int64_t rows = 0;
  uint64_t Value() const {
    uint64_t acc = 0;
    for (int c = 0; c < kColumns; ++c) acc = Mix(acc ^ sums[c]);
    return acc;
  }
};

const char* kSchema = R"({"fields": [
  {"name": "id", "type": "BIGINT"}, {"name": "k1", "type": "INT"}, {"name": "k2", "type": "INT"},
  {"name": "v", "type": "BIGINT"}, {"name": "d1", "type": "DOUBLE"},
  {"name": "d2", "type": "DOUBLE"}, {"name": "d3", "type": "DOUBLE"},
  {"name": "s1", "type": "STRING"}, {"name": "s2", "type": "STRING"},
  {"name": "s3", "type": "STRING"}], "options": {"file.format": "FORMAT"}})";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "freshet_append_bench: error: %s\n", what.c_str());
  std::exit(1);
}

void Check(const arrow::Status& st, const char* what) {
  if (!st.ok()) Die(std::string(what) + ": " + st.ToString());
}

template <typename T>
T Take(arrow::Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).ValueUnsafe();
}

void Check(const freshet::Status& st, const char* what) {
  if (!st.ok()) Die(std::string(what) + ": " + st.ToString());
}

template <typename T>
T Take(freshet::Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
  return std::move(*r);
}

// Builds rows [first, first + n) as a struct array and adds them to `expect`.
std::shared_ptr<arrow::StructArray> MakeBatch(const Generator& g, int64_t first, int64_t n,
                                              Checksum* expect) {
  arrow::Int64Builder id, v;
  arrow::Int32Builder k1, k2;
  arrow::DoubleBuilder d[3];
  arrow::StringBuilder s[3];
  Check(id.Reserve(n), "reserve");
  Check(v.Reserve(n), "reserve");
  Check(k1.Reserve(n), "reserve");
  Check(k2.Reserve(n), "reserve");
  for (int c = 0; c < 3; ++c) {
    Check(d[c].Reserve(n), "reserve");
    Check(s[c].Reserve(n), "reserve");
    Check(s[c].ReserveData(n * 32), "reserve");
  }
  char buf[32];
  for (int64_t row = first; row < first + n; ++row) {
    int32_t a = g.K1(row), b = g.K2(row);
    int64_t x = g.V(row);
    id.UnsafeAppend(row);
    k1.UnsafeAppend(a);
    k2.UnsafeAppend(b);
    v.UnsafeAppend(x);
    expect->sums[0] += static_cast<uint64_t>(row);
    expect->sums[1] += static_cast<uint64_t>(static_cast<int64_t>(a));
    expect->sums[2] += static_cast<uint64_t>(static_cast<int64_t>(b));
    expect->sums[3] += static_cast<uint64_t>(x);
    for (int c = 0; c < 3; ++c) {
      double dv = g.D(row, 4 + c);
      d[c].UnsafeAppend(dv);
      expect->sums[4 + c] += DoubleBits(dv);
      int len = g.S(row, 7 + c, buf);
      s[c].UnsafeAppend(buf, len);
      expect->sums[7 + c] += Fnv1a(std::string_view(buf, len));
    }
  }
  expect->rows += n;
  std::vector<std::shared_ptr<arrow::Array>> cols(kColumns);
  Check(id.Finish(&cols[0]), "finish");
  Check(k1.Finish(&cols[1]), "finish");
  Check(k2.Finish(&cols[2]), "finish");
  Check(v.Finish(&cols[3]), "finish");
  for (int c = 0; c < 3; ++c) {
    Check(d[c].Finish(&cols[4 + c]), "finish");
    Check(s[c].Finish(&cols[7 + c]), "finish");
  }
  return Take(
      arrow::StructArray::Make(cols, std::vector<std::string>{"id", "k1", "k2", "v", "d1", "d2",
                                                              "d3", "s1", "s2", "s3"}),
      "struct");
}

template <typename A>
void SumStrings(const arrow::Array& arr, uint64_t* sum) {
  const auto& a = static_cast<const A&>(arr);
  for (int64_t i = 0; i < a.length(); ++i) *sum += Fnv1a(a.GetView(i));
}

void AddColumn(const arrow::Array& col, uint64_t* sum) {
  switch (col.type_id()) {
    case arrow::Type::INT64: {
      const int64_t* p = static_cast<const arrow::Int64Array&>(col).raw_values();
      for (int64_t i = 0; i < col.length(); ++i) *sum += static_cast<uint64_t>(p[i]);
      break;
    }
    case arrow::Type::INT32: {
      const int32_t* p = static_cast<const arrow::Int32Array&>(col).raw_values();
      for (int64_t i = 0; i < col.length(); ++i) {
        *sum += static_cast<uint64_t>(static_cast<int64_t>(p[i]));
      }
      break;
    }
    case arrow::Type::DOUBLE: {
      const double* p = static_cast<const arrow::DoubleArray&>(col).raw_values();
      for (int64_t i = 0; i < col.length(); ++i) *sum += DoubleBits(p[i]);
      break;
    }
    case arrow::Type::STRING:
      SumStrings<arrow::StringArray>(col, sum);
      break;
    case arrow::Type::LARGE_STRING:
      SumStrings<arrow::LargeStringArray>(col, sum);
      break;
    case arrow::Type::STRING_VIEW:
      SumStrings<arrow::StringViewArray>(col, sum);
      break;
    default:
      Die("unexpected column type " + col.type()->ToString());
  }
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Reads the whole table; returns the checksum of what was read.
Checksum ReadAll(const std::string& path, int64_t batch_size, double* seconds) {
  auto t0 = Clock::now();
  auto table = Take(freshet::Table::Open(path), "open");
  freshet::ReadOptions options;
  options.batch_size = batch_size;
  auto reader = Take(table->NewReader(options), "new reader");
  ArrowSchema c_schema;
  Check(reader->ExportArrowSchema(&c_schema), "reader schema");
  auto type = Take(arrow::ImportType(&c_schema), "import schema");
  Checksum sum;
  for (;;) {
    ArrowArray c_array;
    if (!Take(reader->Next(&c_array), "next")) break;
    auto arr = Take(arrow::ImportArray(&c_array, type), "import batch");
    const auto& st = static_cast<const arrow::StructArray&>(*arr);
    if (st.num_fields() != kColumns)
      Die("batch has " + std::to_string(st.num_fields()) + " columns");
    for (int c = 0; c < kColumns; ++c) {
      auto col = Take(st.GetFlattenedField(c), "field");
      if (col->null_count() != 0) Die("unexpected nulls");
      AddColumn(*col, &sum.sums[c]);
    }
    sum.rows += st.length();
  }
  *seconds = Seconds(t0, Clock::now());
  return sum;
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

// User + system CPU seconds of this process so far (all threads).
double CpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
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
    } else {
      Die("unknown option " + k +
          " (usage: [--rows N] [--format parquet|orc] [--dir D] [--batch B] [--seed S] "
          "[--runs R] [--keep] | --verify TABLE)");
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
  std::string schema = kSchema;
  schema.replace(schema.find("FORMAT"), 6, a.format);

  double cpu_start = CpuSeconds();
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
      a.rows / read_s, bytes, files, CpuSeconds() - cpu_start, PeakRssMib(), got.Value(),
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
