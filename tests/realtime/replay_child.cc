// The child process of the crash test (tests/interop/realtime_crash_interop_test.cc): an
// application that replays a deterministic source log into a real-time table, exactly-once.
//
//   realtime_replay_child TABLE EVENTS BATCH_ROWS COMMIT_EVERY
//
// Event i of the log: k = (i * 7919) % 1000, seq = i, dt = one of three days by i; its offset is
// its log position i. The child replays the log from the lowest committed end of the table
// (min of CommittedProgress(), 0 when nothing is committed) in batches of BATCH_ROWS with
// OffsetMode::kReplay, so rows already committed are skipped, and commits every COMMIT_EVERY rows
// and at the end. It prints (flushed) "start FROM", "commit-begin N" / "commit-end N SNAPSHOT"
// around each commit, and "done WRITTEN SKIPPED"; the parent kills it with SIGKILL at any point
// and starts it again.
#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "freshet/realtime/realtime_context.h"
#include "freshet/table.h"

namespace {

const char* const kDays[] = {"2026-11-28", "2026-11-29", "2026-11-30"};

int Fail(const std::string& what, const freshet::Status& status) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), status.ToString().c_str());
  return 1;
}

std::shared_ptr<arrow::RecordBatch> LogBatch(int64_t first, int64_t n) {
  arrow::Int32Builder k;
  arrow::Int64Builder seq;
  arrow::StringBuilder dt;
  for (int64_t i = first; i < first + n; ++i) {
    (void)k.Append(static_cast<int32_t>((i * 7919) % 1000));
    (void)seq.Append(i);
    (void)dt.Append(kDays[(i / 7) % 3]);
  }
  auto schema =
      arrow::schema({arrow::field("k", arrow::int32()), arrow::field("seq", arrow::int64()),
                     arrow::field("dt", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, n, {*k.Finish(), *seq.Finish(), *dt.Finish()});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s TABLE EVENTS BATCH_ROWS COMMIT_EVERY\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int64_t events = std::atoll(argv[2]);
  const int64_t batch_rows = std::atoll(argv[3]);
  const int64_t commit_every = std::atoll(argv[4]);

  auto table = freshet::Table::Open(path);
  if (!table.ok()) return Fail("open", table.status());
  auto context = (*table)->Realtime();
  if (!context.ok()) return Fail("realtime", context.status());
  auto writer = (*table)->NewWriter();
  if (!writer.ok()) return Fail("writer", writer.status());

  int64_t from = 0;
  std::vector<freshet::realtime::PartitionBucketProgress> progress =
      (*context)->CommittedProgress();
  if (!progress.empty()) {
    from = std::min_element(progress.begin(), progress.end(), [](const auto& a, const auto& b) {
             return a.end < b.end;
           })->end;
  }
  std::printf("start %lld\n", static_cast<long long>(from));
  std::fflush(stdout);

  int64_t written = 0, skipped = 0, since_commit = 0, commits = 0;
  auto commit = [&]() -> freshet::Status {
    std::printf("commit-begin %lld\n", static_cast<long long>(commits));
    std::fflush(stdout);
    auto snapshot = (*writer)->Commit();
    if (!snapshot.ok()) return snapshot.status();
    std::printf("commit-end %lld %lld\n", static_cast<long long>(commits++),
                static_cast<long long>(snapshot->value_or(0)));
    std::fflush(stdout);
    since_commit = 0;
    return freshet::Status::OK();
  };
  std::vector<int64_t> offsets;
  for (int64_t first = from; first < events; first += batch_rows) {
    int64_t n = std::min(batch_rows, events - first);
    offsets.resize(n);
    for (int64_t i = 0; i < n; ++i) offsets[i] = first + i;
    ArrowArray array;
    ArrowSchema schema;
    if (!arrow::ExportRecordBatch(*LogBatch(first, n), &array, &schema).ok()) return 3;
    auto stats =
        (*writer)->WriteWithOffsets(&array, &schema, offsets.data(), freshet::OffsetMode::kReplay);
    if (!stats.ok()) return Fail("write", stats.status());
    written += stats->rows_written;
    skipped += stats->rows_skipped;
    since_commit += stats->rows_written;
    if (since_commit >= commit_every) {
      freshet::Status st = commit();
      if (!st.ok()) return Fail("commit", st);
    }
  }
  freshet::Status st = commit();
  if (!st.ok()) return Fail("commit", st);
  std::printf("done %lld %lld\n", static_cast<long long>(written), static_cast<long long>(skipped));
  std::fflush(stdout);
  return 0;
}
