// Changelog producers against Java Paimon 1.4 (docs/streaming-reads.md, "Changelog producers"):
//   * freshet writes with `input` / `full-compaction`: Java reads every snapshot row-exact, and
//     Java's streaming read of the table (harness `stream-read`) gives, snapshot by snapshot, the
//     row kinds and rows freshet's streaming read gives;
//   * Java writes with each producer (and compacts for full-compaction and lookup): freshet's
//     streaming read gives what Java's gives;
//   * changelog retained longer than snapshots: freshet keeps it in changelog/ as Java does, Java
//     reads the table after expiration and streams the kept changelog as freshet does.
#include <gtest/gtest.h>

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/json.h"
#include "freshet/stream.h"
#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

namespace fs = std::filesystem;
using freshet::testing::pk::KindColumn;
using freshet::testing::pk::MakeBatch;
using freshet::testing::pk::Model;
using freshet::testing::pk::Row;
using freshet::testing::pk::SchemaSpec;

using Stream = std::map<int64_t, std::vector<std::string>>;  // canonical rows by snapshot

std::string JsonLine(const Row& r, const std::string& kind_key) {
  std::string line = "{";
  if (!kind_key.empty()) line += "\"" + kind_key + "\": \"" + RowKindShortString(r.kind) + "\", ";
  line += R"("dt": )" + JsonString(r.dt) + R"(, "id": )" + std::to_string(r.id) + R"(, "name": )" +
          (r.name ? JsonString(*r.name) : "null") + R"(, "v": )" +
          (r.v ? std::to_string(*r.v) : "null");
  return line + "}";
}

std::vector<Row> RandomRows(std::mt19937_64& rng, Model* model) {
  std::vector<Row> rows(1 + rng() % 40);
  const RowKind kinds[] = {RowKind::kInsert, RowKind::kInsert, RowKind::kUpdateAfter,
                           RowKind::kDelete};
  for (Row& r : rows) {
    r.dt = std::string(1, static_cast<char>('a' + rng() % 2));
    r.id = static_cast<int64_t>(rng() % 30);
    if (rng() % 4 != 0) r.name = "n" + std::to_string(rng() % 4);
    r.v = static_cast<int64_t>(rng() % 3);
    r.kind = kinds[rng() % 4];
    if (model) model->Apply(r);
  }
  return rows;
}

// freshet's streaming read from snapshot `from` to the latest, grouped by snapshot.
Stream FreshetStream(const std::string& path, int64_t from) {
  Stream out;
  auto table = Table::Open(path);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return out;
  auto snapshots = (*table)->Snapshots();
  EXPECT_TRUE(snapshots.ok() && !snapshots->empty());
  if (!snapshots.ok() || snapshots->empty()) return out;
  StreamOptions options;
  options.mode = ScanMode::kFromSnapshot;
  options.snapshot_id = from;
  options.end_snapshot_id = snapshots->back().id;
  options.with_row_kind = true;
  auto reader = (*table)->NewStreamReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  ArrowSchema c_schema;
  EXPECT_TRUE((*reader)->ExportArrowSchema(&c_schema).ok());
  auto schema = *arrow::ImportSchema(&c_schema);
  std::map<int64_t, std::string> lines;
  while (true) {
    ArrowArray array;
    auto more = (*reader)->Next(&array);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    const auto& kind = static_cast<const arrow::StringArray&>(*batch->column(0));
    const auto& dt = static_cast<const arrow::StringArray&>(*batch->column(1));
    const auto& id = static_cast<const arrow::Int64Array&>(*batch->column(2));
    const auto& name = static_cast<const arrow::StringArray&>(*batch->column(3));
    const auto& v = static_cast<const arrow::Int64Array&>(*batch->column(4));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      Row r{dt.GetString(i), id.Value(i), std::nullopt, std::nullopt, RowKind::kInsert};
      if (name.IsValid(i)) r.name = name.GetString(i);
      if (v.IsValid(i)) r.v = v.Value(i);
      std::string line = JsonLine(r, "");
      line.insert(1, "\"_ROW_KIND\": \"" + kind.GetString(i) + "\", ");
      lines[*(*reader)->snapshot_id()] += line + "\n";
    }
  }
  for (const auto& [id, text] : lines) out[id] = CanonicalRows(text);
  return out;
}

Stream JavaStream(const std::string& path, std::optional<int64_t> from = {}) {
  std::vector<std::string> args = {"stream-read", "--table", path};
  if (from) {
    args.push_back("--snapshot");
    args.push_back(std::to_string(*from));
  }
  CommandResult read = RunCommand(JavaCommand(args));
  EXPECT_TRUE(read.ok()) << read.Describe();
  Stream out;
  for (const auto& [id, text] : SplitSnapshots(read.out)) out[id] = CanonicalRows(text);
  return out;
}

std::string WithOptions(std::map<std::string, std::string> options) {
  options["bucket"] = "2";
  options["file.format"] = "parquet";
  return SchemaSpec(options);
}

class ChangelogInteropTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_EQ(JavaHarnessProblem(), ""); }
  freshet::testing::TempDir dir_;
};

TEST_P(ChangelogInteropTest, JavaStreamsWhatFreshetWrites) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/t");
  // "lookup+dv": the lookup producer on a deletion-vector table.
  std::map<std::string, std::string> options = {{"write-buffer-size", "4 kb"},
                                                {"num-sorted-run.compaction-trigger", "3"}};
  options["changelog-producer"] = GetParam();
  if (GetParam() == "lookup+dv") {
    options["changelog-producer"] = "lookup";
    options["deletion-vectors.enabled"] = "true";
  }
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, WithOptions(options)));
  Model model("deduplicate");
  std::vector<std::string> expected;  // the model after each commit
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  for (int commit = 0; commit < 5; ++commit) {
    for (int b = 0; b < 2; ++b) {
      ASSERT_OK(freshet::testing::pk::WriteRows(
          writer.get(), MakeBatch(RandomRows(rng, &model), KindColumn::kUtf8)));
    }
    ASSERT_OK(writer->Commit().status());
  }
  // Java reads every snapshot as freshet does.
  CommandResult all = RunCommand(JavaCommand({"read", "--table", path, "--all-snapshots"}));
  ASSERT_TRUE(all.ok()) << all.Describe();
  for (const auto& [id, text] : SplitSnapshots(all.out)) {
    CommandResult ours = RunCommand(
        {FreshetCliPath(), "read", path, "--snapshot", std::to_string(id), "--format", "jsonl"});
    ASSERT_TRUE(ours.ok()) << ours.Describe();
    EXPECT_EQ(CanonicalRows(text), CanonicalRows(ours.out)) << "snapshot " << id;
  }
  Stream java = JavaStream(path);
  EXPECT_FALSE(java.empty());
  EXPECT_EQ(FreshetStream(path, 1), java);
  // The CLI's --delta gives the same as the stream reader.
  for (const auto& [id, rows] : java) {
    CommandResult delta = RunCommand({FreshetCliPath(), "read", path, "--delta", std::to_string(id),
                                      "--with-row-kind", "--format", "jsonl"});
    ASSERT_TRUE(delta.ok()) << delta.Describe();
    EXPECT_EQ(CanonicalRows(delta.out), rows) << "snapshot " << id;
  }
}

INSTANTIATE_TEST_SUITE_P(Producers, ChangelogInteropTest,
                         ::testing::Values("input", "full-compaction", "lookup", "lookup+dv"));

class JavaChangelogInteropTest : public ChangelogInteropTest {};

TEST_P(JavaChangelogInteropTest, FreshetStreamsWhatJavaWrites) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/t");
  const std::string producer = GetParam();
  const bool compacts = producer != "input";
  // Java's writer does not compact (write-only): its compaction runs as its own command.
  WriteTextFile(dir_.Sub("schema.json"),
                WithOptions({{"changelog-producer", producer}, {"write-only", "true"}}));
  Chain chain = {JavaCommand({"create", "--table", path, "--schema", dir_.Sub("schema.json")})};
  for (int commit = 0; commit < 4; ++commit) {
    std::string input;
    for (const Row& r : RandomRows(rng, nullptr)) input += JsonLine(r, "_kind") + "\n";
    std::string file = dir_.Sub("rows" + std::to_string(commit) + ".jsonl");
    WriteTextFile(file, input);
    chain.push_back(JavaCommand({"write", "--table", path, "--input", file}));
    if (compacts) chain.push_back(JavaCommand({"compact", "--table", path, "--full"}));
  }
  auto results = RunChains({chain});
  ASSERT_EQ(FirstFailure(results), "");
  Stream java = JavaStream(path);
  EXPECT_FALSE(java.empty());
  EXPECT_EQ(FreshetStream(path, 1), java);
}

INSTANTIATE_TEST_SUITE_P(Producers, JavaChangelogInteropTest,
                         ::testing::Values("input", "full-compaction", "lookup"));

// Java writes a lookup aggregation table with its own compaction (lookup-wait: every commit
// pushes its level-0 file up, merged with the key's older record, which stays in a higher
// level). Java reads a key from its lowest level above 0 only (LookupMergeFunction); freshet's
// reads must do the same at every snapshot, and its streaming read must give Java's changelog.
TEST_F(ChangelogInteropTest, FreshetReadsJavasLookupAggregationAsJavaDoes) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/t");
  WriteTextFile(dir_.Sub("schema.json"), WithOptions({{"changelog-producer", "lookup"},
                                                      {"merge-engine", "aggregation"},
                                                      {"fields.v.aggregate-function", "sum"}}));
  Chain chain = {JavaCommand({"create", "--table", path, "--schema", dir_.Sub("schema.json")})};
  for (int commit = 0; commit < 5; ++commit) {
    std::string input;
    for (Row r : RandomRows(rng, nullptr)) {
      r.kind = RowKind::kInsert;  // sums: no retractions
      input += JsonLine(r, "_kind") + "\n";
    }
    std::string file = dir_.Sub("rows" + std::to_string(commit) + ".jsonl");
    WriteTextFile(file, input);
    chain.push_back(JavaCommand({"write", "--table", path, "--input", file}));
  }
  auto results = RunChains({chain});
  ASSERT_EQ(FirstFailure(results), "");
  CommandResult all = RunCommand(JavaCommand({"read", "--table", path, "--all-snapshots"}));
  ASSERT_TRUE(all.ok()) << all.Describe();
  int snapshots = 0;
  for (const auto& [id, text] : SplitSnapshots(all.out)) {
    CommandResult ours = RunCommand(
        {FreshetCliPath(), "read", path, "--snapshot", std::to_string(id), "--format", "jsonl"});
    ASSERT_TRUE(ours.ok()) << ours.Describe();
    EXPECT_EQ(CanonicalRows(text), CanonicalRows(ours.out)) << "snapshot " << id;
    ++snapshots;
  }
  EXPECT_GE(snapshots, 10) << "an APPEND and a COMPACT snapshot per commit";
  Stream java = JavaStream(path);
  EXPECT_FALSE(java.empty());
  EXPECT_EQ(FreshetStream(path, 1), java);
}

// Changelog retained longer than snapshots: expired snapshots leave changelog/changelog-<id>,
// their changelog files stay until the changelog retention lets them go, Java reads the table,
// and both streaming reads from snapshot 1 give the same changes.
TEST_F(ChangelogInteropTest, ChangelogOutlivesItsSnapshotsAsInJava) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/t");
  ASSERT_OK_AND_ASSIGN(
      auto table, Table::Create(path, WithOptions({{"changelog-producer", "input"},
                                                   {"write-only", "false"},
                                                   {"snapshot.num-retained.min", "2"},
                                                   {"snapshot.num-retained.max", "2"},
                                                   {"changelog.num-retained.min", "4"},
                                                   {"changelog.num-retained.max", "4"},
                                                   {"snapshot.time-retained", "1 ms"},
                                                   {"changelog.time-retained", "1 ms"},
                                                   {"num-sorted-run.compaction-trigger", "100"}})));
  Model model("deduplicate");
  for (int commit = 0; commit < 7; ++commit) {
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    ASSERT_OK(freshet::testing::pk::WriteRows(
        writer.get(), MakeBatch(RandomRows(rng, &model), KindColumn::kUtf8)));
    ASSERT_OK(writer->Commit().status());
  }
  // Snapshots 6 and 7 remain; the changelog of 4 and 5 is kept in changelog/, older is gone.
  ASSERT_OK_AND_ASSIGN(auto snapshots, table->Snapshots());
  ASSERT_EQ(snapshots.size(), 2u);
  EXPECT_EQ(snapshots.front().id, 6);
  for (int64_t id = 1; id <= 5; ++id) {
    EXPECT_EQ(fs::exists(path + "/changelog/changelog-" + std::to_string(id)), id >= 4) << id;
  }
  CommandResult latest = RunCommand(JavaCommand({"read", "--table", path}));
  ASSERT_TRUE(latest.ok()) << latest.Describe();
  CommandResult ours = RunCommand({FreshetCliPath(), "read", path, "--format", "jsonl"});
  ASSERT_TRUE(ours.ok()) << ours.Describe();
  EXPECT_EQ(CanonicalRows(latest.out), CanonicalRows(ours.out));
  EXPECT_EQ(CanonicalRows(ours.out).size(), model.Rows().size());
  Stream java = JavaStream(path, 1);
  EXPECT_EQ(java.begin()->first, 4) << "Java starts at the kept changelog";
  EXPECT_EQ(FreshetStream(path, 1), java);
}

}  // namespace
}  // namespace freshet::interop
