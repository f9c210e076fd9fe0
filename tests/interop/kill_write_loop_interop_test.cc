// kill -9 loop of `freshet write --commit-every` (issue 9): CLI writes into one partitioned,
// bucketed append table are SIGKILLed at random moments, round after round. After every kill the
// table must hold whole commits only and the next write must succeed; a last write runs to its
// end; then Java Paimon and freshet's CLI read the final table row-exact.
//
// What --commit-every N promises (docs/json-rows.md, "freshet write"; RunWriteImpl in
// tools/cli/table_commands.cc): the CLI commits after an input batch once at least N rows are
// uncommitted, and once more at the end. With --batch-rows dividing N, commit j of a write holds
// exactly its input lines [(j-1)N, jN), and the last commit of a write that ends holds the rest.
// So after a kill the table holds, of that write, the first k*N lines of its input and nothing
// else, in k snapshots of one commit user: snapshot j of them holds the first j*N lines, its
// deltaRecordCount is N and its totalRecordCount is that of the snapshot before plus N. A
// partial commit breaks one of these.
//
// FRESHET_KILL_ROUNDS sets the number of killed writes (5 by default, for CI; the long run is in
// docs/interop-tests.md) and FRESHET_INTEROP_SEED repeats a run's kill delays.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"
#include "realtime/realtime_test_util.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

namespace fs = std::filesystem;
using freshet::testing::Event;

constexpr int64_t kBatchRows = 250;
constexpr int64_t kCommitEvery = 1000;  // a multiple of kBatchRows: every commit is N lines
constexpr int64_t kRowsPerWrite = 20 * kCommitEvery;
constexpr int64_t kSeqsPerWrite = 1'000'000;  // write w's row i has seq w * kSeqsPerWrite + i
const char* const kDays[] = {"2026-12-01", "2026-12-02"};

int KillRoundsFromEnv() {
  const char* text = std::getenv("FRESHET_KILL_ROUNDS");
  return text != nullptr && *text != '\0' ? std::atoi(text) : 5;
}

// Row i of write w: k is the write, seq is unique in the table, dt spreads rows over partitions.
Event RowOf(int w, int64_t i) {
  int64_t seq = w * kSeqsPerWrite + i;
  return Event{w, seq, kDays[seq % 2]};
}

std::string JsonLine(const Event& e) {
  return R"({"k": )" + std::to_string(e.k) + R"(, "seq": )" + std::to_string(e.seq) +
         R"(, "dt": ")" + e.dt + "\"}\n";
}

// The first `rows` rows of write w, in input order (which is also Event order).
std::vector<Event> RowsOf(int w, int64_t rows) {
  std::vector<Event> out;
  for (int64_t i = 0; i < rows; ++i) out.push_back(RowOf(w, i));
  return out;
}

std::string WriteInput(const std::string& path, int w, int64_t rows) {
  std::string text;
  for (const Event& e : RowsOf(w, rows)) text += JsonLine(e);
  WriteTextFile(path, text);
  return path;
}

std::vector<std::string> WriteCommand(const std::string& table, const std::string& input) {
  return {FreshetCliPath(),
          "write",
          table,
          "--input",
          input,
          "--input-format",
          "jsonl",
          "--batch-rows",
          std::to_string(kBatchRows),
          "--commit-every",
          std::to_string(kCommitEvery)};
}

// What the table must hold: every commit checked so far.
struct Model {
  int64_t snapshots = 0;
  std::vector<Event> rows;  // sorted: writes in order, each a prefix of its input
  std::string jsonl;        // the same rows as input lines
  std::set<std::string> commit_users;
};

// Checks the snapshots write w (of `input_rows` rows) added against the promise above, adds its
// rows to the model, and checks the latest snapshot against the model. `ended`: the write exited
// 0, so all its rows must be in. Returns (through `commits`) how many snapshots the write made.
void CheckWrite(const std::string& table, int w, int64_t input_rows, bool ended, Model* model,
                int64_t* commits) {
  ASSERT_OK_AND_ASSIGN(auto opened, Table::Open(table));
  meta::SnapshotManager snapshots(io::LocalFileIO(), table);
  ASSERT_OK_AND_ASSIGN(auto ids, snapshots.ListSnapshotIds());
  ASSERT_GE(static_cast<int64_t>(ids.size()), model->snapshots) << "snapshots disappeared";
  const int64_t rows_before = static_cast<int64_t>(model->rows.size());
  const std::string this_write = "seq >= " + std::to_string(w * kSeqsPerWrite) + " AND seq < " +
                                 std::to_string((w + 1) * kSeqsPerWrite);
  std::string user;
  int64_t committed = 0;
  for (size_t j = static_cast<size_t>(model->snapshots); j < ids.size(); ++j) {
    SCOPED_TRACE("write " + std::to_string(w) + ", snapshot " + std::to_string(ids[j]));
    ASSERT_EQ(ids[j], static_cast<int64_t>(j) + 1) << "snapshot ids are not 1..n";
    ASSERT_OK_AND_ASSIGN(auto snapshot, snapshots.ReadSnapshot(ids[j]));
    if (user.empty()) user = snapshot.commit_user;
    ASSERT_EQ(snapshot.commit_user, user) << "one write, one commit user";
    ASSERT_EQ(model->commit_users.count(user), 0u) << "a commit of an earlier write";
    ASSERT_EQ(snapshot.commit_kind, meta::CommitKind::kAppend);
    const int64_t expected_delta = std::min(kCommitEvery, input_rows - committed);
    ASSERT_GT(expected_delta, 0) << "more commits than the input has lines";
    committed += expected_delta;
    ASSERT_EQ(snapshot.delta_record_count, expected_delta);
    ASSERT_EQ(snapshot.total_record_count, rows_before + committed);
    // The snapshot holds exactly the first `committed` lines of the write's input.
    ReadOptions options;
    options.snapshot_id = ids[j];
    options.filter = this_write;
    ASSERT_OK_AND_ASSIGN(auto rows, freshet::testing::ReadEvents(*opened, options));
    ASSERT_TRUE(rows == RowsOf(w, committed)) << rows.size() << " rows of this write";
  }
  if (ended) {
    ASSERT_EQ(committed, input_rows) << "the write exited 0 without committing all";
  }
  for (const Event& e : RowsOf(w, committed)) {
    model->rows.push_back(e);
    model->jsonl += JsonLine(e);
  }
  *commits = static_cast<int64_t>(ids.size()) - model->snapshots;
  model->snapshots = static_cast<int64_t>(ids.size());
  if (!user.empty()) model->commit_users.insert(user);

  // The latest snapshot: its totalRecordCount is what freshet reads, every row once.
  ASSERT_OK_AND_ASSIGN(auto infos, opened->Snapshots());
  ASSERT_OK_AND_ASSIGN(auto all, freshet::testing::ReadEvents(*opened));
  ASSERT_EQ(infos.empty() ? 0 : infos.back().total_record_count, static_cast<int64_t>(all.size()));
  ASSERT_TRUE(all == model->rows) << "read " << all.size() << " rows, expected "
                                  << model->rows.size();
}

// Files of the table that no snapshot references, by kind: what killed writes leave behind
// (removing them is for `remove-orphans`, a later issue).
struct Leftovers {
  int64_t data = 0;       // under bucket-*, not live in the latest snapshot
  int64_t manifests = 0;  // under manifest/, in no snapshot's manifest lists
  int64_t temp = 0;       // `.<name>.<uuid>.tmp` of an unfinished publish
  std::set<std::string> temp_dirs;
};

class LeftoverCounter {
 public:
  explicit LeftoverCounter(std::string table)
      : table_(std::move(table)),
        snapshots_(io::LocalFileIO(), table_),
        manifests_(io::LocalFileIO(), table_) {}

  Result<Leftovers> Count() {
    FRESHET_ASSIGN_OR_RETURN(auto ids, snapshots_.ListSnapshotIds());
    std::set<std::string> live;
    for (int64_t id : ids) {
      if (id <= last_seen_) continue;
      FRESHET_ASSIGN_OR_RETURN(auto snapshot, snapshots_.ReadSnapshot(id));
      FRESHET_RETURN_NOT_OK(AddManifestsOf(snapshot));
      last_seen_ = id;
    }
    if (!ids.empty()) {
      // Append only: every committed data file is live in the latest snapshot.
      FRESHET_ASSIGN_OR_RETURN(auto latest, snapshots_.ReadSnapshot(ids.back()));
      FRESHET_ASSIGN_OR_RETURN(auto entries, meta::ReadLiveEntries(manifests_, latest));
      for (const auto& e : entries) live.insert(e.file.file_name);
    }
    Leftovers out;
    for (const auto& entry : fs::recursive_directory_iterator(table_)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      const std::string dir = entry.path().parent_path().filename().string();
      if (name.ends_with(".tmp")) {
        ++out.temp;
        out.temp_dirs.insert(dir + "/");
      } else if (dir.starts_with("bucket-")) {
        out.data += live.count(name) == 0;
      } else if (dir == "manifest") {
        out.manifests += referenced_.count(name) == 0;
      }
    }
    return out;
  }

 private:
  // Manifest files are never rewritten in place, so each snapshot's are read once.
  Status AddManifestsOf(const meta::Snapshot& snapshot) {
    for (const auto& list : {snapshot.base_manifest_list, snapshot.delta_manifest_list}) {
      referenced_.insert(list);
      FRESHET_ASSIGN_OR_RETURN(auto metas, manifests_.ReadManifestList(list));
      for (const auto& m : metas) referenced_.insert(m.file_name);
    }
    for (const auto& other : {snapshot.changelog_manifest_list, snapshot.index_manifest}) {
      if (other) referenced_.insert(*other);
    }
    return Status::OK();
  }

  std::string table_;
  meta::SnapshotManager snapshots_;
  meta::ManifestFile manifests_;
  std::set<std::string> referenced_;
  int64_t last_seen_ = 0;
};

// Where a kill landed, judged by what it left behind.
std::string KillPoint(bool ended, const Leftovers& before, const Leftovers& after) {
  if (ended) return "ended before the kill";
  if (after.temp > before.temp) return "publishing (temp file left)";
  if (after.manifests > before.manifests) return "committing (manifests left)";
  if (after.data > before.data) return "writing (data files left)";
  return "nothing left on disk";
}

std::string Describe(const Leftovers& l) {
  std::string out = std::to_string(l.data) + " data files, " + std::to_string(l.manifests) +
                    " manifest files, " + std::to_string(l.temp) + " temp files";
  if (!l.temp_dirs.empty()) {
    out += " (in";
    for (const auto& dir : l.temp_dirs) out += " " + dir;
    out += ")";
  }
  return out;
}

std::string Fixed(double seconds) {
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << seconds;
  return out.str();
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// Java Paimon and freshet's CLI both read the latest snapshot, row-exact against the model.
void CheckReaders(const std::string& table, const Model& model) {
  auto results = RunChains({{JavaCommand({"read", "--table", table})},
                            {{FreshetCliPath(), "read", table, "--format", "jsonl"}}},
                           2);
  ASSERT_EQ(FirstFailure(results), "");
  const std::vector<std::string> expected = CanonicalRows(model.jsonl);
  for (size_t i = 0; i < results.size(); ++i) {
    std::vector<std::string> rows = CanonicalRows(results[i][0].out);
    EXPECT_TRUE(rows == expected) << (i == 0 ? "Java" : "freshet") << " read " << rows.size()
                                  << " rows, expected " << expected.size()
                                  << DescribeDifference(Joined(expected), Joined(rows));
  }
}

// What the loop saw, for the summary (docs/interop-tests.md quotes it).
struct LoopStats {
  std::map<std::string, int> kill_points;
  std::map<int64_t, int> commits_per_kill;  // commits a killed write made -> writes
  double write_seconds = 0;                 // in the writes, until killed
  double check_seconds = 0;                 // in the checks after each write
};

class KillWriteLoopInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(JavaHarnessProblem(), "");
    // write-only: one APPEND snapshot per commit, which the checks below count; what a kill
    // does to a compaction is the compaction fault tests' subject (tests/compact/).
    ASSERT_TRUE(Table::Create(table_, freshet::testing::EventTableSpec(
                                          R"("bucket": "2", "bucket-key": "seq", )"
                                          R"("write-only": "true")",
                                          true))
                    .ok());
  }

  // Write w runs to its end and must exit 0; returns its duration.
  void WholeWrite(int w, int64_t rows, double* seconds) {
    auto result = RunCommand(WriteCommand(table_, WriteInput(dir_.Sub("in.jsonl"), w, rows)));
    ASSERT_TRUE(result.ok()) << result.Describe();
    *seconds = result.seconds;
    int64_t commits = 0;
    ASSERT_NO_FATAL_FAILURE(CheckWrite(table_, w, rows, true, &model_, &commits));
    ASSERT_OK_AND_ASSIGN(leftovers_, counter_.Count());
  }

  // Write w is SIGKILLed `delay` seconds after its `after_commits`-th commit (or its start), unless
  // it ended before; then the table must hold whole commits.
  void KilledWrite(int w, int64_t after_commits, double delay) {
    const std::string input = WriteInput(dir_.Sub("in.jsonl"), w, kRowsPerWrite);
    StartedCommand started = StartCommand(WriteCommand(table_, input));
    ASSERT_GT(started.pid, 0) << started.error;
    WaitForSnapshot(model_.snapshots + after_commits, started.pid);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    kill(started.pid, SIGKILL);  // if it ended, it is a zombie until waited for: harmless
    CommandResult result = WaitCommand(started);
    ASSERT_TRUE(result.ok() || result.exit_code == 128 + SIGKILL) << result.Describe();
    const bool ended = result.ok();
    stats_.write_seconds += result.seconds;
    const auto check_start = std::chrono::steady_clock::now();
    int64_t commits = 0;
    ASSERT_NO_FATAL_FAILURE(CheckWrite(table_, w, kRowsPerWrite, ended, &model_, &commits));
    ASSERT_OK_AND_ASSIGN(Leftovers now, counter_.Count());
    ++stats_.kill_points[KillPoint(ended, leftovers_, now)];
    ++stats_.commits_per_kill[commits];
    leftovers_ = now;
    stats_.check_seconds += Elapsed(check_start);
  }

  // Until snapshot `id` exists or process `pid` ended (without reaping it), at most a minute.
  void WaitForSnapshot(int64_t id, pid_t pid) const {
    if (id == 0) return;
    const std::string path = meta::SnapshotManager(io::LocalFileIO(), table_).SnapshotPath(id);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!fs::exists(path) && std::chrono::steady_clock::now() < deadline) {
      siginfo_t info{};
      if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid != 0) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }

  void PrintSummary(int rounds) const {
    std::cout << "kill loop: " << rounds << " killed writes (" << Fixed(stats_.write_seconds)
              << " s writing, " << Fixed(stats_.check_seconds) << " s checking); "
              << model_.snapshots << " snapshots, " << model_.rows.size() << " rows\n"
              << "  kill points:";
    for (const auto& [point, n] : stats_.kill_points) std::cout << " " << point << " x" << n << ";";
    std::cout << "\n  commits per killed write:";
    for (const auto& [c, n] : stats_.commits_per_kill) std::cout << " " << c << " x" << n << ";";
    std::cout << "\n  left in the table dir: " << Describe(leftovers_) << std::endl;
  }

  void CheckFinalTable() {
    auto start = std::chrono::steady_clock::now();
    TableExpectation expected;
    expected.num_snapshots = model_.snapshots;
    expected.live_records = {{model_.snapshots, static_cast<int64_t>(model_.rows.size())}};
    expected.file_format = "parquet";
    auto problems = CheckTableWithFreshet(table_, expected);
    EXPECT_TRUE(problems.empty()) << ListProblems(problems);
    problems = CheckInspectCli(table_);
    EXPECT_TRUE(problems.empty()) << ListProblems(problems);
    std::cout << "kill loop: table checks " << Fixed(Elapsed(start)) << " s" << std::endl;
    start = std::chrono::steady_clock::now();
    ASSERT_NO_FATAL_FAILURE(CheckReaders(table_, model_));
    std::cout << "kill loop: Java and freshet's CLI read " << model_.rows.size()
              << " rows row-exact (" << Fixed(Elapsed(start)) << " s)" << std::endl;
  }

  static double Elapsed(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  }

  freshet::testing::TempDir dir_;
  const std::string table_ = dir_.Sub("wh/db.db/events");
  Model model_;
  LeftoverCounter counter_{table_};
  Leftovers leftovers_;
  LoopStats stats_;
};

TEST_F(KillWriteLoopInteropTest, CommitEveryWritesKilledWithSigkillLeaveWholeCommits) {
  const auto start = std::chrono::steady_clock::now();
  const int rounds = KillRoundsFromEnv();
  const uint64_t seed = SeedFromEnv();
  std::cout << "kill loop: " << rounds << " killed writes, seed " << seed
            << " (FRESHET_KILL_ROUNDS, FRESHET_INTEROP_SEED)" << std::endl;
  SCOPED_TRACE("FRESHET_INTEROP_SEED=" + std::to_string(seed));
  std::mt19937_64 random(seed);

  // Each kill lands a random delay after a random commit of its write (or after its start), so
  // that kills cover the whole write whatever the machine's speed: delays are uniform in
  // [0, 1.5 x the time per commit of the first write), which also reaches into the next commit.
  constexpr int64_t kCommitsPerWrite = kRowsPerWrite / kCommitEvery;
  double seconds = 0;
  ASSERT_NO_FATAL_FAILURE(WholeWrite(0, kRowsPerWrite, &seconds));
  std::uniform_int_distribution<int64_t> after_commits(0, kCommitsPerWrite - 1);
  std::uniform_real_distribution<double> delay(0, 1.5 * seconds / kCommitsPerWrite);
  for (int w = 1; w <= rounds; ++w) {
    const int64_t commits = after_commits(random);
    ASSERT_NO_FATAL_FAILURE(KilledWrite(w, commits, delay(random)));
  }
  // A last write runs to its end, with a short last commit.
  ASSERT_NO_FATAL_FAILURE(WholeWrite(rounds + 1, kRowsPerWrite + kCommitEvery / 2, &seconds));
  PrintSummary(rounds);
  ASSERT_NO_FATAL_FAILURE(CheckFinalTable());
  std::cout << "kill loop: whole test " << Fixed(Elapsed(start)) << " s" << std::endl;
}

}  // namespace
}  // namespace freshet::interop
