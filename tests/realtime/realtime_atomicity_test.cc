// One Write is one atomic, causally ordered unit, for every query and every committed snapshot.
//
// The shape of a user's service: an append table partitioned by dt (3 values) with bucket = 4 (12
// partition-buckets); three writer threads, two sharing one TableWriter of the creating Table and
// one with its own writer on a separately opened Table, each writing 200-row batches spread over
// all partition-buckets; a committer every 20-50 ms; three query threads (on the creating Table
// and on separately opened ones) running full reads, filtered + projected reads and
// committed-only reads. Every query, and afterwards every snapshot, must show:
//   * no torn Write: of each Write, every row that passes the query's filter, or none;
//   * no duplicate and no gap: no row twice, and of each writer a prefix of its Writes;
//   * causal order: if a Write W is seen, so is every Write that returned before W began;
//   * read-your-writes: every Write that returned before the query began is seen (uncommitted
//     reads; committed-only reads see at least the progress committed when they began).
//
// Size: FRESHET_ATOMIC_ROUNDS rounds (default 6), each on a fresh table, of FRESHET_ATOMIC_WRITES
// Writes per writer (default 250).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

#include "realtime/realtime_test_util.h"

namespace freshet::testing {
namespace {

constexpr int kWriters = 3;
constexpr int kRowsPerWrite = 200;
constexpr int kQueryThreads = 3;
constexpr int64_t kUnset = std::numeric_limits<int64_t>::max();
const char* const kDays[] = {"2026-11-28", "2026-11-29", "2026-11-30"};

int WritesPerWriter() {
  const char* env = std::getenv("FRESHET_ATOMIC_WRITES");
  return env ? std::atoi(env) : 250;
}
int Rounds() {
  const char* env = std::getenv("FRESHET_ATOMIC_ROUNDS");
  return env ? std::atoi(env) : 6;
}

// Row i of write n of writer w: k = i (spreads rows over the buckets), seq encodes (w, n, i),
// dt = one of three days (spreads them over the partitions).
int64_t EncodeSeq(int w, int n, int i) {
  return (static_cast<int64_t>(w) * 1000000 + n) * 1000 + i;
}
Event RowOf(int w, int n, int i) { return Event{i, EncodeSeq(w, n, i), kDays[(i + n) % 3]}; }

// The three kinds of query, and how many rows of one Write each of them returns.
enum class QueryKind { kFull, kFilteredProjected, kCommittedOnly };
ReadOptions OptionsOf(QueryKind kind) {
  ReadOptions options;
  if (kind == QueryKind::kFilteredProjected) {
    options.columns = {"seq", "k"};
    options.filter = "k < 150 AND dt <> '2026-11-28'";
  }
  options.include_uncommitted = kind != QueryKind::kCommittedOnly;
  return options;
}
int RowsPassing(QueryKind kind, int n) {
  if (kind != QueryKind::kFilteredProjected) return kRowsPerWrite;
  int passing = 0;
  for (int i = 0; i < kRowsPerWrite; ++i) {
    Event e = RowOf(0, n, i);
    passing += e.k < 150 && e.dt != kDays[0];
  }
  return passing;
}

// When each Write began and returned, on one process-wide logical clock.
class WriteLog {
 public:
  explicit WriteLog(int writes) {
    for (auto& ticks : begin_) ticks = std::vector<std::atomic<int64_t>>(writes);
    for (auto& ticks : end_) ticks = std::vector<std::atomic<int64_t>>(writes);
    for (int w = 0; w < kWriters; ++w) {
      for (int n = 0; n < writes; ++n) begin_[w][n] = end_[w][n] = kUnset;
    }
  }
  int64_t Tick() { return clock_.fetch_add(1) + 1; }
  void Began(int w, int n) { begin_[w][n] = Tick(); }
  void Returned(int w, int n) { end_[w][n] = Tick(); }
  int64_t BeganAt(int w, int n) const { return begin_[w][n].load(); }
  int64_t ReturnedAt(int w, int n) const { return end_[w][n].load(); }
  int writes() const { return static_cast<int>(begin_[0].size()); }

 private:
  std::atomic<int64_t> clock_{0};
  std::vector<std::atomic<int64_t>> begin_[kWriters];
  std::vector<std::atomic<int64_t>> end_[kWriters];
};

// Checks one query result (or snapshot) against the rules at the top of this file. `started` is
// the tick at which the query began (0: skip read-your-writes). Empty when all hold.
std::string CheckCut(const std::vector<Event>& rows, QueryKind kind, const WriteLog& log,
                     int64_t started) {
  std::vector<std::vector<int>> seen(kWriters, std::vector<int>(log.writes(), 0));
  std::vector<int64_t> sorted_seqs;
  for (const Event& e : rows) {
    int64_t write_id = e.seq / 1000;
    int w = static_cast<int>(write_id / 1000000), n = static_cast<int>(write_id % 1000000);
    if (w < 0 || w >= kWriters || n < 0 || n >= log.writes()) {
      return "row with seq " + std::to_string(e.seq) + " was never written";
    }
    ++seen[w][n];
    sorted_seqs.push_back(e.seq);
  }
  std::sort(sorted_seqs.begin(), sorted_seqs.end());
  if (auto dup = std::adjacent_find(sorted_seqs.begin(), sorted_seqs.end());
      dup != sorted_seqs.end()) {
    return "row with seq " + std::to_string(*dup) + " returned twice";
  }
  int64_t latest_begin = 0;  // the latest begin tick of a Write seen
  std::vector<int> seen_writes(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    for (int n = 0; n < log.writes(); ++n) {
      if (seen[w][n] == 0) continue;
      if (seen[w][n] != RowsPassing(kind, n)) {
        return "torn Write: " + std::to_string(seen[w][n]) + " of the " +
               std::to_string(RowsPassing(kind, n)) + " rows of write " + std::to_string(n) +
               " of writer " + std::to_string(w);
      }
      if (n != seen_writes[w]) {
        return "gap: write " + std::to_string(n) + " of writer " + std::to_string(w) +
               " seen without its write " + std::to_string(seen_writes[w]);
      }
      ++seen_writes[w];
      latest_begin = std::max(latest_begin, log.BeganAt(w, n));
    }
  }
  for (int w = 0; w < kWriters; ++w) {
    int n = seen_writes[w];
    if (n < log.writes() && log.ReturnedAt(w, n) < latest_begin) {
      return "causal order broken: write " + std::to_string(n) + " of writer " + std::to_string(w) +
             " returned before a Write that was seen began, but is missing";
    }
    if (n < log.writes() && started > 0 && log.ReturnedAt(w, n) < started) {
      return "read-your-writes broken: write " + std::to_string(n) + " of writer " +
             std::to_string(w) + " returned before the query began, but is missing";
    }
  }
  return "";
}

struct Figures {
  int64_t queries = 0, commits = 0, snapshots = 0;
};

// One round on a fresh table at `path` (small tables keep queries fast, so that many of them
// overlap Writes and commits).
void RunRound(const std::string& path, const std::string& options, int writes, Figures* figures) {
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, EventTableSpec(options, true)));
  ASSERT_OK_AND_ASSIGN(auto other_table, Table::Open(path));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<TableWriter> shared_writer, table->NewWriter());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<TableWriter> own_writer, other_table->NewWriter());

  WriteLog log(writes);
  std::atomic<int> writers_left{kWriters};
  std::atomic<bool> failed{false};
  std::atomic<int64_t> queries{0}, commits{0};
  auto fail = [&](const std::string& why) {
    if (!failed.exchange(true)) ADD_FAILURE() << why;
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      TableWriter& writer = w < 2 ? *shared_writer : *own_writer;
      for (int n = 0; n < writes && !failed; ++n) {
        // At a third and at two thirds of its Writes, each writer waits for a commit that
        // overlaps the other writers' Writes, so every round commits mid-stream however fast
        // the machine writes.
        const int64_t commits_due = n == writes / 3 ? 1 : n == 2 * writes / 3 ? 2 : 0;
        while (commits < commits_due && !failed) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        std::vector<Event> rows;
        for (int i = 0; i < kRowsPerWrite; ++i) rows.push_back(RowOf(w, n, i));
        log.Began(w, n);
        Status st = WriteEvents(writer, rows);
        log.Returned(w, n);
        if (!st.ok()) return fail("write: " + st.ToString());
        if (n % 8 == 7) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      --writers_left;
    });
  }
  threads.emplace_back([&] {
    std::mt19937 random(42);
    auto writer = table->NewWriter();
    if (!writer.ok()) return fail(writer.status().ToString());
    while (!failed) {
      bool last = writers_left == 0;
      auto committed = (*writer)->Commit();
      if (!committed.ok()) return fail("commit: " + committed.status().ToString());
      if (*committed) ++commits;
      if (last) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 31));
    }
  });
  for (int q = 0; q < kQueryThreads; ++q) {
    threads.emplace_back([&, q] {
      auto own = q == 0 ? Result<std::shared_ptr<Table>>(table) : Table::Open(path);
      if (!own.ok()) return fail("open: " + own.status().ToString());
      for (int round = 0; !failed && writers_left > 0; ++round) {
        QueryKind kind = static_cast<QueryKind>((q + round) % 3);
        int64_t started = log.Tick();
        auto rows = ReadEvents(**own, OptionsOf(kind));
        if (!rows.ok()) return fail("read: " + rows.status().ToString());
        // Committed-only reads need not see what was not committed when they began.
        std::string problem =
            CheckCut(*rows, kind, log, kind == QueryKind::kCommittedOnly ? 0 : started);
        if (!problem.empty()) {
          return fail("query " + std::to_string(queries.load()) + " (kind " +
                      std::to_string(static_cast<int>(kind)) + "): " + problem);
        }
        ++queries;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_FALSE(failed);

  // Every snapshot holds whole Writes, causally closed; the last one holds all of them once.
  ASSERT_OK_AND_ASSIGN(auto snapshots, table->Snapshots());
  for (const SnapshotInfo& snapshot : snapshots) {
    ReadOptions options;
    options.snapshot_id = snapshot.id;
    ASSERT_OK_AND_ASSIGN(auto rows, ReadEvents(*table, options));
    ASSERT_EQ(CheckCut(rows, QueryKind::kFull, log, 0), "") << "snapshot " << snapshot.id;
  }
  ReadOptions committed_only;
  committed_only.include_uncommitted = false;
  ASSERT_OK_AND_ASSIGN(auto all, ReadEvents(*table, committed_only));
  EXPECT_EQ(static_cast<int64_t>(all.size()), int64_t{kWriters} * writes * kRowsPerWrite);
  EXPECT_EQ(CheckCut(all, QueryKind::kFull, log, log.Tick()), "");
  figures->queries += queries;
  figures->commits += commits;
  figures->snapshots += static_cast<int64_t>(snapshots.size());
}

// Parameter: the MemIndexer plugin. With "spilling" (threshold 0), every sealed segment moves to
// a file at its first flush, so a segment cut in two by a commit is finished from the file.
class RealtimeAtomicityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealtimeAtomicityTest, EveryQueryAndSnapshotSeesWholeCausallyOrderedWrites) {
  TempDir dir;
  std::string options = R"("bucket": "4", "bucket-key": "k", "realtime.enabled": "true", )"
                        R"("realtime.mem-indexer": ")" +
                        GetParam() + "\"";
  if (GetParam() == "spilling") {
    options += R"(, "realtime.spill.dir": ")" + dir.Sub("spill") + "\"";
  }
  Figures figures;
  for (int round = 0; round < Rounds(); ++round) {
    ASSERT_NO_FATAL_FAILURE(
        RunRound(dir.Sub("t" + std::to_string(round)), options, WritesPerWriter(), &figures))
        << "round " << round;
  }
  EXPECT_GT(figures.queries, 10 * Rounds());
  EXPECT_GT(figures.commits, 2 * Rounds());
  std::cout << "rounds=" << Rounds() << " writes=" << Rounds() * kWriters * WritesPerWriter()
            << " commits=" << figures.commits << " queries=" << figures.queries
            << " snapshots=" << figures.snapshots << "\n";
}

INSTANTIATE_TEST_SUITE_P(Plugins, RealtimeAtomicityTest, ::testing::Values("columnar", "spilling"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace freshet::testing
