// Java Paimon reads manifests, manifest lists and snapshot files that freshet writes: freshet
// rewrites the live files of a Java-written table into new manifests (one snapshot per Avro
// codec) and publishes COMPACT snapshots; Java's reads must not change.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/manifest/partition_stats.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

struct SourceTable {
  std::string name;
  std::string spec_json;
  std::vector<std::string> commits;  // JSON lines per write
  std::vector<bool> overwrite;
};

std::vector<SourceTable> SourceTables() {
  SourceTable append{"append_partitioned_bucket2",
                     R"json({"fields": [{"name": "id", "type": "INT"},
                         {"name": "name", "type": "STRING"}, {"name": "amount", "type": "DECIMAL(20, 2)"},
                         {"name": "ts", "type": "TIMESTAMP(9)"}, {"name": "dt", "type": "STRING"}],
                        "partitionKeys": ["dt"],
                        "options": {"bucket": "2", "bucket-key": "id", "file.format": "parquet"}})json",
                     {},
                     {false, false, true}};
  for (int k = 0; k < 3; ++k) {
    std::string rows;
    for (int i = 0; i < 8; ++i) {
      std::string dt = k == 2 ? "2024-01-02" : (i % 2 ? "2024-01-01" : "2024-01-02");
      if (k == 1 && i == 7) dt = "sp ace/%";
      rows += R"({"id": )" + std::to_string(k * 10 + i) + R"(, "name": "n)" + std::to_string(i) +
              R"(", "amount": ")" + std::to_string(k * 100 + i) + R"(.25", "ts": "2024-02-0)" +
              std::to_string(k + 1) + R"( 00:00:00.12345678)" + std::to_string(i) +
              R"(", "dt": ")" + dt + "\"}\n";
    }
    append.commits.push_back(rows);
  }
  // No deletion vectors, fixed buckets: Java writes no index manifest for this table.
  SourceTable pk{
      "primary_key_bucket2",
      R"json({"fields": [{"name": "k", "type": "BIGINT"}, {"name": "v", "type": "STRING"},
                     {"name": "n", "type": "DOUBLE"}],
                    "primaryKeys": ["k"], "options": {"bucket": "2", "file.format": "orc"}})json",
      {},
      {false, false}};
  std::string c1, c2;
  for (int i = 0; i < 10; ++i) {
    c1 += R"({"k": )" + std::to_string(i) + R"(, "v": "v)" + std::to_string(i) + R"(", "n": 1.5})" +
          "\n";
  }
  c2 += R"({"_kind": "-D", "k": 1, "v": "v1", "n": 1.5})"
        "\n";
  c2 += R"({"_kind": "-U", "k": 2, "v": "v2", "n": 1.5})"
        "\n";
  c2 += R"({"_kind": "+U", "k": 2, "v": "v2 new", "n": 2.5})"
        "\n";
  c2 += R"({"k": 3, "v": "v3 upsert", "n": -1.0})"
        "\n";
  c2 += R"({"k": 42, "v": "new", "n": 0.0})"
        "\n";
  pk.commits = {c1, c2};
  return {append, pk};
}

constexpr const char* kCodecs[] = {"zstd", "snappy", "deflate", "none"};

// Rewrites the live entries of the latest snapshot into one new manifest written with `codec`,
// with a base list holding it and an empty delta list, and publishes the next snapshot as a
// COMPACT by a new commit user. Returns the new snapshot id.
Result<int64_t> PublishRewrittenSnapshot(const std::string& table, const std::string& codec,
                                         const std::string& commit_user) {
  auto file_io = io::LocalFileIO();
  meta::SchemaManager schemas(file_io, table);
  meta::SnapshotManager snapshots(file_io, table);
  FRESHET_ASSIGN_OR_RETURN(auto schema, schemas.LatestSchema());
  if (!schema) return Status::Invalid("no schema");
  FRESHET_ASSIGN_OR_RETURN(auto previous, snapshots.LatestSnapshot());
  if (!previous) return Status::Invalid("no snapshot");
  FRESHET_ASSIGN_OR_RETURN(auto options, meta::ManifestWriteOptions::FromCompression(codec, 1));
  meta::ManifestFile manifests(file_io, table, options);
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *previous));
  FRESHET_ASSIGN_OR_RETURN(auto stats, meta::PartitionStatsOf(schema->PartitionFields(), live));
  FRESHET_ASSIGN_OR_RETURN(auto manifest, manifests.WriteManifest(live, schema->id(), stats));
  FRESHET_ASSIGN_OR_RETURN(auto base, manifests.WriteManifestList({manifest}));
  FRESHET_ASSIGN_OR_RETURN(auto delta, manifests.WriteManifestList({}));

  meta::Snapshot next = *previous;
  next.id = previous->id + 1;
  next.uuid.reset();
  next.base_manifest_list = base.name;
  next.base_manifest_list_size = base.size;
  next.delta_manifest_list = delta.name;
  next.delta_manifest_list_size = delta.size;
  next.changelog_manifest_list.reset();
  next.changelog_manifest_list_size.reset();
  next.changelog_record_count.reset();
  next.commit_user = commit_user;
  next.commit_identifier = meta::kBatchCommitIdentifier;
  next.commit_kind = meta::CommitKind::kCompact;
  next.time_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  next.log_offsets.reset();
  next.delta_record_count = 0;
  next.operation.reset();
  next.writer_version.reset();
  FRESHET_ASSIGN_OR_RETURN(bool published, snapshots.TryPublish(next));
  if (!published) return Status::Invalid("snapshot ", next.id, " already exists");
  return next.id;
}

TEST(ManifestRewriteInteropTest, JavaReadsSnapshotsWithFreshetWrittenManifestsInEveryCodec) {
  ASSERT_EQ(JavaHarnessProblem(), "");
  freshet::testing::TempDir tmp;
  const std::vector<SourceTable> tables = SourceTables();

  // 1. Java creates and writes the tables, then reads their latest snapshot.
  std::vector<Chain> chains;
  for (const auto& t : tables) {
    std::string path = tmp.Sub("java/db.db/" + t.name);
    WriteTextFile(tmp.Sub(t.name + ".schema.json"), t.spec_json);
    Chain chain = {
        JavaCommand({"create", "--table", path, "--schema", tmp.Sub(t.name + ".schema.json")})};
    for (size_t k = 0; k < t.commits.size(); ++k) {
      std::string input = tmp.Sub(t.name + ".c" + std::to_string(k) + ".jsonl");
      WriteTextFile(input, t.commits[k]);
      std::vector<std::string> args = {"write", "--table", path, "--input", input};
      if (t.overwrite[k]) args.push_back("--overwrite");
      chain.push_back(JavaCommand(args));
    }
    chain.push_back(JavaCommand({"read", "--table", path}));
    chains.push_back(chain);
  }
  auto written = RunChains(chains);
  ASSERT_EQ(FirstFailure(written), "");

  // 2. freshet rewrites a copy: snapshots N+1..N+4, one per manifest codec.
  auto file_io = io::LocalFileIO();
  std::vector<std::string> copies;
  std::vector<int64_t> original_latest;
  std::vector<std::vector<std::string>> rows_before;
  const std::string commit_user = "freshet-interop-" + RandomUuid();
  for (size_t t = 0; t < tables.size(); ++t) {
    SCOPED_TRACE(tables[t].name);
    std::string copy = tmp.Sub("copy/db.db/" + tables[t].name);
    freshet::testing::CopyTree(tmp.Sub("java/db.db/" + tables[t].name), copy);
    copies.push_back(copy);
    rows_before.push_back(Sorted(SplitLines(written[t].back().out)));
    ASSERT_FALSE(rows_before.back().empty());
    meta::SnapshotManager snapshots(file_io, copy);
    ASSERT_OK_AND_ASSIGN(auto latest, snapshots.LatestSnapshot());
    ASSERT_TRUE(latest.has_value());
    // The tables are index-manifest free; so must be every snapshot freshet publishes.
    ASSERT_FALSE(latest->index_manifest.has_value());
    original_latest.push_back(latest->id);
    for (int c = 0; c < 4; ++c) {
      ASSERT_OK_AND_ASSIGN(int64_t id, PublishRewrittenSnapshot(copy, kCodecs[c], commit_user));
      ASSERT_EQ(id, latest->id + 1 + c);
      ASSERT_OK_AND_ASSIGN(auto published, snapshots.ReadSnapshot(id));
      // The manifest really is in that codec (the Avro header names it).
      meta::ManifestFile reader(file_io, copy);
      ASSERT_OK_AND_ASSIGN(auto listed, reader.ReadManifestList(published.base_manifest_list));
      ASSERT_EQ(listed.size(), 1u);
      std::string file = freshet::testing::ReadWholeFile(reader.PathOf(listed[0].file_name));
      size_t key = file.find("avro.codec");
      ASSERT_NE(key, std::string::npos);
      const std::string avro_names[] = {"zstandard", "snappy", "deflate", "null"};
      // Header map entry: "avro.codec" then the zig-zag length byte and the codec name.
      EXPECT_EQ(file.substr(key + 11, avro_names[c].size()), avro_names[c]) << kCodecs[c];
      EXPECT_EQ(published.total_record_count, latest->total_record_count);
      EXPECT_FALSE(published.index_manifest.has_value());
      std::string text = freshet::testing::ReadWholeFile(snapshots.SnapshotPath(id));
      EXPECT_EQ(text.find("indexManifest"), std::string::npos) << text;
    }
    // freshet's own readers agree with what it published.
    TableExpectation expected;
    for (int c = 1; c <= 4; ++c) {
      expected.live_records[latest->id + c] = latest->total_record_count.value_or(-1);
    }
    auto problems = CheckTableWithFreshet(copy, expected);
    EXPECT_TRUE(problems.empty()) << ListProblems(problems);
  }

  // 3. Java reads every rewritten snapshot (latest = codec none) and the original one.
  chains.clear();
  for (size_t t = 0; t < tables.size(); ++t) {
    chains.push_back({JavaCommand({"read", "--table", copies[t]})});
    for (int c = 0; c < 3; ++c) {
      chains.push_back({JavaCommand({"read", "--table", copies[t], "--snapshot",
                                     std::to_string(original_latest[t] + 1 + c)})});
    }
    chains.push_back({JavaCommand(
        {"read", "--table", copies[t], "--snapshot", std::to_string(original_latest[t])})});
    chains.push_back({JavaCommand({"snapshots", "--table", copies[t]})});
  }
  auto reads = RunChains(chains);
  const size_t per_table = 6;
  for (size_t t = 0; t < tables.size(); ++t) {
    SCOPED_TRACE(tables[t].name);
    const std::string labels[] = {"latest (snapshot N+4, codec none)", "snapshot N+1 (zstd)",
                                  "snapshot N+2 (snappy)", "snapshot N+3 (deflate)",
                                  "snapshot N (Java's own)"};
    for (size_t r = 0; r < 5; ++r) {
      const CommandResult& read = reads[t * per_table + r].front();
      ASSERT_TRUE(read.ok()) << labels[r] << ": " << read.Describe();
      EXPECT_EQ(Sorted(SplitLines(read.out)), rows_before[t]) << labels[r];
    }
    const CommandResult& listed = reads[t * per_table + 5].front();
    ASSERT_TRUE(listed.ok()) << listed.Describe();
    std::vector<std::string> lines = SplitLines(listed.out);
    ASSERT_EQ(lines.size(), static_cast<size_t>(original_latest[t] + 4));
    for (int c = 1; c <= 4; ++c) {
      EXPECT_EQ(lines[original_latest[t] + c - 1],
                std::to_string(original_latest[t] + c) + " COMPACT");
    }
  }
}

}  // namespace
}  // namespace freshet::interop
