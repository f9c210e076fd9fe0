// LiveKeys built from a previous live set's keys equal keys built from the entries: the same
// partition, bucket, level and schema per entry, the same files per partition, and no partition
// left without files (dropped ones, or those of an unrelated set).
#include "scan/live_keys.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace freshet::scan {
namespace {

using Entries = std::vector<std::shared_ptr<const meta::ManifestEntry>>;

std::shared_ptr<const meta::ManifestEntry> Entry(std::mt19937_64& rng, int partitions, int* next) {
  auto entry = std::make_shared<meta::ManifestEntry>();
  entry->partition = "p" + std::to_string(rng() % partitions);
  entry->bucket = static_cast<int32_t>(rng() % 4);
  entry->total_buckets = 4;
  entry->file.level = static_cast<int32_t>(rng() % 3);
  entry->file.schema_id = static_cast<int64_t>(rng() % 2);
  entry->file.file_name = "data-" + std::to_string((*next)++);
  return entry;
}

// Every entry's key as values, and the files of each partition, by partition string.
void ExpectSameKeys(const LiveKeys& got, const LiveKeys& want) {
  ASSERT_EQ(got.keys.size(), want.keys.size());
  for (size_t i = 0; i < got.keys.size(); ++i) {
    const LiveKeys::Key& a = got.keys[i];
    const LiveKeys::Key& b = want.keys[i];
    EXPECT_EQ(got.partitions[a.partition], want.partitions[b.partition]) << i;
    EXPECT_EQ(a.bucket, b.bucket);
    EXPECT_EQ(a.total_buckets, b.total_buckets);
    EXPECT_EQ(a.level, b.level);
    EXPECT_EQ(a.schema_id, b.schema_id);
  }
  auto files_by_partition = [](const LiveKeys& keys) {
    std::map<std::string, std::vector<uint32_t>> out;
    for (size_t p = 0; p < keys.partitions.size(); ++p) {
      std::vector<uint32_t>& files = out[keys.partitions[p]];
      EXPECT_LT(keys.partition_begin[p], keys.partition_begin[p + 1])
          << "partition " << keys.partitions[p] << " has no files";
      for (uint32_t k = keys.partition_begin[p]; k < keys.partition_begin[p + 1]; ++k) {
        files.push_back(keys.by_partition[k]);
      }
    }
    return out;
  };
  EXPECT_EQ(files_by_partition(got), files_by_partition(want));
}

TEST(LiveKeysTest, KeysCarriedFromThePreviousSetEqualKeysBuiltFromTheEntries) {
  std::mt19937_64 rng(7);
  int next = 0;
  Entries first;
  for (int i = 0; i < 3000; ++i) first.push_back(Entry(rng, 40, &next));
  auto live = std::make_shared<const Entries>(first);
  LiveKeys keys = LiveKeys::Build(live);
  for (int round = 0; round < 20; ++round) {
    // Drop about a quarter of the files and every file of one partition; add files, some in
    // partitions never seen.
    const std::string dropped = "p" + std::to_string(round % 40);
    Entries advanced;
    for (const auto& entry : *live) {
      if (rng() % 4 != 0 && entry->partition != dropped) advanced.push_back(entry);
    }
    for (int i = 0; i < 200; ++i) advanced.push_back(Entry(rng, 40 + round, &next));
    auto next_live = std::make_shared<const Entries>(std::move(advanced));
    LiveKeys carried = LiveKeys::Build(next_live, &keys, &live);
    ExpectSameKeys(carried, LiveKeys::Build(next_live));
    keys = std::move(carried);
    live = next_live;
  }
  // A set of another table: nothing pairs, and none of the previous partitions stays.
  Entries other;
  for (int i = 0; i < 50; ++i) other.push_back(Entry(rng, 3, &next));
  auto other_live = std::make_shared<const Entries>(std::move(other));
  LiveKeys unrelated = LiveKeys::Build(other_live, &keys, &live);
  ExpectSameKeys(unrelated, LiveKeys::Build(other_live));
  EXPECT_LE(unrelated.partitions.size(), 3u);
}

}  // namespace
}  // namespace freshet::scan
