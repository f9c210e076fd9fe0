#include "bench_rows.h"

#include <arrow/c/bridge.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace freshet::bench {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

uint64_t Mix(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace {

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

}  // namespace

const char* const kFields = R"("fields": [
  {"name": "id", "type": "BIGINT"}, {"name": "k1", "type": "INT"}, {"name": "k2", "type": "INT"},
  {"name": "v", "type": "BIGINT"}, {"name": "d1", "type": "DOUBLE"},
  {"name": "d2", "type": "DOUBLE"}, {"name": "d3", "type": "DOUBLE"},
  {"name": "s1", "type": "STRING"}, {"name": "s2", "type": "STRING"},
  {"name": "s3", "type": "STRING"}])";

void Die(const std::string& what) {
  std::fprintf(stderr, "%s: error: %s\n", program_invocation_short_name, what.c_str());
  std::exit(1);
}

void Check(const arrow::Status& st, const char* what) {
  if (!st.ok()) Die(std::string(what) + ": " + st.ToString());
}

void Check(const freshet::Status& st, const char* what) {
  if (!st.ok()) Die(std::string(what) + ": " + st.ToString());
}

namespace {

std::shared_ptr<arrow::StructArray> Build(const Generator& g, int64_t first, int64_t n,
                                          const int64_t* ids, const int8_t* kinds, Checksum* sum) {
  arrow::Int64Builder id, v;
  arrow::Int32Builder k1, k2;
  arrow::DoubleBuilder d[3];
  arrow::StringBuilder s[3];
  arrow::Int8Builder kind;
  Check(id.Reserve(n), "reserve");
  Check(v.Reserve(n), "reserve");
  Check(k1.Reserve(n), "reserve");
  Check(k2.Reserve(n), "reserve");
  if (kinds != nullptr) Check(kind.AppendValues(kinds, n), "kinds");
  for (int c = 0; c < 3; ++c) {
    Check(d[c].Reserve(n), "reserve");
    Check(s[c].Reserve(n), "reserve");
    Check(s[c].ReserveData(n * 32), "reserve");
  }
  char buf[32];
  for (int64_t row = first; row < first + n; ++row) {
    int64_t key = ids != nullptr ? ids[row - first] : row;
    int32_t a = g.K1(row), b = g.K2(row);
    int64_t x = g.V(row);
    id.UnsafeAppend(key);
    k1.UnsafeAppend(a);
    k2.UnsafeAppend(b);
    v.UnsafeAppend(x);
    if (sum != nullptr) {
      sum->sums[0] += static_cast<uint64_t>(key);
      sum->sums[1] += static_cast<uint64_t>(static_cast<int64_t>(a));
      sum->sums[2] += static_cast<uint64_t>(static_cast<int64_t>(b));
      sum->sums[3] += static_cast<uint64_t>(x);
    }
    for (int c = 0; c < 3; ++c) {
      double dv = g.D(row, 4 + c);
      d[c].UnsafeAppend(dv);
      int len = g.S(row, 7 + c, buf);
      s[c].UnsafeAppend(buf, len);
      if (sum != nullptr) {
        sum->sums[4 + c] += DoubleBits(dv);
        sum->sums[7 + c] += Fnv1a(std::string_view(buf, len));
      }
    }
  }
  if (sum != nullptr) sum->rows += n;
  std::vector<std::shared_ptr<arrow::Array>> cols(kColumns);
  Check(id.Finish(&cols[0]), "finish");
  Check(k1.Finish(&cols[1]), "finish");
  Check(k2.Finish(&cols[2]), "finish");
  Check(v.Finish(&cols[3]), "finish");
  for (int c = 0; c < 3; ++c) {
    Check(d[c].Finish(&cols[4 + c]), "finish");
    Check(s[c].Finish(&cols[7 + c]), "finish");
  }
  std::vector<std::string> names{"id", "k1", "k2", "v", "d1", "d2", "d3", "s1", "s2", "s3"};
  if (kinds != nullptr) {
    cols.emplace_back();
    Check(kind.Finish(&cols.back()), "finish");
    names.emplace_back("_ROW_KIND");
  }
  return Take(arrow::StructArray::Make(cols, names), "struct");
}

}  // namespace

std::shared_ptr<arrow::StructArray> MakeBatch(const Generator& g, int64_t first, int64_t n,
                                              Checksum* expect) {
  Checksum ignored;
  return Build(g, first, n, nullptr, nullptr, expect != nullptr ? expect : &ignored);
}

std::shared_ptr<arrow::StructArray> MakeBatch(const Generator& g, int64_t first, int64_t n,
                                              const int64_t* ids, const int8_t* kinds) {
  return Build(g, first, n, ids, kinds, nullptr);
}

void AddRow(const Generator& g, int64_t row, int64_t id, Checksum* sum) {
  char buf[32];
  sum->sums[0] += static_cast<uint64_t>(id);
  sum->sums[1] += static_cast<uint64_t>(static_cast<int64_t>(g.K1(row)));
  sum->sums[2] += static_cast<uint64_t>(static_cast<int64_t>(g.K2(row)));
  sum->sums[3] += static_cast<uint64_t>(g.V(row));
  for (int c = 0; c < 3; ++c) {
    sum->sums[4 + c] += DoubleBits(g.D(row, 4 + c));
    int len = g.S(row, 7 + c, buf);
    sum->sums[7 + c] += Fnv1a(std::string_view(buf, len));
  }
  ++sum->rows;
}

namespace {

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

}  // namespace

int Generator::S(int64_t row, int col, char* out) const {
  uint64_t h = H(row, col);
  int len = 8 + static_cast<int>(h % 25);
  for (int j = 0; j < len; ++j) {
    uint64_t w = Mix(h + 1 + static_cast<uint64_t>(j / 10));
    out[j] = kAlphabet[(w >> (6 * (j % 10))) & 63];
  }
  return len;
}

uint64_t Checksum::Value() const {
  uint64_t acc = 0;
  for (int c = 0; c < kColumns; ++c) acc = Mix(acc ^ sums[c]);
  return acc;
}

std::shared_ptr<arrow::RecordBatchReader> ReadStream(const freshet::Table& table,
                                                     const freshet::ReadOptions& options) {
  auto reader = Take(table.NewReader(options), "new reader");
  ArrowArrayStream stream;
  Check(freshet::TableReader::ExportArrowStream(std::move(reader), &stream), "stream");
  return Take(arrow::ImportRecordBatchReader(&stream), "import stream");
}

Checksum ReadAll(const freshet::Table& table, const freshet::ReadOptions& options,
                 double* seconds) {
  auto t0 = Clock::now();
  auto batches = ReadStream(table, options);
  Checksum sum;
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    Check(batches->ReadNext(&batch), "next");
    if (batch == nullptr) break;
    if (batch->num_columns() != kColumns)
      Die("batch has " + std::to_string(batch->num_columns()) + " columns");
    for (int c = 0; c < kColumns; ++c) {
      const auto& col = batch->column(c);
      if (col->null_count() != 0) Die("unexpected nulls");
      AddColumn(*col, &sum.sums[c]);
    }
    sum.rows += batch->num_rows();
  }
  *seconds = Seconds(t0, Clock::now());
  return sum;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double ProcessCpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

}  // namespace freshet::bench
