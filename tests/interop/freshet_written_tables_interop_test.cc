// Data written by freshet is read row-exact by Java Paimon and pypaimon, and data written by Java
// Paimon is read row-exact by freshet, for a matrix of formats, layouts and types.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/json.h"
#include "interop/interop_harness.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

// Compares rows by value: each line parsed and re-serialized, so number spellings that denote
// the same value ("1.0E20" vs "1e+20") compare equal. MAP entries have no order (Java's Avro
// reader returns them hashed), so the map column's pairs are sorted.
std::vector<std::string> CanonicalRows(const std::string& jsonl) {
  std::vector<std::string> rows;
  for (const auto& line : SplitLines(jsonl)) {
    Json row = Json::parse(line);
    if (row.contains("m") && row["m"].is_array()) std::sort(row["m"].begin(), row["m"].end());
    rows.push_back(row.dump());
  }
  return Sorted(rows);
}

// Every primitive type plus nested ones; values chosen to hit the edge cases of each encoding.
// clang-format off
constexpr char kFields[] = R"json([
  {"name": "id", "type": "BIGINT NOT NULL"},
  {"name": "b", "type": "BOOLEAN"},
  {"name": "t", "type": "TINYINT"},
  {"name": "s", "type": "SMALLINT"},
  {"name": "i", "type": "INT"},
  {"name": "f", "type": "FLOAT"},
  {"name": "d", "type": "DOUBLE"},
  {"name": "dec_small", "type": "DECIMAL(9, 2)"},
  {"name": "dec_big", "type": "DECIMAL(30, 5)"},
  {"name": "str", "type": "STRING"},
  {"name": "vc", "type": "VARCHAR(20)"},
  {"name": "bin", "type": "BYTES"},
  {"name": "day", "type": "DATE"},
  {"name": "ts3", "type": "TIMESTAMP(3)"},
  {"name": "ts6", "type": "TIMESTAMP(6)"},
  {"name": "ltz", "type": "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
  {"name": "arr", "type": {"type": "ARRAY", "element": "INT"}},
  {"name": "m", "type": {"type": "MAP", "key": "STRING", "value": "BIGINT"}},
  {"name": "r", "type": {"type": "ROW", "fields": [{"name": "x", "type": "INT"},
                                                   {"name": "y", "type": "STRING"}]}},
  {"name": "dt", "type": "STRING"}
])json";
// clang-format on

// ORC files freshet writes (through Arrow's ORC writer) store pre-1970 timestamps whose fraction
// is not whole milliseconds with negative nanos, which Java cannot read (docs/data-files.md);
// those layouts use a post-1970 microsecond value instead.
std::string MakeRow(int id, const std::string& dt, bool orc_safe_timestamps) {
  const char* ts6 =
      orc_safe_timestamps ? "1970-01-02 00:00:00.000001" : "1960-01-01 00:00:00.000001";
  std::string i = std::to_string(id);
  if (id % 5 == 4) {  // a row of nulls
    return R"({"id": )" + i +
           R"(, "b": null, "t": null, "s": null, "i": null, "f": null, "d": null, )"
           R"("dec_small": null, "dec_big": null, "str": null, "vc": null, "bin": null, )"
           R"("day": null, "ts3": null, "ts6": null, "ltz": null, "arr": null, "m": null, )"
           R"("r": null, "dt": ")" +
           dt + R"("})";
  }
  return R"({"id": )" + i + R"(, "b": )" + (id % 2 ? "true" : "false") + R"(, "t": )" +
         std::to_string(id % 2 ? -128 : 127) + R"(, "s": -32768, "i": )" +
         std::to_string(2147483647 - id) + R"(, "f": 0.1, "d": -1.5E-300, )" +
         R"("dec_small": "-1234567.89", "dec_big": "1234567890123456789012345.00001", )" +
         R"("str": "héllo wörld ✓ )" + i + R"(", "vc": "short", "bin": "AAEC/w==", )" +
         R"("day": "1969-12-31", "ts3": "2026-11-30 12:34:56.789", )" + R"("ts6": ")" + ts6 +
         R"(", "ltz": "2001-02-03 04:05:06.007Z", )" +
         R"("arr": [1, null, 3], "m": [["k", 1], ["long key over seven bytes", -2]], )" +
         R"("r": {"x": )" + i + R"(, "y": "nested"}, "dt": ")" + dt + R"("})";
}

struct Layout {
  std::string format;
  std::string bucket;  // "-1", "1", "4"
  bool partitioned;
};

std::string SchemaSpec(const Layout& l) {
  std::string options = R"({"file.format": ")" + l.format + R"(", "bucket": ")" + l.bucket + "\"";
  if (l.bucket != "-1") options += R"(, "bucket-key": "id")";
  options += "}";
  return std::string(R"({"fields": )") + kFields +
         (l.partitioned ? R"(, "partitionKeys": ["dt"])" : "") + R"(, "options": )" + options + "}";
}

class WrittenTablesInteropTest : public ::testing::TestWithParam<Layout> {
 protected:
  void SetUp() override {
    ASSERT_EQ(JavaHarnessProblem(), "");
    ASSERT_EQ(PythonHarnessProblem(), "");
  }
  std::string Row(int id, const std::string& dt) const {
    return MakeRow(id, dt, GetParam().format == "orc");
  }
  freshet::testing::TempDir dir_;
};

TEST_P(WrittenTablesInteropTest, JavaAndPypaimonReadWhatFreshetWrites) {
  const Layout& layout = GetParam();
  std::string table = dir_.Sub("wh/db.db/t");
  std::string schema = dir_.Sub("schema.json");
  WriteTextFile(schema, SchemaSpec(layout));
  std::string first, second, overwrite;
  for (int id = 0; id < 12; ++id) first += Row(id, id % 2 ? "2026-11-29" : "2026-11-30") + "\n";
  for (int id = 12; id < 20; ++id) second += Row(id, "2026-11-30") + "\n";
  for (int id = 100; id < 103; ++id) overwrite += Row(id, "2026-11-30") + "\n";
  WriteTextFile(dir_.Sub("first.jsonl"), first);
  WriteTextFile(dir_.Sub("second.jsonl"), second);
  WriteTextFile(dir_.Sub("overwrite.jsonl"), overwrite);
  std::string cli = FreshetCliPath();
  auto results = RunChains({{{cli, "create", table, "--schema", schema},
                             {cli, "write", table, "--input", dir_.Sub("first.jsonl")},
                             {cli, "write", table, "--input", dir_.Sub("second.jsonl")}}},
                           1);
  ASSERT_EQ(FirstFailure(results), "");

  auto java_s1 = RunCommand(JavaCommand({"read", "--table", table, "--snapshot", "1"}));
  auto java_s2 = RunCommand(JavaCommand({"read", "--table", table}));
  ASSERT_TRUE(java_s1.ok()) << java_s1.Describe();
  ASSERT_TRUE(java_s2.ok()) << java_s2.Describe();
  EXPECT_EQ(CanonicalRows(java_s1.out), CanonicalRows(first));
  EXPECT_EQ(CanonicalRows(java_s2.out), CanonicalRows(first + second));
  auto ours = RunCommand({cli, "read", table});
  ASSERT_TRUE(ours.ok()) << ours.Describe();
  EXPECT_EQ(CanonicalRows(ours.out), CanonicalRows(first + second));

  // pypaimon: an independent reader of the same snapshot.
  auto python = RunCommand(PythonCommand({"read", "--table", table}));
  ASSERT_TRUE(python.ok()) << python.Describe();
  EXPECT_EQ(CanonicalRows(python.out), CanonicalRows(first + second));

  // An overwrite replaces the written partitions (the whole table when unpartitioned).
  auto over =
      RunCommand({cli, "write", table, "--input", dir_.Sub("overwrite.jsonl"), "--overwrite"});
  ASSERT_TRUE(over.ok()) << over.Describe();
  std::string expected = overwrite;
  if (layout.partitioned) {
    for (int id = 1; id < 12; id += 2) expected += Row(id, "2026-11-29") + "\n";
  }
  auto java_s3 = RunCommand(JavaCommand({"read", "--table", table}));
  ASSERT_TRUE(java_s3.ok()) << java_s3.Describe();
  EXPECT_EQ(CanonicalRows(java_s3.out), CanonicalRows(expected));
}

TEST_P(WrittenTablesInteropTest, FreshetReadsWhatJavaWrites) {
  const Layout& layout = GetParam();
  std::string table = dir_.Sub("wh/db.db/j");
  std::string schema = dir_.Sub("schema.json");
  WriteTextFile(schema, SchemaSpec(layout));
  std::string first, second;
  for (int id = 0; id < 10; ++id) first += Row(id, id % 2 ? "2026-11-29" : "2026-11-30") + "\n";
  for (int id = 10; id < 15; ++id) second += Row(id, "2026-11-30") + "\n";
  WriteTextFile(dir_.Sub("first.jsonl"), first);
  WriteTextFile(dir_.Sub("second.jsonl"), second);
  auto results =
      RunChains({{JavaCommand({"create", "--table", table, "--schema", schema}),
                  JavaCommand({"write", "--table", table, "--input", dir_.Sub("first.jsonl")}),
                  JavaCommand({"write", "--table", table, "--input", dir_.Sub("second.jsonl")})}},
                1);
  ASSERT_EQ(FirstFailure(results), "");
  std::string cli = FreshetCliPath();
  auto latest = RunCommand({cli, "read", table});
  ASSERT_TRUE(latest.ok()) << latest.Describe();
  EXPECT_EQ(CanonicalRows(latest.out), CanonicalRows(first + second));
  auto s1 = RunCommand({cli, "read", table, "--snapshot", "1"});
  ASSERT_TRUE(s1.ok()) << s1.Describe();
  EXPECT_EQ(CanonicalRows(s1.out), CanonicalRows(first));
}

INSTANTIATE_TEST_SUITE_P(Matrix, WrittenTablesInteropTest,
                         ::testing::Values(Layout{"parquet", "-1", true},
                                           Layout{"parquet", "4", false}, Layout{"orc", "1", true},
                                           Layout{"orc", "-1", false}, Layout{"avro", "4", true}),
                         [](const ::testing::TestParamInfo<Layout>& info) {
                           return info.param.format + "_bucket" +
                                  (info.param.bucket == "-1" ? std::string("Unaware")
                                                             : info.param.bucket) +
                                  (info.param.partitioned ? "_partitioned" : "");
                         });

}  // namespace
}  // namespace freshet::interop
