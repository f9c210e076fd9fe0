// freshet reads every snapshot of the tables that every Java Paimon version wrote: the ctest
// fixture interop_java_fixtures (tests/interop/java_fixtures.sh) runs the Java harness's
// `fixtures` command once per paimon-bundle that scripts/setup.sh fetched, and this suite checks
// what it left in $FRESHET_JAVA_FIXTURES (docs/interop-tests.md, "Tables of every Java Paimon
// version").
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "freshet/table.h"
#include "interop/interop_harness.h"
#include "interop/table_checks.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/process.h"
#include "testing/test_util.h"
#include "textrows/json_rows.h"

namespace freshet::interop {
namespace {

namespace fs = std::filesystem;

std::string FixturesDir() {
  const char* env = std::getenv("FRESHET_JAVA_FIXTURES");
  return env != nullptr ? env : std::string(FRESHET_BINARY_DIR) + "/java-fixtures";
}

// The versions the fixture wrote (VERSIONS: one a line, ascending).
std::vector<std::string> Versions() {
  std::vector<std::string> versions;
  std::istringstream in(freshet::testing::ReadWholeFile(FixturesDir() + "/VERSIONS"));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) versions.push_back(line);
  }
  return versions;
}

std::string FixtureProblem() {
  if (!fs::is_regular_file(FixturesDir() + "/VERSIONS")) {
    return FixturesDir() +
           "/VERSIONS is missing: run the ctest fixture interop_java_fixtures "
           "(ctest -L interop, or ctest -R JavaVersions, which runs it first; it needs "
           "scripts/setup.sh)";
  }
  return "";
}

// Names of a version's tables: the directories of expected/.
std::vector<std::string> Tables(const std::string& version) {
  std::vector<std::string> tables;
  for (const auto& entry : fs::directory_iterator(FixturesDir() + "/" + version + "/expected")) {
    tables.push_back(entry.path().filename().string());
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

// Snapshot ids with an expected file (s<N>.jsonl), ascending.
std::vector<int64_t> ExpectedSnapshots(const std::string& dir) {
  std::vector<int64_t> ids;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 7 && name[0] == 's' && entry.path().extension() == ".jsonl") {
      ids.push_back(std::stoll(name.substr(1, name.size() - 7)));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string TablePath(const std::string& version, const std::string& table) {
  return FixturesDir() + "/" + version + "/wh/fixtures.db/" + table;
}

// Empty when `actual` holds exactly the rows of `expected` (numbers by value, MAP column `m`
// unordered, rows as a multiset); otherwise the rows only one side has.
std::string RowDifference(const std::string& expected, const std::string& actual) {
  std::vector<std::string> want = CanonicalRows(expected, {"m"});
  std::vector<std::string> got = CanonicalRows(actual, {"m"});
  if (want == got) return "";
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::string diff =
      std::to_string(got.size()) + " rows, expected " + std::to_string(want.size()) + ":";
  int shown = 0;
  for (const auto& row : missing) {
    if (++shown <= 3) diff += "\n  missing:    " + row;
  }
  for (const auto& row : extra) {
    if (++shown <= 6) diff += "\n  unexpected: " + row;
  }
  return diff;
}

// freshet's rows of snapshot `id` as JSON lines, read through the public API with the schema
// the snapshot was written with (as Java's time travel does).
Result<std::string> FreshetRows(const std::string& path, int64_t id) {
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  ReadOptions options;
  options.snapshot_id = id;
  FRESHET_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  FRESHET_ASSIGN_OR_RETURN(auto snapshot,
                           meta::SnapshotManager(io::LocalFileIO(), path).ReadSnapshot(id));
  FRESHET_ASSIGN_OR_RETURN(
      auto schema, meta::SchemaManager(io::LocalFileIO(), path).ReadSchema(snapshot.schema_id));
  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader->ExportArrowSchema(&c_schema));
  auto arrow_schema = arrow::ImportSchema(&c_schema);
  if (!arrow_schema.ok()) return Status::Internal(arrow_schema.status().ToString());
  std::string rows;
  while (true) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader->Next(&array));
    if (!more) break;
    auto batch = arrow::ImportRecordBatch(&array, *arrow_schema);
    if (!batch.ok()) return Status::Internal(batch.status().ToString());
    FRESHET_ASSIGN_OR_RETURN(std::string text, textrows::FormatJsonRows(**batch, schema.fields()));
    rows += text;
  }
  return rows;
}

// freshet problems with the tables of old Java versions that this suite found and that are not
// fixed yet (the code is in src/format/). Each names the snapshots it affects and what freshet
// does there today. A listed snapshot that reads right, or fails otherwise, fails the test, so
// the entry goes when the fix comes.
struct KnownIssue {
  std::vector<std::string> versions;
  std::string table;
  std::vector<int64_t> snapshots;  // empty: every snapshot
  std::string symptom;             // a substring of the read error, or "" for wrong rows
  std::string what;
};

const std::vector<KnownIssue>& KnownIssues() {
  static const std::vector<KnownIssue> issues = {};
  return issues;
}

const KnownIssue* FindKnownIssue(const std::string& version, const std::string& table,
                                 int64_t snapshot) {
  for (const auto& issue : KnownIssues()) {
    if (issue.table == table &&
        std::find(issue.versions.begin(), issue.versions.end(), version) != issue.versions.end() &&
        (issue.snapshots.empty() || std::find(issue.snapshots.begin(), issue.snapshots.end(),
                                              snapshot) != issue.snapshots.end())) {
      return &issue;
    }
  }
  return nullptr;
}

class JavaVersionsReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(FixtureProblem(), "");
    versions_ = Versions();
    ASSERT_FALSE(versions_.empty()) << FixturesDir() << "/VERSIONS lists no version";
  }
  std::vector<std::string> versions_;
};

// `freshet read --snapshot N` of a table whose schema changed after N prints N's rows in N's
// columns, as Java's time travel does (it printed "the batch has 5 columns, the schema has 6").
TEST_F(JavaVersionsReadTest, CliTimeTravelPrintsEachSnapshotInItsOwnSchema) {
  const std::string& version = versions_.back();
  const std::string table = TablePath(version, "schema_evolution");
  const std::string expected_dir = FixturesDir() + "/" + version + "/expected/schema_evolution";
  for (int64_t id : ExpectedSnapshots(expected_dir)) {
    SCOPED_TRACE("snapshot " + std::to_string(id));
    auto run = freshet::testing::RunProcess(
        {FRESHET_CLI_PATH, "read", table, "--snapshot", std::to_string(id)});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string expected =
        freshet::testing::ReadWholeFile(expected_dir + "/s" + std::to_string(id) + ".jsonl");
    EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'),
              std::count(expected.begin(), expected.end(), '\n'));
  }
}

// Each version's directory is complete and was written by the bundle it is named after.
TEST_F(JavaVersionsReadTest, EveryVersionWroteItsFixtures) {
  std::string listed;
  for (const auto& version : versions_) {
    SCOPED_TRACE(version);
    const std::string dir = FixturesDir() + "/" + version;
    ASSERT_TRUE(fs::is_regular_file(dir + "/DONE")) << dir << " is incomplete";
    EXPECT_EQ(freshet::testing::ReadWholeFile(dir + "/VERSION"), version + "\n");
    EXPECT_EQ(Tables(version).size(), 7u);
    listed += " " + version;
  }
  std::cout << "Java Paimon versions:" << listed << std::endl;
}

// The heart of it: freshet reads every snapshot of every table of every version row-exact, and
// its metadata readers accept every file (schema files byte for byte, snapshots, manifest lists
// and manifests in Avro and ORC, data files where the partition-path algorithm puts them).
TEST_F(JavaVersionsReadTest, FreshetReadsEverySnapshotOfEveryVersion) {
  int snapshots_read = 0;
  int known_issue_snapshots = 0;
  for (const auto& version : versions_) {
    for (const auto& table : Tables(version)) {
      SCOPED_TRACE("Paimon " + version + " table " + table);
      const std::string path = TablePath(version, table);
      const std::string expected_dir = FixturesDir() + "/" + version + "/expected/" + table;
      std::vector<int64_t> ids = ExpectedSnapshots(expected_dir);
      ASSERT_FALSE(ids.empty());
      meta::SnapshotManager snapshots(io::LocalFileIO(), path);
      ASSERT_OK_AND_ASSIGN(std::vector<int64_t> listed, snapshots.ListSnapshotIds());
      EXPECT_EQ(listed, ids);
      // Commit kinds as Java lists them ("<id> <kind>" lines).
      std::istringstream kinds(freshet::testing::ReadWholeFile(
          FixturesDir() + "/" + version + "/java/" + table + "/snapshots.txt"));
      int64_t id;
      std::string kind;
      while (kinds >> id >> kind) {
        ASSERT_OK_AND_ASSIGN(meta::Snapshot snapshot, snapshots.ReadSnapshot(id));
        EXPECT_EQ(meta::CommitKindName(snapshot.commit_kind), kind) << "snapshot " << id;
      }
      TableExpectation expectation;
      expectation.num_snapshots = static_cast<int64_t>(ids.size());
      for (int64_t s : ids) {
        std::string expected =
            freshet::testing::ReadWholeFile(expected_dir + "/s" + std::to_string(s) + ".jsonl");
        expectation.live_records[s] = static_cast<int64_t>(SplitLines(expected).size());
        auto rows = FreshetRows(path, s);
        std::string error = rows.ok() ? "" : rows.status().ToString();
        std::string diff = rows.ok() ? RowDifference(expected, *rows) : "";
        if (const KnownIssue* issue = FindKnownIssue(version, table, s)) {
          bool shows = issue->symptom.empty() ? error.empty() && !diff.empty()
                                              : error.find(issue->symptom) != std::string::npos;
          EXPECT_TRUE(shows) << "snapshot " << s << ": the known issue \"" << issue->what
                             << "\" no longer shows as it did (remove it from KnownIssues() and "
                                "docs/interop-tests.md if it is fixed); error: "
                             << error << "; rows: " << diff;
          ++known_issue_snapshots;
          continue;
        }
        EXPECT_EQ(error, "") << "freshet reading snapshot " << s;
        EXPECT_EQ(diff, "") << "freshet reading snapshot " << s;
        ++snapshots_read;
      }
      std::vector<std::string> problems = CheckTableWithFreshet(path, expectation);
      EXPECT_TRUE(problems.empty()) << ListProblems(problems);
    }
  }
  std::cout << "freshet read " << snapshots_read << " snapshots of " << versions_.size()
            << " Java Paimon versions row-exact; " << known_issue_snapshots
            << " snapshots show a known issue:" << std::endl;
  std::set<std::string> shown;
  for (const auto& issue : KnownIssues()) {
    if (shown.insert(issue.what).second) std::cout << "  known issue: " << issue.what << std::endl;
  }
}

// The expected rows are the writer's model; the newest version must read exactly them back
// itself (so the expectations are right). What older versions read back is reported, not
// judged: some cannot read what they wrote (docs/interop-tests.md lists what was seen).
TEST_F(JavaVersionsReadTest, JavaReadsBackTheExpectedRows) {
  const std::string newest = versions_.back();
  std::map<std::string, int> notes_per_version;
  for (const auto& version : versions_) {
    for (const auto& table : Tables(version)) {
      const std::string expected_dir = FixturesDir() + "/" + version + "/expected/" + table;
      const std::string java_dir = FixturesDir() + "/" + version + "/java/" + table;
      for (int64_t s : ExpectedSnapshots(expected_dir)) {
        const std::string name = "/s" + std::to_string(s);
        std::string note;
        if (fs::exists(java_dir + name + ".error")) {
          note = "cannot read it: " +
                 freshet::testing::ReadWholeFile(java_dir + name + ".error").substr(0, 160);
        } else {
          note = RowDifference(freshet::testing::ReadWholeFile(expected_dir + name + ".jsonl"),
                               freshet::testing::ReadWholeFile(java_dir + name + ".jsonl"));
        }
        if (note.empty()) continue;
        std::string where = "Paimon " + version + " reading its own " + table + " snapshot " +
                            std::to_string(s) + ": ";
        if (version == newest) {
          ADD_FAILURE() << where << note;
        } else {
          ++notes_per_version[version];
          if (notes_per_version[version] <= 3) std::cout << "note: " << where << note << std::endl;
        }
      }
    }
  }
  for (const auto& [version, count] : notes_per_version) {
    std::cout << "note: Paimon " << version << " reads back " << count
              << " of its own snapshots differently (see above)" << std::endl;
  }
}

// The bucket-id vectors come from the same seeded rows in every version, so equal files mean
// every version assigns the same buckets. (The bucket tests of meta_test and write_test check
// freshet against them: ctest -R interop_java_vectors.)
TEST_F(JavaVersionsReadTest, EveryVersionAssignsTheSameBuckets) {
  for (const char* file : {"record_for_bucket_id.data", "record_with_null_for_bucket_id.data",
                           "record_with_timestamp_for_bucket_id.data"}) {
    const std::string first = freshet::testing::ReadWholeFile(
        FixturesDir() + "/" + versions_.front() + "/vectors/" + file);
    EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 5000) << file;
    for (const auto& version : versions_) {
      EXPECT_TRUE(freshet::testing::ReadWholeFile(FixturesDir() + "/" + version + "/vectors/" +
                                                  file) == first)
          << file << " of Paimon " << version << " differs from Paimon " << versions_.front();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Primary-key tables (PkFixtures.java): merge-on-read tables of every merge engine. Java's batch
// read is the truth, as the newest version reads each snapshot (pk/newest/ for older versions,
// pk/java/ for the newest itself): batch reads of deletion-vector and first-row tables skip
// level-0 files, and that is what Java's rows show.

std::string PkDir(const std::string& version) { return FixturesDir() + "/" + version + "/pk"; }

std::string PkTablePath(const std::string& version, const std::string& table) {
  return FixturesDir() + "/" + version + "/wh/pk.db/" + table;
}

// The primary-key tables a version wrote (pk/TABLES).
std::vector<std::string> PkTables(const std::string& version) {
  return SplitLines(freshet::testing::ReadWholeFile(PkDir(version) + "/TABLES"));
}

// Snapshot ids from Java's snapshots.txt ("<id> <kind>" lines), with their kinds.
std::vector<std::pair<int64_t, std::string>> PkSnapshotKinds(const std::string& version,
                                                             const std::string& table) {
  std::vector<std::pair<int64_t, std::string>> kinds;
  std::istringstream in(
      freshet::testing::ReadWholeFile(PkDir(version) + "/java/" + table + "/snapshots.txt"));
  int64_t id;
  std::string kind;
  while (in >> id >> kind) kinds.emplace_back(id, kind);
  return kinds;
}

class JavaVersionsPrimaryKeyTest : public JavaVersionsReadTest {
 protected:
  void SetUp() override {
    JavaVersionsReadTest::SetUp();
    if (HasFatalFailure()) return;
    for (const auto& version : versions_) {
      ASSERT_TRUE(fs::is_regular_file(PkDir(version) + "/TABLES"))
          << PkDir(version) << "/TABLES is missing: the fixtures were written by a harness without "
          << "primary-key tables; rebuild it (scripts/setup.sh) and re-run interop_java_fixtures";
    }
  }
  // Where the rows freshet must return are: the newest version's own reads, and its reads of the
  // older versions' tables.
  std::string TruthDir(const std::string& version, const std::string& table) const {
    return PkDir(version) + (version == versions_.back() ? "/java/" : "/newest/") + table;
  }
};

// Each version wrote every primary-key table whose options it has; the newest wrote all of them.
// A table an older version failed to write (a Java bug) is a note, not a failure.
TEST_F(JavaVersionsPrimaryKeyTest, EveryVersionWroteItsPrimaryKeyTables) {
  const std::string& newest = versions_.back();
  const std::vector<std::string> all = PkTables(newest);
  EXPECT_GE(all.size(), 27u) << "the newest version wrote too few primary-key tables";
  for (const auto& version : versions_) {
    SCOPED_TRACE("Paimon " + version);
    std::vector<std::string> tables = PkTables(version);
    std::string skipped = freshet::testing::ReadWholeFile(PkDir(version) + "/SKIPPED");
    if (version == newest) {
      EXPECT_EQ(skipped, "") << "the newest version must write every primary-key table";
    } else {
      ASSERT_TRUE(fs::is_regular_file(PkDir(version) + "/newest/DONE"))
          << "Paimon " << newest << " did not re-read these tables (pk-reread in java_fixtures.sh)";
      EXPECT_EQ(freshet::testing::ReadWholeFile(PkDir(version) + "/newest/VERSION"), newest + "\n");
    }
    for (const auto& table : tables) {
      EXPECT_NE(std::find(all.begin(), all.end(), table), all.end()) << table;
      auto kinds = PkSnapshotKinds(version, table);
      EXPECT_FALSE(kinds.empty()) << table << " has no snapshot";
      for (const auto& [id, kind] : kinds) {
        const std::string name = "/s" + std::to_string(id);
        for (const std::string& dir :
             {PkDir(version) + "/java/" + table, TruthDir(version, table)}) {
          EXPECT_TRUE(fs::exists(dir + name + ".jsonl") || fs::exists(dir + name + ".error"))
              << dir << name << ".jsonl is missing";
        }
      }
    }
    std::cout << "Paimon " << version << ": " << tables.size() << " primary-key tables"
              << std::endl;
    for (const auto& line : SplitLines(skipped))
      std::cout << "  not written: " << line << std::endl;
  }
}

// freshet's metadata readers on the primary-key tables: the same snapshot ids and commit kinds as
// Java lists (APPEND, COMPACT), and CheckTableWithFreshet finds no problem (schema files,
// snapshots, manifests, data files, index manifests with the deletion-vector files).
TEST_F(JavaVersionsPrimaryKeyTest, FreshetReadsTheMetadataOfEveryPrimaryKeyTable) {
  int tables_checked = 0;
  for (const auto& version : versions_) {
    for (const auto& table : PkTables(version)) {
      SCOPED_TRACE("Paimon " + version + " primary-key table " + table);
      const std::string path = PkTablePath(version, table);
      auto kinds = PkSnapshotKinds(version, table);
      meta::SnapshotManager snapshots(io::LocalFileIO(), path);
      ASSERT_OK_AND_ASSIGN(std::vector<int64_t> listed, snapshots.ListSnapshotIds());
      std::vector<int64_t> ids;
      for (const auto& [id, kind] : kinds) {
        ids.push_back(id);
        ASSERT_OK_AND_ASSIGN(meta::Snapshot snapshot, snapshots.ReadSnapshot(id));
        EXPECT_EQ(meta::CommitKindName(snapshot.commit_kind), kind) << "snapshot " << id;
      }
      EXPECT_EQ(listed, ids);
      TableExpectation expectation;
      expectation.num_snapshots = static_cast<int64_t>(ids.size());
      std::vector<std::string> problems = CheckTableWithFreshet(path, expectation);
      EXPECT_TRUE(problems.empty()) << ListProblems(problems);
      ++tables_checked;
    }
  }
  std::cout << "freshet checked the metadata of " << tables_checked << " primary-key tables of "
            << versions_.size() << " Java Paimon versions" << std::endl;
}

// The heart of it: freshet's merge-on-read returns at every snapshot exactly the rows Java's batch
// read returns (rows as a multiset; numbers by value; MAP column `m` unordered). One failure per
// table: its first snapshot that differs, with the error or the first differing rows.
TEST_F(JavaVersionsPrimaryKeyTest, FreshetReadsEverySnapshotOfEveryPrimaryKeyTable) {
  int snapshots_read = 0, snapshots_wrong = 0, java_errors = 0, tables_wrong = 0;
  for (const auto& version : versions_) {
    for (const auto& table : PkTables(version)) {
      const std::string path = PkTablePath(version, table);
      const std::string truth = TruthDir(version, table);
      std::string first_failure;
      int wrong = 0;
      for (const auto& [id, kind] : PkSnapshotKinds(version, table)) {
        const std::string name = "/s" + std::to_string(id);
        if (!fs::exists(truth + name + ".jsonl")) {
          ++java_errors;  // Java itself cannot read it (s<N>.error): nothing to compare
          continue;
        }
        const std::string expected = freshet::testing::ReadWholeFile(truth + name + ".jsonl");
        auto rows = FreshetRows(path, id);
        std::string problem = rows.ok() ? RowDifference(expected, *rows)
                                        : "freshet fails: " + rows.status().ToString();
        if (problem.empty()) {
          ++snapshots_read;
          continue;
        }
        ++snapshots_wrong;
        if (wrong++ == 0) {
          first_failure = "snapshot " + std::to_string(id) + " (" + kind + "): " + problem;
        }
      }
      if (wrong > 0) {
        ++tables_wrong;
        ADD_FAILURE() << "Paimon " << version << " primary-key table " << table << " (" << path
                      << "): " << wrong << " snapshots read wrong; the first: " << first_failure
                      << "\n  Java's rows: " << truth;
      }
    }
  }
  std::cout << "freshet read " << snapshots_read << " snapshots of primary-key tables of "
            << versions_.size() << " Java Paimon versions row-exact; " << snapshots_wrong
            << " snapshots (" << tables_wrong << " tables) differ; " << java_errors
            << " snapshots Java cannot read itself" << std::endl;
}

// What older versions read from their own primary-key tables, against the newest version's read
// of the same snapshots: differences are printed as notes (older versions' own semantics, e.g.
// 1.0-1.3 ignore sequence.field.sort-order=descending when they read), never failures.
TEST_F(JavaVersionsPrimaryKeyTest, OlderVersionsReadTheirOwnTablesAsNotes) {
  const std::string& newest = versions_.back();
  for (const auto& version : versions_) {
    if (version == newest) continue;
    int notes = 0;
    for (const auto& table : PkTables(version)) {
      for (const auto& [id, kind] : PkSnapshotKinds(version, table)) {
        const std::string name = "/s" + std::to_string(id);
        const std::string own = PkDir(version) + "/java/" + table + name;
        const std::string truth = TruthDir(version, table) + name;
        std::string note;
        if (fs::exists(own + ".error") || fs::exists(truth + ".error")) {
          if (fs::exists(own + ".error") != fs::exists(truth + ".error")) {
            note = fs::exists(own + ".error")
                       ? "cannot read it: " + freshet::testing::ReadWholeFile(own + ".error")
                       : "Paimon " + newest + " cannot read it: " +
                             freshet::testing::ReadWholeFile(truth + ".error");
          }
        } else {
          note = RowDifference(freshet::testing::ReadWholeFile(truth + ".jsonl"),
                               freshet::testing::ReadWholeFile(own + ".jsonl"));
        }
        if (note.empty()) continue;
        if (++notes <= 3) {
          std::cout << "note: Paimon " << version << " reading its own " << table << " snapshot "
                    << id << " differs from Paimon " << newest << ": " << note << std::endl;
        }
      }
    }
    if (notes > 0) {
      std::cout << "note: Paimon " << version << " reads " << notes
                << " snapshots of its own primary-key tables differently" << std::endl;
    }
  }
}

}  // namespace
}  // namespace freshet::interop
