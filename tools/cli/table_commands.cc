// freshet create / write / read: the table verbs of the CLI, on the public Table API.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

#include "cli/arrow_batches.h"
#include "cli/cli.h"
#include "cli/stream_read_command.h"
#include "freshet/row_kind.h"
#include "freshet/table.h"
#include "textrows/columns.h"
#include "textrows/csv_reader.h"
#include "textrows/json_rows.h"
#include "textrows/text.h"

namespace freshet::cli {

namespace {

using Json = nlohmann::ordered_json;

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

bool EqualsIgnoreCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The schema spec is JSON, which holds only UTF-8 text (nlohmann::json throws on other bytes).
Status CheckUtf8Arguments(const Args& args, const std::vector<const char*>& options) {
  for (const char* option : options) {
    for (const std::string& value : args.GetAll(option)) {
      if (!textrows::IsValidUtf8(value)) {
        return Status::Invalid("--", option, " '", textrows::ReplaceInvalidUtf8(value),
                               "' is not valid UTF-8");
      }
    }
  }
  return Status::OK();
}

// The schema argument is a file path or the JSON itself; --partition/--primary-key/--option
// complete it.
Result<std::string> BuildSchemaSpec(const Args& args) {
  FRESHET_RETURN_NOT_OK(CheckUtf8Arguments(args, {"partition", "primary-key", "option"}));
  auto schema_arg = args.Get("schema");
  if (!schema_arg) return Status::Invalid("--schema <file.json | inline JSON> is required");
  std::string text = *schema_arg;
  if (!text.empty() && text.front() != '{') {
    FRESHET_ASSIGN_OR_RETURN(text, ReadInput(text));
  }
  Result<Json> parsed = textrows::ParseJson(text, "--schema");
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

Status WriteBatch(TableWriter& writer, const std::shared_ptr<arrow::RecordBatch>& batch) {
  ArrowArray array;
  ArrowSchema schema;
  FRESHET_RETURN_NOT_OK(FromArrowStatus(arrow::ExportRecordBatch(*batch, &array, &schema)));
  return writer.Write(&array, &schema);
}

// What the input's row kinds (`_ROW_KIND`, textrows::kRowKindKey) do to a table.
struct RowKindRules {
  bool primary_key = false;
  bool ignore_delete = false;  // `ignore-delete` (or a merge engine's alias) is true
};

RowKindRules RowKindRulesOf(const Table& table) {
  SchemaInfo schema = table.Schema();
  RowKindRules rules;
  rules.primary_key = !schema.primary_keys.empty();
  for (const char* key : {"ignore-delete", "deduplicate.ignore-delete", "first-row.ignore-delete",
                          "partial-update.ignore-delete"}) {
    auto it = std::find_if(schema.options.begin(), schema.options.end(),
                           [&](const auto& option) { return option.first == key; });
    if (it != schema.options.end()) {
      rules.ignore_delete = EqualsIgnoreCase(it->second, "true");
      break;
    }
  }
  return rules;
}

// The batch to write for parsed rows. A primary-key table gets their kinds as the writer's
// `_ROW_KIND` column (only when some row is not +I, so that a table with `rowkind.field` still
// takes plain input). An append table has no row kinds: as Java's append writer, it takes +I and
// +U rows as plain rows and refuses -U and -D, which `ignore-delete` drops instead.
Result<std::shared_ptr<arrow::RecordBatch>> BatchToWrite(const textrows::ParsedRows& parsed,
                                                         const RowKindRules& rules,
                                                         const std::string& source) {
  const auto& kinds = parsed.row_kinds;
  auto insert = static_cast<int8_t>(RowKind::kInsert);
  if (std::all_of(kinds.begin(), kinds.end(), [&](int8_t kind) { return kind == insert; })) {
    return parsed.batch;
  }
  if (rules.primary_key) {
    arrow::Int8Builder builder;
    FRESHET_RETURN_NOT_OK(
        FromArrowStatus(builder.AppendValues(kinds.data(), static_cast<int64_t>(kinds.size()))));
    FRESHET_ASSIGN_OR_RETURN(auto column, FromArrowResult(builder.Finish()));
    return FromArrowResult(
        parsed.batch->AddColumn(parsed.batch->num_columns(),
                                arrow::field(textrows::kRowKindKey, arrow::int8(), false), column));
  }
  // Append table: keep the runs of +I / +U rows.
  std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
  int64_t begin = 0;
  auto num_rows = static_cast<int64_t>(kinds.size());
  for (int64_t row = 0; row <= num_rows; ++row) {
    auto kind =
        row < num_rows ? static_cast<RowKind>(kinds[static_cast<size_t>(row)]) : RowKind::kDelete;
    if (kind == RowKind::kInsert || kind == RowKind::kUpdateAfter) continue;
    if (row < num_rows && !rules.ignore_delete) {
      return Status::Invalid(source, ":", parsed.lines[static_cast<size_t>(row)], ": ",
                             textrows::kRowKindKey, " ", RowKindShortString(kind),
                             ": the table has no primary key, and an append table takes only +I "
                             "and +U rows (-U and -D need a primary key, or ignore-delete = "
                             "true to drop them)");
    }
    if (row > begin) kept.push_back(parsed.batch->Slice(begin, row - begin));
    begin = row + 1;
  }
  if (kept.empty()) return parsed.batch->Slice(0, 0);
  if (kept.size() == 1) return kept[0];
  FRESHET_ASSIGN_OR_RETURN(
      auto table, FromArrowResult(arrow::Table::FromRecordBatches(parsed.batch->schema(), kept)));
  return FromArrowResult(table->CombineChunksToBatch());
}

// The input's size when it is a regular file (for the progress percentage), else -1.
int64_t InputSize(const std::string& source) {
  struct stat st;
  int rc = source == "-" ? fstat(STDIN_FILENO, &st) : stat(source.c_str(), &st);
  return rc == 0 && S_ISREG(st.st_mode) ? static_cast<int64_t>(st.st_size) : -1;
}

std::string FormatBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f %s", unit == 0 ? 0 : 1, value, units[unit]);
  return text;
}

// A one-line progress indicator on stderr, only when stderr is a terminal: redrawn in place at
// most five times a second, erased at the end (the summary line goes to stdout).
class Progress {
 public:
  explicit Progress(int64_t total_bytes)
      : enabled_(isatty(STDERR_FILENO) == 1), total_bytes_(total_bytes), start_(Clock::now()) {}
  ~Progress() { Clear(); }

  void Update(int64_t rows, int64_t bytes) {
    if (!enabled_) return;
    auto now = Clock::now();
    if (drawn_ && now - last_draw_ < std::chrono::milliseconds(200)) return;
    last_draw_ = now;
    double seconds = std::chrono::duration<double>(now - start_).count();
    std::string line = std::to_string(rows) + " rows";
    if (seconds > 0.5) {
      line += ", " + std::to_string(static_cast<int64_t>(static_cast<double>(rows) / seconds)) +
              " rows/s";
    }
    line += ", " + FormatBytes(bytes);
    if (total_bytes_ > 0) {
      line += " of " + FormatBytes(total_bytes_) + " (" +
              std::to_string(std::min<int64_t>(100, bytes * 100 / total_bytes_)) + "%)";
    }
    std::fprintf(stderr, "\rwriting: %s\x1b[K", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  void Clear() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r\x1b[K");
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  int64_t total_bytes_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

// Lines of a stream, read in 64 KiB blocks (std::getline on std::cin reads a byte at a time).
class LineReader {
 public:
  explicit LineReader(std::istream* in) : in_(in) {}

  // Appends the next line, with its '\n' if it has one, to `out`; false at the end.
  bool Next(std::string* out) {
    bool any = false;
    while (true) {
      if (pos_ == buffer_.size()) {
        buffer_.resize(1 << 16);
        in_->read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.resize(static_cast<size_t>(in_->gcount()));
        pos_ = 0;
        if (buffer_.empty()) return any;
      }
      size_t newline = buffer_.find('\n', pos_);
      size_t end = newline == std::string::npos ? buffer_.size() : newline + 1;
      out->append(buffer_, pos_, end - pos_);
      bytes_read_ += static_cast<int64_t>(end - pos_);
      pos_ = end;
      any = true;
      if (newline != std::string::npos) return true;
    }
  }

  int64_t bytes_read() const { return bytes_read_; }

 private:
  std::istream* in_;
  std::string buffer_;
  size_t pos_ = 0;
  int64_t bytes_read_ = 0;
};

// The input, one chunk of at most --batch-rows lines (JSON) or records (CSV) at a time, so that
// neither the input nor a batch is ever held whole. `progress(records, bytes)` is called every
// 1024 records of a chunk.
class RowSource {
 public:
  using ProgressFn = std::function<void(int64_t records, int64_t bytes)>;
  virtual ~RowSource() = default;
  // The next chunk's rows; false at the end of the input.
  virtual Result<bool> Next(int64_t max_records, const ProgressFn& progress,
                            textrows::ParsedRows* rows) = 0;
  virtual int64_t bytes_read() const = 0;
};

class JsonLinesSource : public RowSource {
 public:
  JsonLinesSource(std::istream* in, std::string name, textrows::Columns columns)
      : in_(in), lines_(in), name_(std::move(name)), columns_(std::move(columns)) {}

  Result<bool> Next(int64_t max_records, const ProgressFn& progress,
                    textrows::ParsedRows* rows) override {
    std::string chunk;
    int64_t lines = 0;
    while (lines < max_records && lines_.Next(&chunk)) {
      if (++lines % 1024 == 0) progress(lines, lines_.bytes_read());
    }
    if (in_->bad()) return Status::IOError("cannot read '", name_, "'");
    if (lines == 0) return false;
    FRESHET_ASSIGN_OR_RETURN(*rows,
                             textrows::ParseJsonRows(chunk, columns_.fields(), name_, next_line_));
    next_line_ += lines;
    return true;
  }

  int64_t bytes_read() const override { return lines_.bytes_read(); }

 private:
  std::istream* in_;
  LineReader lines_;
  std::string name_;
  textrows::Columns columns_;
  int64_t next_line_ = 1;
};

class CsvSource : public RowSource {
 public:
  static Result<std::unique_ptr<CsvSource>> Make(std::istream* in, const std::string& name,
                                                 const textrows::Columns& columns) {
    auto source = std::unique_ptr<CsvSource>(new CsvSource(in, name));
    textrows::CsvRecord header;
    FRESHET_ASSIGN_OR_RETURN(bool has_header, source->reader_.Next(&header));
    if (!has_header) {
      return Status::Invalid(name, ": the input is empty; CSV needs a header line naming the ",
                             "columns");
    }
    FRESHET_ASSIGN_OR_RETURN(auto parser,
                             textrows::CsvRowParser::Make(header, columns.fields(), name));
    source->parser_.emplace(std::move(parser));
    return source;
  }

  Result<bool> Next(int64_t max_records, const ProgressFn& progress,
                    textrows::ParsedRows* rows) override {
    records_.resize(static_cast<size_t>(std::min<int64_t>(max_records, 65536)));
    size_t count = 0;
    while (static_cast<int64_t>(count) < max_records) {
      if (count == records_.size()) records_.resize(records_.size() * 2);
      FRESHET_ASSIGN_OR_RETURN(bool more, reader_.Next(&records_[count]));
      if (!more) break;
      if (++count % 1024 == 0) progress(static_cast<int64_t>(count), reader_.bytes_read());
    }
    if (count == 0) return false;
    records_.resize(count);
    FRESHET_ASSIGN_OR_RETURN(*rows, parser_->Parse(records_));
    return true;
  }

  int64_t bytes_read() const override { return reader_.bytes_read(); }

 private:
  CsvSource(std::istream* in, const std::string& name) : reader_(in, name) {}

  textrows::CsvReader reader_;
  std::optional<textrows::CsvRowParser> parser_;
  std::vector<textrows::CsvRecord> records_;  // reused from chunk to chunk
};

Status RunWriteImpl(const Args& args) {
  if (args.positionals().size() != 1) return Status::Invalid("expected one table path");
  const std::string& path = args.positionals()[0];
  auto input = args.Get("input");
  if (!input) return Status::Invalid("--input <file.jsonl | file.csv | -> is required");
  std::string format = args.Get("input-format").value_or("");
  if (format.empty()) {
    bool csv = input->size() >= 4 && EqualsIgnoreCase(input->substr(input->size() - 4), ".csv");
    format = csv ? "csv" : "jsonl";
  }
  if (format != "jsonl" && format != "csv") {
    return Status::Invalid("--input-format must be jsonl or csv, not '", format, "'");
  }
  FRESHET_ASSIGN_OR_RETURN(int64_t batch_rows, args.GetInt("batch-rows", 65536));
  FRESHET_ASSIGN_OR_RETURN(int64_t commit_every, args.GetInt("commit-every", 0));
  if (batch_rows <= 0) return Status::Invalid("--batch-rows must be positive");
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  FRESHET_ASSIGN_OR_RETURN(auto columns, textrows::Columns::Of(*table));

  std::ifstream file;
  std::istream* in = &std::cin;
  if (*input != "-") {
    file.open(*input, std::ios::binary);
    if (!file) return Status::NotFound("cannot open input '", *input, "'");
    in = &file;
  }
  std::string name = *input == "-" ? "<stdin>" : *input;
  std::unique_ptr<RowSource> source;
  if (format == "csv") {
    FRESHET_ASSIGN_OR_RETURN(source, CsvSource::Make(in, name, columns));
  } else {
    source = std::make_unique<JsonLinesSource>(in, name, columns);
  }
  const RowKindRules row_kind_rules = RowKindRulesOf(*table);
  FRESHET_ASSIGN_OR_RETURN(auto writer, table->NewWriter());
  CommitOptions commit_options;
  commit_options.overwrite = args.Has("overwrite");

  // A bad line stops the write: the files written since the last commit are deleted, so without
  // --commit-every nothing of the input lands.
  int64_t rows_written = 0, rows_uncommitted = 0, commits = 0;
  Progress progress(InputSize(*input));
  auto on_records = [&](int64_t records, int64_t bytes) {
    progress.Update(rows_written + records, bytes);
  };
  while (true) {
    textrows::ParsedRows parsed;
    Result<bool> more = source->Next(batch_rows, on_records, &parsed);
    Result<std::shared_ptr<arrow::RecordBatch>> batch = std::shared_ptr<arrow::RecordBatch>();
    if (more.ok() && *more) batch = BatchToWrite(parsed, row_kind_rules, name);
    Status written = !more.ok()    ? more.status()
                     : !batch.ok() ? batch.status()
                     : *more       ? WriteBatch(*writer, *batch)
                                   : Status::OK();
    if (!written.ok()) {
      (void)writer->Abort();
      return written;
    }
    if (!*more) break;
    rows_written += (*batch)->num_rows();
    rows_uncommitted += (*batch)->num_rows();
    if (commit_every > 0 && rows_uncommitted >= commit_every) {
      FRESHET_ASSIGN_OR_RETURN(auto id, writer->Commit(commit_options));
      commits += id ? 1 : 0;
      rows_uncommitted = 0;
    }
    progress.Update(rows_written, source->bytes_read());
  }
  // The last commit waits for the writer's running compactions (primary-key tables): their
  // results join it instead of being dropped when the process ends.
  commit_options.wait_compaction = true;
  FRESHET_ASSIGN_OR_RETURN(auto id, writer->Commit(commit_options));
  commits += id ? 1 : 0;
  progress.Clear();
  FRESHET_ASSIGN_OR_RETURN(auto snapshots, table->Snapshots());
  std::printf("wrote %lld rows in %lld commit(s); latest snapshot %lld\n",
              static_cast<long long>(rows_written), static_cast<long long>(commits),
              static_cast<long long>(snapshots.empty() ? 0 : snapshots.back().id));
  return Status::OK();
}

Status RunReadImpl(const Args& args) {
  if (IsStreamRead(args)) return RunStreamRead(args);
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
  if (auto tag = args.Get("tag")) options.tag_name = *tag;
  if (auto select = args.Get("select")) options.columns = SplitComma(*select);
  if (auto where = args.Get("where")) options.filter = *where;
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  FRESHET_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));

  // Format with the Paimon types of the projected columns (precision, CHAR vs STRING...).
  // Time travel reads in the snapshot's schema (as Java does); other reads in the current one.
  textrows::Columns all_columns;
  if (!options.tag_name.empty()) {
    FRESHET_ASSIGN_OR_RETURN(int64_t schema_id, SchemaIdOfTag(*table, options.tag_name));
    FRESHET_ASSIGN_OR_RETURN(all_columns, textrows::Columns::Of(*table, schema_id));
  } else if (options.snapshot_id && reader->snapshot_id()) {
    FRESHET_ASSIGN_OR_RETURN(SnapshotInfo snapshot, table->Snapshot(*reader->snapshot_id()));
    FRESHET_ASSIGN_OR_RETURN(all_columns, textrows::Columns::Of(*table, snapshot.schema_id));
  } else {
    FRESHET_ASSIGN_OR_RETURN(all_columns, textrows::Columns::Of(*table));
  }
  const textrows::Columns columns = all_columns.Select(options.columns);
  const auto& fields = columns.fields();

  FRESHET_ASSIGN_OR_RETURN(auto batches, BatchStream::Open(std::move(reader)));
  const std::shared_ptr<arrow::Schema>& schema = batches->schema();
  std::vector<std::shared_ptr<arrow::RecordBatch>> collected;  // for --format table
  int64_t remaining = limit;
  while (remaining != 0) {
    FRESHET_ASSIGN_OR_RETURN(std::shared_ptr<arrow::RecordBatch> batch, batches->Next());
    if (!batch) break;
    if (remaining > 0 && batch->num_rows() > remaining) batch = batch->Slice(0, remaining);
    if (remaining > 0) remaining -= batch->num_rows();
    if (format == "table") {
      collected.push_back(batch);
      continue;
    }
    if (format == "csv" && !collected.empty()) {
      // Only the first CSV chunk keeps its header.
      FRESHET_ASSIGN_OR_RETURN(std::string csv, textrows::FormatCsvRows(*batch, fields));
      std::fwrite(csv.data() + csv.find('\n') + 1, 1, csv.size() - csv.find('\n') - 1, stdout);
      continue;
    }
    FRESHET_ASSIGN_OR_RETURN(std::string text, format == "csv"
                                                   ? textrows::FormatCsvRows(*batch, fields)
                                                   : textrows::FormatJsonRows(*batch, fields));
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (format == "csv") collected.push_back(batch);
  }
  if (format == "table") {
    FRESHET_ASSIGN_OR_RETURN(auto combined,
                             FromArrowResult(arrow::Table::FromRecordBatches(schema, collected)));
    FRESHET_ASSIGN_OR_RETURN(auto batch, FromArrowResult(combined->CombineChunksToBatch()));
    FRESHET_ASSIGN_OR_RETURN(std::string text, textrows::FormatTableRows(*batch, fields));
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (format == "csv" && collected.empty()) {
    std::string header;  // an empty result still gets its header row
    const std::vector<std::string> names = columns.names();
    for (size_t i = 0; i < names.size(); ++i) header += (i ? "," : "") + names[i];
    std::printf("%s\n", header.c_str());
  }
  return Status::OK();
}

}  // namespace

int RunWrite(const std::vector<std::string>& argv) {
  auto args =
      Args::Parse(argv, {"overwrite"}, {"input", "input-format", "batch-rows", "commit-every"});
  if (!args.ok()) return Fail("write", args.status());
  Status st = RunWriteImpl(*args);
  return st.ok() ? 0 : Fail("write", st);
}

int RunRead(const std::vector<std::string>& argv) {
  auto args = Args::Parse(
      argv, {"with-row-kind", "follow"},
      {"snapshot", "tag", "select", "where", "limit", "format", "delta", "incremental-between",
       "incremental-between-timestamp", "scan-mode", "consumer-id"});
  if (!args.ok()) return Fail("read", args.status());
  Status st = RunReadImpl(*args);
  return st.ok() ? 0 : Fail("read", st);
}

}  // namespace freshet::cli
