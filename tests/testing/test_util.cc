#include "testing/test_util.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace freshet::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "freshet-test-XXXXXX").string();
  char* made = mkdtemp(pattern.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string GoldenDir() {
  const char* env = std::getenv("FRESHET_GOLDEN_DIR");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(FRESHET_GOLDEN_DIR);
}

bool HaveGoldenDir() { return fs::is_directory(GoldenDir()); }

std::string GoldenSkipMessage() {
  return "external golden set not found at " + GoldenDir() + ": skipped; set FRESHET_GOLDEN_DIR";
}

std::vector<std::string> GoldenTableDirs() {
  std::vector<std::string> out;
  if (!HaveGoldenDir()) return out;
  for (const auto& entry : fs::recursive_directory_iterator(GoldenDir())) {
    if (entry.is_directory() && entry.path().filename() == "snapshot") {
      out.push_back(entry.path().parent_path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string VectorsDir() {
  const char* env = std::getenv("FRESHET_VECTORS_DIR");
  std::string dir = env != nullptr ? std::string(env) : GoldenDir() + "/vectors";
  return fs::is_directory(dir) ? dir : "";
}

std::string VectorsProblem() {
  if (!VectorsDir().empty()) return "";
  const char* env = std::getenv("FRESHET_VECTORS_DIR");
  if (env != nullptr) {
    return std::string("FRESHET_VECTORS_DIR=") + env +
           " is not a directory (the Java fixtures write it: ctest -L interop)";
  }
  return "bucket-id vectors not found: " + GoldenSkipMessage();
}

void CopyTree(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  // Golden files are read-only; copies must be writable so tests can modify them.
  for (const auto& entry : fs::recursive_directory_iterator(to)) {
    fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
  }
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace freshet::testing

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer builds: Arrow C++ from the pyarrow wheel is not instrumented, so the atomic
// reference counts of the shared_ptrs inside it are invisible to TSan, and a buffer that an Arrow
// I/O thread frees after another thread read it is reported as a race (operator delete called
// from _Sp_counted_base::_M_release in libarrow; seen in Parquet reads with pre-buffering).
// freshet's own shared_ptrs are instrumented and never produce such reports unless they race.
// The same holds for the result an arrow::Future hands between Arrow's own threads: its I/O
// thread frees it in Future::SetResult's deleter, synchronized by atomics TSan cannot see.
// Likewise when the last reference to a written batch's buffer goes on a query thread (the
// real-time layer's coalesced small Writes: their batches are released by whichever thread
// holds the last slice): the pool's Free is called from libarrow's inlined release, which has
// no frame of its own in the report, after other threads read the buffer.
// And when a prefetching read's worker (read/split_prefetch.h) drops the last reference to the
// Arrow fields of a file's schema after the caller's thread read their names: the caller's
// reads happen in libarrow's name-to-index map of the schema its C export builds (the only
// frame TSan sees is that map's find: freshet has no string_view-to-int map), and its releases
// in libarrow too.
// Run with ARROW_DEFAULT_MEMORY_POOL=system too (docs/realtime.md), so that allocations are seen.
extern "C" const char* __tsan_default_suppressions() {
  return "race:_Sp_counted_base*_M_release\n"
         "race:arrow::BaseMemoryPoolImpl*::Free\n"
         "race:arrow::Future*SetResult*\n"
         "race:std::_Hashtable<std::basic_string_view<char, std::char_traits<char> >, "
         "std::pair<std::basic_string_view<char, std::char_traits<char> > const, int>*\n";
}
#endif
