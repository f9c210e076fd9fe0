// Shared helpers for freshet's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet::testing {

// The seed of a randomized test: FRESHET_TEST_SEED when set (to repeat a run), else random.
// Tests print it with SCOPED_TRACE so that a failure names it.
inline uint64_t TestSeed() {
  const char* fixed = std::getenv("FRESHET_TEST_SEED");
  return fixed ? std::strtoull(fixed, nullptr, 10) : std::random_device{}();
}

// A fresh, empty directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Root of the optional external golden set: Java-written tables, expected rows and bucket-id
// vectors ($FRESHET_GOLDEN_DIR, else the CMake cache variable FRESHET_GOLDEN_DIR, by default
// ../shared/golden beside the checkout). A clone of the repository alone does not have it: tests
// that read it start with FRESHET_REQUIRE_GOLDEN() and are skipped without it. The interop suite
// checks the same ground with tables the Java harness writes (docs/interop-tests.md).
std::string GoldenDir();
bool HaveGoldenDir();
// "external golden set not found at <path>: skipped; set FRESHET_GOLDEN_DIR"
std::string GoldenSkipMessage();

// Every golden table directory (those holding a snapshot/ directory), sorted; empty without the
// golden set.
std::vector<std::string> GoldenTableDirs();

// The bucket-id vectors (record_*_for_bucket_id.data): $FRESHET_VECTORS_DIR when set (the interop
// suite points it at the files the Java harness wrote, tests/CMakeLists.txt), else the golden
// set's vectors/. Empty when neither is there; VectorsProblem() then says why.
std::string VectorsDir();
// Empty when VectorsDir() is usable. A $FRESHET_VECTORS_DIR that does not exist is a failure,
// not a skip.
std::string VectorsProblem();

// Copies a directory tree (to keep golden tables read-only).
void CopyTree(const std::string& from, const std::string& to);

std::string ReadWholeFile(const std::string& path);

}  // namespace freshet::testing

// Skips the current test (GTEST_SKIP) when the optional external golden set is absent.
#define FRESHET_REQUIRE_GOLDEN()                               \
  do {                                                         \
    if (!::freshet::testing::HaveGoldenDir()) {                \
      GTEST_SKIP() << ::freshet::testing::GoldenSkipMessage(); \
    }                                                          \
  } while (false)

// Skips the current test when no bucket-id vectors are there (no golden set and no
// $FRESHET_VECTORS_DIR); fails when $FRESHET_VECTORS_DIR names a missing directory.
#define FRESHET_REQUIRE_VECTORS()                                            \
  do {                                                                       \
    if (::freshet::testing::VectorsDir().empty()) {                          \
      std::string _problem = ::freshet::testing::VectorsProblem();           \
      if (std::getenv("FRESHET_VECTORS_DIR") != nullptr) FAIL() << _problem; \
      GTEST_SKIP() << _problem;                                              \
    }                                                                        \
  } while (false)

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    ::freshet::Status _st = (expr);                                  \
    ASSERT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString(); \
  } while (false)
#define EXPECT_OK(expr)                                              \
  do {                                                               \
    ::freshet::Status _st = (expr);                                  \
    EXPECT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString(); \
  } while (false)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, rexpr)                           \
  auto tmp = (rexpr);                                                        \
  ASSERT_TRUE(tmp.ok()) << #rexpr << " failed: " << tmp.status().ToString(); \
  lhs = std::move(tmp).MoveValueUnsafe();
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ASSERT_OK_AND_ASSIGN_IMPL(FRESHET_CONCAT(_test_result_, __COUNTER__), lhs, rexpr)
