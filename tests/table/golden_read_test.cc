// Reads the Java-written append and primary-key tables of the optional external golden set
// (testing::GoldenDir(), skipped without it) through the public API and compares every batch query
// of EXPECTED.md (latest and time travel) as a multiset of rows.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/java_text.h"
#include "common/json.h"
#include "freshet/stream.h"
#include "freshet/table.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/test_util.h"
#include "textrows/json_rows.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using meta::DataType;
using meta::TypeRoot;

std::string Base64Decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int value = 0, bits = -8;
  for (char c : in) {
    size_t index = kAlphabet.find(c);
    if (index == std::string::npos) break;
    value = (value << 6) + static_cast<int>(index);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

// A canonical form of one value so that ours and the expected one compare equal exactly when
// they denote the same value: floats through their Java text, bytes decoded (ours are base64).
Json Canonical(const Json& v, const DataType& type, bool ours) {
  if (v.is_null()) return v;
  switch (type.root()) {
    case TypeRoot::kFloat:
      return v.is_number() ? Json(JavaFloatToString(static_cast<float>(v.get<double>()))) : v;
    case TypeRoot::kDouble:
      return v.is_number() ? Json(JavaDoubleToString(v.get<double>())) : v;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return ours ? Json(Base64Decode(v.get<std::string>())) : v;
    case TypeRoot::kArray: {
      Json out = Json::array();
      for (const auto& e : v) out.push_back(Canonical(e, *type.element_type(), ours));
      return out;
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      Json out = Json::array();
      for (const auto& kv : v) {
        out.push_back(Json::array(
            {Canonical(kv[0], *type.key_type(), ours),
             type.root() == TypeRoot::kMap ? Canonical(kv[1], *type.value_type(), ours) : kv[1]}));
      }
      std::sort(out.begin(), out.end());
      return out;
    }
    case TypeRoot::kRow: {
      Json out = Json::object();
      for (const auto& f : type.fields()) {
        out[f.name] = v.contains(f.name) ? Canonical(v[f.name], *f.type, ours) : Json();
      }
      return out;
    }
    default:
      return v;
  }
}

std::vector<std::string> CanonicalRows(const std::string& jsonl,
                                       const std::vector<meta::DataField>& fields, bool ours) {
  std::vector<std::string> rows;
  std::istringstream in(jsonl);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    Json row = Json::parse(line);
    Json out = Json::object();
    for (const auto& f : fields) out[f.name] = Canonical(row[f.name], *f.type, ours);
    rows.push_back(out.dump());
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Query {
  std::string table;     // path under the golden dir
  std::string expected;  // expected/<dir>/<query>.jsonl
  std::optional<int64_t> snapshot;
  std::string filter;  // ReadOptions::filter
};

using GoldenTables = std::vector<std::pair<std::string, std::string>>;

// The batch reads of a snapshot among the expected results of `tables` (expected dir, table
// path): "s<N>", "s<N>_<note>" (snapshot N), "s<N>_latest" and "latest_<note>" (the latest);
// streaming deltas come with streaming reads.
std::vector<Query> BatchQueries(const GoldenTables& tables) {
  std::vector<Query> queries;
  for (const auto& [dir, table] : tables) {
    for (const auto& entry : fs::directory_iterator(testing::GoldenDir() + "/expected/" + dir)) {
      std::string name = entry.path().stem().string();
      Query q{table, entry.path().string(), std::nullopt, ""};
      if (name.rfind("latest", 0) == 0) {
        queries.push_back(q);
        continue;
      }
      if (name.size() < 2 || name[0] != 's' || !std::isdigit(static_cast<unsigned char>(name[1]))) {
        continue;
      }
      if (name.find("_latest") == std::string::npos) q.snapshot = std::stoll(name.substr(1));
      queries.push_back(q);
    }
  }
  return queries;
}

std::vector<Query> AppendQueries() {
  const GoldenTables tables = {
      {"parquet__append_09", "parquet/append_09.db/append_09"},
      {"orc__multi_partition_append_table",
       "orc/multi_partition_append_table.db/multi_partition_append_table"},
      {"avro__append_simple", "avro/append_simple.db/append_simple"},
      {"avro__append_multiple", "avro/append_multiple.db/append_multiple"},
      {"orc__append_complex_build_in_fieldid",
       "orc/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid"},
      {"parquet__append_complex_build_in_fieldid",
       "parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid"},
      {"parquet__append_with_empty_partition",
       "parquet/append_with_empty_partition.db/append_with_empty_partition"},
      {"orc__append_with_multiple_ts_precision_and_timezone",
       "orc/append_with_multiple_ts_precision_and_timezone.db/"
       "append_with_multiple_ts_precision_and_timezone"},
      {"parquet__append_table_with_alter_table",
       "parquet/append_table_with_alter_table.db/append_table_with_alter_table"},
      {"append_table_with_multiple_file_format",
       "append_table_with_multiple_file_format.db/append_table_with_multiple_file_format"},
  };
  return BatchQueries(tables);
}

std::vector<Query> PrimaryKeyQueries() {
  const GoldenTables tables = {
      {"orc__pk_table_with_total_buckets",
       "orc/pk_table_with_total_buckets.db/pk_table_with_total_buckets"},
      {"orc__pk_table_scan_and_read_mor",
       "orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"},
      {"parquet__pk_table_scan_and_read_dv",
       "parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"},
      {"parquet__pk_table_scan_and_read_first_row",
       "parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row"},
      {"orc__pk_table_partial_update", "orc/pk_table_partial_update.db/pk_table_partial_update"},
      {"orc__pk_09", "orc/pk_09.db/pk_09"},
      {"avro__pk_with_multiple_type", "avro/pk_with_multiple_type.db/pk_with_multiple_type"},
      {"orc__pk_table_with_mor", "orc/pk_table_with_mor.db/pk_table_with_mor"},
      {"parquet__pk_btree_e2e", "parquet/pk_btree_e2e.db/pk_btree_e2e"},
  };
  return BatchQueries(tables);
}

void CheckQuery(const Query& q) {
  {
    SCOPED_TRACE(q.expected);
    std::string path = testing::GoldenDir() + "/" + q.table;
    ASSERT_OK_AND_ASSIGN(auto table, Table::Open(path));
    ReadOptions options;
    options.snapshot_id = q.snapshot;
    options.filter = q.filter;
    ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader(options));

    // The schema the read uses: the snapshot's for time travel, else the latest.
    meta::SnapshotManager snapshots(io::LocalFileIO(), path);
    meta::SchemaManager schemas(io::LocalFileIO(), path);
    int64_t schema_id;
    if (q.snapshot) {
      ASSERT_OK_AND_ASSIGN(auto s, snapshots.ReadSnapshot(*q.snapshot));
      schema_id = s.schema_id;
    } else {
      ASSERT_OK_AND_ASSIGN(auto latest, schemas.LatestSchema());
      schema_id = latest->id();
    }
    ASSERT_OK_AND_ASSIGN(auto schema, schemas.ReadSchema(schema_id));

    ArrowSchema c_schema;
    ASSERT_OK(reader->ExportArrowSchema(&c_schema));
    auto arrow_schema = *arrow::ImportSchema(&c_schema);
    std::string ours;
    while (true) {
      ArrowArray array;
      ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&array));
      if (!more) break;
      auto batch = *arrow::ImportRecordBatch(&array, arrow_schema);
      ASSERT_OK_AND_ASSIGN(std::string text, textrows::FormatJsonRows(*batch, schema.fields()));
      ours += text;
    }
    std::string expected = testing::ReadWholeFile(q.expected);
    EXPECT_EQ(CanonicalRows(ours, schema.fields(), true),
              CanonicalRows(expected, schema.fields(), false));
  }
}

TEST(GoldenReadTest, EveryAppendTableQueryReturnsTheExpectedRows) {
  FRESHET_REQUIRE_GOLDEN();
  auto queries = AppendQueries();
  ASSERT_GE(queries.size(), 18u);
  for (const auto& q : queries) CheckQuery(q);
}

// Merge-on-read of every primary-key table of the golden set (deduplicate, first-row and
// partial-update engines, deletion vectors, level-0 skipping, schema evolution).
TEST(GoldenReadTest, EveryPrimaryKeyTableQueryReturnsTheExpectedRows) {
  FRESHET_REQUIRE_GOLDEN();
  auto queries = PrimaryKeyQueries();
  ASSERT_GE(queries.size(), 30u);
  for (const auto& q : queries) CheckQuery(q);
}

// The partition-filter queries of EXPECTED.md as filter expressions: {f0=__DEFAULT_PARTITION__}
// selects the NULL partition, i.e. `f0 IS NULL`.
TEST(GoldenReadTest, FilterQueriesReturnTheExpectedRows) {
  FRESHET_REQUIRE_GOLDEN();
  const std::string table = "parquet/append_with_empty_partition.db/append_with_empty_partition";
  const std::string dir = testing::GoldenDir() + "/expected/parquet__append_with_empty_partition/";
  for (const auto& [name, filter] : std::vector<std::pair<std::string, std::string>>{
           {"filter_2025", "f0 = '2025'"},
           {"filter_default", "f0 IS NULL"},
           {"filter_default_or_2024", "f0 IS NULL OR f0 = '2024'"}}) {
    SCOPED_TRACE(filter);
    CheckQuery(Query{table, dir + name + ".jsonl", std::nullopt, filter});
  }
}

// The streaming queries of EXPECTED.md: "delta_s<N>" is what a streaming read emits for snapshot
// N (its APPEND delta, row kinds in `_kind`), "stream_full_s<N>" the full starting plan of
// snapshot N (from-snapshot-full; latest-full when N is the latest), which merges level-0 files
// even where batch reads skip them.
TEST(GoldenReadTest, StreamingDeltasAndFullStartingPlansReturnTheExpectedRows) {
  FRESHET_REQUIRE_GOLDEN();
  const GoldenTables tables = {
      {"parquet__append_09", "parquet/append_09.db/append_09"},
      {"orc__pk_table_scan_and_read_mor",
       "orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"},
      {"parquet__pk_table_scan_and_read_dv",
       "parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"},
      {"parquet__pk_table_scan_and_read_first_row",
       "parquet/pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row"},
  };
  int queries = 0;
  for (const auto& [dir, table_path] : tables) {
    const std::string path = testing::GoldenDir() + "/" + table_path;
    for (const auto& entry : fs::directory_iterator(testing::GoldenDir() + "/expected/" + dir)) {
      const std::string name = entry.path().stem().string();
      const bool delta = name.rfind("delta_s", 0) == 0;
      const bool full = name.rfind("stream_full_s", 0) == 0;
      if (!delta && !full) continue;
      SCOPED_TRACE(entry.path().string());
      ++queries;
      const int64_t snapshot = std::stoll(name.substr(delta ? 7 : 13));
      ASSERT_OK_AND_ASSIGN(auto table, Table::Open(path));
      ASSERT_OK_AND_ASSIGN(auto ids, table->SnapshotIds());
      StreamOptions options;
      options.with_row_kind = delta;
      options.end_snapshot_id = snapshot;
      if (delta) {
        options.mode = ScanMode::kFromSnapshot;
        options.snapshot_id = snapshot;
      } else if (snapshot == ids.back()) {
        options.mode = ScanMode::kLatestFull;
      } else {
        options.mode = ScanMode::kFromSnapshotFull;
        options.snapshot_id = snapshot;
      }
      ASSERT_OK_AND_ASSIGN(auto reader, table->NewStreamReader(options));
      // Streaming reads use the table's current schema; `_kind` as EXPECTED.md names it.
      meta::SchemaManager schemas(io::LocalFileIO(), path);
      ASSERT_OK_AND_ASSIGN(auto latest, schemas.LatestSchema());
      std::vector<meta::DataField> fields = latest->fields();
      if (delta) {
        meta::DataField kind;
        kind.name = "_kind";
        kind.type = DataType::String(false);
        fields.insert(fields.begin(), kind);
      }
      ArrowSchema c_schema;
      ASSERT_OK(reader->ExportArrowSchema(&c_schema));
      auto arrow_schema = *arrow::ImportSchema(&c_schema);
      std::string ours;
      while (true) {
        ArrowArray array;
        ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&array));
        if (!more) break;
        EXPECT_EQ(reader->snapshot_id(), snapshot);
        auto batch = *arrow::ImportRecordBatch(&array, arrow_schema);
        ASSERT_OK_AND_ASSIGN(std::string text, textrows::FormatJsonRows(*batch, fields));
        ours += text;
      }
      EXPECT_TRUE(reader->finished());
      EXPECT_EQ(CanonicalRows(ours, fields, true),
                CanonicalRows(testing::ReadWholeFile(entry.path().string()), fields, false));
    }
  }
  EXPECT_EQ(queries, 15);
}

}  // namespace
}  // namespace freshet
