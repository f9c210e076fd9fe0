// freshet inspect: what a table holds, from its metadata alone (no data file is opened).
#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "catalog/filesystem_catalog.h"
#include "cli/cli.h"
#include "common/json.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/core_options.h"
#include "meta/partition/partition_path.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::cli {

namespace {

std::string FormatMillis(int64_t millis) {
  std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d.%03d UTC", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis % 1000));
  return buf;
}

Json SchemaReport(const meta::TableSchema& schema, const meta::CoreOptions& options) {
  Json fields = Json::array();
  for (const auto& f : schema.fields()) {
    fields.push_back(Json{{"id", f.id}, {"name", f.name}, {"type", f.type->ToString()}});
  }
  Json opts = Json::object();
  for (const auto& [key, value] : options.Effective()) opts[key] = value;
  return Json{{"id", schema.id()},
              {"fields", fields},
              {"partitionKeys", schema.partition_keys()},
              {"primaryKeys", schema.primary_keys()},
              {"options", opts}};
}

// Partitions are shown as Java names their directories: "dt=2024-01-01/hr=10".
struct PartitionLabeler {
  std::vector<meta::DataField> fields;
  meta::PartitionNaming naming;

  Result<std::string> Label(const std::string& serialized) const {
    if (fields.empty()) return std::string();
    FRESHET_ASSIGN_OR_RETURN(meta::BinaryRow row, meta::DeserializeBinaryRow(serialized));
    FRESHET_ASSIGN_OR_RETURN(std::string path, meta::PartitionPath(row, fields, naming));
    if (!path.empty() && path.back() == '/') path.pop_back();
    return path;
  }
};

Result<Json> FilesReport(const std::vector<meta::ManifestEntry>& entries,
                         const PartitionLabeler& partitions) {
  Json files = Json::array();
  for (const auto& e : entries) {
    FRESHET_ASSIGN_OR_RETURN(std::string partition, partitions.Label(e.partition));
    files.push_back(Json{{"partition", partition},
                         {"bucket", e.bucket},
                         {"level", e.file.level},
                         {"rowCount", e.file.row_count},
                         {"fileSize", e.file.file_size},
                         {"minSequenceNumber", e.file.min_sequence_number},
                         {"maxSequenceNumber", e.file.max_sequence_number},
                         {"schemaId", e.file.schema_id},
                         {"fileName", e.file.file_name}});
  }
  return files;
}

Result<Json> SnapshotReport(const meta::Snapshot& s, const meta::ManifestFile& manifests,
                            const PartitionLabeler& partitions) {
  Json props = Json::object();
  for (const auto& [key, value] : s.properties) props[key] = value;
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, s));
  FRESHET_ASSIGN_OR_RETURN(Json files, FilesReport(live, partitions));
  return Json{{"id", s.id},
              {"commitKind", meta::CommitKindName(s.commit_kind)},
              {"timeMillis", s.time_millis},
              {"schemaId", s.schema_id},
              {"commitUser", s.commit_user},
              {"commitIdentifier", s.commit_identifier},
              {"totalRecordCount", s.total_record_count.value_or(0)},
              {"deltaRecordCount", s.delta_record_count.value_or(0)},
              {"properties", props},
              {"files", files}};
}

Result<Json> BuildReport(const std::string& path, std::optional<int64_t> only_snapshot) {
  auto file_io = io::LocalFileIO();
  FRESHET_ASSIGN_OR_RETURN(catalog::TableInfo table, catalog::LoadTable(file_io, path));
  const meta::TableSchema& schema = table.schema;
  FRESHET_ASSIGN_OR_RETURN(
      auto options, meta::CoreOptions::Make(schema.options(), !schema.primary_keys().empty()));
  meta::SnapshotManager snapshots(file_io, path);
  meta::ManifestFile manifests(file_io, path);
  FRESHET_ASSIGN_OR_RETURN(auto naming, meta::PartitionNaming::FromOptions(schema.options()));
  PartitionLabeler partitions{schema.PartitionFields(), naming};
  FRESHET_ASSIGN_OR_RETURN(auto ids, snapshots.ListSnapshotIds());
  if (only_snapshot) {
    if (std::find(ids.begin(), ids.end(), *only_snapshot) == ids.end()) {
      return Status::NotFound("snapshot ", *only_snapshot, " of table '", path, "' does not exist");
    }
    ids = {*only_snapshot};
  }
  Json report_snapshots = Json::array();
  for (int64_t id : ids) {
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot s, snapshots.ReadSnapshot(id));
    FRESHET_ASSIGN_OR_RETURN(Json one, SnapshotReport(s, manifests, partitions));
    report_snapshots.push_back(std::move(one));
  }
  return Json{
      {"path", path}, {"schema", SchemaReport(schema, options)}, {"snapshots", report_snapshots}};
}

void PrintText(const Json& r) {
  const Json& schema = r["schema"];
  std::printf("Table %s\n", r["path"].get<std::string>().c_str());
  std::printf("  schema %" PRId64 ": partition keys %s, primary keys %s\n",
              schema["id"].get<int64_t>(), schema["partitionKeys"].dump().c_str(),
              schema["primaryKeys"].dump().c_str());
  std::printf("  fields:\n");
  for (const auto& f : schema["fields"]) {
    std::printf("    %3d  %-24s %s\n", f["id"].get<int>(), f["name"].get<std::string>().c_str(),
                f["type"].get<std::string>().c_str());
  }
  std::printf("  options:\n");
  for (auto it = schema["options"].begin(); it != schema["options"].end(); ++it) {
    std::printf("    %s = %s\n", it.key().c_str(), it->get<std::string>().c_str());
  }
  std::printf("Snapshots: %zu\n", r["snapshots"].size());
  for (const auto& s : r["snapshots"]) {
    std::printf("  #%" PRId64 " %-9s %s  schema %" PRId64 "  records %" PRId64 " (delta %+" PRId64
                ")  user %s  identifier %" PRId64 "\n",
                s["id"].get<int64_t>(), s["commitKind"].get<std::string>().c_str(),
                FormatMillis(s["timeMillis"].get<int64_t>()).c_str(), s["schemaId"].get<int64_t>(),
                s["totalRecordCount"].get<int64_t>(), s["deltaRecordCount"].get<int64_t>(),
                s["commitUser"].get<std::string>().c_str(), s["commitIdentifier"].get<int64_t>());
    for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
      std::printf("      property %s = %s\n", it.key().c_str(), it->get<std::string>().c_str());
    }
    std::printf("      %-28s %6s %5s %10s %10s %15s  %s\n", "partition", "bucket", "level", "rows",
                "bytes", "sequence", "file");
    for (const auto& f : s["files"]) {
      std::string seq = std::to_string(f["minSequenceNumber"].get<int64_t>()) + ".." +
                        std::to_string(f["maxSequenceNumber"].get<int64_t>());
      std::string partition = f["partition"].get<std::string>();
      std::printf("      %-28s %6d %5d %10" PRId64 " %10" PRId64 " %15s  %s\n",
                  partition.empty() ? "(none)" : partition.c_str(), f["bucket"].get<int>(),
                  f["level"].get<int>(), f["rowCount"].get<int64_t>(), f["fileSize"].get<int64_t>(),
                  seq.c_str(), f["fileName"].get<std::string>().c_str());
    }
  }
}

}  // namespace

int RunInspect(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {"json"}, {"snapshot"});
  if (!args.ok()) return Fail("inspect", args.status());
  if (args->positionals().size() != 1) {
    return Fail("inspect", Status::Invalid("expected one table path; usage: freshet inspect "
                                           "<table-path> [--json] [--snapshot N]"));
  }
  std::optional<int64_t> snapshot;
  if (args->Has("snapshot")) {
    auto id = args->GetInt("snapshot", 0);
    if (!id.ok()) return Fail("inspect", id.status());
    snapshot = *id;
  }
  auto report = BuildReport(args->positionals()[0], snapshot);
  if (!report.ok()) return Fail("inspect", report.status());
  if (args->Has("json")) {
    std::printf("%s\n", report->dump(2).c_str());
  } else {
    PrintText(*report);
  }
  return 0;
}

}  // namespace freshet::cli
