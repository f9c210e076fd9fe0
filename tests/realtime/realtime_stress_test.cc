// Consistency under load: 4 writer threads over 8 partition-buckets, one committer, 4 query
// threads, reclaim after every commit. Every query must see, per partition-bucket, exactly the
// offsets [0, k) for some k at least the committed progress when the query started.
//
// Rows: FRESHET_STRESS_ROWS (default 1,000,000). Longer run and sanitizer builds: docs/realtime.md.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "meta/schema/schema_manager.h"
#include "realtime/realtime_test_util.h"
#include "write/row_keys.h"

namespace freshet::testing {
namespace {

constexpr int kWriters = 4;
constexpr int kBuckets = 8;
constexpr int kQueryThreads = 4;
constexpr int64_t kBatchRows = 250;

int64_t StressRows() {
  const char* env = std::getenv("FRESHET_STRESS_ROWS");
  return env ? std::atoll(env) : 1000000;
}

// One key per bucket: keys[b] routes to bucket b (Java's bucket function).
std::vector<int32_t> KeyPerBucket(const std::string& table_path) {
  auto schema = meta::SchemaManager(io::LocalFileIO(), table_path).LatestSchema();
  EXPECT_TRUE(schema.ok() && schema->has_value());
  auto extractor = write::RowKeyExtractor::Make(**schema);
  EXPECT_TRUE(extractor.ok());
  std::vector<int32_t> keys(kBuckets, -1);
  int found = 0;
  for (int32_t k = 0; found < kBuckets && k < 10000; ++k) {
    auto row_keys = extractor->Extract(*EventBatch({Event{k, 0}}));
    EXPECT_TRUE(row_keys.ok());
    int32_t bucket = row_keys->bucket_of_row[0];
    if (keys[bucket] < 0) {
      keys[bucket] = k;
      ++found;
    }
  }
  EXPECT_EQ(found, kBuckets);
  return keys;
}

TEST(RealtimeStressTest, QueriesSeeGapFreeDuplicateFreePrefixesWhileWritingCommittingReclaiming) {
  TempDir dir;
  const int64_t rows = StressRows();
  ASSERT_OK_AND_ASSIGN(
      auto table, Table::Create(dir.Sub("t"), EventTableSpec(R"("bucket": "8", "bucket-key": "k", )"
                                                             R"("realtime.enabled": "true")")));
  ASSERT_OK_AND_ASSIGN(auto context, table->Realtime());
  const std::vector<int32_t> keys = KeyPerBucket(dir.Sub("t"));
  std::map<int32_t, int> bucket_of_key;
  for (int b = 0; b < kBuckets; ++b) bucket_of_key[keys[b]] = b;

  std::atomic<int> writers_left{kWriters};
  std::atomic<bool> failed{false};
  std::atomic<int64_t> queries{0}, commits{0}, memory_rows_seen{0}, commit_micros{0};
  auto fail = [&](const std::string& why) {
    if (!failed.exchange(true)) ADD_FAILURE() << why;
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto writer = table->NewWriter();
      if (!writer.ok()) return fail(writer.status().ToString());
      const int64_t per_key = rows / kWriters / 2;
      int64_t next[2] = {0, 0};
      for (int64_t step = 0; !failed && (next[0] < per_key || next[1] < per_key); ++step) {
        int which = step % 2;
        if (next[which] >= per_key) which = 1 - which;
        int32_t key = keys[w * 2 + which];
        int64_t n = std::min(kBatchRows, per_key - next[which]);
        Status st = WriteEvents(**writer, Events(key, next[which], n));
        if (st.IsResourceExhausted()) {  // back-pressure: wait for the committer
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        if (!st.ok()) return fail("write: " + st.ToString());
        next[which] += n;
        // Paced so that the run spans many commits and queries instead of racing past them.
        if (step % 4 == 3) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      --writers_left;
    });
  }
  threads.emplace_back([&] {
    auto writer = table->NewWriter();
    if (!writer.ok()) return fail(writer.status().ToString());
    while (!failed) {
      bool last = writers_left == 0;
      auto started = std::chrono::steady_clock::now();
      auto committed = (*writer)->Commit();
      commit_micros += std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
      if (!committed.ok()) return fail("commit: " + committed.status().ToString());
      if (*committed) ++commits;
      if (last) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  for (int q = 0; q < kQueryThreads; ++q) {
    threads.emplace_back([&] {
      while (!failed && writers_left > 0) {
        std::map<int, int64_t> progress;
        for (const auto& p : context->CommittedProgress()) progress[p.bucket] = p.end;
        ReadOptions options;
        options.columns = {"k", "seq"};
        auto reader = table->NewReader(options);
        if (!reader.ok()) return fail("plan: " + reader.status().ToString());
        auto events = ReadEvents(**reader);
        if (!events.ok()) return fail("read: " + events.status().ToString());
        std::map<int32_t, int64_t> count;
        for (const Event& e : *events) {
          int64_t& c = count[e.k];
          if (e.seq != c) {
            return fail("key " + std::to_string(e.k) + ": expected offset " + std::to_string(c) +
                        ", got " + std::to_string(e.seq) + " (gap or duplicate)");
          }
          ++c;
        }
        for (const auto& [bucket, end] : progress) {
          int64_t seen = count[keys[bucket]];
          if (seen < end) {
            return fail("bucket " + std::to_string(bucket) + ": query saw " + std::to_string(seen) +
                        " rows, below the committed progress " + std::to_string(end) +
                        " at its start");
          }
        }
        int64_t committed_rows = 0;
        for (const auto& [bucket, end] : progress) committed_rows += end;
        memory_rows_seen += static_cast<int64_t>(events->size()) - committed_rows;
        ++queries;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_FALSE(failed);

  const int64_t per_key = rows / kWriters / 2;
  ReadOptions disk_only;
  disk_only.include_uncommitted = false;
  ASSERT_OK_AND_ASSIGN(auto committed, ReadEvents(*table, disk_only));
  EXPECT_EQ(static_cast<int64_t>(committed.size()), per_key * kBuckets);
  std::vector<Event> expected;
  for (int32_t key : keys) {
    auto events = Events(key, 0, per_key);
    expected.insert(expected.end(), events.begin(), events.end());
  }
  EXPECT_EQ(committed, Sorted(expected));
  context->CollectGarbage();
  EXPECT_EQ(context->Usage().memory_bytes, 0);
  EXPECT_GT(queries.load(), 0);
  EXPECT_GT(commits.load(), 1);
  std::cout << "rows=" << per_key * kBuckets << " commits=" << commits << " queries=" << queries
            << " memory rows seen by queries=" << memory_rows_seen
            << " commit seconds=" << commit_micros / 1e6 << "\n";
}

}  // namespace
}  // namespace freshet::testing
