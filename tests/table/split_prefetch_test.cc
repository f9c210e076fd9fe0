// Splits read ahead on worker threads (read/split_prefetch.h): the caller gets exactly the batches
// of a read on its own thread, in order, with errors where that read would meet them; the memory
// held for splits ahead of the caller stays within its bound; a reader dropped early stops its
// workers. Then whole tables (append and primary-key, several buckets, more than the 16 MB that
// start workers) read the same rows in the same order with and without read.prefetch.max-memory.
#include "read/split_prefetch.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <arrow/util/byte_size.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "freshet/table.h"
#include "testing/reader_batches.h"
#include "testing/test_util.h"

namespace freshet::read {
namespace {

using BatchPtr = std::shared_ptr<arrow::RecordBatch>;

// One int64 column "v" holding `value`, `rows` times.
BatchPtr Batch(int64_t value, int64_t rows) {
  arrow::Int64Builder b;
  for (int64_t i = 0; i < rows; ++i) (void)b.Append(value);
  return arrow::RecordBatch::Make(arrow::schema({arrow::field("v", arrow::int64())}), rows,
                                  {*b.Finish()});
}

// A split's reader: `batches` batches whose value is split * 1000 + index, failing (or throwing)
// at batch `fail_at` if set, counting what it produced and waiting `delay` before each batch.
class FakeSplit : public format::BatchReader {
 public:
  FakeSplit(size_t split, int batches, int fail_at, bool throws, std::atomic<int>* produced,
            std::chrono::microseconds delay)
      : split_(split),
        batches_(batches),
        fail_at_(fail_at),
        throws_(throws),
        produced_(produced),
        delay_(delay) {}
  Result<BatchPtr> Next() override {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    if (next_ == fail_at_) {
      if (throws_) throw std::runtime_error("boom in split " + std::to_string(split_));
      return Status::Corruption("split ", split_, " batch ", next_);
    }
    if (next_ >= batches_) return BatchPtr();
    if (produced_) ++*produced_;
    return Batch(static_cast<int64_t>(split_ * 1000 + next_++), 64);
  }

 private:
  size_t split_;
  int batches_;
  int fail_at_;
  bool throws_;
  std::atomic<int>* produced_;
  std::chrono::microseconds delay_;
  int next_ = 0;
};

template <typename... Args>
Result<std::unique_ptr<format::BatchReader>> Fake(Args&&... args) {
  return std::unique_ptr<format::BatchReader>(
      std::make_unique<FakeSplit>(std::forward<Args>(args)...));
}

std::vector<int64_t> Drain(format::BatchReader& reader, Status* status) {
  std::vector<int64_t> values;
  for (;;) {
    auto batch = reader.Next();
    if (!batch.ok()) {
      *status = batch.status();
      return values;
    }
    if (!*batch) return values;
    values.push_back(static_cast<const arrow::Int64Array&>(*(*batch)->column(0)).Value(0));
  }
}

// Random split sizes (some empty), every thread count and bound: the sequential order, always.
TEST(SplitPrefetchTest, ReturnsTheBatchesOfEverySplitInOrder) {
  std::mt19937 random(7);
  for (int round = 0; round < 60; ++round) {
    size_t splits = 1 + random() % 9;
    std::vector<int> sizes(splits);
    std::vector<std::chrono::microseconds> delays(splits);  // slow splits beside fast ones
    std::vector<int64_t> expected;
    for (size_t s = 0; s < splits; ++s) {
      sizes[s] = static_cast<int>(random() % 12);  // 0 included: a split with no batch
      delays[s] = std::chrono::microseconds(random() % 2 ? 0 : 50);
      for (int b = 0; b < sizes[s]; ++b) expected.push_back(static_cast<int64_t>(s * 1000 + b));
    }
    PrefetchOptions options;
    options.threads = 1 + static_cast<int>(random() % 4);
    options.max_memory = round % 3 == 0 ? 1 : (round % 3 == 1 ? 4096 : 1 << 20);
    options.max_current_batches = static_cast<int64_t>(random() % 3);  // 0 is taken as 1
    SCOPED_TRACE(::testing::Message() << "round " << round << ", " << splits << " splits, "
                                      << options.threads << " threads");
    auto reader = MakePrefetchingReader(
        splits,
        [&](size_t i) -> Result<std::unique_ptr<format::BatchReader>> {
          return Fake(i, sizes[i], -1, false, nullptr, delays[i]);
        },
        options);
    Status status;
    EXPECT_EQ(Drain(*reader, &status), expected);
    EXPECT_TRUE(status.ok()) << status.ToString();
    auto after = reader->Next();  // the end stays the end
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(*after, nullptr);
  }
}

// A failing split: the batches before the failure, then its error; splits after it may have been
// read meanwhile, but nothing of them is returned. The same for an opener's error and for an
// exception, which must not escape the worker.
TEST(SplitPrefetchTest, ReturnsAnErrorWhereTheSequentialReadWouldMeetIt) {
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode);
    auto reader = MakePrefetchingReader(
        5,
        [&](size_t i) -> Result<std::unique_ptr<format::BatchReader>> {
          if (mode == 2 && i == 2) return Status::IOError("cannot open split 2");
          int fail_at = i == 2 ? 3 : -1;
          return Fake(i, 6, fail_at, mode == 1, nullptr, std::chrono::microseconds(0));
        },
        PrefetchOptions{3, 1 << 20, 4});
    Status status;
    std::vector<int64_t> got = Drain(*reader, &status);
    std::vector<int64_t> expected = {0, 1, 2, 3, 4, 5, 1000, 1001, 1002, 1003, 1004, 1005};
    if (mode != 2) expected.insert(expected.end(), {2000, 2001, 2002});
    EXPECT_EQ(got, expected);
    ASSERT_FALSE(status.ok());
    const char* expected_message[] = {"split 2 batch 3", "boom in split 2", "cannot open split 2"};
    EXPECT_NE(status.message().find(expected_message[mode]), std::string::npos)
        << status.ToString();
    EXPECT_EQ(status.IsCorruption(), mode == 0) << status.ToString();
  }
}

// While the caller holds back, the splits ahead of it produce no more than the bound allows
// (plus the one batch each worker adds before it waits), and the caller's own split no more than
// max_current_batches (plus one).
TEST(SplitPrefetchTest, HoldsNoMoreThanItsBoundAheadOfTheCaller) {
  const int64_t batch_bytes = arrow::util::TotalBufferSize(*Batch(0, 64));
  PrefetchOptions options{3, 4 * batch_bytes, 2};
  std::vector<std::atomic<int>> produced(4);
  auto reader = MakePrefetchingReader(
      4,
      [&](size_t i) -> Result<std::unique_ptr<format::BatchReader>> {
        return Fake(i, 100, -1, false, &produced[i], std::chrono::microseconds(0));
      },
      options);
  ASSERT_OK_AND_ASSIGN(BatchPtr first, reader->Next());
  ASSERT_NE(first, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // workers run as far as allowed
  int ahead = produced[1] + produced[2] + produced[3];
  EXPECT_LE(ahead, 4 + 3) << "batches produced for splits ahead of the caller";
  EXPECT_GE(ahead, 1) << "no split was read ahead";
  EXPECT_LE(produced[0].load(), 1 + 2 + 1);
  Status status;
  std::vector<int64_t> rest = Drain(*reader, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(rest.size(), 399u);
  for (auto& p : produced) EXPECT_EQ(p.load(), 100);
}

// Dropping the reader early stops the workers, even those waiting on the bound or in a slow split.
TEST(SplitPrefetchTest, DroppingTheReaderStopsItsWorkers) {
  for (int consumed = 0; consumed < 4; ++consumed) {
    std::atomic<int> opened{0};
    auto reader = MakePrefetchingReader(
        50,
        [&](size_t i) -> Result<std::unique_ptr<format::BatchReader>> {
          ++opened;
          return Fake(i, 1000, -1, false, nullptr, std::chrono::microseconds(i % 2 ? 100 : 0));
        },
        PrefetchOptions{4, 1 << 12, 2});
    for (int i = 0; i < consumed; ++i) ASSERT_TRUE(reader->Next().ok());
    reader.reset();  // must return: the test would hang otherwise
    EXPECT_LT(opened.load(), 50);
  }
}

// ---------------------------------------------------------------------------------------------
// Whole tables

std::string Spec(bool primary_key, const std::string& format, int64_t prefetch_memory) {
  std::string spec = R"({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
      {"name": "v", "type": "BIGINT"}, {"name": "s", "type": "STRING"}], )";
  if (primary_key) spec += R"("primaryKeys": ["id"], )";
  spec += R"("options": {"bucket": "4", "bucket-key": "id", "file.format": ")" + format +
          R"(", "read.prefetch.max-memory": ")" + std::to_string(prefetch_memory) + R"( b"}})";
  return spec;
}

// `n` rows with ids from `first` (step `step`), v = `version`, and 1 KB of random letters in s
// (incompressible enough that 2 commits hold more than 16 MB of files).
Status WriteRows(TableWriter& writer, int64_t first, int64_t step, int64_t n, int64_t version,
                 std::mt19937_64* random) {
  arrow::Int64Builder ids, vs;
  arrow::StringBuilder ss;
  std::string s(1024, 'a');
  for (int64_t i = 0; i < n; ++i) {
    (void)ids.Append(first + i * step);
    (void)vs.Append(version);
    for (char& c : s) c = static_cast<char>('a' + (*random)() % 26);
    (void)ss.Append(s);
  }
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("v", arrow::int64()),
                     arrow::field("s", arrow::utf8())}),
      n, {*ids.Finish(), *vs.Finish(), *ss.Finish()});
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*batch, &array, &schema).ok()) return Status::Internal("export");
  return writer.Write(&array, &schema);
}

// Every row of the table in read order ("id v hash(s)"); `prefetched` tells whether the read
// made a prefetching reader.
std::vector<std::string> ReadInOrder(const Table& table, bool* prefetched) {
  std::vector<std::string> rows;
  int64_t before = PrefetchingReadersMade();
  auto reader = table.NewReader(freshet::ReadOptions{});
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return rows;
  testing::ForEachBatch(**reader, [&](const arrow::RecordBatch& batch) {
    const auto& id = static_cast<const arrow::Int64Array&>(*batch.column(0));
    const auto& v = static_cast<const arrow::Int64Array&>(*batch.column(1));
    const auto& s = static_cast<const arrow::StringArray&>(*batch.column(2));
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      rows.push_back(std::to_string(id.Value(i)) + " " + std::to_string(v.Value(i)) + " " +
                     std::to_string(std::hash<std::string_view>{}(s.GetView(i))));
    }
  });
  *prefetched = PrefetchingReadersMade() > before;
  return rows;
}

TEST(SplitPrefetchTableTest, ReadsTheSameRowsInTheSameOrderAsOneThread) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: reads never prefetch";
  testing::TempDir dir;
  for (bool primary_key : {true, false}) {
    for (const char* format : {"parquet", "orc"}) {
      SCOPED_TRACE(::testing::Message() << (primary_key ? "primary key " : "append ") << format);
      std::vector<std::vector<std::string>> reads;
      std::vector<bool> prefetched;
      for (int64_t memory : {int64_t{0}, int64_t{1} << 20}) {
        std::string path = dir.Sub(std::string(primary_key ? "pk-" : "append-") + format + "-" +
                                   std::to_string(memory));
        ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, Spec(primary_key, format, memory)));
        ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
        std::mt19937_64 random(11);  // the same rows in every table
        ASSERT_OK(WriteRows(*writer, 0, 1, 16'000, 1, &random));
        ASSERT_OK(writer->Commit().status());
        // Overlaps the first commit's keys (every other one): primary-key splits merge.
        ASSERT_OK(WriteRows(*writer, 0, 2, 16'000, 2, &random));
        ASSERT_OK(writer->Commit().status());
        bool made = false;
        reads.push_back(ReadInOrder(*table, &made));
        prefetched.push_back(made);
      }
      EXPECT_EQ(reads[0].size(), primary_key ? 24'000u : 32'000u);
      EXPECT_EQ(reads[1], reads[0]);
      EXPECT_EQ(prefetched, (std::vector<bool>{false, true}))
          << "read.prefetch.max-memory 0 reads on the caller's thread, 1 mb prefetches (4 "
             "buckets, more than 16 MB of files)";
    }
  }
}

}  // namespace
}  // namespace freshet::read
