// Exactly-once replay across crashes: a child process (tests/realtime/replay_child.cc) replays a
// deterministic log with application offsets (OffsetMode::kReplay) into a partitioned real-time
// table with bucket = 4, committing every few thousand rows. It is killed with SIGKILL 20 times,
// at random moments and right after it announced a commit, and started again each time; a last
// run completes. Then every event is in the table exactly once, and Java Paimon reads the same.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "realtime/realtime_test_util.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

constexpr int64_t kEvents = 400000;  // a run takes ~2 s: 20 kills land inside it
constexpr int64_t kBatchRows = 500;
constexpr int64_t kCommitEvery = 4000;
constexpr int kKills = 20;
const char* const kDays[] = {"2026-11-28", "2026-11-29", "2026-11-30"};

struct Child {
  pid_t pid = -1;
  std::string out_path;
};

Child Spawn(const std::string& table, const std::string& out_path) {
  std::vector<std::string> argv = {FRESHET_REPLAY_CHILD_PATH, table, std::to_string(kEvents),
                                   std::to_string(kBatchRows), std::to_string(kCommitEvery)};
  Child child{fork(), out_path};
  if (child.pid == 0) {
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return child;
}

std::string Output(const Child& child) { return freshet::testing::ReadWholeFile(child.out_path); }

// Whether the output's last announcement is a commit that did not finish.
bool InsideCommit(const std::string& output) {
  size_t begin = output.rfind("commit-begin");
  return begin != std::string::npos && output.find("commit-end", begin) == std::string::npos;
}

int WaitExit(const Child& child) {
  int status = 0;
  waitpid(child.pid, &status, 0);
  return status;
}

TEST(RealtimeCrashInteropTest, ReplayWithOffsetsIsExactlyOnceAcrossSigkills) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir dir;
  const std::string table = dir.Sub("wh/db.db/log");
  ASSERT_TRUE(
      Table::Create(table, freshet::testing::EventTableSpec(R"("bucket": "4", "bucket-key": "k", )"
                                                            R"("realtime.enabled": "true")",
                                                            /*partitioned=*/true))
          .ok());
  std::mt19937 random(20261201);
  int inside_commit = 0, finished_early = 0;
  for (int round = 0; round < kKills; ++round) {
    Child child = Spawn(table, dir.Sub("child-" + std::to_string(round) + ".out"));
    ASSERT_GT(child.pid, 0);
    if (round % 2 == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 150));
    } else {
      // Wait for the child to announce a commit, then kill it within about a millisecond.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!InsideCommit(Output(child)) && Output(child).find("done") == std::string::npos &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(random() % 1500));
    }
    kill(child.pid, SIGKILL);
    int status = WaitExit(child);
    std::string output = Output(child);
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0) << output;
      ++finished_early;
    } else {
      ASSERT_TRUE(WIFSIGNALED(status)) << output;
      inside_commit += InsideCommit(output);
    }
  }
  Child last = Spawn(table, dir.Sub("child-last.out"));
  int status = WaitExit(last);
  std::string output = Output(last);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  std::cout << "kills inside a commit: " << inside_commit << " of " << kKills
            << "; runs that finished before their kill: " << finished_early
            << "; last run: " << output.substr(0, output.find('\n')) << " ... "
            << output.substr(output.rfind("done")) << "\n";
  EXPECT_GT(inside_commit, 0);
  EXPECT_EQ(finished_early, 0) << "make the log longer: the kills must land while it runs";

  // Every event exactly once, through freshet...
  ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
  ASSERT_OK_AND_ASSIGN(auto rows, freshet::testing::ReadEvents(*opened));
  ASSERT_EQ(static_cast<int64_t>(rows.size()), kEvents);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
  for (int64_t i = 0; i < kEvents; ++i) {
    const auto& row = rows[static_cast<size_t>(i)];
    ASSERT_EQ(row.seq, i);
    ASSERT_EQ(row.k, static_cast<int32_t>((i * 7919) % 1000)) << "seq " << i;
    ASSERT_EQ(row.dt, kDays[(i / 7) % 3]) << "seq " << i;
  }
  // ... and through Java Paimon, which reads the same rows.
  std::vector<std::string> expected_rows;
  for (const auto& row : rows) {
    expected_rows.push_back(R"({"k": )" + std::to_string(row.k) + R"(, "seq": )" +
                            std::to_string(row.seq) + R"(, "dt": ")" + row.dt + "\"}");
  }
  auto java = RunCommand(JavaCommand({"read", "--table", table}));
  ASSERT_TRUE(java.ok()) << java.Describe();
  std::ostringstream joined;
  for (const auto& line : expected_rows) joined << line << "\n";
  EXPECT_EQ(CanonicalRows(java.out), CanonicalRows(joined.str()));
}

}  // namespace
}  // namespace freshet::interop
