// freshet_planning_bench: scan planning of a table with many live files (issue 14, "scan
// planning, 10^6 live files in 10^4 partition-buckets"). Planning reads only metadata (snapshot,
// manifest list, manifests), so the table's files are described, not written: every commit adds
// one data file per partition-bucket whose metadata (name, sizes, row count, statistics of every
// column) looks like what a writer produces, through the normal committer (manifests, manifest
// merging, snapshot expiration). No data file exists; nothing here reads rows.
//
//   freshet_planning_bench create --dir D [--partitions P] [--buckets B] [--commits C]
//   freshet_planning_bench query --dir D --query point|partition|full [--runs R]
//
// The table at D/plan: `id BIGINT, p INT, v STRING`, partitioned by p, B fixed buckets keyed by
// id. Commit c gives file (c, p, b) the ids [c * 1000, c * 1000 + 999] and the strings
// "v-<c>-a" .. "v-<c>-z": a point query `p = x AND id = y` keeps one partition (partition
// pruning), one bucket (bucket pruning of the id) and one commit's file (statistics).
//
// `query` plans one kind of query; the first plan of the process is the cold figure (nothing
// decoded yet; the operating system's page cache is warm), then --runs plans of the same query
// (warm, the plan cache may answer), then --runs plans of queries never asked before (other
// partition literals: the manifests are decoded already, the question is new). Each plan is
// checked against the files it must keep. One line per query kind:
//   RESULT bench=plan-query query=... files=... cold_ms=... warm_p50_us=... new_p50_us=...
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commit/file_store_commit.h"
#include "io/file_io.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "scan/predicate.h"
#include "scan/table_scan.h"

namespace {

using namespace freshet;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr int64_t kRowsPerFile = 1000;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "freshet_planning_bench: %s\n", message.c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, const char* what) {
  if (!result.ok()) Die(std::string(what) + ": " + result.status().ToString());
  return std::move(result).ValueOrDie();
}

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

double LoadAverage() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

struct Args {
  std::string command;
  std::string dir = "/tmp/freshet-planning-bench";
  int32_t partitions = 1000;
  int32_t buckets = 10;
  int64_t commits = 100;
  std::string query = "point";
  int64_t runs = 200;
};

Args ParseArgs(int argc, char** argv) {
  if (argc < 2) {
    Die("usage: freshet_planning_bench create|query --dir D [--partitions P] [--buckets B] "
        "[--commits C] [--query point|partition|full] [--runs R]");
  }
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; i += 2) {
    std::string key = argv[i];
    if (i + 1 >= argc) Die("option " + key + " needs a value");
    std::string value = argv[i + 1];
    auto number = [&] {
      char* end = nullptr;
      long long n = std::strtoll(value.c_str(), &end, 10);
      if (*end != '\0' || n < 1) Die("option " + key + " wants a positive integer, not " + value);
      return static_cast<int64_t>(n);
    };
    if (key == "--dir") {
      a.dir = value;
    } else if (key == "--partitions") {
      a.partitions = static_cast<int32_t>(number());
    } else if (key == "--buckets") {
      a.buckets = static_cast<int32_t>(number());
    } else if (key == "--commits") {
      a.commits = number();
    } else if (key == "--query") {
      a.query = value;
    } else if (key == "--runs") {
      a.runs = number();
    } else {
      Die("unknown option " + key);
    }
  }
  if (a.command != "create" && a.command != "query") Die("unknown command " + a.command);
  if (a.query != "point" && a.query != "partition" && a.query != "full") {
    Die("--query wants point, partition or full, not " + a.query);
  }
  return a;
}

std::string TablePath(const Args& a) { return a.dir + "/plan"; }

const std::vector<meta::DataTypePtr>& ColumnTypes() {
  static const std::vector<meta::DataTypePtr> types{meta::DataType::BigInt(), meta::DataType::Int(),
                                                    meta::DataType::String()};
  return types;
}

std::string Row(const std::vector<meta::DataTypePtr>& types, std::vector<meta::Value> values) {
  return meta::SerializeBinaryRow(Check(meta::BuildBinaryRow(types, values), "binary row"));
}

// The metadata a writer would commit for file (commit, partition, bucket).
meta::DataFileMeta DescribeFile(int64_t commit, int32_t partition, int32_t bucket) {
  meta::DataFileMeta f;
  char name[96];
  std::snprintf(name, sizeof(name), "data-%08" PRIx64 "-bench-%08x-%04x-000000000000-0.parquet",
                commit, static_cast<unsigned>(partition), static_cast<unsigned>(bucket));
  f.file_name = name;
  f.row_count = kRowsPerFile;
  f.file_size = 24 * kRowsPerFile + 1024;
  f.min_key = meta::EmptySerializedRow();
  f.max_key = meta::EmptySerializedRow();
  f.key_stats = meta::SimpleStats::Empty();
  const int64_t first_id = commit * kRowsPerFile;
  const std::string tag = "v-" + std::to_string(commit) + "-";
  f.value_stats.min_values = Row(
      ColumnTypes(),
      {meta::Value::BigInt(first_id), meta::Value::Int(partition), meta::Value::String(tag + "a")});
  f.value_stats.max_values =
      Row(ColumnTypes(), {meta::Value::BigInt(first_id + kRowsPerFile - 1),
                          meta::Value::Int(partition), meta::Value::String(tag + "z")});
  f.value_stats.null_counts = std::vector<std::optional<int64_t>>{0, 0, 0};
  f.min_sequence_number = first_id;
  f.max_sequence_number = first_id + kRowsPerFile - 1;
  f.creation_time_millis = 1'764'547'200'000 + commit;
  f.delete_row_count = 0;
  f.file_source = 0;
  return f;
}

void Create(const Args& a) {
  auto io = io::LocalFileIO();
  const std::string path = TablePath(a);
  fs::remove_all(path);
  fs::create_directories(a.dir);
  meta::SchemaSpec spec;
  spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
  spec.fields.push_back({1, "p", meta::DataType::Int(), std::nullopt, std::nullopt});
  spec.fields.push_back({2, "v", meta::DataType::String(), std::nullopt, std::nullopt});
  spec.partition_keys = {"p"};
  spec.options = {{"bucket", std::to_string(a.buckets)}, {"bucket-key", "id"}};
  meta::TableSchema schema =
      Check(meta::SchemaManager(io, path).CreateTable(spec, 0), "create table");
  auto options = Check(meta::CoreOptions::Make(schema.options(), false), "options");

  std::vector<std::string> partitions(a.partitions);
  for (int32_t p = 0; p < a.partitions; ++p) {
    partitions[p] = Row({meta::DataType::Int()}, {meta::Value::Int(p)});
  }
  const double load_before = LoadAverage();
  auto start = Clock::now();
  std::vector<double> commit_ms;
  for (int64_t c = 0; c < a.commits; ++c) {
    commit::CommitRequest request;
    for (int32_t p = 0; p < a.partitions; ++p) {
      for (int32_t b = 0; b < a.buckets; ++b) {
        meta::CommitMessage m;
        m.partition = partitions[p];
        m.bucket = b;
        m.total_buckets = a.buckets;
        m.new_files.push_back(DescribeFile(c, p, b));
        request.messages.push_back(std::move(m));
      }
    }
    auto commit_start = Clock::now();
    commit::FileStoreCommit committer(io, path, schema, options, "planning-bench");
    Check(committer.Commit(request), "commit");
    commit_ms.push_back(MicrosSince(commit_start) / 1000);
  }
  double seconds = MicrosSince(start) / 1e6;
  int64_t manifests = 0, manifest_bytes = 0;
  for (const auto& entry : fs::directory_iterator(path + "/manifest")) {
    if (entry.path().filename().string().rfind("manifest-list", 0) == 0) continue;
    if (entry.path().filename().string().rfind("manifest-", 0) != 0) continue;
    ++manifests;
    manifest_bytes += static_cast<int64_t>(entry.file_size());
  }
  std::printf("RESULT bench=plan-create partitions=%d buckets=%d commits=%" PRId64 " files=%" PRId64
              " load_s=%.1f commit_p50_ms=%.1f commit_max_ms=%.1f"
              " manifest_files=%" PRId64 " manifest_bytes=%" PRId64
              " load_avg_before=%.2f load_avg_after=%.2f\n",
              a.partitions, a.buckets, a.commits, a.commits * a.partitions * a.buckets, seconds,
              Percentile(commit_ms, 0.5), Percentile(commit_ms, 1.0), manifests, manifest_bytes,
              load_before, LoadAverage());
}

// The filter text of query `run` of a kind, and the files its plan must keep.
struct Query {
  std::string filter;  // empty: no filter
  int64_t files;
};

Query QueryOf(const Args& a, int64_t run) {
  const int32_t partition = static_cast<int32_t>((17 + run) % a.partitions);
  const int64_t commit = (a.commits / 2 + run) % a.commits;
  const int64_t id = commit * kRowsPerFile + 123;
  if (a.query == "full") return {"", a.commits * a.partitions * a.buckets};
  if (a.query == "partition") return {"p = " + std::to_string(partition), a.commits * a.buckets};
  return {"p = " + std::to_string(partition) + " AND id = " + std::to_string(id), 1};
}

int64_t FilesOf(const scan::ScanPlan& plan) {
  int64_t files = 0;
  for (const auto& split : plan.splits) files += static_cast<int64_t>(split.files.size());
  return files;
}

void RunQuery(const Args& a) {
  auto io = io::LocalFileIO();
  const std::string path = TablePath(a);
  auto schema = Check(meta::SchemaManager(io, path).LatestSchema(), "schema");
  if (!schema) Die("no table at " + path + " (run create first)");
  scan::TableScan scan(io, path);

  auto plan_once = [&](const Query& q) {
    auto start = Clock::now();
    scan::ScanOptions options;
    if (!q.filter.empty()) {
      auto expr = Check(scan::ParsePredicate(q.filter), "filter");
      options.predicate = std::make_shared<const scan::Predicate>(
          Check(scan::BindPredicate(expr, *schema), "bind filter"));
    }
    scan::ScanPlan plan = Check(scan.Plan(options), "plan");
    double us = MicrosSince(start);
    if (FilesOf(plan) != q.files) {
      Die("query '" + q.filter + "' planned " + std::to_string(FilesOf(plan)) +
          " files, expected " + std::to_string(q.files));
    }
    return us;
  };

  const double load_before = LoadAverage();
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const Query first = QueryOf(a, 0);
  const double cold_us = plan_once(first);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  const double rss_mb = static_cast<double>(after.ru_maxrss) / 1024;

  std::vector<double> warm, fresh;
  for (int64_t r = 0; r < a.runs; ++r) warm.push_back(plan_once(first));
  for (int64_t r = 1; r <= a.runs; ++r) fresh.push_back(plan_once(QueryOf(a, r)));
  std::printf("RESULT bench=plan-query query=%s files=%" PRId64 " live_files=%" PRId64
              " cold_ms=%.1f warm_p50_us=%.1f warm_p99_us=%.1f new_p50_us=%.1f new_p99_us=%.1f"
              " runs=%" PRId64 " max_rss_mb=%.0f load_avg_before=%.2f load_avg_after=%.2f\n",
              a.query.c_str(), first.files, a.commits * a.partitions * a.buckets, cold_us / 1000,
              Percentile(warm, 0.5), Percentile(warm, 0.99), Percentile(fresh, 0.5),
              Percentile(fresh, 0.99), a.runs, rss_mb, load_before, LoadAverage());
}

}  // namespace

int main(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  if (a.command == "create") {
    Create(a);
  } else {
    RunQuery(a);
  }
  return 0;
}
