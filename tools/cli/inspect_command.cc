// freshet inspect: what a table holds, from its metadata alone (no data file is opened).
//
// The report is printed one snapshot at a time, so that memory stays bounded by one snapshot's
// files. By default every snapshot is listed but only the latest one lists its data files:
// listing them all costs snapshots x files (a table with 1,284 snapshots took minutes and GBs),
// which --all-files asks for explicitly.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "cli/cli.h"
#include "freshet/table.h"

namespace freshet::cli {

namespace {

using Json = nlohmann::ordered_json;

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

// JSON text that is valid whatever bytes the table holds: a partition value, a path or any other
// string that is not UTF-8 gets U+FFFD, as in `freshet read` (docs/json-rows.md).
std::string JsonText(const Json& json, int indent = -1) {
  return json.dump(indent, ' ', false, nlohmann::detail::error_handler_t::replace);
}

Json SchemaReport(const SchemaInfo& schema,
                  const std::vector<std::pair<std::string, std::string>>& options) {
  Json fields = Json::array();
  for (const FieldInfo& f : schema.fields) {
    fields.push_back(Json{{"id", f.id}, {"name", f.name}, {"type", f.type}});
  }
  Json opts = Json::object();
  for (const auto& [key, value] : options) opts[key] = value;
  return Json{{"id", schema.id},
              {"fields", fields},
              {"partitionKeys", schema.partition_keys},
              {"primaryKeys", schema.primary_keys},
              {"options", opts}};
}

// A key as text: its value for a one-column key, "(a, b)" for several columns.
std::string KeyText(const std::vector<std::pair<std::string, std::string>>& key) {
  if (key.size() == 1) return key[0].second;
  std::string text = "(";
  for (size_t i = 0; i < key.size(); ++i) text += (i ? ", " : "") + key[i].second;
  return text + ")";
}

Json FilesReport(const std::vector<DataFileInfo>& files) {
  Json out = Json::array();
  for (const DataFileInfo& f : files) {
    Json file{{"partition", f.partition_path},
              {"bucket", f.bucket},
              {"level", f.level},
              {"rowCount", f.row_count},
              {"fileSize", f.file_size},
              {"minSequenceNumber", f.min_sequence_number},
              {"maxSequenceNumber", f.max_sequence_number},
              {"schemaId", f.schema_id},
              {"fileName", f.file_name}};
    if (!f.min_key.empty()) {  // primary-key tables: the file's key range
      file["minKey"] = KeyText(f.min_key);
      file["maxKey"] = KeyText(f.max_key);
      file["deleteRowCount"] = f.delete_row_count ? Json(*f.delete_row_count) : Json();
    }
    out.push_back(std::move(file));
  }
  return out;
}

// A snapshot's history entry: what it is, without its files.
Json SnapshotReport(const SnapshotInfo& s) {
  Json props = Json::object();
  for (const auto& [key, value] : s.properties) props[key] = value;
  return Json{{"id", s.id},
              {"commitKind", s.commit_kind},
              {"timeMillis", s.time_millis},
              {"schemaId", s.schema_id},
              {"commitUser", s.commit_user},
              {"commitIdentifier", s.commit_identifier},
              {"totalRecordCount", s.total_record_count},
              {"deltaRecordCount", s.delta_record_count},
              {"properties", props}};
}

// Receives the report piece by piece: the table, then each snapshot (with "files" when its files
// are listed), then the end.
class ReportPrinter {
 public:
  virtual ~ReportPrinter() = default;
  virtual void Table(const Json& table, size_t snapshot_count) = 0;
  virtual void Snapshot(const Json& snapshot) = 0;
  virtual void End() = 0;
};

class TextPrinter : public ReportPrinter {
 public:
  void Table(const Json& table, size_t snapshot_count) override {
    const Json& schema = table["schema"];
    std::printf("Table %s\n", table["path"].get<std::string>().c_str());
    std::printf("  schema %" PRId64 ": partition keys %s, primary keys %s\n",
                schema["id"].get<int64_t>(), JsonText(schema["partitionKeys"]).c_str(),
                JsonText(schema["primaryKeys"]).c_str());
    std::printf("  fields:\n");
    for (const auto& f : schema["fields"]) {
      std::printf("    %3d  %-24s %s\n", f["id"].get<int>(), f["name"].get<std::string>().c_str(),
                  f["type"].get<std::string>().c_str());
    }
    std::printf("  options:\n");
    for (auto it = schema["options"].begin(); it != schema["options"].end(); ++it) {
      std::printf("    %s = %s\n", it.key().c_str(), it->get<std::string>().c_str());
    }
    std::printf("Snapshots: %zu\n", snapshot_count);
  }

  void Snapshot(const Json& s) override {
    std::printf("  #%" PRId64 " %-9s %s  schema %" PRId64 "  records %" PRId64 " (delta %+" PRId64
                ")  user %s  identifier %" PRId64 "\n",
                s["id"].get<int64_t>(), s["commitKind"].get<std::string>().c_str(),
                FormatMillis(s["timeMillis"].get<int64_t>()).c_str(), s["schemaId"].get<int64_t>(),
                s["totalRecordCount"].get<int64_t>(), s["deltaRecordCount"].get<int64_t>(),
                s["commitUser"].get<std::string>().c_str(), s["commitIdentifier"].get<int64_t>());
    for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
      std::printf("      property %s = %s\n", it.key().c_str(), it->get<std::string>().c_str());
    }
    if (s.contains("files")) PrintFiles(s["files"]);
  }

  void End() override {}

 private:
  static void PrintFiles(const Json& files) {
    const bool keys = !files.empty() && files[0].contains("minKey");
    std::printf("      %-28s %6s %5s %10s %10s %15s  %s%s\n", "partition", "bucket", "level",
                "rows", "bytes", "sequence", keys ? "keys  " : "", "file");
    for (const auto& f : files) {
      std::string seq = std::to_string(f["minSequenceNumber"].get<int64_t>()) + ".." +
                        std::to_string(f["maxSequenceNumber"].get<int64_t>());
      std::string key_range;
      if (keys) {
        key_range = f["minKey"].get<std::string>() + ".." + f["maxKey"].get<std::string>() + "  ";
      }
      std::string partition = f["partition"].get<std::string>();
      std::printf("      %-28s %6d %5d %10" PRId64 " %10" PRId64 " %15s  %s%s\n",
                  partition.empty() ? "(none)" : partition.c_str(), f["bucket"].get<int>(),
                  f["level"].get<int>(), f["rowCount"].get<int64_t>(), f["fileSize"].get<int64_t>(),
                  seq.c_str(), key_range.c_str(), f["fileName"].get<std::string>().c_str());
    }
  }
};

// Prints exactly what JsonText(indent 2) prints for {"path", "schema", "snapshots": [...]}, one
// snapshot at a time.
class JsonPrinter : public ReportPrinter {
 public:
  void Table(const Json& table, size_t) override {
    std::string text = JsonText(table, 2);
    text.resize(text.size() - 2);  // reopen the object: drop its closing "\n}"
    std::printf("%s,\n  \"snapshots\": [", text.c_str());
  }

  void Snapshot(const Json& snapshot) override {
    std::printf("%s\n    %s", first_ ? "" : ",", Indented(JsonText(snapshot, 2)).c_str());
    first_ = false;
  }

  void End() override { std::printf(first_ ? "]\n}\n" : "\n  ]\n}\n"); }

 private:
  // The array's elements sit 4 spaces in. Dumped strings never hold a raw line feed.
  static std::string Indented(const std::string& text) {
    std::string out;
    for (char c : text) {
      out += c;
      if (c == '\n') out += "    ";
    }
    return out;
  }

  bool first_ = true;
};

struct InspectRequest {
  std::string path;
  std::optional<int64_t> only_snapshot;  // just this snapshot, with its files
  bool all_files = false;                // every snapshot with its files
};

Result<std::vector<int64_t>> SnapshotIdsToShow(const Table& table, const InspectRequest& request) {
  FRESHET_ASSIGN_OR_RETURN(auto ids, table.SnapshotIds());
  if (!request.only_snapshot) return ids;
  if (std::find(ids.begin(), ids.end(), *request.only_snapshot) == ids.end()) {
    return Status::NotFound("snapshot ", *request.only_snapshot, " of table '", request.path,
                            "' does not exist");
  }
  return std::vector<int64_t>{*request.only_snapshot};
}

Status Inspect(const InspectRequest& request, ReportPrinter* printer) {
  const std::string& path = request.path;
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  FRESHET_ASSIGN_OR_RETURN(auto options, table->Options());
  FRESHET_ASSIGN_OR_RETURN(auto ids, SnapshotIdsToShow(*table, request));

  printer->Table(Json{{"path", path}, {"schema", SchemaReport(table->Schema(), options)}},
                 ids.size());
  for (int64_t id : ids) {
    FRESHET_ASSIGN_OR_RETURN(SnapshotInfo s, table->Snapshot(id));
    Json report = SnapshotReport(s);
    if (request.all_files || id == ids.back()) {
      FRESHET_ASSIGN_OR_RETURN(auto files, table->DataFiles(id));
      report["files"] = FilesReport(files);
    }
    printer->Snapshot(report);
  }
  printer->End();
  return Status::OK();
}

Result<InspectRequest> ParseRequest(const Args& args) {
  if (args.positionals().size() != 1) {
    return Status::Invalid("expected one table path; usage: ", UsageOf("inspect"));
  }
  InspectRequest request;
  request.path = args.positionals()[0];
  if (args.Has("snapshot")) {
    FRESHET_ASSIGN_OR_RETURN(request.only_snapshot, args.GetInt("snapshot", 0));
  }
  request.all_files = args.Has("all-files");
  if (request.only_snapshot && request.all_files) {
    return Status::Invalid("--snapshot and --all-files exclude each other");
  }
  return request;
}

}  // namespace

int RunInspect(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {"json", "all-files"}, {"snapshot"});
  if (!args.ok()) return Fail("inspect", args.status());
  auto request = ParseRequest(*args);
  if (!request.ok()) return Fail("inspect", request.status());
  JsonPrinter json;
  TextPrinter text;
  Status st = Inspect(*request, args->Has("json") ? static_cast<ReportPrinter*>(&json) : &text);
  return st.ok() ? 0 : Fail("inspect", st);
}

}  // namespace freshet::cli
