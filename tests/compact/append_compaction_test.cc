// Compaction of append tables (docs/compaction.md, "Append tables"): Java's picks as data, random
// writes with background and table compactions checked against a model of every bucket's rows
// in write order, COMPACT snapshots' entries, and an I/O error at every file operation.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "compact/append_compactor.h"
#include "compact/table_compaction.h"
#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "read/table_read.h"
#include "scan/table_scan.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/table_files.h"
#include "testing/test_util.h"
#include "write/append_compact_manager.h"
#include "write/row_keys.h"

namespace freshet::compact {
namespace {

namespace fs = std::filesystem;
using freshet::testing::LiveEntries;
using freshet::testing::UnreferencedDataFiles;
using BucketKey = std::pair<std::string, int32_t>;
using BucketRows = std::map<BucketKey, std::vector<int64_t>>;  // ids in read order

// ---------------------------------------------------------------------------------------------
// Java's picks (BucketedAppendCompactManagerTest and AppendCompactCoordinatorTest in spirit).

meta::DataFileMeta File(int64_t min_sequence, int64_t size, int64_t rows = 1) {
  meta::DataFileMeta file;
  file.file_name = "f" + std::to_string(min_sequence);
  file.file_size = size;
  file.row_count = rows;
  file.min_sequence_number = min_sequence;
  file.max_sequence_number = min_sequence + rows - 1;
  return file;
}

std::vector<int64_t> Starts(const std::vector<meta::DataFileMeta>& files) {
  std::vector<int64_t> out;
  for (const auto& f : files) out.push_back(f.min_sequence_number);
  return out;
}

write::AppendCompactOptions PickOptions() {
  write::AppendCompactOptions options;
  options.min_file_num = 4;
  options.target_file_size = 1024;
  options.compaction_file_size = 700;
  options.open_file_cost = 0;
  return options;
}

TEST(AppendPickTest, WindowSlidesPastLargeFilesAndForgetsThem) {
  auto options = PickOptions();
  // 1500 + 600 >= 2 x 1024: the large file leaves the window (and the queue); then four files.
  std::vector<meta::DataFileMeta> queue = {File(0, 1500), File(1, 600), File(2, 100),
                                           File(3, 100),  File(4, 100), File(5, 100)};
  auto picked = write::PickCompactBefore(&queue, options);
  ASSERT_TRUE(picked.has_value());
  EXPECT_EQ(Starts(*picked), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Starts(queue), (std::vector<int64_t>{5}));
  // Too few: nothing, and a queue of small files is kept whole.
  EXPECT_FALSE(write::PickCompactBefore(&queue, options).has_value());
  EXPECT_EQ(Starts(queue), (std::vector<int64_t>{5}));
  // Large files alone slide out and are forgotten, as Java's writer forgets them.
  std::vector<meta::DataFileMeta> large = {File(0, 2100), File(1, 2100), File(2, 100)};
  EXPECT_FALSE(write::PickCompactBefore(&large, options).has_value());
  EXPECT_EQ(Starts(large), (std::vector<int64_t>{2}));
}

TEST(AppendPickTest, FullCompactionSkipsLeadingLargeFilesAndNeedsMoreSmallOnes) {
  auto options = PickOptions();
  EXPECT_TRUE(write::PickFullCompaction({File(0, 100), File(1, 100)}, options).empty());
  EXPECT_EQ(Starts(write::PickFullCompaction(
                {File(0, 900), File(1, 100), File(2, 900), File(3, 100), File(4, 100)}, options)),
            (std::vector<int64_t>{1, 2, 3, 4}));
  // As many large as small files after the leading large one: nothing.
  EXPECT_TRUE(write::PickFullCompaction(
                  {File(0, 900), File(1, 100), File(2, 900), File(3, 100), File(4, 900)}, options)
                  .empty());
  options.force_rewrite_all_files = true;
  EXPECT_EQ(write::PickFullCompaction({File(0, 900), File(1, 900)}, options).size(), 2u);
}

TEST(AppendPickTest, CoordinatorPacksBySizeAndAgesPartitionsOut) {
  auto options = PickOptions();
  options.min_file_num = 3;
  write::AppendCompactCoordinator coordinator(&options);
  // Bins close at 2 x target: 600 + 500 + 400 (sorted: 400, 500, 600 -> 1500 < 2048; + 700 no,
  // 700 is not small) ... the small ones: 400, 500, 600, 650 -> 2150 closes one bin of four.
  std::map<std::string, std::vector<meta::DataFileMeta>> live = {
      {"p", {File(0, 600), File(1, 500), File(2, 400), File(3, 650), File(4, 700)}}};
  auto tasks = coordinator.Plan(live, false);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(Starts(tasks[0].files), (std::vector<int64_t>{0, 1, 2, 3}));  // in sequence order
  // Two small files: fewer than min-file-num, packed by nobody until the partition ages out
  // after more than five plans (or at once when full).
  std::map<std::string, std::vector<meta::DataFileMeta>> two = {{"q", {File(7, 10), File(8, 10)}}};
  EXPECT_EQ(coordinator.Plan(two, true).size(), 1u);
  for (int plan = 1; plan <= 5; ++plan) EXPECT_TRUE(coordinator.Plan(two, false).empty()) << plan;
  ASSERT_EQ(coordinator.Plan(two, false).size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Tables

std::string Spec(const std::map<std::string, std::string>& options) {
  std::string spec =
      R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "v", "type": "STRING"},
      {"name": "dt", "type": "STRING"}], "partitionKeys": ["dt"], "options": {)";
  bool first = true;
  for (const auto& [k, v] : options) {
    spec += std::string(first ? "" : ", ") + "\"" + k + "\": \"" + v + "\"";
    first = false;
  }
  return spec + "}}";
}

std::shared_ptr<arrow::Schema> RowSchema() {
  return arrow::schema({arrow::field("id", arrow::int64()), arrow::field("v", arrow::utf8()),
                        arrow::field("dt", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<int64_t>& ids,
                                          const std::vector<std::string>& dts) {
  arrow::Int64Builder id;
  arrow::StringBuilder v, dt;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_TRUE(id.Append(ids[i]).ok());
    EXPECT_TRUE(v.Append("value-" + std::to_string(ids[i] * 7919 % 100003)).ok());
    EXPECT_TRUE(dt.Append(dts[i]).ok());
  }
  return arrow::RecordBatch::Make(RowSchema(), static_cast<int64_t>(ids.size()),
                                  {*id.Finish(), *v.Finish(), *dt.Finish()});
}

Result<meta::TableSchema> LatestSchema(const std::string& path) {
  meta::SchemaManager schemas(io::LocalFileIO(), path);
  FRESHET_ASSIGN_OR_RETURN(auto latest, schemas.LatestSchema());
  if (!latest) return Status::NotFound("no schema");
  return *latest;
}

// Every partition-bucket's ids as a reader returns them (splits in the scan's order, files
// concatenated as Java concatenates them).
Result<BucketRows> ReadBuckets(const std::string& path, std::optional<int64_t> snapshot = {}) {
  auto file_io = io::LocalFileIO();
  FRESHET_ASSIGN_OR_RETURN(auto schema, LatestSchema(path));
  scan::ScanOptions options;
  options.snapshot_id = snapshot;
  FRESHET_ASSIGN_OR_RETURN(auto plan, scan::TableScan(file_io, path).Plan(options));
  FRESHET_ASSIGN_OR_RETURN(auto read, read::TableRead::Make(file_io, path, schema));
  BucketRows rows;
  for (const auto& split : plan.splits) {
    FRESHET_ASSIGN_OR_RETURN(auto reader, read.CreateReader(split));
    std::vector<int64_t>& out = rows[{split.partition, split.bucket}];
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      auto ids = std::static_pointer_cast<arrow::Int64Array>(batch->column(0));
      for (int64_t i = 0; i < ids->length(); ++i) out.push_back(ids->Value(i));
    }
  }
  return rows;
}

// The rows written so far, per partition-bucket in write order: what an append read returns
// for a fixed bucket. Unaware-bucket tables promise no order (Java packs files by size).
class AppendModel {
 public:
  AppendModel(const meta::TableSchema& schema, bool ordered)
      : keys_(*write::RowKeyExtractor::Make(schema)), ordered_(ordered) {}

  void Add(const arrow::RecordBatch& batch) {
    write::RowKeys keys = *keys_.Extract(batch);
    auto ids = std::static_pointer_cast<arrow::Int64Array>(batch.column(0));
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      std::string partition = meta::SerializeBinaryRow(
          keys.partitions[static_cast<size_t>(keys.partition_of_row[static_cast<size_t>(i)])]);
      int32_t bucket = keys.bucket_of_row.empty() ? 0 : keys.bucket_of_row[static_cast<size_t>(i)];
      rows_[{partition, bucket}].push_back(ids->Value(i));
    }
  }

  BucketRows Expected() const { return Normalized(rows_); }
  BucketRows Normalized(BucketRows rows) const {
    for (auto it = rows.begin(); it != rows.end();) {
      if (it->second.empty()) {
        it = rows.erase(it);
        continue;
      }
      if (!ordered_) std::sort(it->second.begin(), it->second.end());
      ++it;
    }
    return rows;
  }

 private:
  write::RowKeyExtractor keys_;
  bool ordered_;
  BucketRows rows_;
};

Status WriteBatch(TableWriter* writer, const std::shared_ptr<arrow::RecordBatch>& batch) {
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Invalid("export");
  return writer->Write(&array, &schema);
}

// A COMPACT snapshot against the one before it: it deletes small files and adds fewer or as
// many COMPACT files holding the same rows per bucket, with sequence numbers starting at the
// replaced files' first one (fixed buckets).
void CheckCompactSnapshot(const std::string& path, int64_t id, bool fixed) {
  std::map<std::string, meta::ManifestEntry> before, after;
  for (auto& e : LiveEntries(path, id - 1)) before.emplace(e.file.file_name, e);
  for (auto& e : LiveEntries(path, id)) after.emplace(e.file.file_name, e);
  std::map<BucketKey, int64_t> rows_deleted, rows_added, min_deleted, min_added;
  int deleted = 0, added = 0;
  for (const auto& [name, e] : before) {
    if (after.count(name)) continue;
    ++deleted;
    BucketKey key{e.partition, e.bucket};
    rows_deleted[key] += e.file.row_count;
    auto [it, fresh] = min_deleted.try_emplace(key, e.file.min_sequence_number);
    if (!fresh) it->second = std::min(it->second, e.file.min_sequence_number);
  }
  for (const auto& [name, e] : after) {
    if (before.count(name)) continue;
    ++added;
    EXPECT_EQ(e.file.file_source, static_cast<int32_t>(meta::FileSource::kCompact)) << name;
    BucketKey key{e.partition, e.bucket};
    rows_added[key] += e.file.row_count;
    auto [it, fresh] = min_added.try_emplace(key, e.file.min_sequence_number);
    if (!fresh) it->second = std::min(it->second, e.file.min_sequence_number);
  }
  EXPECT_GT(deleted, 0) << "snapshot " << id;
  EXPECT_LT(added, deleted) << "snapshot " << id;
  EXPECT_EQ(rows_added, rows_deleted) << "snapshot " << id;
  if (fixed) {
    EXPECT_EQ(min_added, min_deleted) << "snapshot " << id;
  }
}

struct Layout {
  std::string bucket;
  std::string format;
};

class AppendCompactionDifferentialTest : public ::testing::TestWithParam<Layout> {};

// Writers that live for several commits (compacting in the background, waiting for it or not)
// and table passes (Java's pick or full) at random: every snapshot reads every row written, in
// write order within a fixed bucket; COMPACT snapshots replace files by fewer with the same
// rows; old snapshots read as they did; nothing unreferenced stays on disk; the files get fewer.
TEST_P(AppendCompactionDifferentialTest, EverySnapshotReadsTheRowsWritten) {
  const Layout& p = GetParam();
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  std::map<std::string, std::string> options = {{"bucket", p.bucket},
                                                {"file.format", p.format},
                                                {"target-file-size", "16 kb"},
                                                {"compaction.min.file-num", "3"}};
  // freshet's Avro writer counts a whole open block (64 KB) into a file's size, so smaller
  // targets roll every batch into a file of its own, and a compaction could not make fewer.
  if (p.format == "avro") options["target-file-size"] = "256 kb";
  if (p.bucket != "-1") options["bucket-key"] = "id";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, Spec(options)));
  ASSERT_OK_AND_ASSIGN(auto schema, LatestSchema(path));
  const bool fixed = p.bucket != "-1";
  AppendModel model(schema, fixed);
  std::map<int64_t, BucketRows> expected;
  size_t most_files = 0;
  auto check = [&](int64_t id, const std::string& kind) {
    ASSERT_OK_AND_ASSIGN(auto info, table->Snapshot(id));
    EXPECT_EQ(info.commit_kind, kind) << "snapshot " << id;
    expected[id] = model.Expected();
    ASSERT_OK_AND_ASSIGN(BucketRows got, ReadBuckets(path, id));
    EXPECT_EQ(model.Normalized(got), expected[id]) << "snapshot " << id;
    if (kind == "COMPACT") CheckCompactSnapshot(path, id, fixed);
    most_files = std::max(most_files, LiveEntries(path, id).size());
  };
  int64_t next_id = 0, writer_compactions = 0, passes = 0;
  std::unique_ptr<TableWriter> writer;
  for (int commit = 0; commit < 14; ++commit) {
    if (commit % 5 == 0) {
      ASSERT_OK_AND_ASSIGN(writer, table->NewWriter());
    }
    for (int b = 0; b < 1 + static_cast<int>(rng() % 2); ++b) {
      std::vector<int64_t> ids(1 + rng() % 40);
      std::vector<std::string> dts(ids.size());
      for (size_t i = 0; i < ids.size(); ++i) {
        ids[i] = next_id++;
        dts[i] = rng() % 3 == 0 ? "b" : "a";
      }
      auto batch = Batch(ids, dts);
      ASSERT_OK(WriteBatch(writer.get(), batch));
      model.Add(*batch);
    }
    CommitOptions commit_options;
    commit_options.wait_compaction = rng() % 2 == 0;
    ASSERT_OK_AND_ASSIGN(auto before, table->SnapshotIds());
    ASSERT_OK_AND_ASSIGN(auto id, writer->Commit(commit_options));
    ASSERT_TRUE(id.has_value());
    int64_t first = before.empty() ? 1 : before.back() + 1;
    for (int64_t s = first; s <= *id; ++s) {
      ASSERT_OK_AND_ASSIGN(auto info, table->Snapshot(s));
      writer_compactions += info.commit_kind == "COMPACT";
      check(s, info.commit_kind);
    }
    if (rng() % 3 == 0) continue;
    CompactOptions pass;
    pass.full = rng() % 2 == 0;
    ASSERT_OK_AND_ASSIGN(CompactResult result, table->Compact(pass));
    if (!result.snapshot_id) continue;
    ++passes;
    EXPECT_LT(result.files_after, result.files_before);
    check(*result.snapshot_id, "COMPACT");
  }
  writer.reset();
  // Which of the writers and the passes find work depends on timing; both ran, and compacted.
  EXPECT_GT(writer_compactions + passes, 0);
  for (const auto& [id, rows] : expected) {
    ASSERT_OK_AND_ASSIGN(BucketRows got, ReadBuckets(path, id));
    EXPECT_EQ(model.Normalized(got), rows) << "snapshot " << id;
  }
  EXPECT_TRUE(UnreferencedDataFiles(path).empty());
  // A last full pass leaves fewer files than the table ever had, and every row.
  ASSERT_OK(table->Compact(CompactOptions{true, {}}).status());
  EXPECT_LT(LiveEntries(path).size(), most_files);
  ASSERT_OK_AND_ASSIGN(BucketRows got, ReadBuckets(path));
  EXPECT_EQ(model.Normalized(got), model.Expected());
}

INSTANTIATE_TEST_SUITE_P(Layouts, AppendCompactionDifferentialTest,
                         ::testing::Values(Layout{"2", "parquet"}, Layout{"2", "orc"},
                                           Layout{"-1", "parquet"}, Layout{"-1", "orc"},
                                           Layout{"1", "avro"}),
                         [](const auto& info) {
                           return (info.param.bucket == "-1" ? std::string("unaware")
                                                             : "bucket" + info.param.bucket) +
                                  "_" + info.param.format;
                         });

// An I/O error at each file operation of a full pass (reads, new files, manifests, the
// snapshot): the table reads as before, nothing the pass wrote stays unreferenced when it
// failed, and the next pass compacts.
class AppendCompactionFaultTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AppendCompactionFaultTest, AnIoErrorAtEveryOperationLosesNothing) {
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  std::map<std::string, std::string> options = {{"bucket", GetParam()},
                                                {"target-file-size", "16 kb"}};
  if (GetParam() != "-1") options["bucket-key"] = "id";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, Spec(options)));
  ASSERT_OK_AND_ASSIGN(auto schema, LatestSchema(path));
  const bool fixed = GetParam() != "-1";
  AppendModel model(schema, fixed);
  for (int c = 0; c < 4; ++c) {
    // write-only: the files stay small and many, for the pass.
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    std::vector<int64_t> ids;
    std::vector<std::string> dts;
    for (int i = 0; i < 20; ++i) {
      ids.push_back(c * 20 + i);
      dts.push_back(i % 2 ? "a" : "b");
    }
    auto batch = Batch(ids, dts);
    ASSERT_OK(WriteBatch(writer.get(), batch));
    model.Add(*batch);
    ASSERT_OK(writer->Commit().status());
  }
  ASSERT_OK_AND_ASSIGN(auto ids_before, table->SnapshotIds());
  std::string copy = dir.Sub("copy");
  freshet::testing::CopyTree(path, copy);
  auto faults = std::make_shared<io::FaultInjectingFileIO>(io::LocalFileIO());
  TableCompactOptions full;
  full.full = true;
  full.max_attempts = 1;
  ASSERT_OK_AND_ASSIGN(auto counted, CompactTable(faults, copy, schema, full));
  ASSERT_TRUE(counted.snapshot_id.has_value());
  const int64_t operations = faults->operation_count();
  ASSERT_GT(operations, 10);
  int failed = 0;
  for (int64_t op = 0; op < operations; ++op) {
    SCOPED_TRACE("failing operation " + std::to_string(op));
    fs::remove_all(copy);
    freshet::testing::CopyTree(path, copy);
    faults->Reset();
    faults->FailOperationAt(op);
    auto result = CompactTable(faults, copy, schema, full);
    faults->Reset();
    ASSERT_OK_AND_ASSIGN(BucketRows got, ReadBuckets(copy));
    EXPECT_EQ(model.Normalized(got), model.Expected());
    if (result.ok()) continue;
    ++failed;
    ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(copy));
    ASSERT_OK_AND_ASSIGN(auto ids, reopened->SnapshotIds());
    EXPECT_EQ(ids.size(), ids_before.size()) << result.status().ToString();
    EXPECT_TRUE(UnreferencedDataFiles(copy).empty()) << result.status().ToString();
    ASSERT_OK_AND_ASSIGN(auto again, reopened->Compact(CompactOptions{true, {}}));
    EXPECT_TRUE(again.snapshot_id.has_value());
    ASSERT_OK_AND_ASSIGN(BucketRows after, ReadBuckets(copy));
    EXPECT_EQ(model.Normalized(after), model.Expected());
  }
  EXPECT_GT(failed, 0);
}

INSTANTIATE_TEST_SUITE_P(Buckets, AppendCompactionFaultTest, ::testing::Values("2", "-1"),
                         [](const auto& info) {
                           return info.param == "-1" ? std::string("unaware") : "bucket2";
                         });

// What freshet cannot compact is refused, naming the option; write-only writers do not compact.
TEST(AppendCompactionTest, RefusalsNameTheOption) {
  freshet::testing::TempDir dir;
  for (const char* option :
       {"deletion-vectors.enabled", "row-tracking.enabled", "data-evolution.enabled"}) {
    auto table = Table::Create(dir.Sub(option), Spec({{option, "true"}}));
    if (!table.ok()) continue;  // refused at create: nothing to compact either
    Status st = (*table)->Compact().status();
    EXPECT_EQ(st.code(), StatusCode::kNotImplemented) << option;
    EXPECT_NE(st.message().find(option), std::string::npos) << st.ToString();
  }
  ASSERT_OK_AND_ASSIGN(
      auto table, Table::Create(dir.Sub("wo"),
                                Spec({{"write-only", "true"}, {"compaction.min.file-num", "2"}})));
  for (int c = 0; c < 4; ++c) {
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    ASSERT_OK(WriteBatch(writer.get(), Batch({c}, {"a"})));
    ASSERT_OK(writer->Commit(CommitOptions{false, false, {}, true}).status());
    ASSERT_OK(WriteBatch(writer.get(), Batch({c + 100}, {"a"})));
    ASSERT_OK(writer->Commit(CommitOptions{false, false, {}, true}).status());
  }
  ASSERT_OK_AND_ASSIGN(auto snapshots, table->Snapshots());
  for (const auto& s : snapshots) EXPECT_EQ(s.commit_kind, "APPEND");
  // An external pass still compacts a write-only table, as Java's dedicated job does.
  ASSERT_OK_AND_ASSIGN(CompactResult result, table->Compact());
  EXPECT_TRUE(result.snapshot_id.has_value());
}

}  // namespace
}  // namespace freshet::compact
