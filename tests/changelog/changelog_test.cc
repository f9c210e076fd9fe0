// Changelog producers (write/changelog_files.h, compact/full_changelog.h) and streaming reads of
// the changelog (scan/stream_scan.h): random upserts and deletes, and after every snapshot
//   * its changelog, read as a streaming read gives it (from-snapshot N up to N), replayed over
//     the rows the changelog described so far, gives the rows the table now holds;
//   * `input`: the changelog of an APPEND snapshot is exactly the records written, in key order
//     (write order within a key), and COMPACT snapshots have none;
//   * `full-compaction`: APPEND snapshots have none; each full compaction's changelog is what
//     Java's FullChangelogMergeFunctionWrapper derives from the model's rows before and after
//     (+I new keys, -D removed ones, -U/+U of every key written since, unless row-deduplicate
//     finds its values unchanged).
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "freshet/stream.h"
#include "freshet/table.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using testing::pk::DrainRows;
using testing::pk::KindColumn;
using testing::pk::KindOf;
using testing::pk::MakeBatch;
using testing::pk::Model;
using testing::pk::ReadAll;
using testing::pk::Row;
using testing::pk::SchemaSpec;
using testing::pk::Text;
using testing::pk::WriteRows;

using Key = std::pair<std::string, int64_t>;

struct Change {
  RowKind kind;
  Row row;
};

std::string ChangeText(const Change& c) {
  return std::string(RowKindShortString(c.kind)) + " " + Text(c.row);
}

// What a streaming read gives for snapshot `id` alone, in read order.
std::vector<Change> ChangesOf(const Table& table, int64_t id) {
  StreamOptions options;
  options.mode = ScanMode::kFromSnapshot;
  options.snapshot_id = id;
  options.end_snapshot_id = id;
  options.with_row_kind = true;
  auto reader = table.NewStreamReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  std::vector<Change> changes;
  for (Row& r : DrainRows(**reader)) changes.push_back({r.kind, std::move(r)});
  return changes;
}

// The snapshots newer than `*seen`, oldest first; `*seen` becomes the newest.
std::vector<SnapshotInfo> SnapshotsAfter(const Table& table, int64_t* seen) {
  auto snapshots = table.Snapshots();
  EXPECT_TRUE(snapshots.ok()) << snapshots.status().ToString();
  std::vector<SnapshotInfo> newer;
  for (const SnapshotInfo& s : snapshots.ok() ? *snapshots : std::vector<SnapshotInfo>{}) {
    if (s.id <= *seen) continue;
    *seen = s.id;
    newer.push_back(s);
  }
  return newer;
}

// `changes` sorted by key, keeping their order within a key (files of one bucket are read in
// order; buckets in any order).
std::vector<std::string> ByKey(std::vector<Change> changes) {
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return Key{a.row.dt, a.row.id} < Key{b.row.dt, b.row.id};
  });
  std::vector<std::string> out;
  for (const Change& c : changes) out.push_back(ChangeText(c));
  return out;
}

// Applies changes to rows keyed by primary key, as a streaming consumer of a deduplicate table
// does: +I/+U set the row, -U/-D remove it (and must find it: a changelog never retracts what it
// did not insert).
void Replay(const std::vector<Change>& changes, std::map<Key, Row>* rows, bool strict) {
  for (const Change& c : changes) {
    Key key{c.row.dt, c.row.id};
    if (c.kind == RowKind::kInsert || c.kind == RowKind::kUpdateAfter) {
      (*rows)[key] = c.row;
      continue;
    }
    auto it = rows->find(key);
    if (strict) {
      ASSERT_NE(it, rows->end()) << "retract of a row never inserted: " << ChangeText(c);
      Row expected = it->second;
      expected.kind = c.row.kind;
      EXPECT_EQ(Text(expected), Text(c.row)) << "a retract carries the row it retracts";
    }
    if (it != rows->end()) rows->erase(it);
  }
}

std::vector<std::string> Texts(const std::map<Key, Row>& rows) {
  std::vector<std::string> out;
  for (const auto& [key, r] : rows) out.push_back(Text(r));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Row> RandomRows(std::mt19937_64& rng, Model* model) {
  std::vector<Row> rows(1 + rng() % 40);
  const RowKind kinds[] = {RowKind::kInsert, RowKind::kInsert, RowKind::kUpdateAfter,
                           RowKind::kDelete};
  for (Row& r : rows) {
    r.dt = std::string(1, static_cast<char>('a' + rng() % 2));
    r.id = static_cast<int64_t>(rng() % 40);
    if (rng() % 4 != 0) r.name = "n" + std::to_string(rng() % 4);  // often the same values
    r.v = static_cast<int64_t>(rng() % 3);
    r.kind = kinds[rng() % 4];
    model->Apply(r);
  }
  return rows;
}

std::map<std::string, std::string> BaseOptions(const std::string& producer,
                                               const std::string& format) {
  return {{"bucket", "2"},
          {"changelog-producer", producer},
          {"file.format", format},
          {"write-buffer-size", "4 kb"},  // several flushes per commit
          {"target-file-size", "3 kb"},
          {"num-sorted-run.compaction-trigger", "3"}};
}

// The changelog files under `path`.
std::set<std::string> ChangelogFilesOnDisk(const std::string& path, const std::string& prefix) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(path)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.insert(name);
  }
  return names;
}

class InputChangelogTest : public ::testing::TestWithParam<std::string> {};

TEST_P(InputChangelogTest, EveryAppendSnapshotHoldsItsInputInKeyOrder) {
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  std::string path = dir.Sub("t");
  auto options = BaseOptions("input", GetParam());
  options["changelog-file.prefix"] = "cl-";
  options["changelog-file.format"] = GetParam() == "avro" ? "parquet" : "avro";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
  Model model("deduplicate");
  std::map<Key, Row> replayed;
  int64_t seen = 0;
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  for (int commit = 0; commit < 10; ++commit) {
    std::vector<Row> written;
    for (int b = 0; b < 1 + static_cast<int>(rng() % 3); ++b) {
      std::vector<Row> rows = RandomRows(rng, &model);
      ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kUtf8)));
      written.insert(written.end(), rows.begin(), rows.end());
    }
    ASSERT_OK(writer->Commit().status());
    std::vector<Change> input;
    for (const Row& r : written) input.push_back({r.kind, r});
    for (const SnapshotInfo& s : SnapshotsAfter(*table, &seen)) {
      SCOPED_TRACE("snapshot " + std::to_string(s.id) + " " + s.commit_kind);
      std::vector<Change> changes = ChangesOf(*table, s.id);
      if (s.commit_kind == "APPEND") {
        EXPECT_EQ(ByKey(changes), ByKey(input));
      } else {
        EXPECT_TRUE(changes.empty()) << "a COMPACT snapshot of an input table has no changelog";
      }
      Replay(changes, &replayed, false);
      EXPECT_EQ(Texts(replayed), ReadAll(*table, s.id));
    }
    EXPECT_EQ(Texts(replayed), model.Rows());
  }
  EXPECT_FALSE(ChangelogFilesOnDisk(path, "cl-").empty());
  // An aborted write leaves no changelog file behind.
  std::set<std::string> before = ChangelogFilesOnDisk(path, "cl-");
  std::vector<Row> rows = RandomRows(rng, &model);
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kUtf8)));
  ASSERT_OK(writer->Abort());
  EXPECT_EQ(ChangelogFilesOnDisk(path, "cl-"), before);
}

INSTANTIATE_TEST_SUITE_P(Formats, InputChangelogTest, ::testing::Values("parquet", "orc", "avro"));

struct FullParam {
  std::string format;
  bool row_deduplicate;
};

class FullCompactionChangelogTest : public ::testing::TestWithParam<FullParam> {};

// Java's rule, from the rows before and after a full compaction and the keys written between.
std::vector<std::string> ExpectedFullChangelog(const std::map<Key, Row>& before,
                                               const std::map<Key, Row>& after,
                                               const std::set<Key>& written, bool deduplicate) {
  std::vector<Change> expected;
  for (const Key& key : written) {
    auto old_it = before.find(key);
    auto new_it = after.find(key);
    if (old_it == before.end()) {
      if (new_it != after.end()) expected.push_back({RowKind::kInsert, new_it->second});
    } else if (new_it == after.end()) {
      expected.push_back({RowKind::kDelete, old_it->second});
    } else if (!deduplicate || Text(old_it->second) != Text(new_it->second)) {
      expected.push_back({RowKind::kUpdateBefore, old_it->second});
      expected.push_back({RowKind::kUpdateAfter, new_it->second});
    }
  }
  return ByKey(expected);
}

TEST_P(FullCompactionChangelogTest, EachFullCompactionDescribesWhatChangedSinceTheLast) {
  const FullParam& p = GetParam();
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  std::string path = dir.Sub("t");
  auto options = BaseOptions("full-compaction", p.format);
  if (p.row_deduplicate) options["changelog-producer.row-deduplicate"] = "true";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
  Model model("deduplicate");
  std::map<Key, Row> replayed;   // what the changelog said so far
  std::map<Key, Row> compacted;  // the model's rows at the last full compaction
  std::set<Key> written;         // keys written since
  int64_t seen = 0;
  int compactions = 0;
  std::unique_ptr<TableWriter> writer;
  for (int commit = 0; commit < 10; ++commit) {
    if (commit % 4 == 0) {
      ASSERT_OK_AND_ASSIGN(writer, table->NewWriter());
    }
    for (int b = 0; b < 1 + static_cast<int>(rng() % 3); ++b) {
      std::vector<Row> rows = RandomRows(rng, &model);
      for (const Row& r : rows) written.insert({r.dt, r.id});
      ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kUtf8)));
    }
    // Every commit of a full-compaction table is due a full compaction, done before it returns.
    ASSERT_OK(writer->Commit().status());
    for (const SnapshotInfo& s : SnapshotsAfter(*table, &seen)) {
      SCOPED_TRACE("snapshot " + std::to_string(s.id) + " " + s.commit_kind);
      std::vector<Change> changes = ChangesOf(*table, s.id);
      if (s.commit_kind == "APPEND") {
        EXPECT_TRUE(changes.empty()) << "full-compaction tables write changelog at compaction";
        continue;
      }
      ++compactions;
      Replay(changes, &replayed, true);
      EXPECT_EQ(Texts(replayed), ReadAll(*table, s.id));
      std::map<Key, Row> after = replayed;
      EXPECT_EQ(ByKey(changes),
                ExpectedFullChangelog(compacted, after, written, p.row_deduplicate));
      compacted = after;
      written.clear();
    }
    EXPECT_EQ(Texts(replayed), model.Rows()) << "the last full compaction is this commit's";
  }
  EXPECT_EQ(compactions, 10);
}

INSTANTIATE_TEST_SUITE_P(Formats, FullCompactionChangelogTest,
                         ::testing::Values(FullParam{"parquet", false}, FullParam{"orc", true},
                                           FullParam{"avro", false}, FullParam{"parquet", true}));

// changelog-producer = lookup (and force-lookup without changelog): with lookup-wait, every
// commit's compaction pushes its level-0 records up and writes their changelog, so after each
// commit
//   * APPEND snapshots have no changelog, COMPACT snapshots the changes of the keys they pushed
//     up, which replayed over what the changelog said so far give the rows the table holds
//     (every engine: changelog rows are whole rows);
//   * batch reads equal the model: a key's record above level 0 holds its whole merge, so an
//     aggregation read that summed every level would count older records twice;
//   * first-row's changelog only inserts.
struct LookupParam {
  std::string engine;
  std::string format;
  bool deletion_vectors;
  bool row_deduplicate;
  std::string producer = "lookup";  // or "none" with force-lookup
};

class LookupChangelogTest : public ::testing::TestWithParam<LookupParam> {};

TEST_P(LookupChangelogTest, EveryCommitsChangelogReplaysToTheTable) {
  const LookupParam& p = GetParam();
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  std::string path = dir.Sub("t");
  auto options = BaseOptions(p.producer, p.format);
  for (const auto& [key, value] : testing::pk::EngineOptions(p.engine)) options[key] = value;
  if (p.producer != "lookup") options["force-lookup"] = "true";
  if (p.deletion_vectors) options["deletion-vectors.enabled"] = "true";
  if (p.row_deduplicate) options["changelog-producer.row-deduplicate"] = "true";
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
  Model model(p.engine);
  std::map<Key, Row> replayed;
  int64_t seen = 0;
  int changes_seen = 0;
  std::unique_ptr<TableWriter> writer;
  for (int commit = 0; commit < 12; ++commit) {
    if (commit % 5 == 0) {
      ASSERT_OK_AND_ASSIGN(writer, table->NewWriter());
    }
    for (int b = 0; b < 1 + static_cast<int>(rng() % 3); ++b) {
      std::vector<Row> rows =
          testing::pk::RandomRows(rng, testing::pk::EngineKinds(p.engine), 40, 40, &model);
      ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kUtf8)));
    }
    ASSERT_OK(writer->Commit().status());
    for (const SnapshotInfo& s : SnapshotsAfter(*table, &seen)) {
      SCOPED_TRACE("snapshot " + std::to_string(s.id) + " " + s.commit_kind);
      if (p.producer != "lookup") continue;  // streaming reads give APPEND deltas
      std::vector<Change> changes = ChangesOf(*table, s.id);
      if (s.commit_kind == "APPEND") {
        EXPECT_TRUE(changes.empty()) << "lookup tables write changelog at compaction only";
        continue;
      }
      changes_seen += static_cast<int>(changes.size());
      if (p.engine == "first-row") {
        for (const Change& c : changes) EXPECT_EQ(c.kind, RowKind::kInsert) << ChangeText(c);
      }
      Replay(changes, &replayed, true);
    }
    SCOPED_TRACE("after commit " + std::to_string(commit));
    // lookup-wait: nothing is left at level 0, so first-row's batch reads see every row.
    EXPECT_EQ(ReadAll(*table), model.Rows(true));
    if (p.producer == "lookup") {
      EXPECT_EQ(Texts(replayed), model.Rows(true));
    }
  }
  if (p.producer == "lookup") {
    EXPECT_GT(changes_seen, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, LookupChangelogTest,
                         ::testing::Values(LookupParam{"deduplicate", "parquet", false, false},
                                           LookupParam{"deduplicate", "orc", false, true},
                                           LookupParam{"deduplicate", "avro", true, false},
                                           LookupParam{"partial-update", "parquet", false, false},
                                           LookupParam{"partial-update", "parquet", true, true},
                                           LookupParam{"aggregation", "parquet", false, false},
                                           LookupParam{"aggregation", "orc", true, false},
                                           LookupParam{"aggregation", "parquet", false, false,
                                                       "none"},
                                           LookupParam{"first-row", "parquet", false, false},
                                           LookupParam{"first-row", "avro", false, false, "none"}),
                         [](const ::testing::TestParamInfo<LookupParam>& info) {
                           const LookupParam& p = info.param;
                           std::string name = p.engine + "_" + p.format +
                                              (p.deletion_vectors ? "_dv" : "") +
                                              (p.row_deduplicate ? "_dedup" : "") +
                                              (p.producer == "lookup" ? "" : "_force_lookup");
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A streaming read of a full-compaction table starts from the highest level only: what the
// changelog has not described yet is left to the changelog.
TEST(ChangelogStreamTest, FullStartingPlanReadsWhatTheChangelogDescribed) {
  testing::TempDir dir;
  std::string path = dir.Sub("t");
  auto options = BaseOptions("full-compaction", "parquet");
  options["write-only"] = "true";  // no compaction in the writer
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  std::vector<Row> rows = {{"a", 1, "x", 1, RowKind::kInsert}};
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
  ASSERT_OK(writer->Commit().status());
  StreamOptions stream;
  stream.mode = ScanMode::kLatestFull;
  stream.with_row_kind = true;
  stream.end_snapshot_id = 1;
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(stream));
  ArrowArray array;
  ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&array));
  EXPECT_FALSE(more) << "level-0 rows are not in the starting plan";
  if (more) array.release(&array);
  CompactOptions full;
  full.full = true;
  ASSERT_OK(table->Compact(full).status());
  std::vector<Change> changes = ChangesOf(*table, 2);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(ChangeText(changes[0]), "+I a|1|x|1");
}

// Without a longer changelog retention, changelog files expire with their snapshots; with one,
// expired snapshots leave changelog/changelog-<id> and their changelog files stay until the
// changelog retention lets them go.
TEST(ChangelogExpirationTest, ChangelogFilesGoWithTheirSnapshotsUnlessRetainedLonger) {
  for (bool decoupled : {false, true}) {
    SCOPED_TRACE(decoupled ? "changelog retained longer" : "coupled");
    testing::TempDir dir;
    std::string path = dir.Sub("t");
    auto options = BaseOptions("input", "parquet");
    options["bucket"] = "1";
    options["write-buffer-size"] = "1 mb";  // one changelog file per commit
    options["snapshot.num-retained.min"] = "2";
    options["snapshot.num-retained.max"] = "2";
    options["snapshot.time-retained"] = "1 ms";
    options["num-sorted-run.compaction-trigger"] = "100";  // APPEND snapshots only
    if (decoupled) {
      options["changelog.num-retained.min"] = "4";
      options["changelog.num-retained.max"] = "4";
      options["changelog.time-retained"] = "1 ms";
    }
    ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(options)));
    Model model("deduplicate");
    for (int64_t commit = 1; commit <= 7; ++commit) {
      ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
      std::vector<Row> rows = {{"a", commit, "x", commit, RowKind::kInsert}};
      ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kNone)));
      ASSERT_OK(writer->Commit().status());
    }
    // Snapshots 6 and 7 remain; decoupled, the changelog of 4 and 5 too (latest 7 - 4 + 1).
    size_t kept = decoupled ? 4 : 2;
    EXPECT_EQ(ChangelogFilesOnDisk(path + "/dt=a", "changelog-").size(), kept);
    for (int64_t id = 1; id <= 5; ++id) {
      EXPECT_EQ(fs::exists(path + "/changelog/changelog-" + std::to_string(id)),
                decoupled && id >= 4)
          << id;
    }
    // A streaming read from the start gives what is left, from the oldest kept changelog on.
    StreamOptions stream;
    stream.mode = ScanMode::kFromSnapshot;
    stream.snapshot_id = 1;
    stream.end_snapshot_id = 7;
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(stream));
    int64_t rows = 0;
    while (true) {
      ArrowArray array;
      ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&array));
      if (!more) break;
      rows += array.length;
      array.release(&array);
    }
    EXPECT_EQ(rows, static_cast<int64_t>(kept));
  }
}

}  // namespace
}  // namespace freshet
