// Tags (docs/tags.md): Table::CreateTag / DeleteTag / Tags, reads of a tag's snapshot after the
// snapshot expired and its files left the live set, incremental reads between two tags, and the
// tag file's layout (a snapshot JSON, with Java's retention fields when given one).
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "freshet/stream.h"
#include "freshet/table.h"
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

  // Without incremental-between-tag-to-snapshot Java reads a diff, which freshet refuses.
  ASSERT_OK_AND_ASSIGN(
      auto plain,
      Table::Create(dir.Sub("plain"), R"({"fields": [{"name": "id", "type": "BIGINT"}]})"));
  ASSERT_OK_AND_ASSIGN(auto plain_writer, plain->NewWriter());
  ASSERT_OK(CommitIds(*plain_writer, 0, 1));
  ASSERT_OK(plain->CreateTag("a"));
  ASSERT_OK(CommitIds(*plain_writer, 1, 1));
  ASSERT_OK(plain->CreateTag("b"));
  options.incremental_between = "a,b";
  EXPECT_TRUE(plain->NewStreamReader(options).status().IsNotImplemented());
}

}  // namespace
}  // namespace freshet
