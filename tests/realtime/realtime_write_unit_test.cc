// One Write, one unit: the write sequencer, all-or-nothing Writes when a plugin fails, replay
// with OffsetMode::kReplay and Table::RouteRows.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "freshet/realtime/mem_indexer.h"
#include "realtime/realtime_test_util.h"
#include "realtime/write_sequencer.h"

namespace freshet::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// WriteSequencer

TEST(WriteSequencerTest, FinishReturnsOnlyOnceEveryEarlierNumberFinished) {
  realtime::WriteSequencer sequencer;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      uint64_t last = 0;
      for (int i = 0; i < kPerThread; ++i) {
        uint64_t s = sequencer.Assign();
        if (s <= last) failed = true;  // numbers grow on a thread
        last = s;
        if ((i + t) % 64 == 0) std::this_thread::yield();  // finish out of order now and then
        sequencer.Finish(s);
        if (sequencer.watermark() < s) failed = true;
      }
    });
  }
  // The watermark only grows while the writers run.
  uint64_t seen = 0;
  while (seen < uint64_t{kThreads} * kPerThread) {
    uint64_t now = sequencer.watermark();
    ASSERT_GE(now, seen);
    seen = now;
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(failed);
  EXPECT_EQ(sequencer.watermark(), uint64_t{kThreads} * kPerThread);
}

// ---------------------------------------------------------------------------------------------
// A plugin that fails the n-th Write from now on (any indexer of the process), and optionally
// cannot undo.

std::atomic<int> writes_until_failure{-1};
std::atomic<bool> undo_supported{true};

class FailingIndexer : public ForwardingMemIndexer {
 public:
  using ForwardingMemIndexer::ForwardingMemIndexer;
  Status Write(const realtime::RowBatch& batch) override {
    if (writes_until_failure.load() >= 0 && writes_until_failure.fetch_sub(1) == 0) {
      return Status::IOError("injected MemIndexer failure");
    }
    return ForwardingMemIndexer::Write(batch);
  }
  Status UndoLastWrite() override {
    if (!undo_supported) return MemIndexer::UndoLastWrite();  // the interface's default
    return inner().UndoLastWrite();
  }
};

class FailingFactory : public realtime::MemIndexerFactory {
 public:
  std::string name() const override { return "test-failing"; }
  Result<std::unique_ptr<realtime::MemIndexer>> Create(
      const realtime::MemIndexerOptions& options) override {
    return ForwardingMemIndexer::WrapColumnar<FailingIndexer>(options);
  }
};

class RealtimeWriteUnitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const Status registered =
        realtime::RegisterMemIndexerFactory(std::make_shared<FailingFactory>());
    ASSERT_OK(registered);
    writes_until_failure = -1;
    undo_supported = true;
  }
  std::shared_ptr<Table> Create(const std::string& extra = "") {
    auto table =
        Table::Create(dir_.Sub("t"), EventTableSpec(R"("bucket": "4", "bucket-key": "k", )"
                                                    R"("realtime.enabled": "true", )"
                                                    R"("realtime.mem-indexer": "test-failing")" +
                                                        extra,
                                                    /*partitioned=*/true));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return table.ok() ? *table : nullptr;
  }
  // 40 events over both days and (with 20 keys) every bucket.
  static std::vector<Event> Spread(int64_t first_seq) {
    std::vector<Event> out;
    for (int i = 0; i < 40; ++i) {
      out.push_back(Event{i % 20, first_seq + i, i % 2 ? "2026-11-29" : "2026-11-30"});
    }
    return out;
  }
  static std::vector<Event> Read(const Table& table, bool uncommitted = true) {
    ReadOptions options;
    options.include_uncommitted = uncommitted;
    auto events = ReadEvents(table, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<Event>{};
  }

  TempDir dir_;
};

TEST_F(RealtimeWriteUnitTest, APluginFailureInTheMiddleOfAMultiBucketWriteStoresNothing) {
  auto table = Create();
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Spread(0)));
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  const auto slots = context->Usage().partition_buckets;
  ASSERT_GE(slots, 6);
  writes_until_failure = 3;  // three partition-buckets store their part, the fourth fails
  Status failed = WriteEvents(*writer, Spread(100));
  EXPECT_TRUE(failed.IsIOError()) << failed.ToString();
  EXPECT_NE(failed.message().find("injected"), std::string::npos) << failed.ToString();
  EXPECT_NE(failed.message().find("bucket"), std::string::npos) << failed.ToString();
  EXPECT_EQ(Read(*table), Sorted(Spread(0)));
  EXPECT_EQ(context->Usage().rows_written, 40);

  // The same batch again: its offsets are free, it lands once.
  ASSERT_OK(WriteEvents(*writer, Spread(100)));
  EXPECT_EQ(Read(*table), Concat(Spread(0), Spread(100)));
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Read(*table, false), Concat(Spread(0), Spread(100)));
  int64_t total = 0;
  for (const auto& p : context->CommittedProgress()) total += p.end;
  EXPECT_EQ(total, 80);  // framework offsets stayed contiguous: the undone ones were reused
}

TEST_F(RealtimeWriteUnitTest, APluginThatCannotUndoFencesItsPartitionBucketOnly) {
  auto table = Create();
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Spread(0)));
  undo_supported = false;
  writes_until_failure = 1;  // one partition-bucket stores its part and cannot take it back
  EXPECT_TRUE(WriteEvents(*writer, Spread(100)).IsIOError());
  // Its rows never surface, in queries or in commits.
  EXPECT_EQ(Read(*table), Sorted(Spread(0)));
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Read(*table, false), Sorted(Spread(0)));
  // Writes to that partition-bucket are refused with a message saying why; others go on.
  Status fenced = WriteEvents(*writer, Spread(200));
  EXPECT_TRUE(fenced.IsNotImplemented()) << fenced.ToString();
  EXPECT_NE(fenced.message().find("are refused"), std::string::npos) << fenced.ToString();
  EXPECT_NE(fenced.message().find("partition dt="), std::string::npos) << fenced.ToString();
  int accepted = 0;
  for (const Event& e : Spread(300)) accepted += WriteEvents(*writer, {e}).ok();
  EXPECT_GT(accepted, 30);
  EXPECT_LT(accepted, 40);
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(static_cast<int>(Read(*table, false).size()), 40 + accepted);
}

// ---------------------------------------------------------------------------------------------
// Replay and routing

TEST_F(RealtimeWriteUnitTest, ReplayFromTheLowestCommittedEndIsExactlyOnce) {
  // A log of 300 events; offsets are log positions.
  std::vector<Event> log;
  for (int64_t i = 0; i < 300; ++i) {
    log.push_back(Event{static_cast<int32_t>(i * 7 % 23), i, i % 3 ? "2026-11-29" : "2026-11-30"});
  }
  auto positions = [](int64_t first, int64_t n) {
    std::vector<int64_t> out;
    for (int64_t i = first; i < first + n; ++i) out.push_back(i);
    return out;
  };
  auto slice = [&](int64_t first, int64_t n) {
    return std::vector<Event>(log.begin() + first, log.begin() + first + n);
  };
  {
    auto table = Create();
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    ASSERT_OK(WriteEvents(*writer, slice(0, 100), positions(0, 100)));
    ASSERT_OK(writer->Commit().status());
    ASSERT_OK(WriteEvents(*writer, slice(100, 50), positions(100, 50)));  // lost in the "crash"
  }
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(dir_.Sub("t")));
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  std::map<std::string, int64_t> end_of;  // by "dt/bucket"
  int64_t from = std::numeric_limits<int64_t>::max();
  for (const auto& p : context->CommittedProgress()) {
    end_of[p.partition.at(0).second + "/" + std::to_string(p.bucket)] = p.end;
    from = std::min(from, p.end);
  }
  ASSERT_LT(from, 99);  // the buckets' ends differ: a replayed batch straddles them

  // Which rows of the replayed batch are committed already, from RouteRows and the progress.
  std::vector<Event> replay = slice(from, 300 - from);
  auto batch = EventBatch(replay);
  ArrowArray array;
  ArrowSchema schema;
  ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
  ASSERT_OK_AND_ASSIGN(RowRouting routing, table->RouteRows(&array, &schema));
  ASSERT_EQ(routing.of_row.size(), replay.size());
  int64_t committed_rows = 0;
  for (size_t i = 0; i < replay.size(); ++i) {
    const PartitionBucketId& pb = routing.partition_buckets[routing.of_row[i]];
    ASSERT_EQ(pb.partition.size(), 1u);
    EXPECT_EQ(pb.partition[0], std::make_pair(std::string("dt"), replay[i].dt));
    auto it = end_of.find(pb.partition[0].second + "/" + std::to_string(pb.bucket));
    committed_rows += it != end_of.end() && replay[i].seq < it->second;
  }
  EXPECT_GT(committed_rows, 0);

  // Strict refuses the batch (and stores nothing); replay skips exactly the committed rows. The
  // exported batch is still the caller's after RouteRows.
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  std::vector<int64_t> offsets = positions(from, 300 - from);
  Status strict = writer->WriteWithOffsets(&array, &schema, offsets.data());
  EXPECT_TRUE(strict.IsInvalid()) << strict.ToString();
  EXPECT_NE(strict.message().find("kReplay"), std::string::npos) << strict.ToString();
  EXPECT_EQ(Read(*table), Sorted(slice(0, 100)));
  ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
  ASSERT_OK_AND_ASSIGN(WriteStats stats, writer->WriteWithOffsets(&array, &schema, offsets.data(),
                                                                  OffsetMode::kReplay));
  EXPECT_EQ(stats.rows_skipped, committed_rows);
  EXPECT_EQ(stats.rows_written, static_cast<int64_t>(replay.size()) - committed_rows);
  // Replaying again skips everything: it is all written now.
  ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
  ASSERT_OK_AND_ASSIGN(
      stats, writer->WriteWithOffsets(&array, &schema, offsets.data(), OffsetMode::kReplay));
  EXPECT_EQ(stats.rows_skipped, static_cast<int64_t>(replay.size()));
  EXPECT_EQ(stats.rows_written, 0);
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Read(*table, false), Sorted(log));
}

TEST_F(RealtimeWriteUnitTest, RouteRowsBorrowsAndMatchesWhereRowsLand) {
  auto table = Create();
  auto batch = EventBatch(Spread(0));
  ArrowArray array;
  ArrowSchema schema;
  ASSERT_TRUE(arrow::ExportRecordBatch(*batch, &array, &schema).ok());
  ASSERT_OK_AND_ASSIGN(RowRouting routing, table->RouteRows(&array, &schema));
  ASSERT_NE(array.release, nullptr);  // still the caller's
  ASSERT_NE(schema.release, nullptr);
  // Each row alone, committed: the progress grows in the partition-bucket RouteRows named.
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(writer->Write(&array, &schema));  // the whole batch, as the caller intended
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  std::map<std::string, int64_t> expected;
  for (int32_t index : routing.of_row) {
    const PartitionBucketId& pb = routing.partition_buckets[index];
    ++expected[pb.partition.at(0).second + "/" + std::to_string(pb.bucket)];
  }
  EXPECT_EQ(ProgressByBucket(*context), expected);
  EXPECT_GE(routing.partition_buckets.size(), 6u);

  // A batch that is not the table's is refused, and stays the caller's.
  auto wrong = arrow::RecordBatch::Make(arrow::schema({arrow::field("x", arrow::int32())}), 0,
                                        {*arrow::Int32Builder().Finish()});
  ASSERT_TRUE(arrow::ExportRecordBatch(*wrong, &array, &schema).ok());
  EXPECT_TRUE(table->RouteRows(&array, &schema).status().IsInvalid());
  ASSERT_NE(array.release, nullptr);
  array.release(&array);
  schema.release(&schema);
}

}  // namespace
}  // namespace freshet::testing
