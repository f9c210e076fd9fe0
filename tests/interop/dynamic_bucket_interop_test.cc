// Dynamic-bucket primary-key tables (`bucket` = -1) between freshet and Java Paimon: Java reads
// every snapshot freshet writes, each writer upserts the keys the other wrote without a key
// landing in a second bucket, both pick the same buckets for the same rows, and freshet's hash
// index codec reproduces Java's files byte for byte.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"
#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "io/file_io.h"
#include "meta/bucket/bucket_function.h"
#include "meta/bucket/hash_index_file.h"
#include "meta/manifest/manifest_file.h"
#include "meta/row/binary_row.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/primary_key_model.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

using testing::pk::KindColumn;
using testing::pk::MakeBatch;
using testing::pk::Model;
using testing::pk::Row;
using testing::pk::SchemaSpec;
using testing::pk::WriteRows;

std::string JsonLine(const Row& r, bool with_kind) {
  std::string line = "{";
  if (with_kind) line += R"("_kind": ")" + std::string(RowKindShortString(r.kind)) + R"(", )";
  return line + R"("dt": )" + JsonString(r.dt) + R"(, "id": )" + std::to_string(r.id) +
         R"(, "name": )" + (r.name ? JsonString(*r.name) : "null") + R"(, "v": )" +
         (r.v ? std::to_string(*r.v) : "null") + "}";
}

std::string Jsonl(const std::vector<Row>& rows, bool with_kind) {
  std::string out;
  for (const Row& r : rows) out += JsonLine(r, with_kind) + "\n";
  return out;
}

// The deduplicate model's rows as JSON lines (testing::pk::Model keeps them as text).
std::string ModelJsonl(const std::map<std::pair<std::string, int64_t>, Row>& rows) {
  std::string out;
  for (const auto& [key, r] : rows) out += JsonLine(r, false) + "\n";
  return out;
}

void Apply(const Row& r, std::map<std::pair<std::string, int64_t>, Row>* model) {
  if (r.kind == RowKind::kUpdateBefore || r.kind == RowKind::kDelete) {
    model->erase({r.dt, r.id});
  } else {
    (*model)[{r.dt, r.id}] = r;
  }
}

std::vector<Row> RandomRows(std::mt19937_64& rng, size_t n, int64_t first_id, uint64_t keys) {
  const RowKind kinds[] = {RowKind::kInsert, RowKind::kUpdateAfter, RowKind::kInsert,
                           RowKind::kDelete};
  std::vector<Row> rows(n);
  for (Row& r : rows) {
    r.dt = rng() % 2 ? "p" : "q";
    r.id = first_id + static_cast<int64_t>(rng() % keys);
    r.name = "n" + std::to_string(rng() % 1000);
    r.v = static_cast<int64_t>(rng() % 1000);
    r.kind = kinds[rng() % 4];
  }
  return rows;
}

std::string Spec(int64_t target, bool realtime = false) {
  std::map<std::string, std::string> options{
      {"bucket", "-1"},
      {"dynamic-bucket.target-row-num", std::to_string(target)},
      {"write-buffer-size", "4 kb"},
      {"page-size", "1 kb"}};
  if (realtime) options["realtime.enabled"] = "true";
  return SchemaSpec(options);
}

// Partition text -> bucket -> hashes of the latest snapshot's hash index files; each file's bytes
// are checked against freshet's encoding of what freshet decodes from them.
std::map<std::string, std::map<int32_t, std::set<int32_t>>> HashIndex(const std::string& path) {
  auto file_io = io::LocalFileIO();
  std::map<std::string, std::map<int32_t, std::set<int32_t>>> out;
  auto latest = meta::SnapshotManager(file_io, path).LatestSnapshot();
  EXPECT_TRUE(latest.ok() && latest->has_value());
  if (!latest.ok() || !latest->has_value() || !(*latest)->index_manifest) return out;
  meta::ManifestFile manifests(file_io, path);
  auto entries = manifests.ReadIndexManifest(*(*latest)->index_manifest);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  for (const auto& e : entries.ok() ? *entries : std::vector<meta::IndexManifestEntry>{}) {
    if (e.index_type != meta::kHashIndexType) continue;
    std::string file = path + "/index/" + e.file_name;
    auto bytes = file_io->ReadFile(file);
    EXPECT_TRUE(bytes.ok()) << file;
    if (!bytes.ok()) continue;
    auto hashes = meta::DecodeHashIndex(*bytes, file);
    EXPECT_TRUE(hashes.ok());
    if (!hashes.ok()) continue;
    EXPECT_EQ(meta::EncodeHashIndex(*hashes), *bytes) << file;
    EXPECT_EQ(static_cast<int64_t>(hashes->size()), e.row_count) << file;
    auto partition = meta::DeserializeBinaryRow(e.partition);
    EXPECT_TRUE(partition.ok());
    auto text = partition.ok() ? partition->GetBinary(0) : Result<std::string>(std::string("?"));
    std::string dt = text.ok() ? *text : "?";
    auto& bucket = out[dt][e.bucket];
    EXPECT_TRUE(bucket.empty()) << "two index files for " << dt << "/" << e.bucket;
    bucket.insert(hashes->begin(), hashes->end());
  }
  return out;
}

int32_t KeyHash(int64_t id) {
  meta::BinaryRowWriter writer(1);
  writer.WriteLong(0, id);
  return meta::HashBinaryRow(writer.Finish());
}

// No hash in two buckets of a partition, and every key of `keys` (dt -> ids) in one of them.
void ExpectOneBucketPerKey(const std::string& path,
                           const std::map<std::string, std::set<int64_t>>& keys) {
  auto index = HashIndex(path);
  for (const auto& [dt, ids] : keys) {
    std::map<int32_t, int32_t> bucket_of;
    for (const auto& [bucket, hashes] : index[dt]) {
      for (int32_t h : hashes) {
        auto [it, fresh] = bucket_of.emplace(h, bucket);
        EXPECT_TRUE(fresh) << dt << ": hash " << h << " in buckets " << it->second << " and "
                           << bucket;
      }
    }
    for (int64_t id : ids) EXPECT_TRUE(bucket_of.count(KeyHash(id))) << dt << "/" << id;
  }
}

std::vector<std::string> JavaRead(const std::string& path) {
  CommandResult read = RunCommand(JavaCommand({"read", "--table", path}));
  EXPECT_TRUE(read.ok()) << read.Describe();
  return CanonicalRows(read.out);
}

std::vector<std::string> FreshetRead(const std::string& path) {
  CommandResult read = RunCommand({FreshetCliPath(), "read", path, "--format", "jsonl"});
  EXPECT_TRUE(read.ok()) << read.Describe();
  return CanonicalRows(read.out);
}

// Java's read of every snapshot of the table at `path` is `expected` (snapshot -> JSON lines).
void ExpectJavaReadsEverySnapshot(const std::string& path,
                                  const std::map<int64_t, std::string>& expected) {
  CommandResult read = RunCommand(JavaCommand({"read", "--table", path, "--all-snapshots"}));
  ASSERT_TRUE(read.ok()) << read.Describe();
  auto snapshots = SplitSnapshots(read.out);
  ASSERT_EQ(snapshots.size(), expected.size());
  for (const auto& [id, rows] : expected) {
    EXPECT_EQ(CanonicalRows(snapshots[id]), CanonicalRows(rows)) << "snapshot " << id;
  }
}

class DynamicBucketInteropTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(JavaHarnessProblem(), ""); }

  // Java's write-dynamic of `rows` into the table at `path`.
  void JavaWrite(const std::string& path, const std::vector<Row>& rows) {
    std::string input = dir_.Sub("rows-" + std::to_string(++inputs_) + ".jsonl");
    WriteTextFile(input, Jsonl(rows, true));
    CommandResult done =
        RunCommand(JavaCommand({"write-dynamic", "--table", path, "--input", input}));
    ASSERT_TRUE(done.ok()) << done.Describe();
  }

  freshet::testing::TempDir dir_;
  int inputs_ = 0;
};

// freshet writes five commits with a new writer each (target 8 keys a bucket: several buckets
// per partition); Java reads every snapshot row-exact, then upserts keys freshet wrote plus new
// ones with its own assigner: one row per key, for Java and for freshet.
TEST_F(DynamicBucketInteropTest, JavaReadsAndUpsertsWhatFreshetWrote) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, Spec(8)));
  std::map<std::pair<std::string, int64_t>, Row> model;
  std::map<std::string, std::set<int64_t>> keys;
  std::map<int64_t, std::string> expected;  // snapshot -> rows (a writer's COMPACT ones too)
  for (int commit = 0; commit < 5; ++commit) {
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    std::vector<Row> rows = RandomRows(rng, 1 + rng() % 60, 0, 50);
    ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kInt8)));
    ASSERT_OK(writer->Commit().status());
    for (const Row& r : rows) {
      Apply(r, &model);
      keys[r.dt].insert(r.id);
    }
    ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
    for (int64_t id : ids) expected.try_emplace(id, ModelJsonl(model));
  }
  ASSERT_NO_FATAL_FAILURE(ExpectJavaReadsEverySnapshot(path, expected));
  ExpectOneBucketPerKey(path, keys);

  std::vector<Row> upserts = RandomRows(rng, 80, 30, 40);  // ids 30..69: old and new keys
  JavaWrite(path, upserts);
  for (const Row& r : upserts) {
    Apply(r, &model);
    keys[r.dt].insert(r.id);
  }
  EXPECT_EQ(JavaRead(path), CanonicalRows(ModelJsonl(model)));
  EXPECT_EQ(FreshetRead(path), CanonicalRows(ModelJsonl(model)));
  ExpectOneBucketPerKey(path, keys);
}

// Java writes a dynamic-bucket table; freshet upserts Java's keys and new ones; Java and freshet
// read one row per key. Java's index files decode and re-encode byte for byte, and list exactly
// the hashes freshet computes for the keys.
TEST_F(DynamicBucketInteropTest, FreshetUpsertsWhatJavaWrote) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/java");
  WriteTextFile(dir_.Sub("schema.json"), Spec(8));
  CommandResult created =
      RunCommand(JavaCommand({"create", "--table", path, "--schema", dir_.Sub("schema.json")}));
  ASSERT_TRUE(created.ok()) << created.Describe();
  std::map<std::pair<std::string, int64_t>, Row> model;
  std::map<std::string, std::set<int64_t>> keys;
  std::vector<Row> java_rows = RandomRows(rng, 100, 0, 50);
  for (Row& r : java_rows) r.kind = RowKind::kInsert;  // every key lands in the index
  JavaWrite(path, java_rows);
  for (const Row& r : java_rows) {
    Apply(r, &model);
    keys[r.dt].insert(r.id);
  }
  // Exactly the hashes of the keys: Java's index and freshet's key hash agree.
  auto java_index = HashIndex(path);
  for (const auto& [dt, ids] : keys) {
    std::set<int32_t> want, got;
    for (int64_t id : ids) want.insert(KeyHash(id));
    for (const auto& [bucket, hashes] : java_index[dt]) got.insert(hashes.begin(), hashes.end());
    EXPECT_EQ(got, want) << dt;
  }
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(path));
  for (int commit = 0; commit < 2; ++commit) {
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    std::vector<Row> rows = RandomRows(rng, 60, 25, 50);  // ids 25..74
    ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kInt8)));
    ASSERT_OK(writer->Commit().status());
    for (const Row& r : rows) {
      Apply(r, &model);
      keys[r.dt].insert(r.id);
    }
  }
  EXPECT_EQ(JavaRead(path), CanonicalRows(ModelJsonl(model)));
  EXPECT_EQ(FreshetRead(path), CanonicalRows(ModelJsonl(model)));
  ExpectOneBucketPerKey(path, keys);
}

// The real-time layer on a dynamic-bucket table: keys get their buckets at Write (new buckets
// open while rows are only in memory) and every read before a commit is the model's. Java reads
// every snapshot row-exact, then upserts old and new keys; a new process (a new real-time
// context, whose index is loaded from Java's snapshot) upserts again: one row per key, for Java
// and for freshet, and no hash in two buckets.
TEST_F(DynamicBucketInteropTest, RealtimeWritesKeepEveryKeyInOneBucket) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::string path = dir_.Sub("wh/db.db/rt");
  std::map<std::pair<std::string, int64_t>, Row> model;
  testing::pk::Model union_model("deduplicate");
  std::map<std::string, std::set<int64_t>> keys;
  std::map<int64_t, std::string> expected;  // snapshot -> rows
  auto apply = [&](const std::vector<Row>& rows) {
    for (const Row& r : rows) {
      Apply(r, &model);
      union_model.Apply(r);
      keys[r.dt].insert(r.id);
    }
  };
  auto realtime_rounds = [&](int rounds, int64_t first_id, uint64_t key_count) {
    ASSERT_OK_AND_ASSIGN(auto table, Table::Open(path));
    ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
    for (int round = 0; round < rounds; ++round) {
      for (int write = 0; write < 3; ++write) {
        std::vector<Row> rows = RandomRows(rng, 1 + rng() % 30, first_id, key_count);
        ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kInt8)));
        apply(rows);
        ASSERT_EQ(testing::pk::ReadAll(*table), union_model.Rows()) << "round " << round;
      }
      ASSERT_OK(writer->Commit().status());
      ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
      for (int64_t id : ids) expected.try_emplace(id, ModelJsonl(model));
    }
  };
  { ASSERT_OK_AND_ASSIGN(auto table, Table::Create(path, Spec(8, true))); }
  realtime_rounds(4, 0, 50);
  ASSERT_NO_FATAL_FAILURE(ExpectJavaReadsEverySnapshot(path, expected));
  ExpectOneBucketPerKey(path, keys);
  EXPECT_GE(HashIndex(path)["p"].size(), 3u);

  std::vector<Row> upserts = RandomRows(rng, 80, 30, 40);  // ids 30..69: old and new keys
  JavaWrite(path, upserts);
  apply(upserts);
  realtime_rounds(2, 20, 70);  // ids 20..89
  EXPECT_EQ(JavaRead(path), CanonicalRows(ModelJsonl(model)));
  EXPECT_EQ(FreshetRead(path), CanonicalRows(ModelJsonl(model)));
  ExpectOneBucketPerKey(path, keys);
}

// The same rows into an empty table: Java's assigner and freshet's put every key in the same
// bucket (no `dynamic-bucket.max-buckets`, so no random choice).
TEST_F(DynamicBucketInteropTest, SameBucketsAsJavaForTheSameRows) {
  uint64_t seed = SeedFromEnv();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<Row> rows = RandomRows(rng, 200, 0, 120);
  const std::string java = dir_.Sub("wh/db.db/java");
  const std::string ours = dir_.Sub("wh/db.db/ours");
  WriteTextFile(dir_.Sub("schema.json"), Spec(10));
  CommandResult created =
      RunCommand(JavaCommand({"create", "--table", java, "--schema", dir_.Sub("schema.json")}));
  ASSERT_TRUE(created.ok()) << created.Describe();
  JavaWrite(java, rows);
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(ours, Spec(10)));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteRows(writer.get(), MakeBatch(rows, KindColumn::kInt8)));
  ASSERT_OK(writer->Commit().status());
  auto java_index = HashIndex(java);
  EXPECT_FALSE(java_index.empty());
  EXPECT_EQ(HashIndex(ours), java_index);
  EXPECT_EQ(FreshetRead(ours), JavaRead(java));
}

}  // namespace
}  // namespace freshet::interop
