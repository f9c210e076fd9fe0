// A full write + commit of a small append table (Parquet and ORC) with an I/O error injected at
// each file operation in turn: every run ends with an error naming the file, the table stays
// readable at its last good snapshot with all its rows, and a retry lands.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "bridge/arrow_schema.h"
#include "commit/file_store_commit.h"
#include "meta/schema/schema_manager.h"
#include "read/table_read.h"
#include "scan/table_scan.h"
#include "testing/fault_injecting_file_io.h"
#include "testing/test_util.h"
#include "write/append_table_write.h"

namespace freshet::commit {
namespace {

using freshet::testing::TempDir;
namespace fs = std::filesystem;

class WriteCommitFaultTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    meta::SchemaSpec spec;
    spec.fields.push_back({0, "id", meta::DataType::BigInt(), std::nullopt, std::nullopt});
    spec.fields.push_back({0, "dt", meta::DataType::Int(), std::nullopt, std::nullopt});
    spec.partition_keys = {"dt"};
    // "<format>-index": each data file gets a bloom-filter index written as a `.index` file.
    const std::string format = GetParam().substr(0, GetParam().find('-'));
    spec.options = {{"bucket", "2"}, {"bucket-key", "id"}, {"file.format", format}};
    if (GetParam().ends_with("-index")) {
      spec.options.emplace_back("file-index.bloom-filter.columns", "id");
      spec.options.emplace_back("file-index.bloom-filter.id.items", "100");
      spec.options.emplace_back("file-index.in-manifest-threshold", "1 b");
    }
    ASSERT_OK_AND_ASSIGN(schema_, meta::SchemaManager(local_, dir_.path()).CreateTable(spec, 0));
    ASSERT_OK_AND_ASSIGN(arrow_schema_, bridge::ToArrowSchema(schema_->fields()));
  }

  std::shared_ptr<arrow::RecordBatch> Batch(int64_t from, int64_t to) const {
    arrow::Int64Builder ids;
    arrow::Int32Builder dts;
    for (int64_t id = from; id < to; ++id) {
      EXPECT_TRUE(ids.Append(id).ok());
      EXPECT_TRUE(dts.Append(static_cast<int32_t>(id % 2)).ok());
    }
    return arrow::RecordBatch::Make(arrow_schema_, to - from, {*ids.Finish(), *dts.Finish()});
  }

  // Writes ids [from, to) and commits them, every file operation through `io`.
  Status WriteAndCommit(std::shared_ptr<io::FileIO> io, int64_t from, int64_t to,
                        std::vector<meta::CommitMessage>* prepared) {
    FRESHET_ASSIGN_OR_RETURN(auto write, write::AppendTableWrite::Make(io, dir_.path(), *schema_));
    Status st = write->Write(*Batch(from, to));
    Result<std::vector<meta::CommitMessage>> messages = st.ok() ? write->PrepareCommit() : st;
    if (!messages.ok()) {
      // What a failed write leaves behind is removed (the one injected fault has fired).
      EXPECT_OK(write->Abort());
      return messages.status();
    }
    *prepared = *messages;
    CommitRequest request;
    request.messages = *messages;
    FileStoreCommit committer(io, dir_.path(), *schema_,
                              *meta::CoreOptions::Make(schema_->options(), false), "user");
    return committer.Commit(request).status();
  }

  // Every id of the latest snapshot, sorted, read through scan + read with the clean file system.
  std::vector<int64_t> ReadIds() const {
    std::vector<int64_t> ids;
    scan::TableScan scan(local_, dir_.path());
    auto plan = scan.Plan({});
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    if (!plan.ok()) return ids;
    auto read = read::TableRead::Make(local_, dir_.path(), *schema_);
    auto reader = read->CreateReader(std::move(plan->splits));
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return ids;
    while (true) {
      auto batch = (*reader)->Next();
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok() || !*batch) break;
      auto column = std::static_pointer_cast<arrow::Int64Array>((*batch)->GetColumnByName("id"));
      for (int64_t i = 0; i < column->length(); ++i) ids.push_back(column->Value(i));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  // Data files on disk that the latest snapshot does not reference (left by a failed run).
  std::vector<std::string> StrayDataFiles() const {
    std::set<std::string> live;
    auto plan = scan::TableScan(local_, dir_.path()).Plan({});
    for (const auto& split : plan->splits) {
      for (const auto& f : split.files) {
        live.insert(f.file_name);
        live.insert(f.extra_files.begin(), f.extra_files.end());
      }
    }
    std::vector<std::string> stray;
    for (const auto& e : fs::recursive_directory_iterator(dir_.path())) {
      std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.rfind("data-", 0) == 0 && !live.count(name)) {
        stray.push_back(e.path().string());
      }
    }
    return stray;
  }

  int64_t LatestId() const {
    return meta::SnapshotManager(local_, dir_.path()).LatestSnapshotId()->value_or(0);
  }

  TempDir dir_;
  std::shared_ptr<io::FileIO> local_ = io::LocalFileIO();
  std::optional<meta::TableSchema> schema_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
};

std::vector<int64_t> Range(int64_t to) {
  std::vector<int64_t> ids(static_cast<size_t>(to));
  for (int64_t i = 0; i < to; ++i) ids[static_cast<size_t>(i)] = i;
  return ids;
}

TEST_P(WriteCommitFaultTest, FaultAtEachOperationKeepsLastGoodSnapshotAndRetryLands) {
  std::vector<meta::CommitMessage> prepared;
  ASSERT_OK(WriteAndCommit(local_, 0, 10, &prepared));
  auto faulty = std::make_shared<io::FaultInjectingFileIO>(local_);
  ASSERT_OK(WriteAndCommit(faulty, 10, 20, &prepared));  // counts one clean run's operations
  const int64_t ops = faulty->operation_count();
  ASSERT_GT(ops, 10);
  int64_t rows = 20;
  for (int64_t i = 0; i < ops; ++i) {
    std::string context = GetParam() + ", fault at operation " + std::to_string(i);
    int64_t before = LatestId();
    faulty->Reset();
    faulty->FailOperationAt(i);
    prepared.clear();
    Status st = WriteAndCommit(faulty, rows, rows + 10, &prepared);
    faulty->Reset();
    if (st.ok()) {
      // Only steps whose failure is harmless (hint files, expiration) may pass silently.
      ASSERT_EQ(LatestId(), before + 1) << context;
      rows += 10;
      ASSERT_EQ(ReadIds(), Range(rows)) << context;
      continue;
    }
    EXPECT_NE(st.message().find("injected fault"), std::string::npos)
        << context << ": " << st.ToString();
    EXPECT_NE(st.message().find(dir_.path()), std::string::npos)
        << "names no file: " << st.ToString();
    int64_t after = LatestId();
    ASSERT_TRUE(after == before || after == before + 1) << context;
    if (after == before) {
      // No partial snapshot: the table reads at its last good snapshot with all its rows.
      ASSERT_EQ(ReadIds(), Range(rows)) << context;
      // Retry: re-commit what was prepared, or rewrite when the write itself failed.
      if (!prepared.empty()) {
        CommitRequest request;
        request.messages = prepared;
        FileStoreCommit committer(local_, dir_.path(), *schema_,
                                  *meta::CoreOptions::Make(schema_->options(), false), "user");
        ASSERT_OK(committer.Commit(request).status());
      } else {
        ASSERT_OK(WriteAndCommit(local_, rows, rows + 10, &prepared));
      }
    }
    rows += 10;
    ASSERT_EQ(LatestId(), before + 1) << context;
    ASSERT_EQ(ReadIds(), Range(rows)) << context;
    EXPECT_EQ(StrayDataFiles(), std::vector<std::string>{}) << context << ": " << st.ToString();
  }
  if (GetParam().ends_with("-index")) {
    // The index files are there, and listed: every live file has one.
    auto plan = scan::TableScan(local_, dir_.path()).Plan({});
    ASSERT_TRUE(plan.ok());
    for (const auto& split : plan->splits) {
      for (const auto& f : split.files) {
        EXPECT_EQ(f.extra_files, std::vector<std::string>{f.file_name + ".index"});
      }
    }
  }
  std::cout << GetParam() << ": " << ops << " operations faulted in turn\n";
}

INSTANTIATE_TEST_SUITE_P(Formats, WriteCommitFaultTest,
                         ::testing::Values("parquet", "orc", "parquet-index"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace freshet::commit
