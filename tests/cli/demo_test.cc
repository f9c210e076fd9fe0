// `freshet demo`: the README's first command, run as a user would, without Java.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>

#include "cli/cli_test_util.h"

namespace freshet::cli_testing {
namespace {

namespace fs = std::filesystem;

// The number after `label` on a line of the summary ("  Rows ingested:  1,234" -> 1234).
std::optional<int64_t> SummaryNumber(const std::string& out, const std::string& label) {
  std::smatch match;
  if (!std::regex_search(out, match, std::regex("\n  " + label + " +([0-9,]+)"))) {
    return std::nullopt;
  }
  std::string digits = match[1];
  std::erase(digits, ',');
  return std::stoll(digits);
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A `java` first on PATH and under JAVA_HOME that leaves a trace when anything runs it.
std::string FakeJava(const TempDir& dir) {
  fs::create_directories(dir.Sub("jdk/bin"));
  std::string java = dir.Sub("jdk/bin/java");
  std::ofstream(java) << "#!/bin/sh\ntouch '" << dir.Sub("java-was-run") << "'\nexit 1\n";
  chmod(java.c_str(), 0755);
  return dir.Sub("jdk");
}

ProcessResult RunDemo(const TempDir& dir, const std::string& seconds) {
  return RunCli({"demo", "--warehouse", dir.Sub("warehouse"), "--seconds", seconds});
}

void ExpectCommittedEqualsIngested(const ProcessResult& run) {
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  auto ingested = SummaryNumber(run.out, "Rows ingested:");
  auto committed = SummaryNumber(run.out, "Rows committed:");
  ASSERT_TRUE(ingested && committed) << run.out;
  EXPECT_GT(*ingested, 0);
  EXPECT_EQ(*committed, *ingested) << run.out;
  EXPECT_NE(run.out.find("OK: every ingested row is committed"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("FAILED"), std::string::npos) << run.out;
}

TEST(DemoTest, RunsWithoutJavaAndCommitsEveryIngestedRow) {
  TempDir dir;
  std::string jdk = FakeJava(dir);
  ScopedEnv path("PATH", jdk + "/bin:" + std::getenv("PATH"));
  ScopedEnv java_home("JAVA_HOME", jdk);

  ProcessResult first = RunDemo(dir, "2");
  ExpectCommittedEqualsIngested(first);
  const std::string table = dir.Sub("warehouse/demo.db/realtime_events");
  EXPECT_TRUE(fs::is_directory(table + "/snapshot")) << first.out;
  EXPECT_NE(first.out.find(table), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("Rows visible before the final commit:"), std::string::npos);

  // A second run starts from a new table (rows left from the first would fail its checks).
  ExpectCommittedEqualsIngested(RunDemo(dir, "1"));

  EXPECT_FALSE(fs::exists(dir.Sub("java-was-run")));
}

TEST(DemoTest, LeavesADirectoryThatIsNotItsTableAlone) {
  TempDir dir;
  const std::string table = dir.Sub("warehouse/demo.db/realtime_events");
  fs::create_directories(table);
  std::ofstream(table + "/keep.txt") << "mine";
  ProcessResult run = RunDemo(dir, "1");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("is not a table made by freshet demo"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::exists(table + "/keep.txt"));
}

TEST(DemoTest, RejectsABadDuration) {
  TempDir dir;
  ProcessResult run = RunDemo(dir, "0");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("--seconds must be between 1 and 3600"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir.Sub("warehouse")));
}

}  // namespace
}  // namespace freshet::cli_testing
