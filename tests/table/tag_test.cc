// Tags (docs/tags.md): Table::CreateTag / DeleteTag / Tags, reads of a tag's snapshot after the
// snapshot expired and its files left the live set, incremental reads between two tags, and the
// tag file's layout (a snapshot JSON, with Java's retention fields when given one).
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "freshet/stream.h"
#include "freshet/table.h"
#include "meta/row/value_text.h"
#include "table/table_test_util.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

// One snapshot kept, none for its age: every commit expires the snapshots before it.
constexpr char kSpec[] = R"({"fields": [{"name": "id", "type": "BIGINT"}], "options": {
    "snapshot.num-retained.min": "1", "snapshot.time-retained": "1 ms"}})";
// Tags read as the changes between their snapshots (and every snapshot kept).
constexpr char kTagToSnapshotSpec[] = R"({"fields": [{"name": "id", "type": "BIGINT"}],
    "options": {"incremental-between-tag-to-snapshot": "true"}})";

std::vector<int64_t> Ids(const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches) {
  std::vector<int64_t> ids;
  for (const auto& batch : batches) {
    const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t i = 0; i < column.length(); ++i) ids.push_back(column.Value(i));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The ids of every batch of a TableReader or TableStreamReader.
template <typename Reader>
Result<std::vector<int64_t>> DrainIds(Reader& reader) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader.ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&array));
    if (!more) break;
    batches.push_back(*arrow::ImportRecordBatch(&array, schema));
  }
  return Ids(batches);
}

Result<std::vector<int64_t>> ReadIds(const Table& table, const ReadOptions& options) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, table.NewReader(options));
  return DrainIds(*reader);
}

Result<std::vector<int64_t>> ReadTag(const Table& table, const std::string& tag) {
  ReadOptions options;
  options.tag_name = tag;
  return ReadIds(table, options);
}

std::vector<int64_t> Range(int64_t first, int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = first; i < first + n; ++i) ids.push_back(i);
  return ids;
}

Status CommitIds(TableWriter& writer, int64_t first, int64_t n, bool overwrite = false) {
  FRESHET_RETURN_NOT_OK(testing::WriteIds(writer, first, n));
  CommitOptions options;
  options.overwrite_all = overwrite;
  options.overwrite = overwrite;
  return writer.Commit(options).status();
}

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(TagTest, ATaggedSnapshotStaysReadableAfterItExpiresAndItsFilesAreReplaced) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), kSpec));
  EXPECT_TRUE(table->CreateTag("early").IsNotFound());  // no snapshot yet
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(CommitIds(*writer, 0, 10));  // snapshot 1
  ASSERT_OK(table->CreateTag("first"));
  EXPECT_TRUE(table->CreateTag("first").IsAlreadyExists());
  EXPECT_TRUE(table->CreateTag("  ").IsInvalid());
  EXPECT_TRUE(table->CreateTag("a/b").IsInvalid());
  EXPECT_TRUE(table->CreateTag("later", 99).IsNotFound());

  // The overwrite drops snapshot 1's files from the live set, and expiration snapshot 1.
  ASSERT_OK(CommitIds(*writer, 100, 5, /*overwrite=*/true));  // snapshot 2
  ASSERT_OK(CommitIds(*writer, 200, 5));                      // snapshot 3
  ASSERT_OK(CommitIds(*writer, 300, 5));                      // snapshot 4
  ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
  ASSERT_EQ(ids, std::vector<int64_t>{4}) << "snapshot 1 must have expired for this test";

  // The tag still reads snapshot 1: expiration kept the files only the tag holds.
  ASSERT_OK_AND_ASSIGN(auto tagged, ReadTag(*table, "first"));
  EXPECT_EQ(tagged, Range(0, 10));
  ASSERT_OK_AND_ASSIGN(auto latest, ReadIds(*table, {}));
  std::vector<int64_t> expected = Range(100, 5);
  for (int64_t id : Range(200, 5)) expected.push_back(id);
  for (int64_t id : Range(300, 5)) expected.push_back(id);
  EXPECT_EQ(latest, expected);

  // An expired snapshot that a tag names can be tagged again (Java's findSnapshot).
  ASSERT_OK(table->CreateTag("again", 1));
  ASSERT_OK_AND_ASSIGN(auto tags, table->Tags());
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[0].name, "again");  // by snapshot id, then name
  EXPECT_EQ(tags[1].name, "first");
  EXPECT_EQ(tags[1].snapshot.id, 1);
  EXPECT_EQ(tags[1].snapshot.total_record_count, 10);
  EXPECT_FALSE(tags[1].time_retained.has_value());

  ReadOptions both;
  both.tag_name = "first";
  both.snapshot_id = 3;
  EXPECT_TRUE(table->NewReader(both).status().IsInvalid());
  EXPECT_TRUE(ReadTag(*table, "missing").status().IsNotFound());

  ASSERT_OK(table->DeleteTag("again"));
  EXPECT_TRUE(table->DeleteTag("again").IsNotFound());
  EXPECT_TRUE(ReadTag(*table, "again").status().IsNotFound());
  ASSERT_OK_AND_ASSIGN(tags, table->Tags());
  ASSERT_EQ(tags.size(), 1u);
}

TEST(TagTest, TheTagFileIsTheSnapshotWithJavasRetentionFields) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), kSpec));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(CommitIds(*writer, 0, 3));
  ASSERT_OK(table->CreateTag("plain", 1));
  ASSERT_OK(table->CreateTag("kept", 1, "1 d"));
  EXPECT_TRUE(table->CreateTag("bad", 1, "forever").IsInvalid());

  // Without a retention the tag file is the snapshot file byte for byte (as Java writes it).
  EXPECT_EQ(FileText(dir.Sub("t/tag/tag-plain")), FileText(dir.Sub("t/snapshot/snapshot-1")));
  const std::string kept = FileText(dir.Sub("t/tag/tag-kept"));
  EXPECT_NE(kept.find("\"tagTimeRetained\" : 86400.000000000\n}"), std::string::npos) << kept;
  EXPECT_NE(kept.find("\"tagCreateTime\" : [ 2"), std::string::npos) << kept;

  ASSERT_OK_AND_ASSIGN(auto tags, table->Tags());
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[0].name, "kept");
  ASSERT_TRUE(tags[0].time_retained.has_value());
  EXPECT_EQ(tags[0].time_retained->rfind("86400", 0), 0u) << *tags[0].time_retained;
  ASSERT_TRUE(tags[0].create_time.has_value());
  EXPECT_EQ(tags[0].create_time->front(), '[');
}

TEST(TagTest, IncrementalBetweenTwoTagsReadsTheChangesBetweenTheirSnapshots) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), kTagToSnapshotSpec));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(CommitIds(*writer, 0, 2));  // 1
  ASSERT_OK(table->CreateTag("start"));
  ASSERT_OK(CommitIds(*writer, 10, 2));  // 2
  ASSERT_OK(CommitIds(*writer, 20, 2));  // 3
  ASSERT_OK(table->CreateTag("end"));

  StreamOptions options;
  options.streaming = false;
  options.incremental_between = "start,end";
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
  ASSERT_OK_AND_ASSIGN(auto changes, DrainIds(*reader));
  EXPECT_EQ(changes, (std::vector<int64_t>{10, 11, 20, 21}));

  options.incremental_between = "end,start";
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());
  options.incremental_between = "start,nope";  // not two tags, not two ids
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());

  // Without incremental-between-tag-to-snapshot two tags are read as a diff: for an append
  // table, the files only the end snapshot holds.
  ASSERT_OK_AND_ASSIGN(
      auto plain,
      Table::Create(dir.Sub("plain"), R"({"fields": [{"name": "id", "type": "BIGINT"}]})"));
  ASSERT_OK_AND_ASSIGN(auto plain_writer, plain->NewWriter());
  ASSERT_OK(CommitIds(*plain_writer, 0, 1));
  ASSERT_OK(plain->CreateTag("a"));
  ASSERT_OK(CommitIds(*plain_writer, 1, 2));
  ASSERT_OK(CommitIds(*plain_writer, 5, 1, /*overwrite=*/true));
  ASSERT_OK(CommitIds(*plain_writer, 7, 1));
  ASSERT_OK(plain->CreateTag("b"));
  options.incremental_between = "a,b";
  ASSERT_OK_AND_ASSIGN(auto diff_reader, plain->NewStreamReader(options));
  ASSERT_OK_AND_ASSIGN(changes, DrainIds(*diff_reader));
  EXPECT_EQ(changes, (std::vector<int64_t>{5, 7}));
}

std::vector<std::string> FilesIn(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Java's TagDeletion: the files of an expired snapshot go with its last tag, and only those.
TEST(TagTest, DeletingTheLastTagOfAnExpiredSnapshotDeletesTheFilesOnlyItHeld) {
  testing::TempDir dir;
  const std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, kSpec));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(CommitIds(*writer, 0, 10));  // 1
  ASSERT_OK_AND_ASSIGN(auto first_files, table->DataFiles(1));
  ASSERT_EQ(first_files.size(), 1u);
  const std::string first_file = first_files[0].file_name;
  // Snapshot 1's manifest lists (its manifests stay: later snapshots' base lists hold them).
  std::vector<std::string> first_lists;
  const std::string first_json = FileText(path + "/snapshot/snapshot-1");
  for (const char* key : {"\"baseManifestList\" : \"", "\"deltaManifestList\" : \""}) {
    const size_t at = first_json.find(key) + std::strlen(key);
    first_lists.push_back(first_json.substr(at, first_json.find('"', at) - at));
  }
  ASSERT_OK(table->CreateTag("one"));
  ASSERT_OK(table->CreateTag("also-one"));
  ASSERT_OK(CommitIds(*writer, 100, 5, /*overwrite=*/true));  // 2: snapshot 1 expires
  ASSERT_OK(CommitIds(*writer, 200, 5));                      // 3
  ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
  ASSERT_EQ(ids, std::vector<int64_t>{3});
  auto data = FilesIn(path + "/bucket-0");
  ASSERT_TRUE(std::count(data.begin(), data.end(), first_file)) << "kept for the tags";
  auto lists = FilesIn(path + "/manifest");
  for (const std::string& name : first_lists) {
    ASSERT_TRUE(std::count(lists.begin(), lists.end(), name)) << name << " kept for the tags";
  }

  // Another tag still names snapshot 1: its files stay.
  ASSERT_OK(table->DeleteTag("one"));
  data = FilesIn(path + "/bucket-0");
  EXPECT_TRUE(std::count(data.begin(), data.end(), first_file));
  ASSERT_OK_AND_ASSIGN(auto tagged, ReadTag(*table, "also-one"));
  EXPECT_EQ(tagged, Range(0, 10));

  // The last tag takes the file and snapshot 1's manifests with it; the live table is intact.
  ASSERT_OK(table->DeleteTag("also-one"));
  data = FilesIn(path + "/bucket-0");
  EXPECT_FALSE(std::count(data.begin(), data.end(), first_file));
  const auto manifests = FilesIn(path + "/manifest");
  for (const std::string& name : first_lists) {
    EXPECT_FALSE(std::count(manifests.begin(), manifests.end(), name)) << name;
  }
  ASSERT_OK_AND_ASSIGN(auto latest, ReadIds(*table, {}));
  std::vector<int64_t> expected = Range(100, 5);
  for (int64_t id : Range(200, 5)) expected.push_back(id);
  EXPECT_EQ(latest, expected);
  // Nothing is left for remove-orphans: every file left is referenced.
  RemoveOrphanFilesOptions orphans;
  orphans.older_than_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count() -
                              1;
  orphans.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto left, table->RemoveOrphanFiles(orphans));
  EXPECT_TRUE(left.files.empty()) << left.files.size() << " orphan(s), e.g. " << left.files[0].path;
}

// Java's TagTimeExpire after each commit: tags created with a retention time go once it passed.
TEST(TagTest, CommitsDeleteTheTagsWhoseRetentionTimePassed) {
  testing::TempDir dir;
  for (const bool enabled : {true, false}) {
    const std::string path = dir.Sub(enabled ? "on" : "off");
    ASSERT_OK_AND_ASSIGN(
        auto table,
        Table::Create(path, std::string(R"({"fields": [{"name": "id", "type": "BIGINT"}],
            "options": {"tag.time-expire-enabled": ")") +
                                (enabled ? "true" : "false") + R"("}})"));
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    ASSERT_OK(CommitIds(*writer, 0, 1));
    ASSERT_OK(table->CreateTag("brief", std::nullopt, "1 ms"));
    ASSERT_OK(table->CreateTag("day", std::nullopt, "1 d"));
    ASSERT_OK(table->CreateTag("kept"));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_OK(CommitIds(*writer, 1, 1));
    ASSERT_OK_AND_ASSIGN(auto tags, table->Tags());
    std::vector<std::string> names;
    for (const TagInfo& tag : tags) names.push_back(tag.name);
    std::sort(names.begin(), names.end());
    if (enabled) {
      EXPECT_EQ(names, (std::vector<std::string>{"day", "kept"}));
    } else {
      EXPECT_EQ(names, (std::vector<std::string>{"brief", "day", "kept"}));
    }
  }
}

// scan.tag-name in a stream read (a table option, or StreamOptions::tag_name): a batch read of
// the tag's snapshot, refused for a streaming read as in Java.
TEST(TagTest, AStreamReadOfATagIsABatchReadOfItsSnapshot) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), kSpec));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(CommitIds(*writer, 0, 4));
  ASSERT_OK(table->CreateTag("t"));
  ASSERT_OK(CommitIds(*writer, 10, 2, /*overwrite=*/true));  // snapshot 1 expires
  StreamOptions options;
  options.streaming = false;
  options.tag_name = "t";
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
  ASSERT_OK_AND_ASSIGN(auto ids, DrainIds(*reader));
  EXPECT_EQ(ids, Range(0, 4));
  options.streaming = true;
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());
  options.streaming = false;
  options.snapshot_id = 2;
  EXPECT_TRUE(table->NewStreamReader(options).status().IsInvalid());

  ASSERT_OK_AND_ASSIGN(auto with_option,
                       Table::Create(dir.Sub("o"), R"({"fields": [{"name": "id", "type": "BIGINT"}],
          "options": {"scan.tag-name": "t"}})"));
  ASSERT_OK_AND_ASSIGN(auto option_writer, with_option->NewWriter());
  ASSERT_OK(CommitIds(*option_writer, 0, 3));
  ASSERT_OK(with_option->CreateTag("t"));
  ASSERT_OK(CommitIds(*option_writer, 5, 1));
  StreamOptions from_table;
  from_table.streaming = false;
  ASSERT_OK_AND_ASSIGN(auto option_reader, with_option->NewStreamReader(from_table));
  ASSERT_OK_AND_ASSIGN(ids, DrainIds(*option_reader));
  EXPECT_EQ(ids, Range(0, 3));
}

// "yyyy-MM-dd HH:mm:ss.SSS" of epoch milliseconds, in local time: the wall clock shifted by the
// time zone's offset at that instant, printed as a timestamp value.
std::string LocalTimeText(int64_t millis) {
  const auto seconds = static_cast<std::time_t>(millis / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  return meta::FormatTimestampText(meta::Timestamp{millis + local.tm_gmtoff * 1000, 0}, 3);
}

// incremental-between-timestamp, resolved to snapshots as Java's betweenTimestamps: the start is
// exclusive (the newest snapshot at or before it), a start before the first snapshot includes
// it in a delta (a diff starts from it), and times may be local text.
TEST(TagTest, IncrementalBetweenTimestampsResolvesToSnapshotsAsJava) {
  testing::TempDir dir;
  for (const bool diff : {false, true}) {
    ASSERT_OK_AND_ASSIGN(auto table,
                         Table::Create(dir.Sub(diff ? "diff" : "delta"),
                                       std::string(R"({"fields": [{"name": "id", "type": "BIGINT"}],
            "options": {"incremental-between-scan-mode": ")") +
                                           (diff ? "diff" : "auto") + R"("}})"));
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    std::vector<int64_t> times = {0};
    for (int64_t commit = 1; commit <= 4; ++commit) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ASSERT_OK(CommitIds(*writer, commit * 10, 2));
      ASSERT_OK_AND_ASSIGN(SnapshotInfo snapshot, table->Snapshot(commit));
      times.push_back(snapshot.time_millis);
    }
    auto read = [&](const std::string& range) -> Result<std::vector<int64_t>> {
      StreamOptions options;
      options.streaming = false;
      options.incremental_between_timestamp = range;
      FRESHET_ASSIGN_OR_RETURN(auto reader, table->NewStreamReader(options));
      return DrainIds(*reader);
    };
    auto between = [&](int64_t a, int64_t b) {
      return std::to_string(a) + "," + std::to_string(b);
    };
    ASSERT_OK_AND_ASSIGN(auto ids, read(between(times[1], times[3])));
    EXPECT_EQ(ids, (std::vector<int64_t>{20, 21, 30, 31}));
    ASSERT_OK_AND_ASSIGN(ids, read(between(times[2] + 1, times[4] + 100)));
    EXPECT_EQ(ids, (std::vector<int64_t>{30, 31, 40, 41}));
    // Before the first snapshot: a delta from its beginning, a diff from the first snapshot (as
    // Java's releases).
    ASSERT_OK_AND_ASSIGN(ids, read(between(times[1] - 5, times[2])));
    EXPECT_EQ(ids, diff ? (std::vector<int64_t>{20, 21}) : (std::vector<int64_t>{10, 11, 20, 21}));
    ASSERT_OK_AND_ASSIGN(ids, read(LocalTimeText(times[1]) + "," + LocalTimeText(times[3])));
    EXPECT_EQ(ids, (std::vector<int64_t>{20, 21, 30, 31}));
    // Empty ranges.
    ASSERT_OK_AND_ASSIGN(ids, read(between(times[2], times[2])));
    EXPECT_TRUE(ids.empty());
    ASSERT_OK_AND_ASSIGN(ids, read(between(times[4] + 1, times[4] + 2)));
    EXPECT_TRUE(ids.empty());
    ASSERT_OK_AND_ASSIGN(ids, read(between(times[1] - 10, times[1] - 5)));
    EXPECT_TRUE(ids.empty());
    EXPECT_TRUE(read(between(times[3], times[1])).status().IsInvalid());
    EXPECT_TRUE(read("yesterday,today").status().IsInvalid());
  }
}

// Rows "id v" of a primary-key read with kinds: "kind id v".
Result<std::vector<std::string>> KindedRows(TableStreamReader& reader) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader.ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  std::vector<std::string> rows;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&array));
    if (!more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    const auto& kinds = static_cast<const arrow::StringArray&>(*batch->column(0));
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(1));
    const auto& vs = static_cast<const arrow::Int64Array&>(*batch->column(2));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      rows.push_back(kinds.GetString(i) + " " + std::to_string(ids.Value(i)) + " " +
                     std::to_string(vs.Value(i)));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

Status Upsert(TableWriter& writer,
              const std::vector<std::tuple<std::string, int64_t, int64_t>>& ops) {
  arrow::Int64Builder ids, vs;
  arrow::StringBuilder kinds;
  for (const auto& [kind, id, v] : ops) {
    (void)ids.Append(id);
    (void)vs.Append(v);
    (void)kinds.Append(kind);
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("v", arrow::int64()),
                     arrow::field("_ROW_KIND", arrow::utf8())}),
      static_cast<int64_t>(ops.size()), {*ids.Finish(), *vs.Finish(), *kinds.Finish()});
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  FRESHET_RETURN_NOT_OK(writer.Write(&array, &schema));
  return writer.Commit().status();
}

// Java's IncrementalDiffSplitRead: the files only one tag's snapshot holds are merged per side,
// and the after rows that are new or changed come out with their merged kinds.
TEST(TagTest, IncrementalDiffOfAPrimaryKeyTableComparesTheMergedSides) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub("t"), R"({"fields": [
      {"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "BIGINT"}],
      "primaryKeys": ["id"], "options": {"bucket": "1", "write-only": "true"}})"));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(Upsert(
      *writer, {{"+I", 1, 10}, {"+I", 2, 20}, {"+I", 3, 30}, {"+I", 4, 40}, {"+I", 5, 50}}));  // 1
  ASSERT_OK(table->CreateTag("a"));
  ASSERT_OK(Upsert(*writer, {{"+U", 2, 21}, {"-D", 3, 30}, {"+I", 6, 60}}));  // 2
  CompactOptions full;
  full.full = true;
  ASSERT_OK_AND_ASSIGN(CompactResult compacted, table->Compact(full));  // 3: both files into one
  ASSERT_EQ(compacted.snapshot_id, std::optional<int64_t>(3));
  ASSERT_OK(Upsert(*writer, {{"+U", 4, 40}, {"+U", 5, 51}, {"-D", 5, 51}}));  // 4
  ASSERT_OK(table->CreateTag("b"));

  StreamOptions options;
  options.streaming = false;
  options.with_row_kind = true;
  options.incremental_between = "a,b";
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
  // Key 2 changed, 6 is new; 1 is equal, 4 was rewritten with its old value, 3 and 5 were
  // deleted (a batch diff keeps no deletes).
  EXPECT_EQ(*KindedRows(*reader), (std::vector<std::string>{"+I 6 60", "+U 2 21"}));

  // The same range as ids with incremental-between-scan-mode = diff, filtered and projected.
  ASSERT_OK_AND_ASSIGN(auto by_id, Table::Create(dir.Sub("ids"), R"({"fields": [
      {"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "BIGINT"}],
      "primaryKeys": ["id"], "options": {"bucket": "1", "write-only": "true",
      "incremental-between-scan-mode": "diff"}})"));
  ASSERT_OK_AND_ASSIGN(auto ids_writer, by_id->NewWriter());
  ASSERT_OK(Upsert(*ids_writer, {{"+I", 1, 10}, {"+I", 2, 20}}));
  ASSERT_OK(Upsert(*ids_writer, {{"+U", 1, 10}, {"+U", 2, 22}, {"+I", 3, 30}, {"+I", 4, 5}}));
  options.incremental_between = "1,2";
  options.filter = "v >= 10";
  options.columns = {"id", "v"};
  ASSERT_OK_AND_ASSIGN(auto id_reader, by_id->NewStreamReader(options));
  // Write-only: nothing is compacted, so the file both snapshots hold is left out, the before
  // side is empty, and every key written in snapshot 2 is "after", key 1 too although its value
  // did not change (key 4 is filtered out).
  EXPECT_EQ(*KindedRows(*id_reader), (std::vector<std::string>{"+I 3 30", "+U 1 10", "+U 2 22"}));
}

}  // namespace
}  // namespace freshet
