// `freshet read` with --delta, --incremental-between, --with-row-kind and --follow
// (docs/streaming-reads.md): what a streaming reader emits for one snapshot, the changes of a
// range, row kinds of batch reads, and rows printed as snapshots land until Ctrl-C.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"

namespace freshet {
namespace {

using cli_testing::ProcessResult;
using cli_testing::RunCli;
using cli_testing::TempDir;

constexpr const char* kSchema = R"json({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
  {"name": "v", "type": "STRING"}]})json";

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

class StreamReadCliTest : public ::testing::Test {
 protected:
  std::string Create(const std::string& name, std::vector<std::string> extra) {
    std::string path = dir_.Sub("db.db/" + name);
    std::vector<std::string> argv = {"create", path, "--schema", kSchema};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ProcessResult run = RunCli(argv);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return path;
  }
  void Write(const std::string& path, const std::string& jsonl,
             std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {"write", path, "--input", "-"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ProcessResult run = RunCli(argv, jsonl);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  // A primary-key table: snapshot 1 inserts 1, 2, 3; snapshot 2 updates 1, deletes 2, adds 4.
  std::string PrimaryKeyTable() {
    std::string path = Create("pk", {"--primary-key", "id", "--option", "bucket=2"});
    Write(path,
          "{\"id\": 1, \"v\": \"a\"}\n{\"id\": 2, \"v\": \"b\"}\n{\"id\": 3, \"v\": \"c\"}\n");
    Write(path,
          "{\"id\": 1, \"v\": \"a2\", \"_ROW_KIND\": \"+U\"}\n"
          "{\"id\": 2, \"v\": \"b\", \"_ROW_KIND\": \"-D\"}\n{\"id\": 4, \"v\": \"d\"}\n");
    return path;
  }

  TempDir dir_;
};

TEST_F(StreamReadCliTest, DeltaPrintsWhatAStreamingReaderEmitsForTheSnapshot) {
  std::string pk = PrimaryKeyTable();
  ProcessResult run = RunCli({"read", pk, "--delta", "2", "--with-row-kind"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(SortedLines(run.out),
            (std::vector<std::string>{R"({"_ROW_KIND": "+I", "id": 4, "v": "d"})",
                                      R"({"_ROW_KIND": "+U", "id": 1, "v": "a2"})",
                                      R"({"_ROW_KIND": "-D", "id": 2, "v": "b"})"}));
  // Without --with-row-kind the change records are printed without their kinds.
  run = RunCli({"read", pk, "--delta", "1", "--select", "id"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(SortedLines(run.out),
            (std::vector<std::string>{R"({"id": 1})", R"({"id": 2})", R"({"id": 3})"}));

  // An append table's OVERWRITE snapshot emits nothing (streaming-read-overwrite unset).
  std::string append = Create("append", {});
  Write(append, "{\"id\": 1, \"v\": \"x\"}\n");
  Write(append, "{\"id\": 2, \"v\": \"y\"}\n", {"--overwrite"});
  run = RunCli({"read", append, "--delta", "2", "--with-row-kind"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
  run = RunCli({"read", append, "--delta", "1", "--with-row-kind", "--format", "csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "_ROW_KIND,id,v\n+I,1,x\n");

  // A snapshot that does not exist is an error, not a wait.
  run = RunCli({"read", pk, "--delta", "9"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("NotFound"), std::string::npos) << run.err;
  run = RunCli({"read", pk, "--delta", "1", "--follow"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("exclude each other"), std::string::npos) << run.err;
}

TEST_F(StreamReadCliTest, IncrementalBetweenAndBatchRowKinds) {
  std::string pk = PrimaryKeyTable();
  ProcessResult run =
      RunCli({"read", pk, "--incremental-between", "0,2", "--with-row-kind", "--format", "csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(SortedLines(run.out),
            (std::vector<std::string>{"+I,1,a", "+I,2,b", "+I,3,c", "+I,4,d", "+U,1,a2", "-D,2,b",
                                      "_ROW_KIND,id,v"}));
  run = RunCli({"read", pk, "--incremental-between", "2,2", "--format", "csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "id,v\n");

  // A batch read with row kinds: each live key with its merged kind.
  run = RunCli({"read", pk, "--with-row-kind", "--where", "id <= 3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(SortedLines(run.out),
            (std::vector<std::string>{R"({"_ROW_KIND": "+I", "id": 3, "v": "c"})",
                                      R"({"_ROW_KIND": "+U", "id": 1, "v": "a2"})"}));
  run = RunCli({"read", pk, "--with-row-kind", "--snapshot", "1", "--format", "table"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("_ROW_KIND | id | v"), std::string::npos) << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 5) << run.out;
}

// A child process whose standard output the test reads while it runs.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    args.insert(args.begin(), FRESHET_CLI_PATH);
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    fd_ = out[0];
  }
  ~Child() {
    if (fd_ >= 0) close(fd_);
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Reads until the output holds `count` lines (or `timeout` passes); returns all output so far.
  const std::string& ReadLines(size_t count, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (static_cast<size_t>(std::count(out_.begin(), out_.end(), '\n')) < count) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buffer[4096];
      ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n <= 0) break;
      out_.append(buffer, static_cast<size_t>(n));
    }
    return out_;
  }

  // Sends SIGINT and returns the exit code (-1 when killed by a signal).
  int Interrupt() {
    kill(pid_, SIGINT);
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    ReadLines(SIZE_MAX, std::chrono::milliseconds(100));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  const std::string& out() const { return out_; }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  bool waited_ = false;
  std::string out_;
};

TEST_F(StreamReadCliTest, FollowPrintsRowsAsSnapshotsLandUntilInterrupted) {
  std::string pk = PrimaryKeyTable();
  // The default mode is latest-full: the live rows first, then each change.
  Child follow({"read", pk, "--follow", "--with-row-kind"});
  std::string out = follow.ReadLines(3, std::chrono::seconds(20));
  EXPECT_EQ(SortedLines(out),
            (std::vector<std::string>{R"({"_ROW_KIND": "+I", "id": 3, "v": "c"})",
                                      R"({"_ROW_KIND": "+I", "id": 4, "v": "d"})",
                                      R"({"_ROW_KIND": "+U", "id": 1, "v": "a2"})"}));
  Write(pk, "{\"id\": 3, \"v\": \"c\", \"_ROW_KIND\": \"-D\"}\n");
  out = follow.ReadLines(4, std::chrono::seconds(20));
  EXPECT_NE(out.find(R"({"_ROW_KIND": "-D", "id": 3, "v": "c"})"), std::string::npos) << out;
  Write(pk, "{\"id\": 5, \"v\": \"e\"}\n");
  out = follow.ReadLines(5, std::chrono::seconds(20));
  EXPECT_NE(out.find(R"({"_ROW_KIND": "+I", "id": 5, "v": "e"})"), std::string::npos) << out;
  EXPECT_EQ(follow.Interrupt(), 0);
  EXPECT_EQ(std::count(follow.out().begin(), follow.out().end(), '\n'), 5) << follow.out();

  // --scan-mode latest --follow: only what lands after the start (rows are written until the
  // reader, started concurrently, prints one: each is one snapshot after the start or before).
  Child latest({"read", pk, "--follow", "--scan-mode", "latest", "--select", "id"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int written = 6;
  for (; written < 26 && latest.out().empty(); ++written) {
    Write(pk, "{\"id\": " + std::to_string(written) + ", \"v\": \"f\"}\n");
    latest.ReadLines(1, std::chrono::milliseconds(1000));
  }
  ASSERT_FALSE(latest.out().empty());
  // The first row printed is one written after the reader began, never an older one.
  std::string first = latest.out().substr(0, latest.out().find('\n'));
  ASSERT_EQ(first.rfind("{\"id\": ", 0), 0u) << first;
  int printed = std::stoi(first.substr(7));
  EXPECT_GE(printed, 6);
  EXPECT_LT(printed, written);
  EXPECT_EQ(latest.Interrupt(), 0);
}

}  // namespace
}  // namespace freshet
