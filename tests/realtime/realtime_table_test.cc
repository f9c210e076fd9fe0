// The real-time layer through the public Table API: rows are readable before commit, commits
// carry progress, restarts continue it, and nothing is lost or duplicated on the way.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "commit/file_store_commit.h"
#include "freshet/realtime/mem_indexer.h"
#include "io/file_io.h"
#include "meta/options/core_options.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "realtime/context.h"
#include "realtime/progress.h"
#include "realtime/realtime_test_util.h"
#include "realtime/realtime_write.h"
#include "write/append_table_write.h"

namespace freshet::testing {
namespace {

using realtime::RealtimeContext;

class RealtimeTableTest : public ::testing::Test {
 protected:
  std::shared_ptr<Table> Create(const std::string& options, bool partitioned = false) {
    auto table = Table::Create(dir_.Sub("t"), EventTableSpec(options, partitioned));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return table.ok() ? *table : nullptr;
  }
  std::vector<Event> Committed(const Table& table) {
    ReadOptions options;
    options.include_uncommitted = false;
    auto events = ReadEvents(table, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<Event>{};
  }
  std::vector<Event> Visible(const Table& table) {
    auto events = ReadEvents(table);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<Event>{};
  }
  int64_t SnapshotCount() {
    meta::SnapshotManager snapshots(io::LocalFileIO(), dir_.Sub("t"));
    auto ids = snapshots.ListSnapshotIds();
    return ids.ok() ? static_cast<int64_t>(ids->size()) : -1;
  }
  std::map<std::string, std::string> LatestProperties() {
    meta::SnapshotManager snapshots(io::LocalFileIO(), dir_.Sub("t"));
    auto latest = snapshots.LatestSnapshot();
    return latest.ok() && *latest ? (*latest)->properties : std::map<std::string, std::string>{};
  }

  TempDir dir_;
};

constexpr char kRealtime[] = R"("bucket": "4", "bucket-key": "k", "realtime.enabled": "true")";

TEST_F(RealtimeTableTest, ReadBeforeCommit) {
  auto table = Create(kRealtime);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  auto first = Events(1, 0, 100);
  ASSERT_OK(WriteEvents(*writer, first));
  EXPECT_EQ(Visible(*table), first);
  EXPECT_TRUE(Committed(*table).empty());
  EXPECT_EQ(SnapshotCount(), 0);

  ASSERT_OK_AND_ASSIGN(auto snapshot, writer->Commit());
  ASSERT_EQ(snapshot, 1);
  EXPECT_EQ(Committed(*table), first);
  EXPECT_EQ(Visible(*table), first);  // committed rows are not counted twice

  auto second = Events(2, 0, 50);
  ASSERT_OK(WriteEvents(*writer, second));
  EXPECT_EQ(Visible(*table), Concat(first, second));
  EXPECT_EQ(Committed(*table), first);
  // Time travel reads the snapshot's files only.
  ReadOptions at1;
  at1.snapshot_id = 1;
  ASSERT_OK_AND_ASSIGN(auto travelled, ReadEvents(*table, at1));
  EXPECT_EQ(travelled, first);
}

TEST_F(RealtimeTableTest, ProjectionAndFilterApplyToMemoryAndDisk) {
  auto table = Create(kRealtime);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 10)));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK(WriteEvents(*writer, Events(1, 10, 10)));
  ReadOptions options;
  options.columns = {"seq", "k"};
  options.filter = "seq >= 5 AND seq < 15";
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader(options));
  ArrowSchema c_schema;
  ASSERT_OK(reader->ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  ASSERT_EQ(schema->num_fields(), 2);
  EXPECT_EQ(schema->field(0)->name(), "seq");
  std::vector<int64_t> seqs;
  while (true) {
    ArrowArray array;
    ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&array));
    if (!more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    ASSERT_EQ(batch->num_columns(), 2);
    auto seq = std::static_pointer_cast<arrow::Int64Array>(batch->column(0));
    for (int64_t i = 0; i < batch->num_rows(); ++i) seqs.push_back(seq->Value(i));
  }
  std::sort(seqs.begin(), seqs.end());
  std::vector<int64_t> expected;
  for (int64_t s = 5; s < 15; ++s) expected.push_back(s);
  EXPECT_EQ(seqs, expected);
}

TEST_F(RealtimeTableTest, MultiplePartitionsAndBuckets) {
  auto table = Create(kRealtime, /*partitioned=*/true);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  std::vector<Event> all;
  for (int k = 0; k < 12; ++k) {
    for (const char* dt : {"2026-11-29", "2026-11-30"}) {
      auto events = Events(k, 0, 7 + k, dt);
      all.insert(all.end(), events.begin(), events.end());
    }
  }
  ASSERT_OK(WriteEvents(*writer, all));  // one batch spanning every partition-bucket
  all = Sorted(all);
  EXPECT_EQ(Visible(*table), all);
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Committed(*table), all);
  EXPECT_EQ(Visible(*table), all);
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  int64_t total = 0;
  auto progress = ProgressByBucket(*context);
  for (const auto& [key, end] : progress) total += end;
  EXPECT_EQ(total, static_cast<int64_t>(all.size()));  // framework offsets: contiguous from 0
  EXPECT_GT(progress.size(), 4u);
  EXPECT_TRUE(LatestProperties().count(realtime::kProgressProperty));
}

TEST_F(RealtimeTableTest, RestartRecovery) {
  std::map<std::string, int64_t> before;
  {
    auto table = Create(kRealtime);
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    ASSERT_OK(WriteEvents(*writer, Events(1, 0, 30)));
    ASSERT_OK(WriteEvents(*writer, Events(2, 0, 20)));
    ASSERT_OK(writer->Commit().status());
    ASSERT_OK(WriteEvents(*writer, Events(3, 0, 5)));  // never committed: lost on "crash"
    ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
    before = ProgressByBucket(*context);
  }
  // Every handle is gone: a new process would start like this.
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(dir_.Sub("t")));
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  EXPECT_EQ(ProgressByBucket(*context), before);
  EXPECT_EQ(context->Usage().rows_in_memory, 0);
  EXPECT_EQ(Visible(*table), Concat(Events(1, 0, 30), Events(2, 0, 20)));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 30, 10)));
  ASSERT_OK(writer->Commit().status());
  // Offsets continued from the restored progress: the bucket of k=1 advanced by exactly 10.
  auto after = ProgressByBucket(*context);
  int64_t advanced = 0;
  for (const auto& [key, end] : after) advanced += end - before[key];
  EXPECT_EQ(advanced, 10);
}

TEST_F(RealtimeTableTest, ApplicationOffsetsWithGaps) {
  auto table = Create(R"("bucket": "1", "bucket-key": "k", "realtime.enabled": "true")");
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 3), {100, 105, 106}));
  ASSERT_OK(WriteEvents(*writer, Events(1, 3, 2), {200, 300}));
  // Backwards, or not increasing within the batch: refused, nothing stored.
  Status backwards = WriteEvents(*writer, Events(1, 5, 1), {250});
  EXPECT_TRUE(backwards.IsInvalid()) << backwards.ToString();
  EXPECT_NE(backwards.message().find("next free offset 301"), std::string::npos)
      << backwards.ToString();
  Status unordered = WriteEvents(*writer, Events(1, 5, 2), {400, 400});
  EXPECT_TRUE(unordered.IsInvalid()) << unordered.ToString();
  EXPECT_EQ(Visible(*table), Events(1, 0, 5));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  EXPECT_EQ(ProgressByBucket(*context), (std::map<std::string, int64_t>{{"0", 301}}));
  // Replaying from the progress continues above it.
  ASSERT_OK(WriteEvents(*writer, Events(1, 5, 1), {301}));
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(ProgressByBucket(*context), (std::map<std::string, int64_t>{{"0", 302}}));
  EXPECT_EQ(Committed(*table), Events(1, 0, 6));
}

TEST_F(RealtimeTableTest, CommitRejectsGapAndOverlap) {
  auto table = Create(kRealtime);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 10)));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK(WriteEvents(*writer, Events(1, 10, 10)));
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  realtime::RealtimeWrite& write = InternalImpl(*context).write();
  ASSERT_OK_AND_ASSIGN(auto messages, write.PrepareCommit());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].range, (realtime::OffsetRange{10, 20}));

  auto gap = messages;
  gap[0].range.begin = 12;
  auto rejected = write.Commit(gap, write.NextIdentifier());
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.status().message().find("gap"), std::string::npos)
      << rejected.status().ToString();
  auto overlap = messages;
  overlap[0].range.begin = 5;
  rejected = write.Commit(overlap, write.NextIdentifier());
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.status().message().find("overlap"), std::string::npos)
      << rejected.status().ToString();
  EXPECT_EQ(SnapshotCount(), 1);  // nothing published
  EXPECT_EQ(Visible(*table), Events(1, 0, 20));

  // The real messages still commit, and nothing was lost.
  ASSERT_OK(write.Commit(messages, write.NextIdentifier()).status());
  EXPECT_EQ(Committed(*table), Events(1, 0, 20));
}

TEST_F(RealtimeTableTest, IdempotentRetry) {
  auto table = Create(kRealtime);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 10)));
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  realtime::RealtimeWrite& write = InternalImpl(*context).write();
  ASSERT_OK_AND_ASSIGN(auto messages, write.PrepareCommit());
  int64_t identifier = write.NextIdentifier();
  ASSERT_OK_AND_ASSIGN(auto first, write.Commit(messages, identifier));
  ASSERT_OK_AND_ASSIGN(auto retry, write.Commit(messages, identifier));
  EXPECT_FALSE(first.already_committed);
  EXPECT_TRUE(retry.already_committed);
  EXPECT_EQ(first.snapshot_id, retry.snapshot_id);
  EXPECT_EQ(SnapshotCount(), 1);
  EXPECT_EQ(Committed(*table), Events(1, 0, 10));
  // The same ranges under a new identifier would commit the rows twice: refused.
  auto again = write.Commit(messages, write.NextIdentifier());
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(SnapshotCount(), 1);
}

// A flush gate: the test learns when a flush is under way, and lets it go on.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool flushing = false;
  bool released = false;
};

// A MemIndexer that stops the flush inside CreateCommitReaders until its gate is released.
class GatedIndexer : public ForwardingMemIndexer {
 public:
  GatedIndexer(std::unique_ptr<realtime::MemIndexer> inner, std::shared_ptr<Gate> gate)
      : ForwardingMemIndexer(std::move(inner)), gate_(std::move(gate)) {}
  Result<realtime::RowBatchReaders> CreateCommitReaders(
      const std::shared_ptr<realtime::SealedSegment>& segment) override {
    std::unique_lock lock(gate_->mu);
    gate_->flushing = true;
    gate_->cv.notify_all();
    gate_->cv.wait(lock, [&] { return gate_->released; });
    return ForwardingMemIndexer::CreateCommitReaders(segment);
  }

 private:
  std::shared_ptr<Gate> gate_;
};

// Registered once per process; each run of the test sets the gate its indexers use.
class GatedFactory : public realtime::MemIndexerFactory {
 public:
  static std::shared_ptr<Gate>& current_gate() {
    static std::shared_ptr<Gate> gate;
    return gate;
  }
  std::string name() const override { return "test-gated"; }
  Result<std::unique_ptr<realtime::MemIndexer>> Create(
      const realtime::MemIndexerOptions& options) override {
    return ForwardingMemIndexer::WrapColumnar<GatedIndexer>(options, current_gate());
  }
};

TEST_F(RealtimeTableTest, RowsWrittenDuringAFlushAreVisibleAndLandInTheNextCommit) {
  static const Status registered =
      realtime::RegisterMemIndexerFactory(std::make_shared<GatedFactory>());
  ASSERT_OK(registered);
  auto gate = std::make_shared<Gate>();
  GatedFactory::current_gate() = gate;
  auto table = Create(R"("bucket": "1", "bucket-key": "k", "realtime.enabled": "true", )"
                      R"("realtime.mem-indexer": "test-gated")");
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 10)));
  auto commit = std::async(std::launch::async, [&] { return writer->Commit(); });
  {
    std::unique_lock lock(gate->mu);
    gate->cv.wait(lock, [&] { return gate->flushing; });
  }
  // The flush is in progress: writes do not wait for it and are readable at once.
  ASSERT_OK_AND_ASSIGN(auto second_writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*second_writer, Events(1, 10, 5)));
  EXPECT_EQ(Visible(*table), Events(1, 0, 15));
  {
    std::lock_guard lock(gate->mu);
    gate->released = true;
  }
  gate->cv.notify_all();
  ASSERT_OK_AND_ASSIGN(auto snapshot, commit.get());
  EXPECT_EQ(snapshot, 1);
  EXPECT_EQ(Committed(*table), Events(1, 0, 10));
  EXPECT_EQ(Visible(*table), Events(1, 0, 15));
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Committed(*table), Events(1, 0, 15));
  EXPECT_EQ(Visible(*table), Events(1, 0, 15));
}

TEST_F(RealtimeTableTest, MemoryReturnsToBaselineAfterCommitAndViewRelease) {
  auto table = Create(kRealtime);
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  EXPECT_EQ(context->Usage().memory_bytes, 0);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 5000)));
  EXPECT_GT(context->Usage().memory_bytes, 0);
  EXPECT_EQ(context->Usage().rows_in_memory, 5000);
  ASSERT_OK_AND_ASSIGN(auto pinning_reader, table->NewReader());  // pins the rows
  ASSERT_OK(writer->Commit().status());
  EXPECT_GT(context->Usage().memory_bytes, 0) << "a pinned view keeps its rows";
  ASSERT_OK_AND_ASSIGN(auto events, ReadEvents(*pinning_reader));
  EXPECT_EQ(events, Events(1, 0, 5000));
  pinning_reader.reset();
  context->CollectGarbage();
  EXPECT_EQ(context->Usage().memory_bytes, 0);
  EXPECT_EQ(context->Usage().rows_in_memory, 0);
  EXPECT_EQ(Visible(*table), Events(1, 0, 5000));
}

TEST_F(RealtimeTableTest, BackPressureErrorAtTheHardLimit) {
  auto table =
      Create(R"("bucket": "1", "bucket-key": "k", "realtime.enabled": "true", )"
             R"("realtime.memory.soft-limit": "64 kb", "realtime.memory.hard-limit": "256 kb")");
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  int requests = 0;
  context->SetCommitRequestCallback([&](const realtime::RealtimeUsage&) { ++requests; });
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  int64_t written = 0;
  Status st;
  while (written < 1000000) {
    st = WriteEvents(*writer, Events(1, written, 1000));
    if (!st.ok()) break;
    written += 1000;
  }
  ASSERT_TRUE(st.IsResourceExhausted()) << st.ToString();
  EXPECT_NE(st.message().find("realtime.memory.hard-limit"), std::string::npos);
  EXPECT_EQ(requests, 1);                             // once, when crossing the soft limit
  EXPECT_EQ(Visible(*table), Events(1, 0, written));  // the refused batch changed nothing
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK(WriteEvents(*writer, Events(1, written, 1000)));  // room again after the commit
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Committed(*table), Events(1, 0, written + 1000));
}

TEST_F(RealtimeTableTest, SpillPluginEquivalence) {
  std::vector<std::vector<Event>> results[2];
  for (int plugin = 0; plugin < 2; ++plugin) {
    TempDir dir;
    std::string options =
        std::string(R"("bucket": "2", "bucket-key": "k", "realtime.enabled": "true")") +
        (plugin ? R"(, "realtime.mem-indexer": "spilling", "realtime.spill.dir": ")" +
                      dir.Sub("spill") + "\""
                : "");
    ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), EventTableSpec(options)));
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    for (int round = 0; round < 4; ++round) {
      ASSERT_OK(WriteEvents(*writer, Events(round % 3, round * 100, 100)));
      ASSERT_OK_AND_ASSIGN(auto visible, ReadEvents(*table));
      results[plugin].push_back(visible);
      if (round % 2 == 1) ASSERT_OK(writer->Commit().status());
      ASSERT_OK_AND_ASSIGN(visible, ReadEvents(*table));
      results[plugin].push_back(visible);
    }
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0].back().size(), 400u);
}

TEST_F(RealtimeTableTest, OffAndOnCoexistWithoutARealtimeContextWhenOff) {
  auto table = Create(R"("bucket": "1", "bucket-key": "k")");
  EXPECT_FALSE(table->Realtime().ok());
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Events(1, 0, 10)));
  EXPECT_TRUE(Visible(*table).empty());  // not real-time: invisible until committed
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(Visible(*table), Events(1, 0, 10));
  EXPECT_FALSE(LatestProperties().count(realtime::kProgressProperty));
  EXPECT_TRUE(WriteEvents(*writer, Events(1, 0, 10), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).IsInvalid());
}

// Another engine overwrites a partition (an OVERWRITE snapshot without progress): the partition's
// progress resets, the replaced rows do not come back from memory, and writing goes on.
TEST_F(RealtimeTableTest, AnExternalOverwriteResetsTheProgressOfItsPartitions) {
  auto table = Create(kRealtime, /*partitioned=*/true);
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteEvents(*writer, Concat(Events(1, 0, 10, "a"), Events(1, 0, 4, "b"))));
  ASSERT_OK(writer->Commit().status());

  // The other engine: plain write + overwrite commit of partition "a", no real-time layer.
  ASSERT_OK_AND_ASSIGN(auto schema,
                       meta::SchemaManager(io::LocalFileIO(), dir_.Sub("t")).LatestSchema());
  ASSERT_OK_AND_ASSIGN(auto plain,
                       write::AppendTableWrite::Make(io::LocalFileIO(), dir_.Sub("t"), *schema));
  ASSERT_OK(plain->Write(*EventBatch(Events(5, 0, 1, "a"))));
  ASSERT_OK_AND_ASSIGN(auto messages, plain->PrepareCommit());
  ASSERT_OK_AND_ASSIGN(auto options, meta::CoreOptions::Make(schema->options(), false));
  commit::FileStoreCommit other(io::LocalFileIO(), dir_.Sub("t"), *schema, options, "other");
  commit::CommitRequest overwrite;
  overwrite.messages = messages;
  overwrite.overwrite = true;
  ASSERT_OK(other.Commit(overwrite).status());

  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  realtime::ProgressResolver resolver(io::LocalFileIO(), dir_.Sub("t"));
  ASSERT_OK_AND_ASSIGN(auto latest, resolver.Latest());
  for (const auto& [pb, end] : latest.second) EXPECT_EQ(end, 4) << "only partition b is left";
  EXPECT_EQ(latest.second.size(), 1u);
  EXPECT_EQ(Visible(*table), Concat(Events(5, 0, 1, "a"), Events(1, 0, 4, "b")));

  // Writing into the reset partition goes on; its next range is accepted and recorded.
  ASSERT_OK(WriteEvents(*writer, Events(1, 10, 5, "a")));
  EXPECT_EQ(Visible(*table),
            Sorted({Event{5, 0, "a"}, Event{1, 10, "a"}, Event{1, 11, "a"}, Event{1, 12, "a"},
                    Event{1, 13, "a"}, Event{1, 14, "a"}, Event{1, 0, "b"}, Event{1, 1, "b"},
                    Event{1, 2, "b"}, Event{1, 3, "b"}}));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK_AND_ASSIGN(latest, resolver.Latest());
  std::vector<int64_t> ends;
  for (const auto& [pb, end] : latest.second) ends.push_back(end);
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<int64_t>{4, 15}));
  EXPECT_EQ(Committed(*table), Visible(*table));
}

}  // namespace
}  // namespace freshet::testing
