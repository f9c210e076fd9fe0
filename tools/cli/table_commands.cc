// freshet create / write / read: the table verbs of the CLI, on the public Table API.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "catalog/filesystem_catalog.h"
#include "cli/cli.h"
#include "common/json.h"
#include "format/arrow_status.h"
#include "format/data/json_rows.h"
#include "freshet/table.h"
#include "io/file_io.h"

namespace freshet::cli {

namespace {

Result<std::string> ReadInput(const std::string& source) {
  std::ostringstream text;
  if (source == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(source, std::ios::binary);
  if (!in) return Status::NotFound("cannot open input '", source, "'");
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The schema argument is a file path or the JSON itself; --partition/--primary-key/--option
// complete it.
Result<std::string> BuildSchemaSpec(const Args& args) {
  auto schema_arg = args.Get("schema");
  if (!schema_arg) return Status::Invalid("--schema <file.json | inline JSON> is required");
  std::string text = *schema_arg;
  if (!text.empty() && text.front() != '{') {
    FRESHET_ASSIGN_OR_RETURN(text, ReadInput(text));
  }
  Result<Json> parsed = ParseJson(text, "--schema");
  if (!parsed.ok()) return Status::Invalid(parsed.status().message());
  Json spec = std::move(*parsed);
  if (!spec.is_object()) return Status::Invalid("--schema must be a JSON object");
  if (auto partition = args.Get("partition")) spec["partitionKeys"] = SplitComma(*partition);
  if (auto keys = args.Get("primary-key")) spec["primaryKeys"] = SplitComma(*keys);
  for (const std::string& option : args.GetAll("option")) {
    size_t eq = option.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("--option expects key=value, not '", option, "'");
    }
    spec["options"][option.substr(0, eq)] = option.substr(eq + 1);
  }
  return spec.dump();
}

}  // namespace

int RunCreate(const std::vector<std::string>& argv) {
  auto args =
      Args::Parse(argv, {"if-not-exists"}, {"schema", "partition", "primary-key", "option"});
  if (!args.ok()) return Fail("create", args.status());
  if (args->positionals().size() != 1) {
    return Fail("create", Status::Invalid("expected one table path"));
  }
  auto spec = BuildSchemaSpec(*args);
  if (!spec.ok()) return Fail("create", spec.status());
  const std::string& path = args->positionals()[0];
  auto table = Table::Create(path, *spec, args->Has("if-not-exists"));
  if (!table.ok()) return Fail("create", table.status());
  std::printf("created table %s\n", path.c_str());
  return 0;
}

namespace {

Result<std::vector<meta::DataField>> TableFields(const std::string& path) {
  FRESHET_ASSIGN_OR_RETURN(catalog::TableInfo info, catalog::LoadTable(io::LocalFileIO(), path));
  return info.schema.fields();
}

Status WriteBatch(TableWriter& writer, const std::shared_ptr<arrow::RecordBatch>& batch) {
  ArrowArray array;
  ArrowSchema schema;
  FRESHET_RETURN_NOT_OK(FromArrowStatus(arrow::ExportRecordBatch(*batch, &array, &schema)));
  return writer.Write(&array, &schema);
}

Status RunWriteImpl(const Args& args) {
  if (args.positionals().size() != 1) return Status::Invalid("expected one table path");
  const std::string& path = args.positionals()[0];
  auto input = args.Get("input");
  if (!input) return Status::Invalid("--input <file.jsonl | -> is required");
  FRESHET_ASSIGN_OR_RETURN(int64_t batch_rows, args.GetInt("batch-rows", 65536));
  FRESHET_ASSIGN_OR_RETURN(int64_t commit_every, args.GetInt("commit-every", 0));
  if (batch_rows <= 0) return Status::Invalid("--batch-rows must be positive");
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  FRESHET_ASSIGN_OR_RETURN(auto fields, TableFields(path));
  FRESHET_ASSIGN_OR_RETURN(std::string text, ReadInput(*input));
  FRESHET_ASSIGN_OR_RETURN(auto writer, table->NewWriter());
  CommitOptions commit_options;
  commit_options.overwrite = args.Has("overwrite");

  // Parse in chunks of --batch-rows lines, so a large input never needs one giant batch.
  int64_t rows_written = 0, rows_uncommitted = 0, commits = 0;
  size_t pos = 0;
  int64_t line_offset = 0;
  bool progress = isatty(STDERR_FILENO);
  while (pos < text.size()) {
    size_t end = pos;
    int64_t lines = 0;
    while (end < text.size() && lines < batch_rows) {
      size_t nl = text.find('\n', end);
      end = nl == std::string::npos ? text.size() : nl + 1;
      ++lines;
    }
    Result<format::ParsedRows> parsed =
        format::ParseJsonRows(std::string_view(text).substr(pos, end - pos), fields);
    if (!parsed.ok()) {
      (void)writer->Abort();
      return parsed.status().WithContext("'" + *input + "' (lines after " +
                                         std::to_string(line_offset) + ")");
    }
    Status written = WriteBatch(*writer, parsed->batch);
    if (!written.ok()) {
      (void)writer->Abort();
      return written;
    }
    rows_written += parsed->batch->num_rows();
    rows_uncommitted += parsed->batch->num_rows();
    line_offset += lines;
    pos = end;
    if (commit_every > 0 && rows_uncommitted >= commit_every) {
      FRESHET_ASSIGN_OR_RETURN(auto id, writer->Commit(commit_options));
      commits += id ? 1 : 0;
      rows_uncommitted = 0;
    }
    if (progress) std::fprintf(stderr, "\r%lld rows written", static_cast<long long>(rows_written));
  }
  if (progress) std::fprintf(stderr, "\n");
  FRESHET_ASSIGN_OR_RETURN(auto id, writer->Commit(commit_options));
  commits += id ? 1 : 0;
  FRESHET_ASSIGN_OR_RETURN(auto snapshots, table->Snapshots());
  std::printf("wrote %lld rows in %lld commit(s); latest snapshot %lld\n",
              static_cast<long long>(rows_written), static_cast<long long>(commits),
              static_cast<long long>(snapshots.empty() ? 0 : snapshots.back().id));
  return Status::OK();
}

Status RunReadImpl(const Args& args) {
  if (args.positionals().size() != 1) return Status::Invalid("expected one table path");
  const std::string& path = args.positionals()[0];
  std::string format = args.Get("format").value_or("jsonl");
  if (format != "jsonl" && format != "csv" && format != "table") {
    return Status::Invalid("--format must be jsonl, csv or table, not '", format, "'");
  }
  FRESHET_ASSIGN_OR_RETURN(int64_t limit, args.GetInt("limit", -1));
  ReadOptions options;
  if (args.Has("snapshot")) {
    FRESHET_ASSIGN_OR_RETURN(int64_t id, args.GetInt("snapshot", 0));
    options.snapshot_id = id;
  }
  if (auto select = args.Get("select")) options.columns = SplitComma(*select);
  if (auto where = args.Get("where")) options.filter = *where;
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  FRESHET_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));

  // Format with the Paimon types of the projected columns (precision, CHAR vs STRING...).
  FRESHET_ASSIGN_OR_RETURN(auto all_fields, TableFields(path));
  std::vector<meta::DataField> fields;
  for (const auto& name : options.columns) {
    int index = meta::FindFieldByName(all_fields, name);
    if (index >= 0) fields.push_back(all_fields[static_cast<size_t>(index)]);
  }
  if (options.columns.empty()) fields = all_fields;

  ArrowSchema c_schema;
  FRESHET_RETURN_NOT_OK(reader->ExportArrowSchema(&c_schema));
  auto schema_result = arrow::ImportSchema(&c_schema);
  if (!schema_result.ok()) return FromArrowStatus(schema_result.status());
  std::shared_ptr<arrow::Schema> schema = *schema_result;
  std::vector<std::shared_ptr<arrow::RecordBatch>> collected;  // for --format table
  int64_t remaining = limit;
  while (remaining != 0) {
    ArrowArray array;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader->Next(&array));
    if (!more) break;
    auto imported = arrow::ImportRecordBatch(&array, schema);
    if (!imported.ok()) return FromArrowStatus(imported.status());
    std::shared_ptr<arrow::RecordBatch> batch = *imported;
    if (remaining > 0 && batch->num_rows() > remaining) batch = batch->Slice(0, remaining);
    if (remaining > 0) remaining -= batch->num_rows();
    if (format == "table") {
      collected.push_back(batch);
      continue;
    }
    if (format == "csv" && !collected.empty()) {
      // Only the first CSV chunk keeps its header.
      FRESHET_ASSIGN_OR_RETURN(std::string csv, format::FormatCsvRows(*batch, fields));
      std::fwrite(csv.data() + csv.find('\n') + 1, 1, csv.size() - csv.find('\n') - 1, stdout);
      continue;
    }
    FRESHET_ASSIGN_OR_RETURN(std::string text, format == "csv"
                                                   ? format::FormatCsvRows(*batch, fields)
                                                   : format::FormatJsonRows(*batch, fields));
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (format == "csv") collected.push_back(batch);
  }
  if (format == "table") {
    auto combined = arrow::Table::FromRecordBatches(schema, collected);
    if (!combined.ok()) return FromArrowStatus(combined.status());
    auto batch = (*combined)->CombineChunksToBatch();
    if (!batch.ok()) return FromArrowStatus(batch.status());
    FRESHET_ASSIGN_OR_RETURN(std::string text, format::FormatTableRows(**batch, fields));
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (format == "csv" && collected.empty()) {
    std::string header;  // an empty result still gets its header row
    for (size_t i = 0; i < fields.size(); ++i) header += (i ? "," : "") + fields[i].name;
    std::printf("%s\n", header.c_str());
  }
  return Status::OK();
}

}  // namespace

int RunWrite(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {"overwrite"}, {"input", "batch-rows", "commit-every"});
  if (!args.ok()) return Fail("write", args.status());
  Status st = RunWriteImpl(*args);
  return st.ok() ? 0 : Fail("write", st);
}

int RunRead(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {}, {"snapshot", "select", "where", "limit", "format"});
  if (!args.ok()) return Fail("read", args.status());
  Status st = RunReadImpl(*args);
  return st.ok() ? 0 : Fail("read", st);
}

}  // namespace freshet::cli
