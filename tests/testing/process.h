// Running a child process from a test and capturing what it prints.
#pragma once

#include <string>
#include <vector>

namespace freshet::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string out;  // standard output
  std::string err;  // standard error
};

// Runs `argv` (no shell), waiting for it to end.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_data = "");

}  // namespace freshet::testing
