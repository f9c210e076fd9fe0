// Consumers of streaming reads (Java's `consumer-id`, meta/snapshot/consumer_manager.h): a reader
// records its progress, a new reader with the same id resumes exactly where the last one left
// off (no snapshot read twice or skipped), and snapshot expiration keeps what a consumer has not
// read yet, until the consumer expires.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "freshet/stream.h"
#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/snapshot/consumer_manager.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

constexpr char kSpec[] = R"({"fields": [{"name": "id", "type": "BIGINT"}],
    "options": {"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "2",
                "snapshot.time-retained": "1 ms"}})";

Status AppendId(Table& table, int64_t id) {
  FRESHET_ASSIGN_OR_RETURN(auto writer, table.NewWriter());
  arrow::Int64Builder ids;
  (void)ids.Append(id);
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), 1,
                                        {*ids.Finish()});
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  FRESHET_RETURN_NOT_OK(writer->Write(&array, &schema));
  return writer->Commit().status();
}

// The ids the reader hands out now (Next until false).
Result<std::vector<int64_t>> Drain(TableStreamReader& reader) {
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader.ExportArrowSchema(&c_schema));
  auto schema = *arrow::ImportSchema(&c_schema);
  std::vector<int64_t> ids;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&array));
    if (!more) break;
    auto batch = *arrow::ImportRecordBatch(&array, schema);
    const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t i = 0; i < batch->num_rows(); ++i) ids.push_back(column.Value(i));
  }
  return ids;
}

std::set<int64_t> SnapshotIds(const Table& table) {
  auto ids = table.SnapshotIds();
  EXPECT_TRUE(ids.ok()) << ids.status().ToString();
  return std::set<int64_t>(ids->begin(), ids->end());
}

TEST(ConsumerTest, ReadersResumeFromTheConsumerAndExpirationKeepsWhatItNeeds) {
  testing::TempDir dir;
  const std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, kSpec));
  ASSERT_OK(AppendId(*table, 1));
  StreamOptions options;
  options.mode = ScanMode::kFromSnapshot;
  options.snapshot_id = 1;
  options.consumer_id = "reader-1";
  {
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
    ASSERT_OK_AND_ASSIGN(auto ids, Drain(*reader));
    EXPECT_EQ(ids, std::vector<int64_t>{1});
  }
  // Snapshot 1 was handed out completely: the consumer is at 2.
  meta::ConsumerManager consumers(io::LocalFileIO(), path);
  ASSERT_OK_AND_ASSIGN(auto next, consumers.NextSnapshot("reader-1"));
  EXPECT_EQ(next, 2);
  EXPECT_EQ(testing::ReadWholeFile(path + "/consumer/consumer-reader-1"),
            "{\n  \"nextSnapshot\" : 2\n}");

  // Five more commits: expiration keeps at most two snapshots, but not the consumer's.
  for (int64_t id = 2; id <= 6; ++id) ASSERT_OK(AppendId(*table, id));
  EXPECT_EQ(*SnapshotIds(*table).begin(), 2);
  // The consumer's progress wins over the scan mode: the new reader continues at snapshot 2.
  {
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
    ASSERT_OK_AND_ASSIGN(auto ids, Drain(*reader));
    EXPECT_EQ(ids, (std::vector<int64_t>{2, 3, 4, 5, 6}));
  }
  ASSERT_OK_AND_ASSIGN(next, consumers.NextSnapshot("reader-1"));
  EXPECT_EQ(next, 7);
  ASSERT_OK(AppendId(*table, 7));
  EXPECT_EQ(SnapshotIds(*table), (std::set<int64_t>{6, 7}));

  // Ignoring the progress: the scan mode decides (and the reader still records its progress).
  options.consumer_ignore_progress = true;
  options.snapshot_id = 6;
  {
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
    ASSERT_OK_AND_ASSIGN(auto ids, Drain(*reader));
    EXPECT_EQ(ids, (std::vector<int64_t>{6, 7}));
  }
  ASSERT_OK_AND_ASSIGN(next, consumers.NextSnapshot("reader-1"));
  EXPECT_EQ(next, 8);
}

TEST(ConsumerTest, IdleConsumersExpireAtCommitAndReleaseTheirSnapshots) {
  testing::TempDir dir;
  const std::string path = dir.Sub("t");
  std::string spec = kSpec;
  spec.insert(spec.rfind("}}"), R"(, "consumer.expiration-time": "1 h")");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, spec));
  ASSERT_OK(AppendId(*table, 1));
  meta::ConsumerManager consumers(io::LocalFileIO(), path);
  ASSERT_OK(consumers.Reset("fresh", 1));
  ASSERT_OK(consumers.Reset("idle", 1));
  // The idle consumer was last updated two hours ago.
  std::filesystem::last_write_time(
      path + "/consumer/consumer-idle",
      std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
  ASSERT_OK(AppendId(*table, 2));
  ASSERT_OK_AND_ASSIGN(auto left, consumers.Consumers());
  EXPECT_EQ(left, (std::map<std::string, int64_t>{{"fresh", 1}}));
  for (int64_t id = 3; id <= 5; ++id) ASSERT_OK(AppendId(*table, id));
  EXPECT_EQ(*SnapshotIds(*table).begin(), 1);  // "fresh" still needs snapshot 1
  ASSERT_OK(consumers.Delete("fresh"));
  ASSERT_OK(AppendId(*table, 6));
  EXPECT_EQ(SnapshotIds(*table), (std::set<int64_t>{5, 6}));
}

TEST(ConsumerTest, BadIdsAndCorruptFilesAreRefused) {
  testing::TempDir dir;
  const std::string path = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, kSpec));
  meta::ConsumerManager consumers(io::LocalFileIO(), path);
  for (const char* bad : {"", "a/b", ".hidden"}) {
    EXPECT_FALSE(consumers.Reset(bad, 1).ok()) << bad;
    StreamOptions options;
    options.consumer_id = bad;
    if (*bad) {
      EXPECT_FALSE(table->NewStreamReader(options).ok()) << bad;
    }
  }
  ASSERT_OK(io::LocalFileIO()->WriteFile(path + "/consumer/consumer-x", "{\"next\": 1}"));
  auto next = consumers.NextSnapshot("x");
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.status().ToString().find("nextSnapshot"), std::string::npos);
}

}  // namespace
}  // namespace freshet
