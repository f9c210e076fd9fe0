// Streaming and incremental reads (include/freshet/stream.h, docs/streaming-reads.md), checked
// against a model: random inserts, upserts, retracts and deletes over several commits into an
// append table and a primary-key table (partitioned, two buckets), written through the public
// API; every snapshot's delta, every full starting plan, every batch read with row kinds and
// incremental ranges are compared with what the model says Java Paimon returns.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "freshet/stream.h"
#include "freshet/table.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

using Rows = std::multiset<std::string>;  // "kind id p v"

std::string Row(const std::string& kind, int64_t id, int64_t v) {
  return kind + " " + std::to_string(id) + " " + std::to_string(id % 3) + " " + std::to_string(v);
}

std::string Spec(bool primary_key) {
  std::string spec = R"({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
      {"name": "p", "type": "INT NOT NULL"}, {"name": "v", "type": "BIGINT"}],
      "partitionKeys": ["p"], )";
  if (primary_key) {
    // write-only: one snapshot per commit (no COMPACT snapshots from the writer), so that a
    // commit's snapshot id is its delta's.
    spec += R"("primaryKeys": ["id", "p"], "options": {"bucket": "2", "write-only": "true"}})";
  } else {
    spec += R"("options": {"bucket": "2", "bucket-key": "id"}})";
  }
  return spec;
}

struct Op {
  std::string kind;
  int64_t id;
  int64_t v;
};

Status WriteOps(TableWriter& writer, const std::vector<Op>& ops, bool primary_key) {
  arrow::Int64Builder ids, vs;
  arrow::Int32Builder ps;
  arrow::StringBuilder kinds;
  for (const Op& op : ops) {
    (void)ids.Append(op.id);
    (void)ps.Append(static_cast<int32_t>(op.id % 3));
    (void)vs.Append(op.v);
    (void)kinds.Append(op.kind);
  }
  std::vector<std::shared_ptr<arrow::Field>> fields = {arrow::field("id", arrow::int64(), false),
                                                       arrow::field("p", arrow::int32(), false),
                                                       arrow::field("v", arrow::int64())};
  std::vector<std::shared_ptr<arrow::Array>> columns = {*ids.Finish(), *ps.Finish(), *vs.Finish()};
  if (primary_key) {
    fields.push_back(arrow::field("_ROW_KIND", arrow::utf8()));
    columns.push_back(*kinds.Finish());
  }
  auto batch =
      arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(ops.size()), columns);
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  return writer.Write(&array, &schema);
}

struct Batch {
  std::optional<int64_t> snapshot;
  Rows rows;
};

// Every batch the reader has now (Next until false), rows as "kind id p v" ("+I" when the read
// has no kind column).
Result<std::vector<Batch>> Drain(TableStreamReader& reader) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader.ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  const bool kinds = schema->field(0)->name() == kRowKindColumn;
  std::vector<Batch> out;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&array));
    if (!more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    Batch b{reader.snapshot_id(), {}};
    int c = kinds ? 1 : 0;
    const auto& id = static_cast<const arrow::Int64Array&>(*batch->column(c));
    const auto& v = static_cast<const arrow::Int64Array&>(*batch->column(c + 2));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      std::string kind =
          kinds ? static_cast<const arrow::StringArray&>(*batch->column(0)).GetString(i) : "+I";
      b.rows.insert(Row(kind, id.Value(i), v.Value(i)));
    }
    out.push_back(std::move(b));
  }
  return out;
}

Rows AllRows(const std::vector<Batch>& batches) {
  Rows rows;
  for (const Batch& b : batches) rows.insert(b.rows.begin(), b.rows.end());
  return rows;
}

Result<Rows> ReadAll(const Table& table, const StreamOptions& options) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, table.NewStreamReader(options));
  FRESHET_ASSIGN_OR_RETURN(auto batches, Drain(*reader));
  return AllRows(batches);
}

// The model: per snapshot, what it added (its delta, as written) and the live rows after it
// (each key with the kind of its last version, as a merged read gives it).
struct Model {
  bool primary_key = false;
  std::map<int64_t, Rows> delta;                           // APPEND snapshots
  std::map<int64_t, Rows> state;                           // every snapshot
  std::map<int64_t, std::pair<std::string, int64_t>> now;  // pk: id -> (kind, v)
  Rows appended;                                           // append table: live rows
  std::map<int64_t, bool> overwrite;                       // snapshot -> was an overwrite

  Rows Live() const {
    if (!primary_key) return appended;
    Rows rows;
    for (const auto& [id, kv] : now) rows.insert(Row(kv.first, id, kv.second));
    return rows;
  }
  Rows Between(int64_t a, int64_t b) const {
    Rows rows;
    for (int64_t s = a + 1; s <= b; ++s) {
      auto it = delta.find(s);
      if (it != delta.end()) rows.insert(it->second.begin(), it->second.end());
    }
    return rows;
  }
};

// Writes `commits` random commits and returns the model of what they hold.
Model WriteRandomCommits(Table& table, bool primary_key, int commits, uint32_t seed) {
  Model model;
  model.primary_key = primary_key;
  std::mt19937 rng(seed);
  auto writer = std::move(table.NewWriter()).ValueOrDie();
  int64_t value = 0;
  for (int c = 0; c < commits; ++c) {
    std::vector<Op> ops;
    bool overwrite = !primary_key && c == commits / 2;
    if (primary_key) {
      // Each key at most once per commit: a commit's delta is then exactly what it wrote.
      std::set<int64_t> used;
      int n = 1 + static_cast<int>(rng() % 12);
      for (int i = 0; i < n; ++i) {
        int64_t id = static_cast<int64_t>(rng() % 24);
        if (!used.insert(id).second) continue;
        bool exists = model.now.count(id) > 0;
        std::string kind;
        switch (rng() % 5) {
          case 0:
          case 1:
            kind = exists ? "+U" : "+I";
            break;
          case 2:
            kind = "+I";
            break;
          case 3:
            kind = exists ? "-D" : "+I";
            break;
          default:
            kind = exists ? "-U" : "+U";
            break;
        }
        int64_t v = (kind == "-D" || kind == "-U") ? model.now[id].second : ++value;
        ops.push_back({kind, id, v});
      }
    } else {
      int n = 1 + static_cast<int>(rng() % 10);
      for (int i = 0; i < n; ++i) ops.push_back({"+I", static_cast<int64_t>(rng() % 50), ++value});
    }
    EXPECT_OK(WriteOps(*writer, ops, primary_key));
    CommitOptions options;
    options.overwrite_all = overwrite;
    auto snapshot = writer->Commit(options);
    EXPECT_TRUE(snapshot.ok() && *snapshot) << snapshot.status().ToString();
    int64_t id = **snapshot;
    Rows delta;
    for (const Op& op : ops) {
      delta.insert(Row(op.kind, op.id, op.v));
      if (primary_key) {
        if (op.kind == "-D" || op.kind == "-U") {
          model.now.erase(op.id);
        } else {
          model.now[op.id] = {op.kind, op.v};
        }
      }
    }
    if (overwrite) {
      model.appended.clear();
      model.overwrite[id] = true;
    } else {
      model.delta[id] = delta;
    }
    if (!primary_key) model.appended.insert(delta.begin(), delta.end());
    model.state[id] = model.Live();
  }
  return model;
}

class StreamReadModelTest : public ::testing::TestWithParam<bool> {};

TEST_P(StreamReadModelTest, DeltasFullPlansBatchKindsAndIncrementalRangesMatchTheModel) {
  const bool primary_key = GetParam();
  testing::TempDir dir;
  for (uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ASSERT_OK_AND_ASSIGN(auto table,
                         Table::Create(dir.Sub("t" + std::to_string(seed)), Spec(primary_key)));
    const int commits = 8;
    Model model = WriteRandomCommits(*table, primary_key, commits, seed);
    ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
    ASSERT_EQ(ids.size(), static_cast<size_t>(commits));

    for (int64_t s : ids) {
      SCOPED_TRACE("snapshot " + std::to_string(s));
      // What a streaming read emits for snapshot s: its delta (nothing for an overwrite).
      StreamOptions delta;
      delta.mode = ScanMode::kFromSnapshot;
      delta.snapshot_id = s;
      delta.end_snapshot_id = s;
      delta.with_row_kind = true;
      ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(delta));
      ASSERT_OK_AND_ASSIGN(auto batches, Drain(*reader));
      EXPECT_TRUE(reader->finished());
      EXPECT_EQ(reader->next_snapshot_id(), s + 1);
      EXPECT_EQ(AllRows(batches), model.delta.count(s) ? model.delta.at(s) : Rows{});
      for (const Batch& b : batches) EXPECT_EQ(b.snapshot, s);

      // The full starting plan of s (from-snapshot-full): the merged rows with their kinds.
      StreamOptions full;
      full.mode = ScanMode::kFromSnapshotFull;
      full.snapshot_id = s;
      full.end_snapshot_id = s;
      full.with_row_kind = true;
      ASSERT_OK_AND_ASSIGN(Rows full_rows, ReadAll(*table, full));
      EXPECT_EQ(full_rows, model.state.at(s));

      // A batch read of s with row kinds: the same (no level-0 skipping for these tables).
      StreamOptions batch;
      batch.streaming = false;
      batch.snapshot_id = s;
      batch.with_row_kind = true;
      ASSERT_OK_AND_ASSIGN(Rows batch_rows, ReadAll(*table, batch));
      EXPECT_EQ(batch_rows, model.state.at(s));
    }

    // One streaming read from snapshot 1 (default mode + snapshot id = from-snapshot): one plan
    // per APPEND snapshot, in order, then caught up.
    StreamOptions from_first;
    from_first.snapshot_id = ids.front();
    from_first.with_row_kind = true;
    ASSERT_OK_AND_ASSIGN(auto stream, table->NewStreamReader(from_first));
    ASSERT_OK_AND_ASSIGN(auto batches, Drain(*stream));
    std::map<int64_t, Rows> by_snapshot;
    int64_t last = 0;
    for (const Batch& b : batches) {
      ASSERT_TRUE(b.snapshot);
      EXPECT_GE(*b.snapshot, last);
      last = *b.snapshot;
      by_snapshot[*b.snapshot].insert(b.rows.begin(), b.rows.end());
    }
    std::map<int64_t, Rows> expected_deltas;
    for (const auto& [s, rows] : model.delta) {
      if (!rows.empty()) expected_deltas[s] = rows;
    }
    EXPECT_EQ(by_snapshot, expected_deltas);
    EXPECT_FALSE(stream->finished());
    EXPECT_EQ(stream->next_snapshot_id(), ids.back() + 1);
    ASSERT_OK_AND_ASSIGN(bool fresh, stream->WaitForNext(0));
    EXPECT_FALSE(fresh);

    // latest-full: the latest snapshot's rows, then nothing until the next commit.
    StreamOptions latest_full;
    latest_full.mode = ScanMode::kLatestFull;
    latest_full.with_row_kind = true;
    ASSERT_OK_AND_ASSIGN(auto latest_reader, table->NewStreamReader(latest_full));
    ASSERT_OK_AND_ASSIGN(auto latest_batches, Drain(*latest_reader));
    EXPECT_EQ(AllRows(latest_batches), model.state.at(ids.back()));

    // Incremental ranges (A, B]: the deltas of the APPEND snapshots in the range.
    std::mt19937 rng(seed * 7);
    for (int i = 0; i < 12; ++i) {
      int64_t a = static_cast<int64_t>(rng() % (commits + 1));
      int64_t b = a + static_cast<int64_t>(rng() % (commits + 1 - a));
      SCOPED_TRACE("incremental-between " + std::to_string(a) + "," + std::to_string(b));
      StreamOptions incremental;
      incremental.incremental_between = std::to_string(a) + "," + std::to_string(b);
      incremental.streaming = false;
      incremental.with_row_kind = true;
      ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table, incremental));
      EXPECT_EQ(rows, model.Between(a, b));
    }

    // A filter on the key keeps the change records of matching keys only.
    StreamOptions filtered;
    filtered.incremental_between = "0," + std::to_string(ids.back());
    filtered.streaming = false;
    filtered.with_row_kind = true;
    filtered.filter = "id < 8 AND p = 1";
    ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table, filtered));
    Rows expected;
    for (const std::string& row : model.Between(0, ids.back())) {
      int64_t id = std::stoll(row.substr(3));
      if (id < 8 && id % 3 == 1) expected.insert(row);
    }
    EXPECT_EQ(rows, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(AppendAndPrimaryKey, StreamReadModelTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "PrimaryKey" : "Append"; });

// Projection: `_ROW_KIND` first, then the selected columns in their order; without
// with_row_kind a primary-key delta still carries its retract records.
TEST(StreamReadTest, ProjectionAndRowKindColumn) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), Spec(true)));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteOps(*writer, {{"+I", 1, 10}, {"+I", 2, 20}}, true));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK(WriteOps(*writer, {{"-D", 1, 10}, {"+U", 2, 21}}, true));
  ASSERT_OK(writer->Commit().status());

  StreamOptions options;
  options.incremental_between = "1,2";
  options.streaming = false;
  options.columns = {"v", "id"};
  options.with_row_kind = true;
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
  ArrowSchema c_schema;
  ASSERT_OK(reader->ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  ASSERT_EQ(schema->num_fields(), 3);
  EXPECT_EQ(schema->field(0)->name(), "_ROW_KIND");
  EXPECT_EQ(schema->field(1)->name(), "v");
  EXPECT_EQ(schema->field(2)->name(), "id");

  options.with_row_kind = false;
  options.columns = {};
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table, options));
  EXPECT_EQ(rows, (Rows{Row("+I", 1, 10), Row("+I", 2, 21)}));  // no kinds: shown as +I here

  // A batch read with kinds: the merged kind of each live key.
  StreamOptions batch;
  batch.streaming = false;
  batch.with_row_kind = true;
  ASSERT_OK_AND_ASSIGN(rows, ReadAll(*table, batch));
  EXPECT_EQ(rows, Rows{Row("+U", 2, 21)});
}

TEST(StreamReadTest, ScanModesResolveAsJavaDoes) {
  EXPECT_EQ(*ParseScanMode("FULL"), ScanMode::kLatestFull);
  EXPECT_EQ(*ParseScanMode("from-snapshot-full"), ScanMode::kFromSnapshotFull);
  EXPECT_STREQ(ScanModeName(ScanMode::kFromTimestamp), "from-timestamp");
  EXPECT_TRUE(ParseScanMode("compacted-full").status().IsNotImplemented());

  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), Spec(false)));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(WriteOps(*writer, {{"+I", i, i}}, false));
    ASSERT_OK(writer->Commit().status());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Modes that need a snapshot id, a time or a range say so.
  StreamOptions options;
  options.mode = ScanMode::kFromSnapshot;
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());
  options.mode = ScanMode::kIncremental;
  options.incremental_between = "1,3";
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());  // streaming
  options.streaming = false;
  options.incremental_between = "3,1";
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());
  options.incremental_between = "0,9";  // past the latest
  EXPECT_FALSE(ReadAll(*table, options).ok());
  options.incremental_between = "2,2";
  EXPECT_EQ(*ReadAll(*table, options), Rows{});

  // from-timestamp: the changes of the snapshots committed at or after the time.
  ASSERT_OK_AND_ASSIGN(SnapshotInfo third, table->Snapshot(3));
  StreamOptions from_time;
  from_time.timestamp_millis = third.time_millis;  // default mode + time = from-timestamp
  from_time.end_snapshot_id = 4;
  ASSERT_OK_AND_ASSIGN(Rows rows, ReadAll(*table, from_time));
  ASSERT_OK_AND_ASSIGN(auto snapshots, table->Snapshots());
  Rows expected;
  for (const auto& s : snapshots) {
    if (s.time_millis >= third.time_millis) expected.insert(Row("+I", s.id - 1, s.id - 1));
  }
  EXPECT_EQ(rows, expected);
  // A batch read at a time reads the snapshot at or before it.
  from_time.streaming = false;
  from_time.end_snapshot_id.reset();
  ASSERT_OK_AND_ASSIGN(rows, ReadAll(*table, from_time));
  EXPECT_EQ(rows.size(), 3u);

  // latest: nothing of what is there, then the next commit's rows.
  StreamOptions latest;
  latest.mode = ScanMode::kLatest;
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(latest));
  ASSERT_OK_AND_ASSIGN(auto batches, Drain(*reader));
  EXPECT_TRUE(batches.empty());
  ASSERT_OK(WriteOps(*writer, {{"+I", 100, 100}}, false));
  ASSERT_OK(writer->Commit().status());
  ASSERT_OK_AND_ASSIGN(batches, Drain(*reader));
  EXPECT_EQ(AllRows(batches), Rows{Row("+I", 100, 100)});
  EXPECT_EQ(reader->snapshot_id(), 5);

  // An overwrite is passed over by a streaming read (streaming-read-overwrite unset).
  ASSERT_OK(WriteOps(*writer, {{"+I", 200, 200}}, false));
  CommitOptions overwrite;
  overwrite.overwrite_all = true;
  ASSERT_OK(writer->Commit(overwrite).status());
  ASSERT_OK_AND_ASSIGN(batches, Drain(*reader));
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(reader->next_snapshot_id(), 7);
}

// WaitForNext returns when another writer commits (here another Table object on another thread,
// as another process would).
TEST(StreamReadTest, WaitForNextReturnsWhenAnotherWriterCommits) {
  testing::TempDir dir;
  const std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, Spec(true)));
  StreamOptions options;  // latest-full of a table without snapshots: waits for the first
  options.with_row_kind = true;
  options.poll_interval_millis = 10;
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
  ASSERT_OK_AND_ASSIGN(auto batches, Drain(*reader));
  EXPECT_TRUE(batches.empty());
  ASSERT_OK_AND_ASSIGN(bool fresh, reader->WaitForNext(30));
  EXPECT_FALSE(fresh);

  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    std::thread other([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      auto other_table = Table::Open(path);
      ASSERT_TRUE(other_table.ok());
      auto writer = std::move((*other_table)->NewWriter()).ValueOrDie();
      ASSERT_TRUE(
          WriteOps(*writer, {{round == 2 ? "-D" : "+U", 7, 70 + (round == 2 ? 1 : round)}}, true)
              .ok());
      ASSERT_TRUE(writer->Commit().ok());
    });
    auto start = std::chrono::steady_clock::now();
    ASSERT_OK_AND_ASSIGN(fresh, reader->WaitForNext(20000));
    auto waited = std::chrono::steady_clock::now() - start;
    other.join();
    EXPECT_TRUE(fresh);
    EXPECT_LT(waited, std::chrono::seconds(10));
    ASSERT_OK_AND_ASSIGN(batches, Drain(*reader));
    // Round 0 is the starting plan (latest-full of snapshot 1: the merged row), then deltas.
    const char* kinds[] = {"+U", "+U", "-D"};
    EXPECT_EQ(AllRows(batches), Rows{Row(kinds[round], 7, 70 + (round == 2 ? 1 : round))});
    EXPECT_EQ(reader->snapshot_id(), round + 1);
  }
}

}  // namespace
}  // namespace freshet
