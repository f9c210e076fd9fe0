#include "common/uuid.h"

#include <cstdint>
#include <cstdio>
#include <random>

namespace freshet {

std::string RandomUuid() {
  // One generator per thread, seeded from the OS: no lock on the hot path, no shared state.
  thread_local std::mt19937_64 generator{std::random_device{}()};
  uint64_t hi = generator();
  uint64_t lo = generator();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // IETF variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace freshet
