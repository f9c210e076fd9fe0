// The rows and checksum both benchmarks use (docs/benchmarks.md, "Generator" and "Checksum"):
// 10 columns (4 integer, 3 DOUBLE, 3 STRING) generated statelessly per (row, column), identical to
// the Java harness's BenchRows.java, so that every engine writes the same values and prints the
// same order-independent checksum.
#pragma once

#include <arrow/api.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "freshet/table.h"

namespace freshet::bench {

using Clock = std::chrono::steady_clock;

constexpr int kColumns = 10;

uint64_t Mix(uint64_t x);

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
  // Writes the string of (row, col) to `out`; returns its length (8..32).
  int S(int64_t row, int col, char* out) const;
};

// Per-column wrapping sums of the values (integers sign-extended to 64 bits, doubles as their
// IEEE bits, strings as FNV-1a 64 of their UTF-8 bytes), folded with Mix.
struct Checksum {
  uint64_t sums[kColumns] = {};
  int64_t rows = 0;
  uint64_t Value() const;
};

// The table's fields as a schema-spec fragment: `"fields": [...]`.
extern const char* const kFields;

// Prints "<program>: error: <what>" and exits 1.
[[noreturn]] void Die(const std::string& what);
void Check(const arrow::Status& st, const char* what);
void Check(const freshet::Status& st, const char* what);
template <typename T>
T Take(arrow::Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).ValueUnsafe();
}
template <typename T>
T Take(freshet::Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
  return std::move(*r);
}

// Rows [first, first + n) as a struct array; adds them to `expect` when given.
std::shared_ptr<arrow::StructArray> MakeBatch(const Generator& g, int64_t first, int64_t n,
                                              Checksum* expect);
// The same rows with `ids[i]` as the id of row first + i (the primary-key bench: the key that
// event writes) and, when `kinds` is given, a last column `_ROW_KIND` (int8, Paimon's row kind
// byte) from kinds[i]. Adds nothing to a checksum.
std::shared_ptr<arrow::StructArray> MakeBatch(const Generator& g, int64_t first, int64_t n,
                                              const int64_t* ids, const int8_t* kinds);
// Adds row `row` of the generator, with `id` as its id, to `sum`.
void AddRow(const Generator& g, int64_t row, int64_t id, Checksum* sum);

// A read of `table` as Arrow C++ batches, through the reader's C stream (ExportArrowStream).
std::shared_ptr<arrow::RecordBatchReader> ReadStream(const freshet::Table& table,
                                                     const freshet::ReadOptions& options);

// Reads every row and value of `table` with `options`; returns the checksum of what was read.
Checksum ReadAll(const freshet::Table& table, const freshet::ReadOptions& options, double* seconds);

double Seconds(Clock::time_point a, Clock::time_point b);
// User + system CPU seconds of this process so far (all threads).
double ProcessCpuSeconds();

}  // namespace freshet::bench
