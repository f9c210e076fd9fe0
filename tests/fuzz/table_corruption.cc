#include "fuzz/table_corruption.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/schema/schema_manager.h"
#include "textrows/json_rows.h"

namespace freshet::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr int kCommits = 3;
constexpr int kRowsPerCommit = 40;

const char* KindOf(const fs::path& file) {
  const std::string name = file.filename().string();
  const std::string dir = file.parent_path().filename().string();
  if (dir == "snapshot") return name.rfind("snapshot-", 0) == 0 ? "snapshot" : "hint";
  if (dir == "schema") return "schema";
  if (dir == "manifest") return name.rfind("manifest-list-", 0) == 0 ? "manifest-list" : "manifest";
  if (file.extension() == ".parquet") return "parquet";
  if (file.extension() == ".orc") return "orc";
  return nullptr;
}

// The path with its random UUIDs blanked: a name that sorts the same in every run.
std::string StableName(const std::string& path) {
  static const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  return std::regex_replace(path, uuid, "");
}

Status WriteFile(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return Status::IOError("cannot write ", path);
  return Status::OK();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Rows of commit `commit` as JSON lines: two partitions, nulls, decimals, timestamps, strings.
std::string CommitRows(int commit) {
  std::string text;
  for (int i = 0; i < kRowsPerCommit; ++i) {
    const int id = commit * kRowsPerCommit + i;
    text += "{\"id\": " + std::to_string(id) + ", \"dt\": \"2024-01-0" + std::to_string(1 + i % 2) +
            "\", \"name\": " +
            (i % 7 == 0 ? std::string("null") : "\"name-" + std::to_string(id * 31) + "\"") +
            ", \"price\": \"" + std::to_string(id * 17 % 1000) + ".25\", \"ts\": \"2024-03-0" +
            std::to_string(1 + i % 9) + " 12:00:00.123\"}\n";
  }
  return text;
}

int64_t LineCount(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

std::string SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end + 1 - start));
  }
  std::sort(lines.begin(), lines.end());
  std::string sorted;
  for (const std::string& line : lines) sorted += line;
  return sorted;
}

Result<std::vector<meta::DataField>> FieldsOf(const std::string& table) {
  FRESHET_ASSIGN_OR_RETURN(auto schema,
                           meta::SchemaManager(io::LocalFileIO(), table).LatestSchema());
  if (!schema) return Status::Invalid("no schema in ", table);
  return schema->fields();
}

Status WriteCommit(Table& table, const std::vector<meta::DataField>& fields, int commit) {
  FRESHET_ASSIGN_OR_RETURN(auto rows, textrows::ParseJsonRows(CommitRows(commit), fields));
  ArrowArray array;
  ArrowSchema schema;
  if (!arrow::ExportRecordBatch(*rows.batch, &array, &schema).ok()) {
    return Status::Internal("cannot export a batch");
  }
  FRESHET_ASSIGN_OR_RETURN(auto writer, table.NewWriter());
  FRESHET_RETURN_NOT_OK(writer->Write(&array, &schema));
  return writer->Commit().status();
}

// Every row of one read, as sorted JSON lines formatted with the original fields: a table is a
// multiset of rows (files of one bucket may come in another order), and a renamed column is not
// a difference, but any other value or type is.
Result<std::string> ReadRows(const std::string& path, std::optional<int64_t> snapshot_id,
                             const std::vector<meta::DataField>& fields) {
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(path));
  ReadOptions options;
  options.snapshot_id = snapshot_id;
  FRESHET_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  ArrowArrayStream stream;
  FRESHET_RETURN_NOT_OK(TableReader::ExportArrowStream(std::move(reader), &stream));
  auto batches = arrow::ImportRecordBatchReader(&stream);
  if (!batches.ok()) return Status::Invalid("stream: ", batches.status().ToString());
  std::string text;
  for (auto batch : **batches) {
    if (!batch.ok()) return Status::Invalid("read: ", batch.status().ToString());
    FRESHET_ASSIGN_OR_RETURN(std::string rows, textrows::FormatJsonRows(**batch, fields));
    text += rows;
  }
  return SortedLines(text);
}

}  // namespace

std::string ApplyMutation(std::string content, const Mutation& mutation) {
  const size_t at = content.empty() ? 0 : mutation.offset % content.size();
  switch (mutation.kind) {
    case Mutation::Kind::kFlipBit:
      if (!content.empty())
        content[at] = static_cast<char>(content[at] ^ (1 << (mutation.value % 8)));
      break;
    case Mutation::Kind::kSetByte:
      if (!content.empty()) content[at] = static_cast<char>(mutation.value);
      break;
    case Mutation::Kind::kTruncate:
      content.resize(at);
      break;
    case Mutation::Kind::kInsertByte:
      content.insert(content.begin() + static_cast<std::ptrdiff_t>(at),
                     static_cast<char>(mutation.value));
      break;
    case Mutation::Kind::kEraseByte:
      if (!content.empty()) content.erase(at, 1);
      break;
    case Mutation::Kind::kZeroRun:
      for (size_t i = at; i < content.size() && i < at + 1 + mutation.value % 16; ++i)
        content[i] = 0;
      break;
  }
  return content;
}

std::string DescribeMutation(const Mutation& mutation, size_t content_size) {
  static const char* kNames[] = {"flip bit",    "set byte",   "truncate",
                                 "insert byte", "erase byte", "zero run"};
  const size_t at = content_size == 0 ? 0 : mutation.offset % content_size;
  return std::string(kNames[static_cast<int>(mutation.kind)]) + " at " + std::to_string(at) +
         " of " + std::to_string(content_size) + " (value " + std::to_string(mutation.value) + ")";
}

Result<std::unique_ptr<CorruptionSubject>> CorruptionSubject::Make(const std::string& dir) {
  std::unique_ptr<CorruptionSubject> subject(new CorruptionSubject());
  FRESHET_RETURN_NOT_OK(subject->Build(dir));
  return subject;
}

Status CorruptionSubject::Build(const std::string& dir) {
  for (const char* format : {"parquet", "orc"}) {
    FRESHET_RETURN_NOT_OK(AddTable(dir + "/" + format + "_table", format));
  }
  return Status::OK();
}

Status CorruptionSubject::AddTable(const std::string& path, const std::string& format) {
  const std::string schema = R"json({"fields": [{"name": "id", "type": "BIGINT NOT NULL"},
                                            {"name": "dt", "type": "STRING"},
                                            {"name": "name", "type": "STRING"},
                                            {"name": "price", "type": "DECIMAL(10, 2)"},
                                            {"name": "ts", "type": "TIMESTAMP(3)"}],
                                "partitionKeys": ["dt"],
                                "options": {"bucket": "2", "bucket-key": "id", "file.format": ")json" +
                             format + R"json("}})json";
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Create(path, schema));
  FRESHET_ASSIGN_OR_RETURN(auto fields, FieldsOf(path));
  TableRows rows{path, fields, {}, {}};
  std::set<std::string> seen;
  for (int commit = 0; commit < kCommits; ++commit) {
    FRESHET_RETURN_NOT_OK(WriteCommit(*table, fields, commit));
    rows.snapshot_ids.push_back(commit + 1);
    FRESHET_ASSIGN_OR_RETURN(std::string read, ReadRows(path, commit + 1, fields));
    rows.rows.push_back(std::move(read));
    // The files this commit added, in a stable order.
    std::vector<SubjectFile> added;
    for (const auto& entry : fs::recursive_directory_iterator(path)) {
      const char* kind = KindOf(entry.path());
      if (!entry.is_regular_file() || !kind || !seen.insert(entry.path().string()).second) continue;
      added.push_back(
          SubjectFile{path, entry.path().string(), kind, ReadFile(entry.path().string())});
    }
    std::sort(added.begin(), added.end(), [](const SubjectFile& a, const SubjectFile& b) {
      return std::make_pair(a.kind, StableName(a.path)) <
             std::make_pair(b.kind, StableName(b.path));
    });
    std::move(added.begin(), added.end(), std::back_inserter(files_));
  }
  // The hints change with every commit: take their final content.
  for (SubjectFile& file : files_) {
    if (file.table == path && file.kind == "hint") file.content = ReadFile(file.path);
  }
  tables_.push_back(std::move(rows));
  return Status::OK();
}

const CorruptionSubject::TableRows& CorruptionSubject::RowsOf(const std::string& table) const {
  return *std::find_if(tables_.begin(), tables_.end(),
                       [&](const TableRows& rows) { return rows.path == table; });
}

DamageReport CorruptionSubject::CheckReplaced(size_t index, std::string_view content) {
  const SubjectFile& file = files_.at(index);
  const TableRows& expected = RowsOf(file.table);
  DamageReport report;
  if (Status written = WriteFile(file.path, content); !written.ok()) {
    report.violation = written.ToString();
    return report;
  }
  std::vector<std::optional<int64_t>> reads(expected.snapshot_ids.begin(),
                                            expected.snapshot_ids.end());
  reads.push_back(std::nullopt);  // the latest, found through the LATEST hint
  for (size_t i = 0; i < reads.size() && report.violation.empty(); ++i) {
    const std::string& want = i < expected.rows.size() ? expected.rows[i] : expected.rows.back();
    auto got = ReadRows(file.table, reads[i], expected.fields);
    if (!got.ok()) {
      ++report.failed_reads;
    } else if (*got == want) {
      ++report.intact_reads;
    } else if (file.kind == "orc" && LineCount(*got) == LineCount(want)) {
      ++report.changed_values;
    } else {
      report.violation = "snapshot " + (reads[i] ? std::to_string(*reads[i]) : "latest") + " of " +
                         file.table + " read without an error but " +
                         (LineCount(*got) == LineCount(want)
                              ? "with other values"
                              : "with " + std::to_string(LineCount(*got)) + " rows instead of " +
                                    std::to_string(LineCount(want)));
    }
  }
  if (Status restored = WriteFile(file.path, file.content); !restored.ok()) {
    report.violation = restored.ToString();
  }
  return report;
}

}  // namespace freshet::fuzz
