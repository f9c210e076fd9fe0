// The entry point every fuzz target defines (libFuzzer's), and small helpers for targets.
//
// A target is built twice: with clang's libFuzzer (FRESHET_SANITIZE=fuzzer, scripts/fuzz.sh) to
// search for inputs, and with replay_main.cc in every build, where ctest replays the checked-in
// corpus (tests/fuzz/corpus/<target>/) so that what was once found stays fixed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "freshet/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace freshet::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property every accepted input must have was broken: report it and abort, so that libFuzzer
// saves the input as a crash and the replay test fails.
[[noreturn]] inline void PropertyViolated(const std::string& what, const Status& status = {}) {
  std::cerr << "fuzz property violated: " << what;
  if (!status.ok()) std::cerr << ": " << status.ToString();
  std::cerr << std::endl;
  std::abort();
}

}  // namespace freshet::fuzz
