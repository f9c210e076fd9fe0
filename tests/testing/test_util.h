// Shared helpers for freshet's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet::testing {

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

// Root of ../shared/golden (Java-written tables).
std::string GoldenDir();

// Every golden table directory (those holding a snapshot/ directory), sorted.
std::vector<std::string> GoldenTableDirs();

// Copies a directory tree (to keep golden tables read-only).
void CopyTree(const std::string& from, const std::string& to);

std::string ReadWholeFile(const std::string& path);

}  // namespace freshet::testing

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
