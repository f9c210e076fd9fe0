#include "interop/table_checks.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/json.h"
#include "interop/interop_harness.h"
#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/partition/partition_path.h"
#include "meta/row/binary_row.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"
#include "testing/test_util.h"

namespace freshet::interop {

namespace fs = std::filesystem;

namespace {}  // namespace

std::string DescribeDifference(const std::string& expected, const std::string& actual,
                               int max_lines) {
  std::vector<std::string> la, lb;
  std::istringstream ia(expected), ib(actual);
  for (std::string l; std::getline(ia, l);) la.push_back(l);
  for (std::string l; std::getline(ib, l);) lb.push_back(l);
  std::string out;
  int shown = 0;
  for (size_t i = 0; i < std::max(la.size(), lb.size()) && shown < max_lines; ++i) {
    std::string x = i < la.size() ? la[i] : "<end>";
    std::string y = i < lb.size() ? lb[i] : "<end>";
    if (x != y) {
      out += "\n    line " + std::to_string(i + 1) + ": expected '" + x + "', got '" + y + "'";
      ++shown;
    }
  }
  if (out.empty() && expected != actual) out = "\n    (trailing bytes differ)";
  return out;
}

std::string ListProblems(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += "\n  - " + p;
  return out;
}

std::vector<std::string> CheckTableWithFreshet(const std::string& path,
                                               const TableExpectation& expected) {
  std::vector<std::string> problems;
  auto bad = [&](const std::string& what) { problems.push_back(what); };
  auto file_io = io::LocalFileIO();

  // Schemas: parse and re-serialize byte for byte.
  meta::SchemaManager schemas(file_io, path);
  auto schema_ids = schemas.ListSchemaIds();
  if (!schema_ids.ok() || schema_ids->empty()) {
    bad("no schema files: " + (schema_ids.ok() ? "" : schema_ids.status().ToString()));
    return problems;
  }
  for (int64_t id : *schema_ids) {
    std::string text = freshet::testing::ReadWholeFile(schemas.SchemaPath(id));
    auto parsed = meta::TableSchema::FromJson(text, schemas.SchemaPath(id));
    if (!parsed.ok()) {
      bad("schema-" + std::to_string(id) + " does not parse: " + parsed.status().ToString());
      continue;
    }
    std::string ours = parsed->ToJson();
    if (expected.schema_bytes_identical && ours != text) {
      bad("schema-" + std::to_string(id) + " does not re-serialize byte-identically (expected = " +
          "file, got = TableSchema::ToJson):" + DescribeDifference(text, ours));
    }
    auto reparsed = meta::TableSchema::FromJson(ours, "re-serialized");
    if (!reparsed.ok() || !(*reparsed == *parsed)) {
      bad("schema-" + std::to_string(id) + " does not re-parse equal from TableSchema::ToJson()");
    }
  }
  auto latest_schema = schemas.LatestSchema();
  if (!latest_schema.ok() || !latest_schema->has_value()) {
    bad("latest schema unreadable");
    return problems;
  }
  const meta::TableSchema& schema = **latest_schema;
  auto naming = meta::PartitionNaming::FromOptions(schema.options());
  if (!naming.ok()) {
    bad("partition naming options: " + naming.status().ToString());
    return problems;
  }
  const std::vector<meta::DataField> partition_fields = schema.PartitionFields();

  // Snapshots.
  meta::SnapshotManager snapshots(file_io, path);
  meta::ManifestFile manifests(file_io, path);
  auto ids = snapshots.ListSnapshotIds();
  if (!ids.ok() || ids->empty()) {
    bad("no snapshots: " + (ids.ok() ? "" : ids.status().ToString()));
    return problems;
  }
  if (expected.num_snapshots >= 0 && static_cast<int64_t>(ids->size()) != expected.num_snapshots) {
    bad("expected " + std::to_string(expected.num_snapshots) + " snapshots, found " +
        std::to_string(ids->size()));
  }
  for (size_t i = 1; i < ids->size(); ++i) {
    if ((*ids)[i] != (*ids)[i - 1] + 1) bad("snapshot ids are not contiguous");
  }
  auto latest = snapshots.LatestSnapshotId();
  if (!latest.ok() || *latest != ids->back()) bad("LatestSnapshotId is not the newest snapshot");

  for (int64_t id : *ids) {
    const std::string where = "snapshot " + std::to_string(id) + ": ";
    std::string text = freshet::testing::ReadWholeFile(snapshots.SnapshotPath(id));
    auto snapshot = meta::Snapshot::FromJson(text, snapshots.SnapshotPath(id));
    if (!snapshot.ok()) {
      bad(where + "does not parse: " + snapshot.status().ToString());
      continue;
    }
    auto reparsed = meta::Snapshot::FromJson(snapshot->ToJson(), "re-serialized");
    // logOffsets (Java <= 1.3 writes an empty map) is read but never written.
    meta::Snapshot written = *snapshot;
    written.log_offsets.reset();
    if (!reparsed.ok() || !(*reparsed == written)) {
      bad(where + "does not re-parse equal from Snapshot::ToJson()");
    }
    auto read = snapshots.ReadSnapshot(id);
    if (!read.ok() || !(*read == *snapshot)) bad(where + "ReadSnapshot differs from the file");

    auto live = meta::ReadLiveEntries(manifests, *snapshot);
    if (!live.ok()) {
      bad(where + "ReadLiveEntries: " + live.status().ToString());
      continue;
    }
    int64_t records = 0;
    for (const auto& e : *live) {
      records += e.file.row_count;
      const std::string file = e.file.file_name;
      auto row = meta::DeserializeBinaryRow(e.partition);
      if (!row.ok()) {
        bad(where + file + ": partition row: " + row.status().ToString());
        continue;
      }
      auto partition_path = meta::PartitionPath(*row, partition_fields, *naming);
      if (!partition_path.ok()) {
        bad(where + file + ": partition path: " + partition_path.status().ToString());
        continue;
      }
      std::string file_path = path + "/" + *partition_path + "bucket-" + std::to_string(e.bucket) +
                              "/" + e.file.file_name;
      if (e.file.external_path) file_path = *e.file.external_path;
      std::error_code ec;
      auto size = fs::file_size(file_path, ec);
      if (ec) {
        bad(where + "data file missing where freshet's partition path puts it: " + file_path);
      } else if (static_cast<int64_t>(size) != e.file.file_size) {
        bad(where + file_path + " has " + std::to_string(size) + " bytes, manifest says " +
            std::to_string(e.file.file_size));
      }
      if (e.total_buckets != schema.bucket()) {
        bad(where + file + ": _TOTAL_BUCKETS " + std::to_string(e.total_buckets) +
            " but schema bucket " + std::to_string(schema.bucket()));
      }
      int32_t max_bucket = schema.bucket() > 0 ? schema.bucket() : 1;
      if (e.bucket < 0 || e.bucket >= max_bucket) {
        bad(where + file + ": bucket " + std::to_string(e.bucket) + " out of range");
      }
      if (!expected.file_format.empty() &&
          fs::path(file).extension() != "." + expected.file_format) {
        bad(where + file + ": expected a ." + expected.file_format + " file");
      }
    }
    if (records != snapshot->total_record_count.value_or(-1)) {
      bad(where + "live files hold " + std::to_string(records) +
          " records, totalRecordCount says " +
          std::to_string(snapshot->total_record_count.value_or(-1)));
    }
    auto want = expected.live_records.find(id);
    if (want != expected.live_records.end() && want->second != records) {
      bad(where + "live files hold " + std::to_string(records) + " records, expected " +
          std::to_string(want->second));
    }
    auto delta = meta::ReadEntriesOfLists(manifests, {snapshot->delta_manifest_list});
    if (!delta.ok()) {
      bad(where + "delta list: " + delta.status().ToString());
    } else {
      int64_t delta_records = 0;
      for (const auto& e : *delta) {
        delta_records += e.kind == meta::FileKind::kAdd ? e.file.row_count : -e.file.row_count;
      }
      if (delta_records != snapshot->delta_record_count.value_or(-1)) {
        bad(where + "delta entries sum to " + std::to_string(delta_records) +
            " records, deltaRecordCount says " +
            std::to_string(snapshot->delta_record_count.value_or(-1)));
      }
    }
    if (snapshot->index_manifest) {
      auto index = manifests.ReadIndexManifest(*snapshot->index_manifest);
      if (!index.ok()) bad(where + "index manifest: " + index.status().ToString());
    }
    if (snapshot->changelog_manifest_list) {
      auto changelog = meta::ReadEntriesOfLists(manifests, {*snapshot->changelog_manifest_list});
      if (!changelog.ok()) bad(where + "changelog list: " + changelog.status().ToString());
    }
  }
  return problems;
}

std::vector<std::string> CheckInspectCli(const std::string& path) {
  std::vector<std::string> problems;
  CommandResult run = RunCommand({FreshetCliPath(), "inspect", path, "--json", "--all-files"});
  if (!run.ok()) return {run.Describe()};
  auto report = ParseJson(run.out, "freshet inspect --json output");
  if (!report.ok()) return {report.status().ToString()};
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path);
  meta::ManifestFile manifests(file_io, path);
  auto ids = snapshots.ListSnapshotIds();
  if (!ids.ok()) return {ids.status().ToString()};
  const Json& listed = (*report)["snapshots"];
  if (listed.size() != ids->size()) {
    problems.push_back("inspect lists " + std::to_string(listed.size()) + " snapshots, table has " +
                       std::to_string(ids->size()));
    return problems;
  }
  for (size_t i = 0; i < ids->size(); ++i) {
    auto snapshot = snapshots.ReadSnapshot((*ids)[i]);
    if (!snapshot.ok()) return {snapshot.status().ToString()};
    auto live = meta::ReadLiveEntries(manifests, *snapshot);
    if (!live.ok()) return {live.status().ToString()};
    const Json& s = listed[i];
    if (s["id"].get<int64_t>() != (*ids)[i] ||
        s["totalRecordCount"].get<int64_t>() != snapshot->total_record_count.value_or(0) ||
        s["files"].size() != live->size()) {
      problems.push_back("inspect disagrees on snapshot " + std::to_string((*ids)[i]) + ": " +
                         s.dump().substr(0, 300));
    }
  }
  return problems;
}

}  // namespace freshet::interop
