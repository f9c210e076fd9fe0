// Helpers for the interoperability tests: locating and running the Java Paimon and pypaimon
// reference harnesses (interop/README.md), and writing rows in their JSON-lines convention.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "meta/row/value.h"
#include "meta/types/data_type.h"

namespace freshet::interop {

// interop/java/target/freshet-interop-java.jar (or $FRESHET_INTEROP_JAR).
std::string JavaJarPath();
// .venv-pypaimon/bin/python (or $PYPAIMON_PYTHON).
std::string PythonPath();
std::string PythonHarnessPath();
// freshet's command-line tool.
std::string FreshetCliPath();

// Empty when the harness is usable; otherwise a message telling to run scripts/setup.sh.
std::string JavaHarnessProblem();
std::string PythonHarnessProblem();

// Command lines of one harness invocation.
std::vector<std::string> JavaCommand(std::vector<std::string> args);
std::vector<std::string> PythonCommand(std::vector<std::string> args);

struct CommandResult {
  std::vector<std::string> argv;
  int exit_code = -1;
  std::string out;
  std::string err;
  double seconds = 0;

  bool ok() const { return exit_code == 0; }
  // The command line, exit code and stderr, for failure messages.
  std::string Describe() const;
};

using Chain = std::vector<std::vector<std::string>>;

// A command running in the background (for tests that kill it); stdout and stderr go to temp
// files, as for RunCommand.
struct StartedCommand {
  std::vector<std::string> argv;
  pid_t pid = -1;  // -1: it did not start, `error` says why
  std::string error;
  std::string out_path, err_path;
  std::chrono::steady_clock::time_point start;
};
StartedCommand StartCommand(const std::vector<std::string>& argv);
// Waits for the command and collects its output; exit_code is 128 + the signal when a signal
// ended it (137 for SIGKILL).
CommandResult WaitCommand(const StartedCommand& started);

// Runs each chain's commands in order (a chain stops after its first failing command) and runs up
// to `parallel` chains at the same time. Children get no pipes (stdout/stderr go to temp files),
// so concurrent launches do not hold each other's descriptors. Results are per chain, in order.
std::vector<std::vector<CommandResult>> RunChains(const std::vector<Chain>& chains,
                                                  int parallel = 2);
CommandResult RunCommand(const std::vector<std::string>& argv);

// The first failure of a RunChains result, described; empty when all commands succeeded.
std::string FirstFailure(const std::vector<std::vector<CommandResult>>& results);

// Lines of `text`, without empty lines.
std::vector<std::string> SplitLines(const std::string& text);
// A harness's `read --all-snapshots` output (a {"__snapshot": N} line before each snapshot's
// JSON lines), by snapshot id.
std::map<int64_t, std::string> SplitSnapshots(const std::string& output);
// Sorted copy (for order-insensitive row comparison).
std::vector<std::string> Sorted(std::vector<std::string> lines);
// JSON-lines rows compared by value: each line parsed and re-serialized (so "1.0E20" and "1e+20"
// compare equal), the pairs of the `unordered` columns (MAP values, which readers may return in
// any order) sorted, and the rows sorted.
std::vector<std::string> CanonicalRows(const std::string& jsonl,
                                       const std::vector<std::string>& unordered = {});
void WriteTextFile(const std::string& path, const std::string& text);

// The seed of a randomized test: $FRESHET_INTEROP_SEED, or a fresh random one. Tests print it,
// so that setting the variable repeats a run.
uint64_t SeedFromEnv();

// A JSON string literal (escaping like Jackson / Python json.dumps with ensure_ascii=False).
std::string JsonString(const std::string& utf8);
std::string Base64(const std::string& bytes);

// One atomic value as the harness input convention wants it: FLOAT/DOUBLE as round-trip
// exponent notation (or "NaN"/"Infinity"), DECIMAL as a plain string, BINARY as base64,
// DATE/TIME/TIMESTAMP as text, TIMESTAMP_LTZ with a trailing Z. Nested types are not supported.
std::string JsonValue(const meta::DataType& type, const meta::Value& value);
// {"name": value, ...} in field order, with the harness separators.
std::string JsonRow(const std::vector<meta::DataField>& fields,
                    const std::vector<meta::Value>& values);

}  // namespace freshet::interop
