// A primary-key write keeps its memory bounded by `write-buffer-size` (docs/benchmarks.md,
// "Primary-key write: bounded memory").
//
// Rows are generated on the fly (no input file): wide-ish rows (a BIGINT key, three strings of
// about 275 characters in all, an INT, a DOUBLE, a BIGINT: about 316 bytes of Arrow buffers),
// written in rounds over a key space in a fresh random order each round, so that every key has
// one version per round and the writer's sort buffer spills runs that the commit must merge:
// round 0 inserts (+I), later rounds update (+U), and the last round deletes one key in ten (-D).
// They go through the public API (Table::NewWriter, `_ROW_KIND` column) into a 4-bucket table, in
// one commit.
//
// The criterion: the process's peak resident set (VmHWM, /proc/self/status) after the write and
// the commit stays below the resident set measured just before the write began (VmRSS: the
// process baseline) plus twice `write-buffer-size`. The table is then read back in full: every
// live key once, with its last round's values, and no deleted key (count and checksum).
//
// Formats/WriteMemoryTest.BoundedWithSmallBuffer (ctest `write_memory_bounded`, label `unit`):
// 300 MB of rows through a 32 MB buffer into Parquet, ORC and Avro files.
// WriteMemoryStressTest.DISABLED_BoundedWithDefaultSize (ctest `write_memory_stress`, label
// `stress`, not run by scripts/test.sh): FRESHET_STRESS_BYTES of rows (default 5 GiB) through
// FRESHET_STRESS_BUFFER_BYTES (default 64 MiB), with the table's default options plus
// FRESHET_STRESS_OPTIONS (JSON members, e.g. `, "file.format": "avro"`).
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <arrow/util/byte_size.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "freshet/row_kind.h"
#include "freshet/table.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

constexpr int kRounds = 3;
constexpr int64_t kBatchRows = 8192;
constexpr int64_t kMiB = 1 << 20;

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The values of key `k` in round `round`, all derived from (k, round).
struct RowValues {
  std::string name, payload, tag;
  double x = 0;
  int64_t y = 0;
  RowKind kind = RowKind::kInsert;
};

void FillText(uint64_t seed, size_t length, std::string* out) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -";
  out->resize(length);
  uint64_t bits = 0;
  for (size_t i = 0; i < length; ++i) {
    if (i % 10 == 0) bits = Mix(seed + i);
    (*out)[i] = kAlphabet[bits & 63];
    bits >>= 6;
  }
}

void Values(int64_t k, int round, RowValues* v) {
  uint64_t h = Mix(static_cast<uint64_t>(k) * 4 + static_cast<uint64_t>(round));
  FillText(h, 40 + h % 41, &v->name);                  // 40..80
  FillText(h ^ 1, 150 + (h >> 8) % 101, &v->payload);  // 150..250
  FillText(h ^ 2, 10 + (h >> 16) % 11, &v->tag);       // 10..20
  v->x = static_cast<double>(h >> 11) / 9007199254740992.0;
  v->y = static_cast<int64_t>(h >> 1);
  bool deleted = round == kRounds - 1 && Mix(static_cast<uint64_t>(k) ^ 0xD1E7E) % 10 == 0;
  v->kind = round == 0 ? RowKind::kInsert : deleted ? RowKind::kDelete : RowKind::kUpdateAfter;
}

// Round `round` visits the keys 0..num_keys-1 in the order position -> (a * position + b) mod
// num_keys, a bijection since gcd(a, num_keys) = 1.
struct RoundOrder {
  RoundOrder(int64_t num_keys, int round) : n(num_keys) {
    a = static_cast<int64_t>(Mix(1000 + static_cast<uint64_t>(round)) % static_cast<uint64_t>(n));
    while (std::gcd(a, n) != 1) a = (a + 1) % n;
    b = static_cast<int64_t>(Mix(2000 + static_cast<uint64_t>(round)) % static_cast<uint64_t>(n));
  }
  int64_t Key(int64_t position) const {
    return static_cast<int64_t>(
        (static_cast<unsigned __int128>(a) * static_cast<uint64_t>(position) +
         static_cast<uint64_t>(b)) %
        static_cast<uint64_t>(n));
  }
  int64_t n, a = 1, b = 0;
};

// "VmRSS" or "VmHWM" of this process, in bytes.
int64_t ProcStatusBytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::atoll(line.c_str() + key.size() + 1) * 1024;
  }
  return -1;
}

// Lowers VmHWM to the current RSS (Linux 4.0+), so that a test's peak is its own.
void ResetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

constexpr const char* kFields = R"([{"name": "k", "type": "BIGINT NOT NULL"},
    {"name": "round", "type": "INT"}, {"name": "name", "type": "STRING"},
    {"name": "payload", "type": "STRING"}, {"name": "tag", "type": "STRING"},
    {"name": "x", "type": "DOUBLE"}, {"name": "y", "type": "BIGINT"}])";

std::shared_ptr<arrow::RecordBatch> MakeBatch(const RoundOrder& order, int round,
                                              int64_t first_position, int64_t num_rows) {
  arrow::Int64Builder k, y;
  arrow::Int32Builder r;
  arrow::StringBuilder name, payload, tag;
  arrow::DoubleBuilder x;
  arrow::Int8Builder kind;
  RowValues v;
  for (int64_t i = 0; i < num_rows; ++i) {
    int64_t key = order.Key(first_position + i);
    Values(key, round, &v);
    bool ok = k.Append(key).ok() && r.Append(round).ok() && name.Append(v.name).ok() &&
              payload.Append(v.payload).ok() && tag.Append(v.tag).ok() && x.Append(v.x).ok() &&
              y.Append(v.y).ok() && kind.Append(static_cast<int8_t>(v.kind)).ok();
    if (!ok) return nullptr;
  }
  auto schema = arrow::schema(
      {arrow::field("k", arrow::int64(), false), arrow::field("round", arrow::int32()),
       arrow::field("name", arrow::utf8()), arrow::field("payload", arrow::utf8()),
       arrow::field("tag", arrow::utf8()), arrow::field("x", arrow::float64()),
       arrow::field("y", arrow::int64()), arrow::field("_ROW_KIND", arrow::int8(), false)});
  return arrow::RecordBatch::Make(schema, num_rows,
                                  {*k.Finish(), *r.Finish(), *name.Finish(), *payload.Finish(),
                                   *tag.Finish(), *x.Finish(), *y.Finish(), *kind.Finish()});
}

// Writes about `input_bytes` of rows with `write-buffer-size` = `buffer_bytes`, checks the peak
// resident set, reads the table back.
void RunBoundedWrite(int64_t input_bytes, int64_t buffer_bytes,
                     const std::string& extra_options = "") {
  testing::TempDir dir;
  std::string path = dir.Sub("t");
  std::string spec = std::string(R"({"fields": )") + kFields +
                     R"(, "primaryKeys": ["k"], "options": {"bucket": "4", )" +
                     R"("write-buffer-size": ")" + std::to_string(buffer_bytes) + R"(")" +
                     extra_options + "}}";
  auto table = Table::Create(path, spec);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto writer = (*table)->NewWriter();
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();

  // Average generated row: about 400 bytes of Arrow buffers (measured on the first batch).
  RoundOrder probe(1 << 20, 0);
  auto sample = MakeBatch(probe, 0, 0, kBatchRows);
  ASSERT_NE(sample, nullptr);
  int64_t row_bytes = arrow::util::TotalBufferSize(*sample) / kBatchRows;
  sample.reset();
  int64_t num_keys = std::max<int64_t>(1, input_bytes / row_bytes / kRounds);

  ResetPeakRss();
  const int64_t baseline = ProcStatusBytes("VmRSS");
  const int64_t hwm_before = ProcStatusBytes("VmHWM");
  ASSERT_GT(baseline, 0) << "no VmRSS in /proc/self/status";
  auto start = std::chrono::steady_clock::now();
  int64_t written_bytes = 0, written_rows = 0;
  for (int round = 0; round < kRounds; ++round) {
    RoundOrder order(num_keys, round);
    for (int64_t position = 0; position < num_keys; position += kBatchRows) {
      auto batch = MakeBatch(order, round, position, std::min(kBatchRows, num_keys - position));
      ASSERT_NE(batch, nullptr);
      written_bytes += arrow::util::TotalBufferSize(*batch);
      written_rows += batch->num_rows();
      ArrowArray array;
      ArrowSchema schema;
      ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
      batch.reset();
      Status st = (*writer)->Write(&array, &schema);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
  }
  double write_seconds = Seconds(start);
  const int64_t peak_written = ProcStatusBytes("VmHWM");
  auto snapshot = (*writer)->Commit();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  ASSERT_TRUE(snapshot->has_value());
  double total_seconds = Seconds(start);
  writer->reset();
  const int64_t peak = ProcStatusBytes("VmHWM");
  // What the pool had allocated at its busiest: the live part of the peak; the rest of the peak
  // RSS is what the allocator kept.
  const int64_t pool_peak = arrow::default_memory_pool()->max_memory();

  std::printf(
      "memory pool: %s\ninput: %" PRId64 " rows, %" PRId64
      " bytes (%.1f MiB, Arrow buffers), %" PRId64 " keys x %d rounds\nwrite-buffer-size: %" PRId64
      " MiB\nwrite %.1f s, write + commit %.1f s\nbaseline RSS %.1f MiB (peak before %.1f MiB), "
      "peak RSS %.1f MiB = baseline + %.1f MiB (before the commit: + %.1f MiB); bound baseline + "
      "%.1f MiB\nArrow pool: peak %.1f MiB allocated\n",
      arrow::default_memory_pool()->backend_name().c_str(), written_rows, written_bytes,
      static_cast<double>(written_bytes) / kMiB, num_keys, kRounds, buffer_bytes / kMiB,
      write_seconds, total_seconds, static_cast<double>(baseline) / kMiB,
      static_cast<double>(hwm_before) / kMiB, static_cast<double>(peak) / kMiB,
      static_cast<double>(peak - baseline) / kMiB,
      static_cast<double>(peak_written - baseline) / kMiB,
      2.0 * static_cast<double>(buffer_bytes) / kMiB, static_cast<double>(pool_peak) / kMiB);
  std::fflush(stdout);
  EXPECT_LT(peak, baseline + 2 * buffer_bytes)
      << "peak RSS " << peak << " bytes, baseline " << baseline << ", write-buffer-size "
      << buffer_bytes;

  // Read back: each live key once, with its last round's values.
  auto read_start = std::chrono::steady_clock::now();
  auto reader = (*table)->NewReader();
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ArrowArrayStream stream;
  ASSERT_TRUE(TableReader::ExportArrowStream(std::move(*reader), &stream).ok());
  auto batches = arrow::ImportRecordBatchReader(&stream);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<bool> seen(static_cast<size_t>(num_keys), false);
  int64_t rows_read = 0, mismatches = 0;
  uint64_t checksum = 0;
  RowValues v;
  while (true) {
    auto next = (*batches)->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!*next) break;
    const arrow::RecordBatch& b = **next;
    ASSERT_EQ(b.num_columns(), 7);
    auto& k = static_cast<const arrow::Int64Array&>(*b.column(0));
    auto& r = static_cast<const arrow::Int32Array&>(*b.column(1));
    auto& name = static_cast<const arrow::StringArray&>(*b.column(2));
    auto& payload = static_cast<const arrow::StringArray&>(*b.column(3));
    auto& tag = static_cast<const arrow::StringArray&>(*b.column(4));
    auto& x = static_cast<const arrow::DoubleArray&>(*b.column(5));
    auto& y = static_cast<const arrow::Int64Array&>(*b.column(6));
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      int64_t key = k.Value(i);
      ++rows_read;
      checksum += Mix(static_cast<uint64_t>(key) ^ static_cast<uint64_t>(y.Value(i)));
      if (key < 0 || key >= num_keys || seen[static_cast<size_t>(key)]) {
        ++mismatches;
        continue;
      }
      seen[static_cast<size_t>(key)] = true;
      Values(key, kRounds - 1, &v);
      if (v.kind == RowKind::kDelete || r.Value(i) != kRounds - 1 || name.GetView(i) != v.name ||
          payload.GetView(i) != v.payload || tag.GetView(i) != v.tag || x.Value(i) != v.x ||
          y.Value(i) != v.y) {
        ++mismatches;
      }
    }
  }
  int64_t expected_rows = 0;
  uint64_t expected_checksum = 0;
  for (int64_t key = 0; key < num_keys; ++key) {
    Values(key, kRounds - 1, &v);
    if (v.kind == RowKind::kDelete) continue;
    ++expected_rows;
    expected_checksum += Mix(static_cast<uint64_t>(key) ^ static_cast<uint64_t>(v.y));
  }
  std::printf("read back %" PRId64 " rows in %.1f s, checksum %016" PRIx64 "\n", rows_read,
              Seconds(read_start), checksum);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(rows_read, expected_rows);
  EXPECT_EQ(checksum, expected_checksum);
}

// 300 MB of rows through a 32 MB buffer, with the default memory pool, into each file format.
class WriteMemoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WriteMemoryTest, BoundedWithSmallBuffer) {
  RunBoundedWrite(300 * kMiB, 32 * kMiB, R"(, "file.format": ")" + GetParam() + R"(")");
}

INSTANTIATE_TEST_SUITE_P(Formats, WriteMemoryTest, ::testing::Values("parquet", "orc", "avro"),
                         [](const auto& info) { return info.param; });

// A size from the environment: bytes, or with a k/m/g suffix (binary units).
int64_t SizeFromEnv(const char* name, int64_t default_bytes) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return default_bytes;
  char* end = nullptr;
  double value = std::strtod(text, &end);
  int64_t unit = 1;
  if (*end == 'k' || *end == 'K') unit = 1 << 10;
  if (*end == 'm' || *end == 'M') unit = kMiB;
  if (*end == 'g' || *end == 'G') unit = 1LL << 30;
  return static_cast<int64_t>(value * static_cast<double>(unit));
}

// FRESHET_STRESS_BYTES of rows (default 5 GiB) through FRESHET_STRESS_BUFFER_BYTES of write
// buffer (default 64 MiB).
TEST(WriteMemoryStressTest, DISABLED_BoundedWithDefaultSize) {
  int64_t bytes = SizeFromEnv("FRESHET_STRESS_BYTES", 5LL << 30);
  int64_t buffer = SizeFromEnv("FRESHET_STRESS_BUFFER_BYTES", 64 * kMiB);
  ASSERT_GT(bytes, 0) << "FRESHET_STRESS_BYTES";
  ASSERT_GT(buffer, 0) << "FRESHET_STRESS_BUFFER_BYTES";
  const char* options = std::getenv("FRESHET_STRESS_OPTIONS");  // e.g. , "file.format": "avro"
  RunBoundedWrite(bytes, buffer, options ? options : "");
}

}  // namespace
}  // namespace freshet
