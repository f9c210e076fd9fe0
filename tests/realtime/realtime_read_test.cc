// Reading real-time splits: nested types from memory, splits read more than once and on other
// threads after commits and reclaims, the coverage check, and progress across expiry.
#include <gtest/gtest.h>

#include <thread>

#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "read/table_read.h"
#include "realtime/context.h"
#include "realtime/realtime_scan.h"
#include "realtime/realtime_test_util.h"
#include "realtime/realtime_write.h"
#include "textrows/json_rows.h"

namespace freshet::testing {
namespace {

using realtime::RealtimeContext;

// Rows of a reader as sorted JSON lines.
Result<std::vector<std::string>> JsonLines(read::BatchReader& reader,
                                           const std::vector<meta::DataField>& fields) {
  std::vector<std::string> lines;
  while (true) {
    FRESHET_ASSIGN_OR_RETURN(auto batch, reader.Next());
    if (!batch) break;
    FRESHET_ASSIGN_OR_RETURN(std::string text, textrows::FormatJsonRows(*batch, fields));
    size_t start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
      lines.push_back(text.substr(start, end - start));
    }
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

struct Fixture {
  TempDir dir;
  std::shared_ptr<Table> table;
  std::shared_ptr<RealtimeContext> context;
  std::optional<meta::TableSchema> schema_storage;
  const meta::TableSchema& schema() const { return *schema_storage; }

  void Open(const std::string& spec) {
    auto created = Table::Create(dir.Sub("t"), spec);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    table = *created;
    ASSERT_OK_AND_ASSIGN(context, table->Realtime());
    schema_storage = InternalImpl(*context).schema();
  }
  Status WriteJson(const std::string& jsonl) {
    FRESHET_ASSIGN_OR_RETURN(auto parsed, textrows::ParseJsonRows(jsonl, schema().fields()));
    return InternalImpl(*context).write().Write(parsed.batch).status();
  }
  Result<std::vector<std::string>> Query(const read::ReadOptions& options = {}) {
    FRESHET_ASSIGN_OR_RETURN(
        auto read, read::TableRead::Make(io::LocalFileIO(), dir.Sub("t"), schema(), options));
    FRESHET_ASSIGN_OR_RETURN(auto plan, realtime::PlanRealtimeScan(context, {}));
    FRESHET_ASSIGN_OR_RETURN(auto reader, realtime::CreateRealtimeReader(read, plan));
    // The output columns: the projection, without the columns read only for the filter.
    std::vector<meta::DataField> output(
        read.read_fields().begin(),
        read.read_fields().begin() + read.output_schema()->num_fields());
    return JsonLines(*reader, output);
  }
};

// clang-format off
constexpr char kNestedSpec[] = R"json({"fields": [
  {"name": "id", "type": "BIGINT"},
  {"name": "tags", "type": {"type": "ARRAY", "element": "STRING"}},
  {"name": "attrs", "type": {"type": "MAP", "key": "STRING", "value": "INT"}},
  {"name": "loc", "type": {"type": "ROW", "fields": [{"name": "x", "type": "DOUBLE"},
                                                     {"name": "y", "type": "STRING"}]}}],
  "options": {"bucket": "2", "bucket-key": "id", "realtime.enabled": "true"}})json";
// clang-format on

std::string NestedRows(int first, int n) {
  std::string out;
  for (int i = first; i < first + n; ++i) {
    std::string id = std::to_string(i);
    out += i % 4 == 3 ? R"({"id": )" + id + R"(, "tags": null, "attrs": null, "loc": null})" + "\n"
                      : R"({"id": )" + id + R"(, "tags": ["a", null, "t)" + id +
                            R"("], "attrs": [["k", )" + id + R"(]], "loc": {"x": 1.5, "y": "p)" +
                            id + R"("}})" + "\n";
  }
  return out;
}

std::vector<std::string> SortedLines(const std::string& jsonl) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = jsonl.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(jsonl.substr(start, end - start));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(RealtimeReadTest, NestedTypesReadTheSameFromMemoryAndFromFiles) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(f.Open(kNestedSpec));
  ASSERT_OK(f.WriteJson(NestedRows(0, 12)));
  ASSERT_OK_AND_ASSIGN(auto from_memory, f.Query());
  EXPECT_EQ(from_memory, SortedLines(NestedRows(0, 12)));
  ASSERT_OK(InternalImpl(*f.context).write().PrepareAndCommit().status());
  ASSERT_OK(f.WriteJson(NestedRows(12, 5)));
  ASSERT_OK_AND_ASSIGN(auto mixed, f.Query());
  EXPECT_EQ(mixed, SortedLines(NestedRows(0, 17)));
  // Projection of a nested column, filter on another: memory and files alike.
  read::ReadOptions options;
  options.projection = {"loc"};
  ASSERT_OK_AND_ASSIGN(auto predicate, scan::MakePredicate("id >= 10", f.schema()));
  options.predicate = std::make_shared<const scan::Predicate>(predicate);
  ASSERT_OK_AND_ASSIGN(auto projected, f.Query(options));
  EXPECT_EQ(projected.size(), 7u);
  for (const auto& line : projected) EXPECT_EQ(line.rfind(R"({"loc": )", 0), 0u) << line;
}

TEST(RealtimeReadTest, SplitsReadManyTimesOnAnyThreadUntilReleased) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(
      f.Open(EventTableSpec(R"("bucket": "4", "bucket-key": "k", "realtime.enabled": "true")")));
  auto& write = InternalImpl(*f.context).write();
  ASSERT_OK(write.Write(EventBatch(Concat(Events(1, 0, 100), Events(2, 0, 100)))).status());
  ASSERT_OK(write.PrepareAndCommit().status());
  ASSERT_OK(write.Write(EventBatch(Concat(Events(1, 100, 50), Events(3, 0, 50)))).status());
  ASSERT_OK_AND_ASSIGN(auto read,
                       read::TableRead::Make(io::LocalFileIO(), f.dir.Sub("t"), f.schema(), {}));
  ASSERT_OK_AND_ASSIGN(auto plan, realtime::PlanRealtimeScan(f.context, {}));
  auto read_plan = [&]() -> Result<std::vector<std::string>> {
    FRESHET_ASSIGN_OR_RETURN(auto reader, realtime::CreateRealtimeReader(read, plan));
    return JsonLines(*reader, f.schema().fields());
  };
  ASSERT_OK_AND_ASSIGN(auto first, read_plan());
  EXPECT_EQ(first.size(), 300u);
  // Later writes, a commit (flush + reclaim of the pinned rows) and more writes change nothing
  // for the plan, which is read again on four threads at once.
  ASSERT_OK(write.PrepareAndCommit().status());
  ASSERT_OK(write.Write(EventBatch(Events(4, 0, 30))).status());
  f.context->CollectGarbage();
  std::vector<Result<std::vector<std::string>>> results(4, Status::Internal("not run"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { results[t] = read_plan(); });
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) {
    ASSERT_OK(result.status());
    EXPECT_EQ(*result, first);
  }
  // A new plan sees everything, each row once.
  ASSERT_OK_AND_ASSIGN(auto now, f.Query());
  EXPECT_EQ(now.size(), 330u);
}

// A plugin that drops rows it still had to keep: the scan refuses instead of returning a gap.
class ForgetfulIndexer : public ForwardingMemIndexer {
 public:
  using ForwardingMemIndexer::ForwardingMemIndexer;
  std::shared_ptr<const realtime::ReadView> AcquireReadView() override {
    inner().Reclaim(1000000);  // wrong: nothing above the committed progress may go
    return ForwardingMemIndexer::AcquireReadView();
  }
};

class ForgetfulFactory : public realtime::MemIndexerFactory {
 public:
  std::string name() const override { return "test-forgetful"; }
  Result<std::unique_ptr<realtime::MemIndexer>> Create(
      const realtime::MemIndexerOptions& options) override {
    return ForwardingMemIndexer::WrapColumnar<ForgetfulIndexer>(options);
  }
};

TEST(RealtimeReadTest, TheCoverageInvariantIsCheckedNotSilentlyBroken) {
  ASSERT_OK(realtime::RegisterMemIndexerFactory(std::make_shared<ForgetfulFactory>()));
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(
      f.Open(EventTableSpec(R"("bucket": "1", "bucket-key": "k", "realtime.enabled": "true", )"
                            R"("realtime.mem-indexer": "test-forgetful")")));
  auto& write = InternalImpl(*f.context).write();
  ASSERT_OK(write.Write(EventBatch(Events(1, 0, 10))).status());
  ASSERT_OK(write.PrepareAndCommit().status());
  ASSERT_OK(write.Write(EventBatch(Events(1, 10, 10))).status());
  ASSERT_OK(write.PrepareCommit().status());  // seals [10, 20): the plugin then drops it
  ASSERT_OK(write.Write(EventBatch(Events(1, 20, 10))).status());
  auto plan = realtime::PlanRealtimeScan(f.context, {});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInternal);
  EXPECT_NE(plan.status().message().find("coverage invariant"), std::string::npos)
      << plan.status().ToString();
}

TEST(RealtimeReadTest, ProgressSurvivesExpiryOfOlderSnapshots) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(
      f.Open(EventTableSpec(R"("bucket": "1", "bucket-key": "k", "realtime.enabled": "true", )"
                            R"("snapshot.num-retained.min": "1", "snapshot.num-retained.max": "2")",
                            /*partitioned=*/true)));
  auto& write = InternalImpl(*f.context).write();
  ASSERT_OK(
      write.Write(EventBatch(Events(1, 0, 10, "a"))).status());  // partition a: only committed here
  ASSERT_OK(write.PrepareAndCommit().status());
  for (int i = 1; i <= 4; ++i) {
    ASSERT_OK(write.Write(EventBatch(Events(2, i * 10, 10, "b"))).status());
    ASSERT_OK(write.PrepareAndCommit().status());
  }
  meta::SnapshotManager snapshots(io::LocalFileIO(), f.dir.Sub("t"));
  ASSERT_OK_AND_ASSIGN(auto earliest, snapshots.EarliestSnapshotId());
  ASSERT_GT(*earliest, 1) << "snapshot 1 must have expired for this test";
  realtime::ProgressResolver resolver(io::LocalFileIO(), f.dir.Sub("t"));
  ASSERT_OK_AND_ASSIGN(auto latest, resolver.Latest());
  std::vector<int64_t> ends;
  for (const auto& [pb, end] : latest.second) ends.push_back(end);
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<int64_t>{10, 40}));
}

}  // namespace
}  // namespace freshet::testing
