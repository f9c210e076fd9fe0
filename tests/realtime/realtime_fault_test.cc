// I/O failures during the real-time flush and commit lose nothing: the rows stay queryable, and
// the next PrepareCommit/Commit lands them exactly once.
#include <gtest/gtest.h>

#include "meta/schema/schema_manager.h"
#include "read/table_read.h"
#include "realtime/context.h"
#include "realtime/realtime_scan.h"
#include "realtime/realtime_test_util.h"
#include "realtime/realtime_write.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/primary_key_model.h"

namespace freshet::testing {
namespace {

using realtime::RealtimeContext;

// Rows a query sees through the real-time scan (committed files + memory), or committed only.
Result<std::vector<Event>> Query(const std::shared_ptr<RealtimeContext>& context,
                                 bool include_memory) {
  auto& impl = InternalImpl(*context);
  FRESHET_ASSIGN_OR_RETURN(auto read,
                           read::TableRead::Make(io::LocalFileIO(), impl.path(), impl.schema()));
  std::unique_ptr<read::BatchReader> reader;
  std::optional<realtime::RealtimeScanPlan> plan;
  if (include_memory) {
    FRESHET_ASSIGN_OR_RETURN(plan, realtime::PlanRealtimeScan(context, {}));
    FRESHET_ASSIGN_OR_RETURN(reader, realtime::CreateRealtimeReader(read, *plan));
  } else {
    scan::TableScan scan(io::LocalFileIO(), impl.path());
    FRESHET_ASSIGN_OR_RETURN(auto disk, scan.Plan({}));
    FRESHET_ASSIGN_OR_RETURN(reader, read.CreateReader(std::move(disk.splits)));
  }
  std::vector<Event> out;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    auto k = std::static_pointer_cast<arrow::Int32Array>(batch->column(0));
    auto seq = std::static_pointer_cast<arrow::Int64Array>(batch->column(1));
    auto dt = std::static_pointer_cast<arrow::StringArray>(batch->column(2));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      out.push_back(Event{k->Value(i), seq->Value(i), std::string(dt->GetView(i))});
    }
  }
  return Sorted(std::move(out));
}

Status Write(RealtimeContext& context, const std::vector<Event>& events) {
  return InternalImpl(context).write().Write(EventBatch(events)).status();
}

// A fault at each file operation of PrepareCommit + Commit, one run per operation index.
TEST(RealtimeFaultTest, AnIoErrorDuringFlushOrCommitLosesNothing) {
  int64_t failed_runs = 0;
  for (int64_t fail_at = 0;; ++fail_at) {
    TempDir dir;
    const std::string path = dir.Sub("t");
    ASSERT_OK(Table::Create(path,
                            EventTableSpec(R"("bucket": "2", "bucket-key": "k", )"
                                           R"("realtime.enabled": "true")"),
                            false)
                  .status());
    ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(io::LocalFileIO(), path).LatestSchema());
    auto faults = std::make_shared<io::FaultInjectingFileIO>(io::LocalFileIO());
    ASSERT_OK_AND_ASSIGN(auto context, RealtimeContext::Impl::ForTable(faults, path, *schema));
    auto first = Concat(Events(1, 0, 20), Events(2, 0, 20));
    ASSERT_OK(Write(*context, first));

    faults->Reset();
    faults->FailOperationAt(fail_at);
    auto committed = InternalImpl(*context).write().PrepareAndCommit();
    bool injected = faults->injected_failures() > 0;
    faults->Reset();
    if (!injected) {
      ASSERT_OK(committed.status());
      break;  // past the last operation: every index was tried
    }
    SCOPED_TRACE("failure at operation " + std::to_string(fail_at));
    if (!committed.ok()) {
      ++failed_runs;
      EXPECT_FALSE(committed.status().message().empty());
      ASSERT_OK_AND_ASSIGN(auto visible, Query(context, true));
      EXPECT_EQ(visible, first) << committed.status().ToString();
    }
    // Writes go on, and the next commit lands everything exactly once.
    auto second = Events(1, 20, 5);
    ASSERT_OK(Write(*context, second));
    ASSERT_OK(InternalImpl(*context).write().PrepareAndCommit().status());
    ASSERT_OK_AND_ASSIGN(auto on_disk, Query(context, false));
    EXPECT_EQ(on_disk, Concat(first, second));
    ASSERT_OK_AND_ASSIGN(auto visible, Query(context, true));
    EXPECT_EQ(visible, Concat(first, second));
  }
  EXPECT_GT(failed_runs, 10);
}

// The same for a primary-key table of the aggregation engine (v summed), so that rows flushed or
// committed twice would show as doubled sums; the writer compacts in the background, so some
// runs also fail a compaction's file operations. With dynamic buckets (one key per bucket), the
// faulted commit also writes hash index files, and a key first written before the fault keeps
// its bucket after it: a new key written after the fault must not take that bucket.
class RealtimePrimaryKeyFaultTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealtimePrimaryKeyFaultTest, AnIoErrorDuringAFlushOrCommitLosesNothing) {
  using pk::Row;
  const bool dynamic_buckets = GetParam() == "-1";
  int64_t failed_runs = 0;
  for (int64_t fail_at = 0;; ++fail_at) {
    TempDir dir;
    const std::string path = dir.Sub("t");
    auto options = pk::EngineOptions("aggregation");
    options["bucket"] = GetParam();
    if (dynamic_buckets) options["dynamic-bucket.target-row-num"] = "1";
    options["realtime.enabled"] = "true";
    options["num-sorted-run.compaction-trigger"] = "2";
    ASSERT_OK(Table::Create(path, pk::SchemaSpec(options)).status());
    ASSERT_OK_AND_ASSIGN(auto schema, meta::SchemaManager(io::LocalFileIO(), path).LatestSchema());
    auto faults = std::make_shared<io::FaultInjectingFileIO>(io::LocalFileIO());
    ASSERT_OK_AND_ASSIGN(auto context, RealtimeContext::Impl::ForTable(faults, path, *schema));
    ASSERT_OK_AND_ASSIGN(auto table, Table::Open(path));  // shares the context
    pk::Model model("aggregation");
    auto write = [&](const std::vector<Row>& rows) {
      for (const Row& r : rows) model.Apply(r);
      return InternalImpl(*context)
          .write()
          .Write(pk::MakeBatch(rows, pk::KindColumn::kInt8))
          .status();
    };
    // Two commits first, so that the faulted commit also finds a compaction to run or take.
    for (int64_t round = 0; round < 2; ++round) {
      ASSERT_OK(write({Row{"a", round, "x", 1}, Row{"b", 7, "y", 10}, Row{"a", 9, "z", 100}}));
      ASSERT_OK(InternalImpl(*context).write().PrepareAndCommit().status());
    }
    ASSERT_OK(
        write({Row{"a", 9, std::nullopt, 1000}, Row{"b", 7, "w", 10000}, Row{"a", 50, "n", 1}}));

    faults->Reset();
    faults->FailOperationAt(fail_at);
    auto committed = InternalImpl(*context).write().PrepareAndCommit();
    bool injected = faults->injected_failures() > 0;
    faults->Reset();
    if (!injected) {
      ASSERT_OK(committed.status());
      break;  // past the last operation: every index was tried
    }
    SCOPED_TRACE("failure at operation " + std::to_string(fail_at));
    if (!committed.ok()) {
      ++failed_runs;
      EXPECT_EQ(pk::ReadAll(*table), model.Rows()) << committed.status().ToString();
    }
    // A new key, then again the key that was new at the fault.
    ASSERT_OK(write({Row{"a", 51, "m", 2}}));
    ASSERT_OK(write({Row{"a", 9, "q", 100000}, Row{"a", 50, "o", 4}}));
    auto next = InternalImpl(*context).write().PrepareAndCommit();
    if (!next.ok()) {
      // The fault hit a background compaction after the commit returned: its error comes with
      // the next flush (which keeps its rows, as any failed flush), and only once.
      EXPECT_NE(next.status().ToString().find("compaction of bucket"), std::string::npos)
          << next.status().ToString();
      EXPECT_EQ(pk::ReadAll(*table), model.Rows());
      next = InternalImpl(*context).write().PrepareAndCommit();
    }
    ASSERT_OK(next.status());
    ReadOptions committed_only;
    committed_only.include_uncommitted = false;
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader(committed_only));
    EXPECT_EQ(pk::SortedTexts(pk::DrainRows(*reader)), model.Rows());
    EXPECT_EQ(pk::ReadAll(*table), model.Rows());
  }
  EXPECT_GT(failed_runs, 5);
}

INSTANTIATE_TEST_SUITE_P(BucketModes, RealtimePrimaryKeyFaultTest, ::testing::Values("2", "-1"),
                         [](const auto& info) {
                           return info.param == "-1" ? std::string("DynamicBuckets")
                                                     : std::string("FixedBuckets");
                         });

}  // namespace
}  // namespace freshet::testing
