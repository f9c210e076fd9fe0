// The real-time layer on primary-key tables (docs/realtime.md, "Primary-key tables"): rows are
// readable through the merge the moment Write returns, for every merge engine, and commits,
// compactions and restarts never change what a read returns.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "freshet/table.h"
#include "realtime/context.h"
#include "realtime/progress.h"
#include "realtime/realtime_write.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::testing {
namespace {

using pk::KindColumn;
using pk::Row;

std::map<std::string, std::string> RealtimeOptions(const std::string& engine,
                                                   const std::string& extra_key = "",
                                                   const std::string& extra_value = "") {
  auto options = pk::EngineOptions(engine);
  options["bucket"] = "2";
  options["realtime.enabled"] = "true";
  if (!extra_key.empty()) options[extra_key] = extra_value;
  return options;
}

std::unique_ptr<TableWriter> NewWriter(const Table& table) {
  auto writer = table.NewWriter();
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  return writer.ok() ? std::move(*writer) : nullptr;
}

Status Write(TableWriter& writer, const std::vector<Row>& rows) {
  return pk::WriteRows(&writer, pk::MakeBatch(rows, KindColumn::kInt8));
}

std::vector<std::string> CommittedRows(const Table& table) {
  ReadOptions options;
  options.include_uncommitted = false;
  auto reader = table.NewReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  return pk::SortedTexts(pk::DrainRows(**reader));
}

// Rows of partition "a" with id < 20 (Text() form: "a|<id>|...").
constexpr char kKeyFilter[] = "dt = 'a' AND id < 20";
std::vector<std::string> KeyFiltered(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  for (const std::string& text : texts) {
    if (text.rfind("a|", 0) == 0 && std::stoll(text.substr(2)) < 20) out.push_back(text);
  }
  return out;
}

std::vector<std::string> KeyFilteredRows(const Table& table) {
  ReadOptions options;
  options.filter = kKeyFilter;
  auto reader = table.NewReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  return pk::SortedTexts(pk::DrainRows(**reader));
}

struct Case {
  std::string engine;
  bool deletion_vectors = false;
  std::string plugin = "columnar";
  bool dynamic_buckets = false;  // `bucket` = -1, a few keys per bucket
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.engine << (c.deletion_vectors ? " with deletion vectors" : "") << ", " << c.plugin
       << (c.dynamic_buckets ? ", dynamic buckets" : "");
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.engine + (info.param.deletion_vectors ? "_dv" : "") + "_" +
                     info.param.plugin + (info.param.dynamic_buckets ? "_dynamic" : "");
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

int CountBucketDirectories(const std::string& partition_path) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(partition_path)) {
    count += entry.path().filename().string().rfind("bucket-", 0) == 0;
  }
  return count;
}

class RealtimePrimaryKeyDifferentialTest : public ::testing::TestWithParam<Case> {};

// Random upserts (and deletes where the engine has them) over 2 partitions x 2 buckets, commits
// at random points while the writer compacts in the background: after every Write the union
// read equals the model (every row written so far), and after the last step a full compaction
// makes the committed files alone equal it too.
TEST_P(RealtimePrimaryKeyDifferentialTest, UnionReadEqualsTheModelAfterEveryWrite) {
  const Case& c = GetParam();
  TempDir dir;
  auto options = RealtimeOptions(c.engine);
  options["num-sorted-run.compaction-trigger"] = "3";
  if (c.deletion_vectors) options["deletion-vectors.enabled"] = "true";
  options["realtime.mem-indexer"] = c.plugin;
  if (c.plugin == "spilling") options["realtime.spill.dir"] = dir.Sub("spill");
  if (c.dynamic_buckets) {
    // Up to 50 keys per partition, 8 per bucket: new buckets open while rows are in memory.
    options["bucket"] = "-1";
    options["dynamic-bucket.target-row-num"] = "8";
  }
  auto table = Table::Create(dir.Sub("t"), pk::SchemaSpec(options));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto writer = (*table)->NewWriter();
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();

  const uint64_t seed = TestSeed();
  SCOPED_TRACE("FRESHET_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  pk::Model model(c.engine);
  int commits = 0;
  for (int step = 0; step < 40; ++step) {
    std::vector<Row> rows = pk::RandomRows(rng, pk::EngineKinds(c.engine), 25, 40, &model);
    ASSERT_TRUE(Write(**writer, rows).ok());
    ASSERT_EQ(pk::ReadAll(**table), model.Rows(true)) << "after write " << step;
    // A predicate on key columns only also drops memory rows before the merge.
    ASSERT_EQ(KeyFilteredRows(**table), KeyFiltered(model.Rows(true))) << "after write " << step;
    // Point lookups of random keys (some never written) agree with the model.
    std::vector<std::pair<std::string, int64_t>> keys;
    std::vector<std::string> expected;
    for (int i = 0; i < 6; ++i) {
      keys.emplace_back(rng() % 2 ? "a" : "b", static_cast<int64_t>(rng() % 50));
      expected.push_back(model.Lookup(keys.back().first, keys.back().second));
    }
    ASSERT_EQ(pk::LookupTexts(**table, keys), expected) << "lookups after write " << step;
    if (rng() % 3 == 0) {
      auto committed = (*writer)->Commit();
      ASSERT_TRUE(committed.ok()) << committed.status().ToString();
      ++commits;
      ASSERT_EQ(pk::ReadAll(**table), model.Rows(true)) << "after the commit at step " << step;
    }
  }
  ASSERT_TRUE((*writer)->Commit().ok());
  EXPECT_GE(commits, 3);
  // The writer compacted in the background meanwhile (COMPACT snapshots of its own).
  auto snapshots = (*table)->Snapshots();
  ASSERT_TRUE(snapshots.ok()) << snapshots.status().ToString();
  int compactions = 0;
  for (const SnapshotInfo& snapshot : *snapshots) compactions += snapshot.commit_kind == "COMPACT";
  EXPECT_GT(compactions, 0) << "no background compaction in " << snapshots->size() << " snapshots";
  EXPECT_EQ(pk::ReadAll(**table), model.Rows(true));
  if (c.dynamic_buckets) {
    EXPECT_GE(CountBucketDirectories(dir.Sub("t") + "/dt=a"), 3);
  }
  auto compacted = (*table)->Compact(CompactOptions{true, {}});
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_EQ(CommittedRows(**table), model.Rows(true)) << "committed files after a full compaction";
  EXPECT_EQ(pk::ReadAll(**table), model.Rows(true));
}

INSTANTIATE_TEST_SUITE_P(
    Engines, RealtimePrimaryKeyDifferentialTest,
    ::testing::Values(
        Case{"deduplicate"}, Case{"partial-update"}, Case{"aggregation"}, Case{"first-row"},
        Case{"deduplicate", true}, Case{"partial-update", true}, Case{"aggregation", true},
        Case{"deduplicate", false, "spilling"}, Case{"aggregation", false, "spilling"},
        Case{"deduplicate", false, "indexed"}, Case{"partial-update", true, "indexed"},
        Case{"aggregation", false, "indexed"}, Case{"first-row", false, "indexed"},
        Case{"deduplicate", false, "columnar", true}, Case{"partial-update", true, "indexed", true},
        Case{"aggregation", false, "indexed", true}, Case{"first-row", false, "columnar", true}),
    CaseName);

// Rows are readable before the commit, a delete hides a committed key at once, and after a
// restart (a new context) new rows continue the bucket's sequence numbers: they win over the
// committed versions of their keys.
TEST(RealtimePrimaryKeyTest, ReadBeforeCommitAndRestartContinuesSequenceNumbers) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  {
    auto table = Table::Create(path, pk::SchemaSpec(RealtimeOptions("deduplicate")));
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    auto writer = NewWriter(**table);
    ASSERT_TRUE(Write(*writer, {Row{"a", 1, "x", 1}, Row{"a", 2, "y", 2}}).ok());
    EXPECT_EQ(pk::ReadAll(**table), (std::vector<std::string>{"a|1|x|1", "a|2|y|2"}));
    EXPECT_TRUE(CommittedRows(**table).empty());
    ASSERT_TRUE(writer->Commit().ok());
    ASSERT_TRUE(Write(*writer, {Row{"a", 1, "x", 1, RowKind::kDelete}}).ok());
    EXPECT_EQ(pk::ReadAll(**table), (std::vector<std::string>{"a|2|y|2"}));
    EXPECT_EQ(CommittedRows(**table), (std::vector<std::string>{"a|1|x|1", "a|2|y|2"}));
    ASSERT_TRUE(writer->Commit().ok());
  }
  // Every Table of the path is gone: the next one starts a new context, as a new process would.
  auto table = Table::Open(path);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(pk::ReadAll(**table), (std::vector<std::string>{"a|2|y|2"}));
  auto writer = NewWriter(**table);
  ASSERT_TRUE(Write(*writer, {Row{"a", 2, "z", 3}, Row{"a", 1, "w", 4}}).ok());
  EXPECT_EQ(pk::ReadAll(**table), (std::vector<std::string>{"a|1|w|4", "a|2|z|3"}));
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(CommittedRows(**table), (std::vector<std::string>{"a|1|w|4", "a|2|z|3"}));
}

// Projection and predicates apply after the merge: a newer version that fails the predicate
// hides the older one that passes, and a partial update shows the fields older versions hold.
TEST(RealtimePrimaryKeyTest, PredicatesAndProjectionApplyAfterTheMerge) {
  TempDir dir;
  auto table = Table::Create(dir.Sub("t"), pk::SchemaSpec(RealtimeOptions("partial-update")));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto writer = NewWriter(**table);
  ASSERT_TRUE(Write(*writer, {Row{"a", 1, "x", 10}, Row{"a", 2, "y", 20}}).ok());
  ASSERT_TRUE(writer->Commit().ok());
  ASSERT_TRUE(Write(*writer, {Row{"a", 1, std::nullopt, 99}, Row{"a", 2, "q", std::nullopt}}).ok());
  ReadOptions options;
  options.filter = "v < 50";
  auto reader = (*table)->NewReader(options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(pk::SortedTexts(pk::DrainRows(**reader)), (std::vector<std::string>{"a|2|q|20"}));
}

// ignore-delete drops retract rows at Write, as Java's writer does; a bad row kind is refused
// and stores nothing.
TEST(RealtimePrimaryKeyTest, IgnoreDeleteAndBadRowKinds) {
  TempDir dir;
  auto table = Table::Create(
      dir.Sub("t"), pk::SchemaSpec(RealtimeOptions("deduplicate", "ignore-delete", "true")));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto writer = NewWriter(**table);
  ASSERT_TRUE(Write(*writer, {Row{"a", 1, "x", 1}}).ok());
  ASSERT_TRUE(Write(*writer, {Row{"a", 1, "x", 1, RowKind::kDelete}, Row{"a", 2, "y", 2}}).ok());
  EXPECT_EQ(pk::ReadAll(**table), (std::vector<std::string>{"a|1|x|1", "a|2|y|2"}));

  auto batch = pk::MakeBatch({Row{"a", 3, "z", 3}}, KindColumn::kNone);
  arrow::Int8Builder kinds;
  ASSERT_TRUE(kinds.Append(7).ok());
  auto bad = *batch->AddColumn(batch->num_columns(), arrow::field("_ROW_KIND", arrow::int8()),
                               *kinds.Finish());
  Status refused = pk::WriteRows(writer.get(), bad);
  EXPECT_TRUE(refused.IsInvalid()) << refused.ToString();
  EXPECT_EQ(pk::ReadAll(**table), (std::vector<std::string>{"a|1|x|1", "a|2|y|2"}));
}

// Commits of primary-key rows keep the append tables' rules: a range that leaves a gap after or
// overlaps the committed progress is refused and publishes nothing, a retry of a landed commit
// (same identifier) returns it, and the same ranges under a new identifier are refused.
TEST(RealtimePrimaryKeyTest, CommitRefusesGapsAndOverlapsAndRetriesAreIdempotent) {
  TempDir dir;
  auto options = RealtimeOptions("aggregation");  // rows committed twice would show as sums
  options["bucket"] = "1";
  auto table = Table::Create(dir.Sub("t"), pk::SchemaSpec(options));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto writer = NewWriter(**table);
  pk::Model model("aggregation");
  auto write = [&](const std::vector<Row>& rows) {
    for (const Row& r : rows) model.Apply(r);
    return Write(*writer, rows);
  };
  ASSERT_TRUE(write({Row{"a", 1, "x", 1}, Row{"a", 2, "y", 10}}).ok());
  ASSERT_TRUE(writer->Commit().ok());
  ASSERT_TRUE(write({Row{"a", 1, "z", 100}, Row{"a", 3, "w", 1000}}).ok());
  auto context = (*table)->Realtime();
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  realtime::RealtimeWrite& rt = realtime::InternalImpl(**context).write();
  auto messages = rt.PrepareCommit();
  ASSERT_TRUE(messages.ok()) << messages.status().ToString();
  ASSERT_EQ(messages->size(), 1u);
  ASSERT_EQ((*messages)[0].range, (realtime::OffsetRange{2, 4}));

  for (int64_t begin : {3, 1}) {
    auto tampered = *messages;
    tampered[0].range.begin = begin;
    auto refused = rt.Commit(tampered, rt.NextIdentifier());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find(begin > 2 ? "gap" : "overlap"), std::string::npos)
        << refused.status().ToString();
  }
  auto snapshots = (*table)->SnapshotIds();
  ASSERT_TRUE(snapshots.ok());
  EXPECT_EQ(snapshots->size(), 1u) << "a refused commit published a snapshot";
  EXPECT_EQ(pk::ReadAll(**table), model.Rows());

  const int64_t identifier = rt.NextIdentifier();
  auto first = rt.Commit(*messages, identifier);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto retry = rt.Commit(*messages, identifier);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_FALSE(first->already_committed);
  EXPECT_TRUE(retry->already_committed);
  EXPECT_EQ(first->snapshot_id, retry->snapshot_id);
  EXPECT_FALSE(rt.Commit(*messages, rt.NextIdentifier()).ok());
  EXPECT_EQ(CommittedRows(**table), model.Rows());
  EXPECT_EQ(pk::ReadAll(**table), model.Rows());
}

// Snapshot expiry under a real-time primary-key writer that compacts: the progress of a
// partition committed only in an expired snapshot survives, a restart continues it, and no
// committed row is lost or counted twice.
TEST(RealtimePrimaryKeyTest, ProgressSurvivesExpiryAndCompaction) {
  TempDir dir;
  const std::string path = dir.Sub("t");
  auto options = RealtimeOptions("aggregation");
  options["snapshot.num-retained.min"] = "1";
  options["snapshot.num-retained.max"] = "2";
  options["num-sorted-run.compaction-trigger"] = "2";
  pk::Model model("aggregation");
  {
    auto table = Table::Create(path, pk::SchemaSpec(options));
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    auto writer = NewWriter(**table);
    std::vector<Row> first{Row{"a", 1, "x", 1}, Row{"a", 2, "y", 2}};
    for (const Row& r : first) model.Apply(r);
    ASSERT_TRUE(Write(*writer, first).ok());  // partition a: committed in snapshot 1 only
    ASSERT_TRUE(writer->Commit().ok());
    for (int i = 0; i < 6; ++i) {
      std::vector<Row> rows{Row{"b", i % 3, "n" + std::to_string(i), 10}};
      for (const Row& r : rows) model.Apply(r);
      ASSERT_TRUE(Write(*writer, rows).ok());
      ASSERT_TRUE(writer->Commit().ok());
      ASSERT_EQ(pk::ReadAll(**table), model.Rows()) << "after commit " << i;
    }
    auto ids = (*table)->SnapshotIds();
    ASSERT_TRUE(ids.ok());
    ASSERT_GT(ids->front(), 1) << "snapshot 1 must have expired for this test";
  }
  auto table = Table::Open(path);  // a new context, as a new process
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(pk::ReadAll(**table), model.Rows());
  auto context = (*table)->Realtime();
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto writer = NewWriter(**table);
  std::vector<Row> more{Row{"a", 1, "q", 100}, Row{"b", 0, "r", 1000}};
  for (const Row& r : more) model.Apply(r);
  ASSERT_TRUE(Write(*writer, more).ok());
  auto committed = writer->Commit();
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();  // a's range continues at 2
  EXPECT_EQ(CommittedRows(**table), model.Rows());
  EXPECT_EQ(pk::ReadAll(**table), model.Rows());
}

}  // namespace
}  // namespace freshet::testing
