#include "interop/interop_harness.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "common/json.h"
#include "testing/test_util.h"

extern char** environ;

namespace freshet::interop {

namespace fs = std::filesystem;

namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::string SetupHint() {
  return " - run scripts/setup.sh (it builds the Java harness jar and the pypaimon venv)";
}

}  // namespace

std::string JavaJarPath() {
  return EnvOr("FRESHET_INTEROP_JAR",
               std::string(FRESHET_SOURCE_DIR) + "/interop/java/target/freshet-interop-java.jar");
}

std::string PythonPath() {
  return EnvOr("PYPAIMON_PYTHON", std::string(FRESHET_SOURCE_DIR) + "/.venv-pypaimon/bin/python");
}

std::string PythonHarnessPath() {
  return std::string(FRESHET_SOURCE_DIR) + "/interop/python/paimon_harness.py";
}

std::string FreshetCliPath() { return FRESHET_CLI_PATH; }

std::string JavaHarnessProblem() {
  if (!fs::is_regular_file(JavaJarPath())) {
    return "Java Paimon harness jar " + JavaJarPath() + " is missing" + SetupHint();
  }
  return "";
}

std::string PythonHarnessProblem() {
  if (!fs::exists(PythonPath())) {
    return "pypaimon venv interpreter " + PythonPath() + " is missing" + SetupHint();
  }
  if (!fs::is_regular_file(PythonHarnessPath())) {
    return "pypaimon harness " + PythonHarnessPath() + " is missing";
  }
  return "";
}

namespace {

std::vector<std::string> JavaBaseCommand() {
  // C1-only JIT and the serial GC roughly halve the start-up cost of a short-lived harness JVM.
  // JVM warnings (e.g. about the class-data archive) go to stderr, never into the rows on stdout.
  return {"java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xlog:disable",
          "-Xlog:all=warning:stderr"};
}

// A dynamic class-data-sharing archive of the harness jar, made once per build directory and
// jar version by a training run (a small Parquet write). It cuts each later JVM start by ~40%.
// Empty when it cannot be made (the harness then runs without it).
std::string JavaCdsArchive() {
  static std::once_flag once;
  static std::string archive;
  std::call_once(once, [] {
    std::error_code ec;
    auto size = fs::file_size(JavaJarPath(), ec);
    if (ec) return;
    auto mtime = fs::last_write_time(JavaJarPath(), ec).time_since_epoch().count();
    if (ec) return;
    std::string dir = std::string(FRESHET_BINARY_DIR) + "/interop-java-cds";
    std::string path =
        dir + "/harness-" + std::to_string(size) + "-" + std::to_string(mtime) + ".jsa";
    if (fs::exists(path)) {
      archive = path;
      return;
    }
    fs::create_directories(dir, ec);
    freshet::testing::TempDir tmp;
    std::string table = tmp.Sub("wh/cds.db/train");
    WriteTextFile(tmp.Sub("schema.json"),
                  "{\"fields\": [{\"name\": \"k\", \"type\": \"INT\"}, {\"name\": \"s\", "
                  "\"type\": \"STRING\"}, {\"name\": \"t\", \"type\": \"TIMESTAMP(6)\"}], "
                  "\"options\": {\"bucket\": \"2\", \"bucket-key\": \"k\"}}");
    WriteTextFile(tmp.Sub("rows.jsonl"),
                  "{\"k\": 1, \"s\": \"a\", \"t\": \"2024-01-01 00:00:00.000001\"}\n");
    const std::string jar = JavaJarPath();
    std::vector<std::string> create = JavaBaseCommand();
    create.insert(create.end(),
                  {"-jar", jar, "create", "--table", table, "--schema", tmp.Sub("schema.json")});
    if (!RunCommand(create).ok()) return;
    // Written under a temporary name and renamed, so concurrent test processes never see half
    // an archive.
    std::string partial = path + "." + std::to_string(getpid()) + ".tmp";
    std::vector<std::string> train = JavaBaseCommand();
    train.push_back("-XX:ArchiveClassesAtExit=" + partial);
    train.insert(train.end(),
                 {"-jar", jar, "write", "--table", table, "--input", tmp.Sub("rows.jsonl")});
    if (RunCommand(train).ok() && fs::exists(partial)) {
      fs::rename(partial, path, ec);
      if (!ec) archive = path;
    }
    fs::remove(partial, ec);
  });
  return archive;
}

}  // namespace

std::vector<std::string> JavaCommand(std::vector<std::string> args) {
  std::vector<std::string> argv = JavaBaseCommand();
  std::string archive = JavaCdsArchive();
  if (!archive.empty()) argv.push_back("-XX:SharedArchiveFile=" + archive);
  argv.push_back("-jar");
  argv.push_back(JavaJarPath());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<std::string> PythonCommand(std::vector<std::string> args) {
  std::vector<std::string> argv = {PythonPath(), PythonHarnessPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string CommandResult::Describe() const {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
  std::string err_tail = err.size() > 4000 ? "..." + err.substr(err.size() - 4000) : err;
  return "`" + line + "` exited with " + std::to_string(exit_code) + "; stderr:\n" + err_tail;
}

StartedCommand StartCommand(const std::vector<std::string>& argv) {
  StartedCommand started;
  started.argv = argv;
  started.start = std::chrono::steady_clock::now();
  char out_template[] = "/tmp/freshet-interop-out.XXXXXX";
  char err_template[] = "/tmp/freshet-interop-err.XXXXXX";
  int out_fd = mkstemp(out_template);
  int err_fd = mkstemp(err_template);
  if (out_fd < 0 || err_fd < 0) {
    started.error = "cannot create temp files for the child's output";
    return started;
  }
  started.out_path = out_template;
  started.err_path = err_template;
  // Descriptors are created close-on-exec, so a child started concurrently by another thread
  // cannot inherit them; the file actions dup them onto 1 and 2 (which clears the flag).
  fcntl(out_fd, F_SETFD, FD_CLOEXEC);
  fcntl(err_fd, F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = posix_spawnp(&started.pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_fd);
  close(err_fd);
  if (rc != 0) {
    started.pid = -1;
    started.error = std::string("cannot start ") + args[0] + ": " + std::strerror(rc);
  }
  return started;
}

CommandResult WaitCommand(const StartedCommand& started) {
  CommandResult result;
  result.argv = started.argv;
  result.err = started.error;
  if (started.pid > 0) {
    int status = 0;
    while (waitpid(started.pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = freshet::testing::ReadWholeFile(started.out_path);
    result.err = freshet::testing::ReadWholeFile(started.err_path);
  }
  if (!started.out_path.empty()) unlink(started.out_path.c_str());
  if (!started.err_path.empty()) unlink(started.err_path.c_str());
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started.start).count();
  return result;
}

CommandResult RunCommand(const std::vector<std::string>& argv) {
  return WaitCommand(StartCommand(argv));
}

std::vector<std::vector<CommandResult>> RunChains(const std::vector<Chain>& chains, int parallel) {
  std::vector<std::vector<CommandResult>> results(chains.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < chains.size(); i = next++) {
      for (const auto& argv : chains[i]) {
        results[i].push_back(RunCommand(argv));
        if (!results[i].back().ok()) break;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, parallel); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return results;
}

std::string FirstFailure(const std::vector<std::vector<CommandResult>>& results) {
  for (const auto& chain : results) {
    for (const auto& r : chain) {
      if (!r.ok()) return r.Describe();
    }
  }
  return "";
}

uint64_t SeedFromEnv() {
  const char* text = std::getenv("FRESHET_INTEROP_SEED");
  if (text != nullptr && *text != '\0') return std::strtoull(text, nullptr, 10);
  return std::random_device{}() ^ (static_cast<uint64_t>(std::random_device{}()) << 32);
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::map<int64_t, std::string> SplitSnapshots(const std::string& output) {
  std::map<int64_t, std::string> snapshots;
  int64_t current = 0;
  for (const auto& line : SplitLines(output)) {
    if (line.rfind(R"({"__snapshot": )", 0) == 0) {
      current = Json::parse(line)["__snapshot"].get<int64_t>();
      snapshots[current];
    } else {
      snapshots[current] += line + "\n";
    }
  }
  return snapshots;
}

std::vector<std::string> Sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::vector<std::string> CanonicalRows(const std::string& jsonl,
                                       const std::vector<std::string>& unordered) {
  std::vector<std::string> rows;
  for (const auto& line : SplitLines(jsonl)) {
    Json row = Json::parse(line);
    for (const auto& column : unordered) {
      if (row.contains(column) && row[column].is_array()) {
        std::sort(row[column].begin(), row[column].end());
      }
    }
    rows.push_back(row.dump());
  }
  return Sorted(rows);
}

void WriteTextFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string JsonString(const std::string& utf8) { return JacksonQuote(utf8); }

std::string Base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                 (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(n >> shift) & 63]);
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += {kAlphabet[(n >> 18) & 63], kAlphabet[(n >> 12) & 63], kAlphabet[(n >> 6) & 63], '='};
  }
  return out;
}

namespace {

template <typename T>
std::string FloatingJson(T v, int digits_after_point) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  // The Java harness reads JSON numbers as BigDecimal, which has no negative zero; a string
  // keeps the sign (Float.parseFloat("-0.0")).
  if (v == 0 && std::signbit(v)) return "\"-0.0\"";
  char buf[64];
  // d.ddd...e±x with enough digits to round-trip (9 for float, 17 for double); always a JSON
  // number with a fraction, so -0.0 stays negative zero.
  std::snprintf(buf, sizeof(buf), "%.*e", digits_after_point, static_cast<double>(v));
  return buf;
}

std::string TimeOfDay(int32_t millis, int32_t precision) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02d:%02d:%02d", millis / 3600000, millis / 60000 % 60,
                millis / 1000 % 60);
  std::string out = buf;
  if (precision > 0) {
    std::snprintf(buf, sizeof(buf), "%03d", millis % 1000);
    std::string fraction = std::string(buf) + std::string(9, '0');
    out += "." + fraction.substr(0, static_cast<size_t>(precision));
  }
  return out;
}

}  // namespace

std::string JsonValue(const meta::DataType& type, const meta::Value& value) {
  using meta::TypeRoot;
  if (value.is_null()) return "null";
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return *value.get_if<bool>() ? "true" : "false";
    case TypeRoot::kTinyInt:
      return std::to_string(*value.get_if<int8_t>());
    case TypeRoot::kSmallInt:
      return std::to_string(*value.get_if<int16_t>());
    case TypeRoot::kInt:
      return std::to_string(*value.get_if<int32_t>());
    case TypeRoot::kBigInt:
      return std::to_string(*value.get_if<int64_t>());
    case TypeRoot::kFloat:
      return FloatingJson(*value.get_if<float>(), 8);
    case TypeRoot::kDouble:
      return FloatingJson(*value.get_if<double>(), 16);
    case TypeRoot::kDecimal:
      return JsonString(value.get_if<meta::Decimal>()->ToPlainString());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return JsonString(*value.get_if<std::string>());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return JsonString(Base64(*value.get_if<std::string>()));
    case TypeRoot::kDate:
      return JsonString(meta::FormatEpochDay(*value.get_if<int32_t>()));
    case TypeRoot::kTime:
      return JsonString(TimeOfDay(*value.get_if<int32_t>(), type.precision()));
    case TypeRoot::kTimestamp:
      return JsonString(value.get_if<meta::Timestamp>()->ToSqlString(type.precision()));
    case TypeRoot::kTimestampLtz:
      return JsonString(value.get_if<meta::Timestamp>()->ToSqlString(type.precision()) + "Z");
    default:
      return "\"<unsupported type " + type.ToString() + ">\"";
  }
}

std::string JsonRow(const std::vector<meta::DataField>& fields,
                    const std::vector<meta::Value>& values) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += JsonString(fields[i].name) + ": " + JsonValue(*fields[i].type, values[i]);
  }
  return out + "}";
}

}  // namespace freshet::interop
