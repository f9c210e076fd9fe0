// Data written by freshet is read row-exact by Java Paimon and pypaimon at every snapshot, and
// data written by Java Paimon is read row-exact by freshet at every snapshot, for a matrix of
// formats, layouts and types (docs/interop-tests.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "interop/interop_harness.h"
#include "testing/test_util.h"

namespace freshet::interop {
namespace {

namespace fs = std::filesystem;

// Expects `actual` to hold exactly the rows of `expected`; a failure lists the rows only one side
// has.
void ExpectSameRows(const std::string& reader, int64_t snapshot, const std::string& expected,
                    const std::string& actual) {
  // MAP entries have no order (Java's Avro reader returns them hashed): column m is sorted.
  std::vector<std::string> want = CanonicalRows(expected, {"m"});
  std::vector<std::string> got = CanonicalRows(actual, {"m"});
  if (want == got) return;
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::string diff;
  for (const auto& row : missing) diff += "\n  missing:    " + row;
  for (const auto& row : extra) diff += "\n  unexpected: " + row;
  ADD_FAILURE() << reader << " reading snapshot " << snapshot << ": " << got.size()
                << " rows, expected " << want.size() << diff;
}

// Every primitive type plus nested ones; values chosen to hit the edge cases of each encoding.
// TIMESTAMP(9) is added for Parquet and ORC (Avro data files reject precision > 6).
// clang-format off
constexpr char kFields[] = R"json(
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
  {"name": "c", "type": "CHAR(5)"},
  {"name": "bin", "type": "BYTES"},
  {"name": "bn", "type": "BINARY(3)"},
  {"name": "vb", "type": "VARBINARY(8)"},
  {"name": "day", "type": "DATE"},
  {"name": "tm", "type": "TIME(3)"},
  {"name": "ts3", "type": "TIMESTAMP(3)"},
  {"name": "ts6", "type": "TIMESTAMP(6)"},
  {"name": "ltz", "type": "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
  {"name": "arr", "type": {"type": "ARRAY", "element": "INT"}},
  {"name": "m", "type": {"type": "MAP", "key": "STRING", "value": "BIGINT"}},
  {"name": "r", "type": {"type": "ROW", "fields": [{"name": "x", "type": "INT"},
                                                   {"name": "y", "type": "STRING"}]}},)json";
// clang-format on

struct Layout {
  std::string format;
  std::string bucket;  // "-1", "1", "4"
  bool partitioned;
};

bool HasTs9(const Layout& l) { return l.format != "avro"; }

constexpr char kTs9Field[] = R"json({"name": "ts9", "type": "TIMESTAMP(9)"}, )json";
constexpr char kDtField[] = R"json({"name": "dt", "type": "STRING"}])json";

std::string SchemaSpec(const Layout& l) {
  std::string options = R"({"file.format": ")" + l.format + R"(", "bucket": ")" + l.bucket + "\"";
  if (l.bucket != "-1") options += R"(, "bucket-key": "id")";
  // One snapshot per commit, files piling up in the buckets: no small-file compaction by the
  // writers (tests/interop/append_compaction_interop_test.cc covers compacted tables).
  options += R"(, "write-only": "true"})";
  std::string fields = std::string("[") + kFields + (HasTs9(l) ? kTs9Field : "") + kDtField;
  std::string partitions = l.partitioned ? R"(, "partitionKeys": ["dt"])" : "";
  return R"({"fields": )" + fields + partitions + R"(, "options": )" + options + "}";
}

// The nullable columns every layout has.
constexpr const char* kNullable[] = {"b",   "t",   "s",   "i",   "f",  "d",  "dec_small", "dec_big",
                                     "str", "vc",  "c",   "bin", "bn", "vb", "day",       "tm",
                                     "ts3", "ts6", "ltz", "arr", "m",  "r"};

// One row in the harness JSON convention, exactly as every reader prints it (so the expected
// rows are the written ones). Values vary with the id; every fifth row is all nulls.
//
// ORC files freshet writes (through Arrow's ORC writer) store pre-1970 timestamps whose fraction
// is not whole milliseconds with negative nanos, which Java cannot read (docs/data-files.md),
// and Java's ORC writer pads CHAR values and loses pre-1970 sub-second timestamps
// (interop/README.md): ORC layouts use post-1970 sub-second values, and CHAR values fill
// the declared length everywhere.
std::string MakeRow(int id, const std::string& dt, const Layout& l) {
  const bool orc = l.format == "orc";
  const std::string i = std::to_string(id);
  const bool odd = id % 2 == 1;
  std::string row = R"({"id": )" + i;
  auto add = [&row](const char* name, const std::string& json) {
    row += std::string(", \"") + name + "\": " + json;
  };
  if (id % 5 == 4) {
    for (const char* name : kNullable) add(name, "null");
    if (HasTs9(l)) add("ts9", "null");
  } else {
    add("b", odd ? "true" : "false");
    add("t", odd ? "-128" : "127");
    add("s", std::to_string(-32768 + id));
    add("i", std::to_string(2147483647 - id));
    add("f", odd ? "0.1" : i + ".25");
    add("d", odd ? "-1.5E-300" : "1.0E" + std::to_string(id + 7));
    add("dec_small", odd ? "\"-1234567.89\"" : "\"" + i + ".05\"");
    add("dec_big", "\"1234567890123456789012345.00001\"");
    add("str", id % 3 == 2 ? "\"\"" : "\"héllo wörld ✓ " + i + "\"");
    add("vc", "\"short\"");
    add("c", odd ? "\"abcde\"" : "\"ü✓xyz\"");
    add("bin", id % 3 == 0 ? "\"\"" : "\"AAEC/w==\"");
    add("bn", "\"AAEC\"");
    add("vb", odd ? "\"/w==\"" : "\"AAECAwQFBgc=\"");
    add("day", odd ? "\"1969-12-31\"" : "\"2000-02-29\"");
    add("tm", odd ? "\"12:34:56.789\"" : "\"00:00:00.000\"");
    add("ts3", odd || orc ? "\"2026-11-30 12:34:56.789\"" : "\"1969-12-31 23:59:59.999\"");
    add("ts6", orc ? "\"1970-01-02 00:00:00.000001\"" : "\"1960-01-01 00:00:00.000001\"");
    add("ltz", "\"2001-02-03 04:05:06.007Z\"");
    add("arr", id % 3 == 0 ? "[]" : "[1, null, " + i + "]");
    add("m", id % 3 == 0 ? "[]" : R"([["k", )" + i + R"(], ["long key over seven bytes", -2]])");
    add("r", id % 7 == 3 ? R"({"x": null, "y": null})" : R"({"x": )" + i + R"(, "y": "nested"})");
    if (HasTs9(l)) {
      add("ts9", orc ? "\"2001-02-03 04:05:06.123456789\"" : "\"1965-05-06 07:08:09.987654321\"");
    }
  }
  add("dt", "\"" + dt + "\"");
  return row + "}";
}

// Partition values: appends spread their rows over all three; the overwrite replaces two.
const char* const kDts[] = {"2026-11-29", "2026-11-30", "2026-12-01"};
std::string AppendDt(int id) { return kDts[id % 3]; }
std::string OverwriteDt(int id) { return kDts[1 + id % 2]; }

std::vector<int> Ids(int from, int to) {
  std::vector<int> ids;
  for (int id = from; id < to; ++id) ids.push_back(id);
  return ids;
}

// The rows a table holds after each of its snapshots (index 0 = snapshot 1), built alongside
// the writes. An overwrite replaces the partitions its rows touch (Paimon's default dynamic
// partition overwrite), or the whole table when it is unpartitioned.
class TableModel {
 public:
  explicit TableModel(Layout layout) : layout_(std::move(layout)) {}

  // The JSON lines of one commit; `dt` picks each row's partition value.
  std::string Commit(const std::vector<int>& ids, std::string (*dt)(int), bool overwrite) {
    std::vector<std::pair<std::string, std::string>> rows;
    std::set<std::string> touched;
    std::string jsonl;
    for (int id : ids) {
      rows.emplace_back(dt(id), MakeRow(id, dt(id), layout_));
      touched.insert(dt(id));
      jsonl += rows.back().second + "\n";
    }
    if (overwrite) {
      std::erase_if(live_, [&](const auto& row) {
        return !layout_.partitioned || touched.count(row.first) > 0;
      });
    }
    live_.insert(live_.end(), rows.begin(), rows.end());
    std::string snapshot;
    for (const auto& row : live_) snapshot += row.second + "\n";
    snapshots_.push_back(snapshot);
    return jsonl;
  }

  const std::vector<std::string>& snapshots() const { return snapshots_; }

 private:
  Layout layout_;
  std::vector<std::pair<std::string, std::string>> live_;  // (dt, row)
  std::vector<std::string> snapshots_;
};

// Ids of the table's snapshot files, ascending.
std::vector<int64_t> SnapshotFileIds(const std::string& table) {
  std::vector<int64_t> ids;
  for (const auto& entry : fs::directory_iterator(table + "/snapshot")) {
    std::string name = entry.path().filename().string();
    if (name.rfind("snapshot-", 0) == 0) ids.push_back(std::stoll(name.substr(9)));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> OneTo(size_t n) {
  std::vector<int64_t> ids;
  for (size_t id = 1; id <= n; ++id) ids.push_back(static_cast<int64_t>(id));
  return ids;
}

// The most data files any one bucket directory of the table holds (all snapshots' files stay).
size_t MaxFilesPerBucket(const std::string& table, const std::string& format) {
  std::map<std::string, size_t> per_bucket;
  for (const auto& entry : fs::recursive_directory_iterator(table)) {
    if (entry.is_regular_file() && entry.path().extension() == "." + format &&
        entry.path().parent_path().filename().string().rfind("bucket-", 0) == 0) {
      ++per_bucket[entry.path().parent_path().string()];
    }
  }
  size_t most = 0;
  for (const auto& [dir, count] : per_bucket) most = std::max(most, count);
  return most;
}

// Checks a harness's `read --all-snapshots` output ({"__snapshot": N} marker lines, each
// followed by that snapshot's rows) against the model: snapshots 1..N, each row-exact.
void ExpectEverySnapshot(const std::string& reader, const std::string& output,
                         const std::vector<std::string>& expected) {
  std::vector<std::pair<int64_t, std::string>> snapshots;
  for (const auto& line : SplitLines(output)) {
    if (line.rfind(R"({"__snapshot": )", 0) == 0) {
      snapshots.emplace_back(Json::parse(line)["__snapshot"].get<int64_t>(), "");
    } else if (snapshots.empty()) {
      ADD_FAILURE() << reader << ": row before the first snapshot marker: " << line;
    } else {
      snapshots.back().second += line + "\n";
    }
  }
  std::vector<int64_t> ids;
  for (const auto& [id, rows] : snapshots) ids.push_back(id);
  EXPECT_EQ(ids, OneTo(expected.size())) << reader << ": snapshot ids";
  for (const auto& [id, rows] : snapshots) {
    if (id < 1 || id > static_cast<int64_t>(expected.size())) continue;
    ExpectSameRows(reader, id, expected[static_cast<size_t>(id - 1)], rows);
  }
}

class WrittenTablesInteropTest : public ::testing::TestWithParam<Layout> {
 protected:
  void SetUp() override {
    ASSERT_EQ(JavaHarnessProblem(), "");
    ASSERT_EQ(PythonHarnessProblem(), "");
    WriteTextFile(schema_, SchemaSpec(GetParam()));
  }
  // Writes one commit's rows to a file of its own and returns the path.
  std::string Input(const std::string& name, const std::string& jsonl) {
    std::string path = dir_.Sub(name + ".jsonl");
    WriteTextFile(path, jsonl);
    return path;
  }
  freshet::testing::TempDir dir_;
  std::string schema_ = dir_.Sub("schema.json");
};

// freshet writes: snapshot 1 one append; 2 and 3 one `write --commit-every 4` of 8 rows; 4 an
// append; 5 an overwrite; 6 an append after it. Java and pypaimon then read every snapshot (one
// process each, `read --all-snapshots`), and so does freshet's CLI.
TEST_P(WrittenTablesInteropTest, JavaAndPypaimonReadEverySnapshotFreshetWrites) {
  const Layout& layout = GetParam();
  const std::string table = dir_.Sub("wh/db.db/t");
  const std::string cli = FreshetCliPath();
  TableModel model(layout);
  std::string a = Input("a", model.Commit(Ids(0, 12), AppendDt, false));
  std::string b = model.Commit(Ids(12, 16), AppendDt, false);
  b = Input("b", b + model.Commit(Ids(16, 20), AppendDt, false));
  std::string c = Input("c", model.Commit(Ids(20, 28), AppendDt, false));
  std::string over = Input("over", model.Commit(Ids(100, 104), OverwriteDt, true));
  std::string d = Input("d", model.Commit(Ids(200, 206), AppendDt, false));
  auto written =
      RunChains({{{cli, "create", table, "--schema", schema_},
                  {cli, "write", table, "--input", a},
                  {cli, "write", table, "--input", b, "--batch-rows", "4", "--commit-every", "4"},
                  {cli, "write", table, "--input", c},
                  {cli, "write", table, "--input", over, "--overwrite"},
                  {cli, "write", table, "--input", d}}},
                1);
  ASSERT_EQ(FirstFailure(written), "");
  const std::vector<std::string>& expected = model.snapshots();
  ASSERT_EQ(SnapshotFileIds(table), OneTo(expected.size()));
  EXPECT_GE(MaxFilesPerBucket(table, layout.format), 2u);

  Chain ours;
  for (size_t id = 1; id <= expected.size(); ++id) {
    ours.push_back({cli, "read", table, "--snapshot", std::to_string(id)});
  }
  auto results = RunChains({{JavaCommand({"read", "--table", table, "--all-snapshots"})},
                            {PythonCommand({"read", "--table", table, "--all-snapshots"})},
                            ours},
                           2);
  const CommandResult& java = results[0][0];
  if (java.ok()) {
    ExpectEverySnapshot("Java", java.out, expected);
  } else {
    ADD_FAILURE() << java.Describe();
  }
  const CommandResult& python = results[1][0];
  if (python.ok()) {
    ExpectEverySnapshot("pypaimon", python.out, expected);
  } else {
    ADD_FAILURE() << python.Describe();
  }
  ASSERT_EQ(FirstFailure({results[2]}), "");
  for (size_t id = 1; id <= expected.size(); ++id) {
    ExpectSameRows("freshet", static_cast<int64_t>(id), expected[id - 1], results[2][id - 1].out);
  }
}

// Java writes: snapshots 1 and 2 appends, 3 an overwrite, 4 an append after it (one JVM per
// commit). freshet reads every snapshot.
TEST_P(WrittenTablesInteropTest, FreshetReadsEverySnapshotJavaWrites) {
  const Layout& layout = GetParam();
  const std::string table = dir_.Sub("wh/db.db/j");
  TableModel model(layout);
  std::string a = Input("a", model.Commit(Ids(0, 12), AppendDt, false));
  std::string b = Input("b", model.Commit(Ids(12, 20), AppendDt, false));
  std::string over = Input("over", model.Commit(Ids(100, 104), OverwriteDt, true));
  std::string d = Input("d", model.Commit(Ids(200, 206), AppendDt, false));
  auto written =
      RunChains({{JavaCommand({"create", "--table", table, "--schema", schema_}),
                  JavaCommand({"write", "--table", table, "--input", a}),
                  JavaCommand({"write", "--table", table, "--input", b}),
                  JavaCommand({"write", "--table", table, "--input", over, "--overwrite"}),
                  JavaCommand({"write", "--table", table, "--input", d})}},
                1);
  ASSERT_EQ(FirstFailure(written), "");
  const std::vector<std::string>& expected = model.snapshots();
  ASSERT_EQ(SnapshotFileIds(table), OneTo(expected.size()));
  EXPECT_GE(MaxFilesPerBucket(table, layout.format), 2u);

  const std::string cli = FreshetCliPath();
  std::vector<Chain> reads;
  for (size_t id = 1; id <= expected.size(); ++id) {
    reads.push_back({{cli, "read", table, "--snapshot", std::to_string(id)}});
  }
  auto results = RunChains(reads, 2);
  ASSERT_EQ(FirstFailure(results), "");
  for (size_t id = 1; id <= expected.size(); ++id) {
    ExpectSameRows("freshet", static_cast<int64_t>(id), expected[id - 1], results[id - 1][0].out);
  }
}

// {parquet, orc} x {partitioned, not} x {bucket -1, 1, 4}, plus Avro (bucket 4, partitioned).
std::vector<Layout> MatrixLayouts() {
  std::vector<Layout> layouts;
  for (const char* format : {"parquet", "orc"}) {
    for (bool partitioned : {true, false}) {
      for (const char* bucket : {"-1", "1", "4"}) layouts.push_back({format, bucket, partitioned});
    }
  }
  layouts.push_back({"avro", "4", true});
  return layouts;
}

INSTANTIATE_TEST_SUITE_P(Matrix, WrittenTablesInteropTest, ::testing::ValuesIn(MatrixLayouts()),
                         [](const ::testing::TestParamInfo<Layout>& info) {
                           return info.param.format + "_bucket" +
                                  (info.param.bucket == "-1" ? std::string("Unaware")
                                                             : info.param.bucket) +
                                  (info.param.partitioned ? "_partitioned" : "");
                         });

}  // namespace
}  // namespace freshet::interop
