// Primary-key table writes (write/key_value_table_write.h), read back through the public API
// and compared with a model of each merge engine.
#include "write/key_value_table_write.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "commit/file_store_commit.h"
#include "compact/merge_tree_compactor.h"
#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::write {
namespace {

namespace fs = std::filesystem;

using testing::pk::EngineKinds;
using testing::pk::EngineOptions;
using testing::pk::KindColumn;
using testing::pk::MakeBatch;
using testing::pk::Model;
using testing::pk::ReadAll;
using testing::pk::Row;
using testing::pk::SchemaSpec;
using testing::pk::Text;
using testing::pk::WriteRows;

struct EngineFormat {
  std::string engine;
  std::string format;
  bool spillable;
};

std::string Name(const ::testing::TestParamInfo<EngineFormat>& info) {
  std::string name =
      info.param.engine + "_" + info.param.format + (info.param.spillable ? "_spill" : "_flush");
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class KeyValueDifferentialTest : public ::testing::TestWithParam<EngineFormat> {};

// Random inserts, updates and deletes over few keys in several partitions and buckets, in
// batches of random sizes with a tiny write buffer (many overlapping level-0 runs, or spilled
// runs), several commits and writer reopens: every snapshot reads as the model says.
TEST_P(KeyValueDifferentialTest, EverySnapshotMatchesTheModel) {
  const EngineFormat& p = GetParam();
  uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  auto options = EngineOptions(p.engine);
  options["bucket"] = "2";
  // The writer alone, one snapshot per commit: compaction has tests of its own
  // (tests/compact/compaction_test.cc).
  options["write-only"] = "true";
  options["file.format"] = p.format;
  options["write-buffer-size"] = "2 kb";
  options["write-buffer-spillable"] = p.spillable ? "true" : "false";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), SchemaSpec(options)));
  Model model(p.engine);
  std::vector<RowKind> kinds = EngineKinds(p.engine);
  std::vector<std::pair<int64_t, std::vector<std::string>>> snapshots;  // (id, rows)
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  for (int commit = 0; commit < 6; ++commit) {
    if (commit == 3) {  // a new writer continues the sequence numbers from the files
      ASSERT_OK_AND_ASSIGN(table, Table::Open(dir.Sub("t")));
      ASSERT_OK_AND_ASSIGN(writer, table->NewWriter());
    }
    int batches = 1 + static_cast<int>(rng() % 5);
    for (int b = 0; b < batches; ++b) {
      std::vector<Row> rows(1 + rng() % 60);
      for (Row& r : rows) {
        r.dt = std::string(1, static_cast<char>('a' + rng() % 2));
        r.id = static_cast<int64_t>(rng() % 40);
        if (rng() % 4 != 0) r.name = "n" + std::to_string(rng() % 1000);
        if (rng() % 4 != 0) r.v = static_cast<int64_t>(rng() % 100);
        r.kind = kinds[rng() % kinds.size()];
        model.Apply(r);
      }
      auto kind_column = rng() % 2 ? KindColumn::kInt8 : KindColumn::kUtf8;
      ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, kind_column)));
    }
    ASSERT_OK_AND_ASSIGN(auto id, writer->Commit());
    // first-row drops retracts at Write: a commit of retracts alone has nothing to commit.
    ASSERT_TRUE(id.has_value() || p.engine == "first-row") << "commit " << commit;
    if (!id) continue;
    snapshots.emplace_back(*id, model.Rows());
    EXPECT_EQ(ReadAll(*table), snapshots.back().second) << "after commit " << commit;
  }
  for (const auto& [id, rows] : snapshots) {
    EXPECT_EQ(ReadAll(*table, id), rows) << "snapshot " << id;
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, KeyValueDifferentialTest,
                         ::testing::Values(EngineFormat{"deduplicate", "parquet", true},
                                           EngineFormat{"deduplicate", "orc", false},
                                           EngineFormat{"deduplicate", "orc", true},
                                           EngineFormat{"deduplicate", "parquet", false},
                                           EngineFormat{"first-row", "parquet", true},
                                           EngineFormat{"first-row", "orc", false},
                                           EngineFormat{"partial-update", "parquet", false},
                                           EngineFormat{"partial-update", "orc", true},
                                           EngineFormat{"aggregation", "parquet", true},
                                           EngineFormat{"aggregation", "orc", false}),
                         Name);

class KeyValueTableWriteTest : public ::testing::Test {
 protected:
  std::shared_ptr<Table> Create(std::map<std::string, std::string> options = {}) {
    if (!options.count("bucket")) options["bucket"] = "1";
    // The level-0 files the writer writes, not what its compaction makes of them.
    if (!options.count("write-only")) options["write-only"] = "true";
    auto table = Table::Create(dir_.Sub("t"), SchemaSpec(options));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return table.ok() ? *table : nullptr;
  }
  // The live files of the latest snapshot, as the manifests hold them.
  std::vector<meta::ManifestEntry> LiveEntries() {
    auto io = io::LocalFileIO();
    auto latest = meta::SnapshotManager(io, dir_.Sub("t")).LatestSnapshot();
    EXPECT_TRUE(latest.ok() && latest->has_value());
    meta::ManifestFile manifests(io, dir_.Sub("t"));
    auto live = meta::ReadLiveEntries(manifests, **latest);
    EXPECT_TRUE(live.ok()) << live.status().ToString();
    return live.ok() ? *live : std::vector<meta::ManifestEntry>{};
  }
  testing::TempDir dir_;
};

TEST_F(KeyValueTableWriteTest, FileMetaIsWhatJavaWrites) {
  auto table = Create();
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  // id 1 twice (merged into one record), id 5 deleted (the retract is kept in the file).
  std::vector<Row> rows = {{"a", 3, "c", 15, RowKind::kInsert},
                           {"a", 1, "a", 25, RowKind::kInsert},
                           {"a", 2, std::nullopt, std::nullopt, RowKind::kInsert},
                           {"a", 1, "a2", 35, RowKind::kInsert},
                           {"a", 5, "x", 10, RowKind::kDelete}};
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kUtf8)));
  ASSERT_OK_AND_ASSIGN(auto id, writer->Commit());
  ASSERT_EQ(id, 1);
  auto entries = LiveEntries();
  ASSERT_EQ(entries.size(), 1u);
  const meta::DataFileMeta& f = entries[0].file;
  EXPECT_EQ(entries[0].total_buckets, 1);
  EXPECT_EQ(f.row_count, 4);
  EXPECT_EQ(f.min_sequence_number, 0);
  EXPECT_EQ(f.max_sequence_number, 4);
  EXPECT_EQ(f.delete_row_count, 1);
  EXPECT_EQ(f.level, 0);
  EXPECT_EQ(f.file_source, 0);
  EXPECT_EQ(f.schema_id, 0);
  EXPECT_FALSE(f.value_stats_cols.has_value());
  EXPECT_FALSE(f.embedded_index.has_value());
  EXPECT_TRUE(f.extra_files.empty());
  EXPECT_TRUE(f.creation_time_millis.has_value());
  EXPECT_EQ(f.file_name.rfind("data-", 0), 0u);
  // Keys: the trimmed primary key (id), as BinaryRows.
  auto key = [](int64_t id) {
    return meta::SerializeBinaryRow(*meta::BuildBinaryRow(
        std::vector<meta::DataTypePtr>{meta::DataType::BigInt(false)}, {meta::Value::BigInt(id)}));
  };
  EXPECT_EQ(f.min_key, key(1));
  EXPECT_EQ(f.max_key, key(5));
  EXPECT_EQ(f.key_stats.min_values, key(1));
  EXPECT_EQ(f.key_stats.max_values, key(5));
  EXPECT_EQ(f.key_stats.null_counts, (std::vector<std::optional<int64_t>>{0}));
  // Value stats cover the table columns dt, id, name, v.
  EXPECT_EQ(f.value_stats.null_counts, (std::vector<std::optional<int64_t>>{0, 0, 1, 1}));
  ASSERT_OK_AND_ASSIGN(auto min, meta::DeserializeBinaryRow(f.value_stats.min_values));
  ASSERT_OK_AND_ASSIGN(auto max, meta::DeserializeBinaryRow(f.value_stats.max_values));
  EXPECT_EQ(*min.GetBinary(2), "a2");
  EXPECT_EQ(*max.GetBinary(2), "x");
  EXPECT_EQ(*min.GetLong(3), 10);
  EXPECT_EQ(*max.GetLong(3), 35);
  EXPECT_EQ(ReadAll(*table), (std::vector<std::string>{"a|1|a2|35", "a|2|null|null", "a|3|c|15"}));
}

TEST_F(KeyValueTableWriteTest, SequenceNumbersContinueAfterReopening) {
  auto table = Create();
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(dir_.Sub("t")));
    ASSERT_OK_AND_ASSIGN(auto writer, reopened->NewWriter());
    std::vector<Row> rows = {{"a", 1, "r" + std::to_string(round), round, RowKind::kInsert},
                             {"a", 2, "s", round, RowKind::kInsert}};
    ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
    ASSERT_OK(writer->Commit().status());
  }
  auto entries = LiveEntries();
  ASSERT_EQ(entries.size(), 3u);
  std::vector<std::pair<int64_t, int64_t>> sequences;
  for (const auto& e : entries) {
    sequences.emplace_back(e.file.min_sequence_number, e.file.max_sequence_number);
  }
  std::sort(sequences.begin(), sequences.end());
  EXPECT_EQ(sequences, (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(ReadAll(*table), (std::vector<std::string>{"a|1|r2|2", "a|2|s|2"}));
}

TEST_F(KeyValueTableWriteTest, BadInputIsOneClearErrorAndChangesNothing) {
  auto table = Create({{"bucket", "2"}});
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(
      WriteRows(writer.get(), MakeBatch({{"a", 1, "x", 1, RowKind::kInsert}}, KindColumn::kNone)));
  ASSERT_OK_AND_ASSIGN(auto first, writer->Commit());
  ASSERT_EQ(first, 1);
  auto expect_refused = [&](const std::shared_ptr<arrow::RecordBatch>& batch,
                            const std::string& message) {
    Status st = WriteRows(writer.get(), batch);
    EXPECT_TRUE(st.IsInvalid()) << st.ToString();
    EXPECT_NE(st.ToString().find(message), std::string::npos) << st.ToString();
  };
  std::vector<Row> good = {{"a", 7, "y", 2, RowKind::kInsert}, {"b", 8, "z", 3, RowKind::kDelete}};
  // An unknown kind in the second row.
  auto bad_text = MakeBatch(good, KindColumn::kUtf8);
  {
    arrow::StringBuilder kinds;
    ASSERT_TRUE(kinds.AppendValues({"+I", "+X"}).ok());
    bad_text = *bad_text->SetColumn(4, bad_text->schema()->field(4), *kinds.Finish());
  }
  expect_refused(bad_text, "'_ROW_KIND' has '+X' in row 1");
  // A kind byte out of range, and a null kind.
  {
    arrow::Int8Builder kinds;
    ASSERT_TRUE(kinds.Append(7).ok());
    ASSERT_TRUE(kinds.AppendNull().ok());
    auto batch = MakeBatch(good, KindColumn::kInt8);
    expect_refused(*batch->SetColumn(4, batch->schema()->field(4), *kinds.Finish()),
                   "'_ROW_KIND' has 7 in row 0");
    arrow::Int8Builder nulls;
    ASSERT_TRUE(nulls.AppendValues(std::vector<int8_t>{0}).ok());
    ASSERT_TRUE(nulls.AppendNull().ok());
    expect_refused(*batch->SetColumn(4, batch->schema()->field(4), *nulls.Finish()),
                   "'_ROW_KIND' has a null in row 1");
  }
  // _ROW_KIND of another type.
  {
    arrow::Int32Builder kinds;
    ASSERT_TRUE(kinds.AppendValues({0, 0}).ok());
    auto batch = MakeBatch(good, KindColumn::kNone);
    expect_refused(
        *batch->AddColumn(4, arrow::field(kRowKindColumn, arrow::int32()), *kinds.Finish()),
        "'_ROW_KIND' has type int32, expected int8 or utf8");
  }
  // A null primary key in the second row.
  {
    auto batch = MakeBatch(good, KindColumn::kNone);
    arrow::Int64Builder ids;
    ASSERT_TRUE(ids.Append(7).ok());
    ASSERT_TRUE(ids.AppendNull().ok());
    expect_refused(*batch->SetColumn(1, arrow::field("id", arrow::int64()), *ids.Finish()),
                   "primary key column 'id' is null in row 1");
  }
  ASSERT_OK_AND_ASSIGN(auto none, writer->Commit());
  EXPECT_FALSE(none.has_value());
  ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
  EXPECT_EQ(ids, std::vector<int64_t>{1});
  EXPECT_EQ(ReadAll(*table), std::vector<std::string>{"a|1|x|1"});
}

TEST_F(KeyValueTableWriteTest, RowKindFieldOption) {
  auto table = Create({{"rowkind.field", "name"}});
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteRows(writer.get(), MakeBatch({{"a", 1, "+I", 1, RowKind::kInsert},
                                               {"a", 2, "+I", 2, RowKind::kInsert},
                                               {"a", 2, "-D", 2, RowKind::kInsert},
                                               {"a", 3, "+U", 3, RowKind::kInsert}},
                                              KindColumn::kNone)));
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(ReadAll(*table), (std::vector<std::string>{"a|1|+I|1", "a|3|+U|3"}));
  Status st = WriteRows(
      writer.get(), MakeBatch({{"a", 4, std::nullopt, 1, RowKind::kInsert}}, KindColumn::kNone));
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.ToString().find("row kind column 'name' has a null in row 0"), std::string::npos)
      << st.ToString();
  st = WriteRows(writer.get(), MakeBatch({{"a", 4, "+I", 1, RowKind::kInsert}}, KindColumn::kUtf8));
  EXPECT_TRUE(st.IsInvalid()) << st.ToString();
}

// Dynamic buckets (-1) are written: tests/write/dynamic_bucket_test.cc.
TEST_F(KeyValueTableWriteTest, PostponeBucketModeIsRefused) {
  testing::TempDir dir;
  auto table = Table::Create(dir.Sub("t"), SchemaSpec({{"bucket", "-2"}}));
  Status st = table.ok() ? (*table)->NewWriter().status() : table.status();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("'bucket'"), std::string::npos) << st.ToString();
}

TEST_F(KeyValueTableWriteTest, IgnoreDeleteDropsRetractsAtWrite) {
  auto table = Create({{"ignore-delete", "true"}});
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteRows(writer.get(), MakeBatch({{"a", 1, "x", 1, RowKind::kInsert},
                                               {"a", 1, "x", 1, RowKind::kDelete},
                                               {"a", 2, "y", 2, RowKind::kDelete}},
                                              KindColumn::kInt8)));
  ASSERT_OK(writer->Commit().status());
  auto entries = LiveEntries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].file.row_count, 1);
  EXPECT_EQ(entries[0].file.delete_row_count, 0);
  EXPECT_EQ(ReadAll(*table), std::vector<std::string>{"a|1|x|1"});
}

// A write buffer far smaller than the input: runs spill to temporary files (merged once there
// are too many), PrepareCommit merges them into one sorted run per bucket, and the spill files
// are gone afterwards.
TEST_F(KeyValueTableWriteTest, SpillsToTemporaryFilesAndMergesThem) {
  Create({{"write-buffer-size", "1 kb"}, {"file.format", "orc"}});
  ASSERT_OK_AND_ASSIGN(auto schema,
                       meta::SchemaManager(io::LocalFileIO(), dir_.Sub("t")).LatestSchema());
  ASSERT_OK_AND_ASSIGN(auto write,
                       KeyValueTableWrite::Make(io::LocalFileIO(), dir_.Sub("t"), *schema));
  Model model("deduplicate");
  for (int b = 0; b < 2 * SortBuffer::kMaxSpillRuns + 20; ++b) {
    std::vector<Row> rows;
    for (int i = 0; i < 20; ++i) {
      Row r{"a", (b * 7 + i * 13) % 300, "n" + std::to_string(b), i,
            i % 5 == 0 ? RowKind::kDelete : RowKind::kInsert};
      model.Apply(r);
      rows.push_back(r);
    }
    ASSERT_OK(write->Write(*MakeBatch(rows, KindColumn::kInt8)));
    EXPECT_LE(write->buffered_bytes(), 1024);
  }
  EXPECT_GT(write->spilled_runs(), SortBuffer::kMaxSpillRuns);
  std::string spill_dir = write->spill_directory();
  ASSERT_FALSE(spill_dir.empty());
  ASSERT_OK_AND_ASSIGN(auto messages, write->PrepareCommit());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].new_files.size(), 1u);
  EXPECT_TRUE(fs::is_empty(spill_dir));
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(dir_.Sub("t")));
  // Commit through a writer of the public API would write again: commit the messages directly.
  ASSERT_OK(write->Abort(messages));
  EXPECT_TRUE(fs::is_empty(dir_.Sub("t/dt=a/bucket-0")));
  write.reset();
  EXPECT_FALSE(fs::exists(spill_dir));
  // The same rows through the public API read as the model says.
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  Model again("deduplicate");
  for (int b = 0; b < 40; ++b) {
    std::vector<Row> rows;
    for (int i = 0; i < 20; ++i) {
      Row r{"a", (b * 7 + i * 13) % 300, "n" + std::to_string(b), i,
            i % 5 == 0 ? RowKind::kDelete : RowKind::kInsert};
      again.Apply(r);
      rows.push_back(r);
    }
    ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kInt8)));
  }
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(LiveEntries().size(), 1u);
  EXPECT_EQ(ReadAll(*table), again.Rows());
}

// Not spillable: a full buffer is flushed to a level-0 file, so a bucket gets many overlapping
// sorted runs that readers merge.
// Back-pressure: a writer whose full buffer flushes on every write, compacting in the
// background, never lets a bucket grow past num-sorted-run.stop-trigger (+1, the flush that
// made it wait); its commit holds the compactions and reads as the model says.
TEST_F(KeyValueTableWriteTest, StopTriggerBoundsTheSortedRuns) {
  auto table = Create({{"write-buffer-size", "1 kb"},
                       {"write-buffer-spillable", "false"},
                       {"num-sorted-run.compaction-trigger", "2"},
                       {"num-sorted-run.stop-trigger", "3"},
                       {"write-only", "false"}});
  ASSERT_OK_AND_ASSIGN(auto schema,
                       meta::SchemaManager(io::LocalFileIO(), dir_.Sub("t")).LatestSchema());
  ASSERT_OK_AND_ASSIGN(auto runner,
                       compact::MakeCompactionRunner(io::LocalFileIO(), dir_.Sub("t"), *schema));
  ASSERT_NE(runner, nullptr);
  ASSERT_OK_AND_ASSIGN(auto write,
                       KeyValueTableWrite::Make(io::LocalFileIO(), dir_.Sub("t"), *schema, runner));
  Model model("deduplicate");
  std::string partition;
  int max_runs = 0;
  for (int b = 0; b < 60; ++b) {
    std::vector<Row> rows;
    for (int i = 0; i < 30; ++i) {
      Row r{"a", (b * 11 + i * 3) % 90, "n" + std::to_string(b), b, RowKind::kInsert};
      model.Apply(r);
      rows.push_back(r);
    }
    ASSERT_OK(write->Write(*MakeBatch(rows, KindColumn::kNone)));
    if (partition.empty()) {
      partition = meta::SerializeBinaryRow(*meta::BuildBinaryRow(
          std::vector<meta::DataTypePtr>{meta::DataType::String()}, {meta::Value::String("a")}));
    }
    max_runs = std::max(max_runs, write->NumberOfSortedRuns(partition, 0));
  }
  EXPECT_GT(max_runs, 0) << "the writer did not track bucket 0";
  EXPECT_LE(max_runs, 4);
  ASSERT_OK_AND_ASSIGN(auto messages, write->PrepareCommit(PrepareOptions{true}));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_FALSE(messages[0].compact_after.empty());
  commit::FileStoreCommit committer(io::LocalFileIO(), dir_.Sub("t"), *schema,
                                    *meta::CoreOptions::Make(schema->options(), true),
                                    "stop-trigger-test");
  commit::CommitRequest request;
  request.messages = messages;
  ASSERT_OK_AND_ASSIGN(auto committed, committer.Commit(request));
  EXPECT_TRUE(committed.compaction_status.ok()) << committed.compaction_status.ToString();
  ASSERT_OK_AND_ASSIGN(table, Table::Open(dir_.Sub("t")));
  EXPECT_EQ(ReadAll(*table), model.Rows());
}

TEST_F(KeyValueTableWriteTest, FullBufferFlushesLevelZeroFiles) {
  auto table = Create({{"write-buffer-size", "1 kb"}, {"write-buffer-spillable", "false"}});
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  Model model("deduplicate");
  for (int b = 0; b < 10; ++b) {
    std::vector<Row> rows;
    for (int i = 0; i < 30; ++i) {
      Row r{"a", (b * 11 + i * 3) % 50, "n" + std::to_string(b), b, RowKind::kInsert};
      model.Apply(r);
      rows.push_back(r);
    }
    ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
  }
  ASSERT_OK(writer->Commit().status());
  EXPECT_GE(LiveEntries().size(), 5u);
  EXPECT_EQ(ReadAll(*table), model.Rows());
}

TEST_F(KeyValueTableWriteTest, RollsFilesAtTargetFileSize) {
  auto table = Create({{"target-file-size", "1 b"}, {"file.format", "parquet"}});
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  std::vector<Row> rows;
  for (int i = 0; i < 10000; ++i) rows.push_back({"a", i, "x", i, RowKind::kInsert});
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
  ASSERT_OK(writer->Commit().status());
  auto entries = LiveEntries();
  ASSERT_GE(entries.size(), 2u);
  // Files of one flush do not overlap: each holds the next key range.
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.file.min_sequence_number < b.file.min_sequence_number;
  });
  int64_t rows_total = 0;
  for (const auto& e : entries) rows_total += e.file.row_count;
  EXPECT_EQ(rows_total, 10000);
  EXPECT_EQ(ReadAll(*table).size(), 10000u);
}

TEST_F(KeyValueTableWriteTest, AbortDeletesEverything) {
  auto table = Create({{"write-buffer-size", "1 kb"}, {"write-buffer-spillable", "false"}});
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  std::vector<Row> rows;
  for (int i = 0; i < 500; ++i) rows.push_back({"a", i, "x", i, RowKind::kInsert});
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
  ASSERT_TRUE(fs::exists(dir_.Sub("t/dt=a/bucket-0")));
  EXPECT_FALSE(fs::is_empty(dir_.Sub("t/dt=a/bucket-0")));
  ASSERT_OK(writer->Abort());
  EXPECT_TRUE(fs::is_empty(dir_.Sub("t/dt=a/bucket-0")));
  ASSERT_OK_AND_ASSIGN(auto none, writer->Commit());
  EXPECT_FALSE(none.has_value());
}

}  // namespace
}  // namespace freshet::write
