// Dynamic bucket mode of primary-key tables (`bucket` = -1): the hash index file codec, the
// bucket choice against a model, and tables written across commits, writer restarts, aborts,
// compactions and a second writer, read back against the merge-engine model.
#include "write/dynamic_bucket_assigner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/bucket/bucket_function.h"
#include "meta/bucket/hash_index_file.h"
#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/primary_key_model.h"
#include "testing/table_files.h"
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
using testing::pk::WriteRows;

// ---------------------------------------------------------------------------------------------
// Hash index file codec

TEST(HashIndexFileTest, BigEndianIntsWithoutHeader) {
  std::vector<int32_t> hashes = {1, -1, 0x12345678, INT32_MIN};
  std::string bytes = meta::EncodeHashIndex(hashes);
  EXPECT_EQ(bytes,
            std::string("\x00\x00\x00\x01\xff\xff\xff\xff\x12\x34\x56\x78\x80\x00\x00\x00", 16));
  ASSERT_OK_AND_ASSIGN(auto decoded, meta::DecodeHashIndex(bytes, "f"));
  EXPECT_EQ(decoded, hashes);
  ASSERT_OK_AND_ASSIGN(auto empty, meta::DecodeHashIndex("", "f"));
  EXPECT_TRUE(empty.empty());
  auto torn = meta::DecodeHashIndex(bytes.substr(0, 6), "index-x-0");
  ASSERT_TRUE(torn.status().IsCorruption());
  EXPECT_NE(torn.status().message().find("index-x-0"), std::string::npos);
}

TEST(HashIndexFileTest, WriterNamesFilesAsJavaAndRoundTrips) {
  freshet::testing::TempDir dir;
  auto file_io = io::LocalFileIO();
  meta::HashIndexFileWriter writer(file_io, dir.Sub("index"));
  std::mt19937 rng(7);
  std::vector<int32_t> hashes(1000);
  for (auto& h : hashes) h = static_cast<int32_t>(rng());
  ASSERT_OK_AND_ASSIGN(auto first, writer.Write(hashes));
  ASSERT_OK_AND_ASSIGN(auto second, writer.Write({}));
  EXPECT_EQ(first.index_type, "HASH");
  EXPECT_EQ(first.row_count, 1000);
  EXPECT_EQ(first.file_size, 4000);
  EXPECT_TRUE(first.file_name.starts_with("index-") && first.file_name.ends_with("-0"));
  EXPECT_EQ(first.file_name.substr(0, first.file_name.size() - 1),
            second.file_name.substr(0, second.file_name.size() - 1));  // one uuid, a counter
  EXPECT_TRUE(second.file_name.ends_with("-1"));
  ASSERT_OK_AND_ASSIGN(auto read,
                       meta::ReadHashIndex(*file_io, dir.Sub("index/" + first.file_name)));
  EXPECT_EQ(read, hashes);
}

// ---------------------------------------------------------------------------------------------
// Bucket choice against a model

// The rule Java's PartitionIndex follows with one assigner and no bucket limit: a known key keeps
// its bucket; a new key goes to the lowest bucket below the target, else to the lowest unused
// bucket number. Buckets only fill up, so "lowest bucket below the target" is Java's walk over
// the buckets it has not yet found full.
class ChoiceModel {
 public:
  explicit ChoiceModel(int64_t target) : target_(target) {}
  void Load(int32_t bucket, const std::vector<int32_t>& hashes) {
    for (int32_t h : hashes) bucket_of_[h] = bucket;
    count_[bucket] += static_cast<int64_t>(hashes.size());
  }
  int32_t Assign(int32_t hash) {
    if (auto it = bucket_of_.find(hash); it != bucket_of_.end()) return it->second;
    int32_t chosen = -1;
    for (auto& [bucket, count] : count_) {
      if (count < target_) {
        chosen = bucket;
        break;
      }
    }
    if (chosen < 0) {
      chosen = 0;
      while (count_.count(chosen)) ++chosen;
    }
    ++count_[chosen];
    bucket_of_[hash] = chosen;
    return chosen;
  }

 private:
  int64_t target_;
  std::map<int32_t, int32_t> bucket_of_;
  std::map<int32_t, int64_t> count_;
};

TEST(PartitionBucketChoiceTest, FillsBucketsUpToTheTargetThenOpensNewOnes) {
  DynamicBucketOptions options;
  options.target_row_num = 3;
  PartitionBucketChoice choice;
  std::mt19937 random(1);
  std::vector<int32_t> buckets;
  for (int32_t hash = 100; hash < 110; ++hash) {
    ASSERT_OK_AND_ASSIGN(int32_t b, choice.Assign(hash, options, &random));
    buckets.push_back(b);
  }
  EXPECT_EQ(buckets, (std::vector<int32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3}));
  ASSERT_OK_AND_ASSIGN(int32_t again, choice.Assign(104, options, &random));
  EXPECT_EQ(again, 1);  // a known key keeps its bucket
}

TEST(PartitionBucketChoiceTest, MatchesTheModelAfterLoadingAnIndex) {
  uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(static_cast<uint32_t>(seed));
  for (int round = 0; round < 50; ++round) {
    DynamicBucketOptions options;
    options.target_row_num = 1 + static_cast<int64_t>(rng() % 6);
    PartitionBucketChoice choice;
    ChoiceModel model(options.target_row_num);
    // A loaded index with gaps in the bucket numbers and buckets over and under the target.
    for (int32_t bucket : {0, 2, 5}) {
      std::vector<int32_t> hashes;
      for (int i = 0; i < static_cast<int>(rng() % 9); ++i) {
        hashes.push_back(static_cast<int32_t>(rng() % 200) + bucket * 1000);
      }
      choice.AddBucket(bucket, hashes);
      model.Load(bucket, hashes);
    }
    std::mt19937 random(3);
    for (int i = 0; i < 200; ++i) {
      // Repeats on purpose: known keys come back.
      int32_t hash = static_cast<int32_t>(rng() % 300) + (rng() % 2 ? 0 : 2000);
      ASSERT_OK_AND_ASSIGN(int32_t got, choice.Assign(hash, options, &random));
      ASSERT_EQ(got, model.Assign(hash)) << "round " << round << " hash " << hash;
    }
  }
}

TEST(PartitionBucketChoiceTest, MaxBucketsSpreadsNewKeysOverExistingBuckets) {
  DynamicBucketOptions options;
  options.target_row_num = 2;
  options.max_buckets = 3;
  PartitionBucketChoice choice;
  std::mt19937 random(5);
  std::map<int32_t, int32_t> first;
  for (int32_t hash = 0; hash < 40; ++hash) {
    ASSERT_OK_AND_ASSIGN(int32_t b, choice.Assign(hash, options, &random));
    EXPECT_GE(b, 0);
    EXPECT_LT(b, 3);
    if (hash < 6) {
      EXPECT_EQ(b, hash / 2);
    }
    first[hash] = b;
  }
  for (int32_t hash = 0; hash < 40; ++hash) {
    ASSERT_OK_AND_ASSIGN(int32_t b, choice.Assign(hash, options, &random));
    EXPECT_EQ(b, first[hash]);
  }
}

// ---------------------------------------------------------------------------------------------
// Tables

// HASH entries of snapshot `id` (default latest) of the table at `path`.
std::vector<meta::IndexManifestEntry> HashEntries(const std::string& path,
                                                  std::optional<int64_t> id = std::nullopt) {
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path);
  std::optional<meta::Snapshot> snapshot;
  if (id) {
    auto read = snapshots.ReadSnapshot(*id);
    EXPECT_TRUE(read.ok());
    if (read.ok()) snapshot = *read;
  } else {
    auto latest = snapshots.LatestSnapshot();
    EXPECT_TRUE(latest.ok());
    if (latest.ok()) snapshot = *latest;
  }
  if (!snapshot || !snapshot->index_manifest) return {};
  meta::ManifestFile manifests(file_io, path);
  auto entries = manifests.ReadIndexManifest(*snapshot->index_manifest);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  std::vector<meta::IndexManifestEntry> out;
  for (auto& e : entries.ok() ? *entries : std::vector<meta::IndexManifestEntry>{}) {
    if (e.index_type == "HASH") out.push_back(e);
  }
  return out;
}

// Java's hash of the trimmed primary key (id BIGINT) of the test tables.
int32_t KeyHash(int64_t id) {
  meta::BinaryRowWriter writer(1);
  writer.WriteLong(0, id);
  return meta::HashBinaryRow(writer.Finish());
}

// The latest snapshot's hash index: each partition's buckets hold disjoint key sets of at most
// `target` keys, one file per bucket, and every key `model_keys` holds is in one of them.
void CheckIndex(const std::string& path, int64_t target,
                const std::map<std::string, std::set<int64_t>>& model_keys) {
  auto file_io = io::LocalFileIO();
  std::map<std::string, std::map<int32_t, int32_t>> bucket_of_hash;  // partition bytes -> ...
  std::map<std::pair<std::string, int32_t>, int> files_per_bucket;
  for (const auto& e : HashEntries(path)) {
    int& files = files_per_bucket[{e.partition, e.bucket}];
    EXPECT_EQ(++files, 1) << "bucket " << e.bucket;
    ASSERT_OK_AND_ASSIGN(auto hashes,
                         meta::ReadHashIndex(*file_io, path + "/index/" + e.file_name));
    EXPECT_EQ(static_cast<int64_t>(hashes.size()), e.row_count);
    EXPECT_LE(static_cast<int64_t>(hashes.size()), target) << "bucket " << e.bucket;
    for (int32_t h : hashes) {
      auto [it, fresh] = bucket_of_hash[e.partition].emplace(h, e.bucket);
      EXPECT_TRUE(fresh) << "hash " << h << " in buckets " << it->second << " and " << e.bucket;
    }
  }
  for (const auto& [dt, ids] : model_keys) {
    meta::BinaryRowWriter partition(1);
    partition.WriteBinary(0, dt);
    const auto& index = bucket_of_hash[meta::SerializeBinaryRow(partition.Finish())];
    for (int64_t id : ids) EXPECT_TRUE(index.count(KeyHash(id))) << dt << "/" << id;
  }
}

std::map<std::string, std::string> DynamicOptions(const std::string& engine, int64_t target) {
  auto options = EngineOptions(engine);
  options["bucket"] = "-1";
  options["dynamic-bucket.target-row-num"] = std::to_string(target);
  options["write-buffer-size"] = "4 kb";
  options["num-sorted-run.compaction-trigger"] = "3";
  return options;
}

class DynamicBucketDifferentialTest : public ::testing::TestWithParam<std::string> {};

// Random upserts and deletes over few keys in two partitions, many commits, writers that live a
// few commits (some on a freshly opened table: a new process), background compaction and
// table-level compaction passes: every snapshot reads as the model says, and the hash index keeps
// every key in one bucket.
TEST_P(DynamicBucketDifferentialTest, EverySnapshotMatchesTheModel) {
  const std::string engine = GetParam();
  uint64_t seed = freshet::testing::TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FRESHET_TEST_SEED repeats it)");
  std::mt19937_64 rng(seed);
  freshet::testing::TempDir dir;
  std::string path = dir.Sub("t");
  const int64_t target = 5;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, SchemaSpec(DynamicOptions(engine, target))));
  Model model(engine);
  std::map<std::string, std::set<int64_t>> written_keys;
  std::vector<RowKind> kinds = EngineKinds(engine);
  std::map<int64_t, std::vector<std::string>> expected;
  std::unique_ptr<TableWriter> writer;
  for (int commit = 0; commit < 14; ++commit) {
    if (commit % 3 == 0) {
      if (rng() % 2) {
        ASSERT_OK_AND_ASSIGN(table, Table::Open(path));  // as a new process would
      }
      ASSERT_OK_AND_ASSIGN(writer, table->NewWriter());
    }
    std::vector<Row> rows;
    for (int i = 0; i < 1 + static_cast<int>(rng() % 30); ++i) {
      Row r;
      r.dt = rng() % 3 ? "a" : "b";
      r.id = static_cast<int64_t>(rng() % 40);
      r.name = "n" + std::to_string(rng() % 1000);
      r.v = static_cast<int64_t>(rng() % 100);
      r.kind = kinds[rng() % kinds.size()];
      rows.push_back(r);
    }
    ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kInt8)));
    for (const Row& r : rows) {
      model.Apply(r);
      // ignore-delete tables drop retracts before they reach a bucket.
      bool dropped =
          engine == "first-row" && (r.kind == RowKind::kUpdateBefore || r.kind == RowKind::kDelete);
      if (!dropped) written_keys[r.dt].insert(r.id);
    }
    // No snapshot when a first-row table's rows were all dropped retracts of known keys.
    ASSERT_OK(writer->Commit().status());
    if (rng() % 4 == 0) {
      ASSERT_OK_AND_ASSIGN(auto compacted, table->Compact(CompactOptions{rng() % 2 == 0, {}}));
      (void)compacted;
    }
    bool compacted_all = engine == "first-row";
    if (compacted_all) {
      ASSERT_OK(table->Compact(CompactOptions{true, {}}).status());
    }
    ASSERT_OK_AND_ASSIGN(auto snapshots, table->Snapshots());
    int64_t latest = snapshots.back().id;
    expected[latest] = model.Rows(compacted_all);
    ASSERT_EQ(ReadAll(*table), expected[latest]) << "snapshot " << latest;
    CheckIndex(path, target, written_keys);
  }
  for (const auto& [id, rows] : expected) EXPECT_EQ(ReadAll(*table, id), rows) << "snapshot " << id;
}

INSTANTIATE_TEST_SUITE_P(Engines, DynamicBucketDifferentialTest,
                         ::testing::Values("deduplicate", "partial-update", "aggregation",
                                           "first-row"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

class DynamicBucketTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(table_,
                         Table::Create(path_, SchemaSpec(DynamicOptions("deduplicate", 4))));
  }

  static std::vector<Row> Keys(const std::string& dt, int64_t from, int64_t to, int64_t v) {
    std::vector<Row> rows;
    for (int64_t id = from; id < to; ++id) rows.push_back(Row{dt, id, "x", v, RowKind::kInsert});
    return rows;
  }
  void Write(TableWriter* writer, const std::vector<Row>& rows) {
    ASSERT_OK(WriteRows(writer, MakeBatch(rows, KindColumn::kNone)));
    for (const Row& r : rows) model_.Apply(r);
  }
  // (partition bytes, bucket) -> live index file names.
  std::map<std::pair<std::string, int32_t>, std::string> IndexFiles() const {
    std::map<std::pair<std::string, int32_t>, std::string> files;
    for (const auto& e : HashEntries(path_)) files[{e.partition, e.bucket}] = e.file_name;
    return files;
  }
  std::set<std::string> IndexDirectory() const {
    std::set<std::string> names;
    if (!fs::exists(path_ + "/index")) return names;
    for (const auto& f : fs::directory_iterator(path_ + "/index")) {
      names.insert(f.path().filename().string());
    }
    return names;
  }

  freshet::testing::TempDir dir_;
  std::string path_ = dir_.Sub("t");
  std::shared_ptr<Table> table_;
  Model model_{"deduplicate"};
};

// Keys keep their bucket across writers and processes; only buckets that got new keys get a new
// index file, and the manifest entries say total_buckets -1 as Java writes them.
TEST_F(DynamicBucketTableTest, KeysKeepTheirBucketAcrossRestarts) {
  {
    ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
    Write(writer.get(), Keys("a", 0, 10, 1));  // buckets 0, 1 full, bucket 2 holds 2 keys
    ASSERT_OK(writer->Commit().status());
  }
  auto before = IndexFiles();
  ASSERT_EQ(before.size(), 3u);
  for (const auto& e : freshet::testing::LiveEntries(path_)) EXPECT_EQ(e.total_buckets, -1);
  ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(path_));
  ASSERT_OK_AND_ASSIGN(auto writer, reopened->NewWriter());
  Write(writer.get(), Keys("a", 0, 10, 2));  // known keys only: no new index file
  ASSERT_OK(writer->Commit().status());
  EXPECT_EQ(IndexFiles(), before);
  Write(writer.get(), Keys("a", 10, 13, 3));  // 2 fill bucket 2, 1 opens bucket 3
  ASSERT_OK(writer->Commit().status());
  auto after = IndexFiles();
  ASSERT_EQ(after.size(), 4u);
  for (const auto& [bucket, name] : before) {
    if (bucket.second < 2) {
      EXPECT_EQ(after[bucket], name) << "bucket " << bucket.second;
    } else {
      EXPECT_NE(after[bucket], name) << "bucket " << bucket.second;
    }
  }
  EXPECT_EQ(ReadAll(*reopened), model_.Rows());
  CheckIndex(path_, 4, {{"a", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}});
}

// An aborted write leaves no index file behind and its keys are forgotten: the next keys fill
// the buckets as if the aborted ones had never come.
TEST_F(DynamicBucketTableTest, AbortForgetsTheAbortedKeys) {
  ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(Keys("a", 100, 110, 1), KindColumn::kNone)));
  ASSERT_OK(writer->Abort());
  EXPECT_TRUE(IndexDirectory().empty());
  Write(writer.get(), Keys("a", 0, 4, 1));
  ASSERT_OK(writer->Commit().status());
  auto files = IndexFiles();
  ASSERT_EQ(files.size(), 1u);  // the 4 keys fit bucket 0: the aborted 10 took no room
  EXPECT_EQ(IndexDirectory(), std::set<std::string>{files.begin()->second});
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

// Two writers on one table: the second to commit new keys into a partition the first changed is
// refused (it could have put a key in a second bucket); after Abort it writes again and the
// table holds each key once.
TEST_F(DynamicBucketTableTest, ASecondWriterWithNewKeysConflicts) {
  ASSERT_OK_AND_ASSIGN(auto first, table_->NewWriter());
  ASSERT_OK_AND_ASSIGN(auto second, table_->NewWriter());
  Write(first.get(), Keys("a", 0, 3, 1));
  // The same new keys: alone, each writer would put them where the other did not expect.
  ASSERT_OK(WriteRows(second.get(), MakeBatch(Keys("a", 2, 6, 2), KindColumn::kNone)));
  ASSERT_OK(first->Commit().status());
  auto refused = second->Commit();
  ASSERT_TRUE(refused.status().IsConflict()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("one writer"), std::string::npos);
  ASSERT_OK(second->Abort());
  Write(second.get(), Keys("a", 2, 6, 2));
  ASSERT_OK(second->Commit().status());
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
  CheckIndex(path_, 4, {{"a", {0, 1, 2, 3, 4, 5}}});
  // A writer that adds no key does not conflict with one that did.
  ASSERT_OK_AND_ASSIGN(auto third, table_->NewWriter());
  Write(third.get(), Keys("a", 0, 2, 3));
  ASSERT_OK_AND_ASSIGN(auto fourth, table_->NewWriter());
  Write(fourth.get(), Keys("b", 0, 2, 3));
  ASSERT_OK(fourth->Commit().status());
  ASSERT_OK(third->Commit().status());
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

// Expiration keeps the index files of retained snapshots and deletes the others.
TEST_F(DynamicBucketTableTest, ExpirationKeepsTheIndexFilesOfRetainedSnapshots) {
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir_.Sub("e"), SchemaSpec([] {
                                                   auto options = DynamicOptions("deduplicate", 4);
                                                   options["snapshot.num-retained.min"] = "2";
                                                   options["snapshot.num-retained.max"] = "2";
                                                   options["snapshot.time-retained"] = "0 ms";
                                                   return options;
                                                 }())));
  path_ = dir_.Sub("e");
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  for (int commit = 0; commit < 6; ++commit) {
    Write(writer.get(), Keys("a", 0, 2 + commit, commit));  // bucket 0 or 1 grows every time
    ASSERT_OK(writer->Commit().status());
  }
  std::set<std::string> retained;
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path_);
  ASSERT_OK_AND_ASSIGN(auto ids, snapshots.ListSnapshotIds());
  EXPECT_EQ(ids.size(), 2u);
  for (int64_t id : ids) {
    for (const auto& e : HashEntries(path_, id)) retained.insert(e.file_name);
  }
  EXPECT_EQ(IndexDirectory(), retained);
  EXPECT_EQ(ReadAll(*table), model_.Rows());
}

// An overwrite would drop the hash index of buckets this writer assigned keys to from it.
TEST_F(DynamicBucketTableTest, OverwriteIsRefused) {
  ASSERT_OK_AND_ASSIGN(auto writer, table_->NewWriter());
  Write(writer.get(), Keys("a", 0, 3, 1));
  CommitOptions overwrite;
  overwrite.overwrite = true;
  auto refused = writer->Commit(overwrite);
  ASSERT_TRUE(refused.status().IsNotImplemented()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("'bucket' = -1"), std::string::npos);
  ASSERT_OK(writer->Commit().status());  // the rows stay for a plain commit
  EXPECT_EQ(ReadAll(*table_), model_.Rows());
}

TEST(DynamicBucketSupportTest, CrossPartitionUpsertIsRefused) {
  freshet::testing::TempDir dir;
  std::string spec = R"({"fields": [{"name": "dt", "type": "STRING"},
      {"name": "id", "type": "BIGINT"}], "partitionKeys": ["dt"], "primaryKeys": ["id"],
      "options": {"bucket": "-1"}})";
  auto created = Table::Create(dir.Sub("t"), spec);
  ASSERT_TRUE(created.status().IsNotImplemented()) << created.status().ToString();
  EXPECT_NE(created.status().message().find("cross-partition upsert"), std::string::npos);
  EXPECT_NE(created.status().message().find("'dt'"), std::string::npos);
}

TEST(DynamicBucketSupportTest, PostponedBucketsStayRefused) {
  freshet::testing::TempDir dir;
  auto created = Table::Create(dir.Sub("t"), SchemaSpec({{"bucket", "-2"}}));
  ASSERT_TRUE(created.status().IsNotImplemented()) << created.status().ToString();
  EXPECT_NE(created.status().message().find("'bucket' = -2"), std::string::npos);
}

}  // namespace
}  // namespace freshet::write
