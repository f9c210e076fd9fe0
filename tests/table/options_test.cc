// Table options through the option registry (src/meta/options/option_registry.h) in every layer:
// keys the format and real-time layers read agree with CoreOptions, data-file.prefix names the
// files writers make, source.split.* shape the scan's splits, invalid values are refused at
// create and when a table is opened for writing, MemIndexer plugins declare their options, and
// docs/options.md's table is the registry's.
#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "format/format_writer.h"
#include "freshet/table.h"
#include "io/file_io.h"
#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"
#include "meta/schema/schema_manager.h"
#include "realtime/context.h"
#include "realtime/indexers/mem_indexer_registry.h"
#include "scan/table_scan.h"
#include "table/table_test_util.h"
#include "testing/test_util.h"

namespace freshet {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteIds;

std::string Spec(const std::string& options) {
  return R"({"fields": [{"name": "id", "type": "BIGINT"}], "options": {)" + options + "}}";
}

std::vector<int64_t> ReadIds(const Table& table) {
  std::vector<int64_t> ids;
  auto reader = table.NewReader();
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return ids;
  ArrowArrayStream stream;
  EXPECT_OK(TableReader::ExportArrowStream(std::move(*reader), &stream));
  auto imported = arrow::ImportRecordBatchReader(&stream);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  auto all = (*imported)->ToTable();
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  for (const auto& chunk : (*all)->column(0)->chunks()) {
    auto values = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < values->length(); ++i) ids.push_back(values->Value(i));
  }
  return ids;
}

// Names of the data files under `dir` (recursively).
std::vector<std::string> DataFiles(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string parent = entry.path().parent_path().filename().string();
    if (entry.is_regular_file() && parent.starts_with("bucket-")) {
      names.push_back(entry.path().filename().string());
    }
  }
  return names;
}

// Commits `commits` times 10 rows (one data file each).
void WriteCommits(const Table& table, int commits) {
  for (int c = 0; c < commits; ++c) {
    ASSERT_OK_AND_ASSIGN(auto writer, table.NewWriter());
    ASSERT_OK(WriteIds(*writer, c * 10, 10));
    ASSERT_OK(writer->Commit().status());
  }
}

// ---------------------------------------------------------------------------------------------
// Keys two layers used to parse under different rules

// Whether each layer accepts `value` for `key`, and what it read.
struct Reading {
  bool ok;
  std::string value;
};

TEST(OptionWiringTest, KeysReadByTheFormatLayerAgreeWithCoreOptions) {
  std::vector<meta::DataField> fields(1);
  fields[0].id = 0;
  fields[0].name = "id";
  fields[0].type = meta::DataType::BigInt();
  struct Case {
    const char* key;
    std::vector<const char*> values;
  };
  for (const Case& c : std::vector<Case>{
           {"file.compression", {"SNAPPY", "zstd", " zstd", "Lz4", "brotli", ""}},
           {"file.compression.zstd-level", {"3", " 3", "3abc", "x", "-1"}},
           {"parquet.page.write-checksum.enabled", {"TRUE", "false", "no"}},
           {"metadata.stats-mode", {"Full", "truncate( 8 )", "truncate(x)"}},
       }) {
    for (const char* value : c.values) {
      SCOPED_TRACE(std::string(c.key) + " = '" + value + "'");
      meta::Options options = {{c.key, value}};
      auto core = meta::CoreOptions::Make(options, false);
      auto writer = format::FormatWriterOptions::FromTableOptions(fields, options);
      ASSERT_EQ(core.ok(), writer.ok())
          << core.status().ToString() << " vs " << writer.status().ToString();
      if (!core.ok()) {
        EXPECT_NE(writer.status().message().find(std::string("'") + c.key + "'"), std::string::npos)
            << writer.status().ToString();
        continue;
      }
      if (std::string(c.key) == "file.compression") {
        EXPECT_EQ(core->file_compression(), writer->compression);
      }
      if (std::string(c.key) == "file.compression.zstd-level") {
        EXPECT_EQ(core->file_compression_zstd_level(), writer->zstd_level);
      }
    }
  }
}

TEST(OptionWiringTest, KeysReadByTheRealtimeLayerAgreeWithCoreOptions) {
  struct Case {
    const char* key;
    std::vector<const char*> values;
  };
  for (const Case& c : std::vector<Case>{
           {"realtime.enabled", {"true", "TRUE", "tRuE", "false", "yes", ""}},
           {"realtime.memory.soft-limit", {"64 kb", " 1 MB ", "12 parsecs", "-1"}},
           {"realtime.memory.hard-limit", {"2 gb", "lots", "100 b"}},
           {"realtime.mem-indexer", {"columnar", ""}},
       }) {
    for (const char* value : c.values) {
      SCOPED_TRACE(std::string(c.key) + " = '" + value + "'");
      meta::Options options = {{c.key, value}};
      auto core = meta::CoreOptions::Make(options, false);
      auto realtime = realtime::RealtimeOptions::FromTableOptions(options);
      ASSERT_EQ(core.ok(), realtime.ok())
          << core.status().ToString() << " vs " << realtime.status().ToString();
      if (!core.ok()) {
        EXPECT_NE(realtime.status().message().find(c.key), std::string::npos);
        continue;
      }
      auto parsed = *meta::LookupOption(options, c.key);
      if (std::string(c.key) == "realtime.enabled") {
        EXPECT_EQ(realtime->enabled, parsed->number != 0);
      } else if (std::string(c.key) == "realtime.memory.soft-limit") {
        EXPECT_EQ(realtime->soft_limit_bytes, parsed->number);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// data-file.prefix

TEST(OptionWiringTest, DataFilePrefixNamesTheFilesWritersMake) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table::Create(dir.Sub("t"), Spec(R"("data-file.prefix": "part-")")));
  WriteCommits(*table, 2);
  std::vector<std::string> files = DataFiles(dir.Sub("t"));
  ASSERT_EQ(files.size(), 2u);
  for (const std::string& name : files) {
    EXPECT_TRUE(name.starts_with("part-") && name.ends_with(".parquet")) << name;
  }
  std::vector<int64_t> ids = ReadIds(*table);
  ASSERT_EQ(ids.size(), 20u);
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(ids[i], i);
  // Reopened from its files alone.
  ASSERT_OK_AND_ASSIGN(auto reopened, Table::Open(dir.Sub("t")));
  EXPECT_EQ(ReadIds(*reopened), ids);

  // The default stays Java's "data-".
  ASSERT_OK_AND_ASSIGN(auto plain, Table::Create(dir.Sub("plain"), Spec("")));
  WriteCommits(*plain, 1);
  for (const std::string& name : DataFiles(dir.Sub("plain"))) {
    EXPECT_TRUE(name.starts_with("data-")) << name;
  }
}

TEST(OptionWiringTest, RealtimeFlushesUseTheDataFilePrefix) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table::Create(dir.Sub("t"), Spec(R"("data-file.prefix": "rt-", )"
                                                        R"("realtime.enabled": "true")")));
  ASSERT_OK_AND_ASSIGN(auto writer, table->NewWriter());
  ASSERT_OK(WriteIds(*writer, 0, 25));
  ASSERT_OK(writer->Commit().status());
  std::vector<std::string> files = DataFiles(dir.Sub("t"));
  ASSERT_FALSE(files.empty());
  for (const std::string& name : files) EXPECT_TRUE(name.starts_with("rt-")) << name;
  ReadOptions committed;
  committed.include_uncommitted = false;
  ASSERT_OK_AND_ASSIGN(auto reader, table->NewReader(committed));
  ArrowArrayStream stream;
  ASSERT_OK(TableReader::ExportArrowStream(std::move(reader), &stream));
  auto rows = (*arrow::ImportRecordBatchReader(&stream))->ToTable();
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)->num_rows(), 25);
}

TEST(OptionWiringTest, InvalidDataFilePrefixIsRefusedAtCreate) {
  TempDir dir;
  auto table = Table::Create(dir.Sub("t"), Spec(R"("data-file.prefix": "a/b-")"));
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("'data-file.prefix'"), std::string::npos)
      << table.status().ToString();
  EXPECT_FALSE(fs::exists(dir.Sub("t") + "/schema"));
}

// ---------------------------------------------------------------------------------------------
// source.split.target-size and source.split.open-file-cost

size_t SplitCount(const std::string& path, scan::ScanOptions options = {}) {
  auto plan = scan::TableScan(io::LocalFileIO(), path).Plan(options);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? plan->splits.size() : 0;
}

TEST(OptionWiringTest, SplitOptionsShapeTheScanAndKeepTheRows) {
  TempDir dir;
  struct Variant {
    std::string name;
    std::string options;
    size_t splits;  // of 5 files of about 600 bytes each
  };
  std::vector<Variant> variants = {
      {"default", "", 1},  // 5 files x 4 mb (open-file cost) <= 128 mb
      {"ten_mb", R"("source.split.target-size": "10 mb")", 3},  // 2 + 2 + 1 at 4 mb each
      {"small", R"("source.split.target-size": "1 kb")", 5},    // the open cost exceeds it
      {"no_cost", R"("source.split.target-size": "100 kb", "source.split.open-file-cost": "0 b")",
       1},
  };
  std::vector<int64_t> expected;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    ASSERT_OK_AND_ASSIGN(auto table, Table::Create(dir.Sub(v.name), Spec(v.options)));
    WriteCommits(*table, 5);
    EXPECT_EQ(SplitCount(dir.Sub(v.name)), v.splits);
    std::vector<int64_t> ids = ReadIds(*table);
    if (expected.empty()) expected = ids;
    EXPECT_EQ(ids, expected);  // the same rows in the same order, whatever the splits
  }
  ASSERT_EQ(expected.size(), 50u);
  // A caller may override the table's options.
  scan::ScanOptions one_per_file;
  one_per_file.split_target_size = 1;
  EXPECT_EQ(SplitCount(dir.Sub("default"), one_per_file), 5u);
  // Without an open-file cost, files pack by their sizes: a target of the first two files' sizes
  // holds exactly those two.
  scan::ScanOptions packed;
  packed.split_open_file_cost = 0;
  packed.split_target_size = 1 << 20;
  ASSERT_OK_AND_ASSIGN(auto whole,
                       scan::TableScan(io::LocalFileIO(), dir.Sub("small")).Plan(packed));
  ASSERT_EQ(whole.splits.size(), 1u);
  ASSERT_EQ(whole.splits[0].files.size(), 5u);
  packed.split_target_size =
      whole.splits[0].files[0].file_size + whole.splits[0].files[1].file_size;
  ASSERT_OK_AND_ASSIGN(auto pairs,
                       scan::TableScan(io::LocalFileIO(), dir.Sub("small")).Plan(packed));
  ASSERT_GE(pairs.splits.size(), 2u);
  EXPECT_EQ(pairs.splits[0].files.size(), 2u);
}

// ---------------------------------------------------------------------------------------------
// Refused at create and when opened for writing

TEST(OptionWiringTest, InvalidValuesAreRefusedAtCreateNamingTheOptionAndTheAcceptedValues) {
  TempDir dir;
  for (const char* options :
       {R"("file.compression": "brotli")", R"("source.split.target-size": "big")",
        R"("bucket": "0")", R"("metadata.stats-mode": "all")",
        R"("realtime.memory.soft-limit": "12 parsecs")", R"("merge-engine": "newest")"}) {
    SCOPED_TRACE(options);
    auto table = Table::Create(dir.Sub("t"), Spec(options));
    ASSERT_FALSE(table.ok());
    EXPECT_TRUE(table.status().IsInvalid()) << table.status().ToString();
    std::string key = std::string(options).substr(1, std::string(options).find('"', 1) - 1);
    EXPECT_NE(table.status().message().find("'" + key + "'"), std::string::npos)
        << table.status().ToString();
    EXPECT_NE(table.status().message().find("accepted values: "), std::string::npos)
        << table.status().ToString();
    EXPECT_FALSE(fs::exists(dir.Sub("t") + "/schema"));
  }
}

TEST(OptionWiringTest, ValuesOnlyWritersUseAreRefusedWhenOpenedForWriting) {
  // A table whose codec freshet cannot write (as Java may write one) stays readable.
  TempDir dir;
  meta::SchemaSpec spec;
  spec.fields.resize(1);
  spec.fields[0].name = "id";
  spec.fields[0].type = meta::DataType::BigInt();
  spec.options = {{"file.compression", "brotli"}};
  ASSERT_OK(meta::SchemaManager(io::LocalFileIO(), dir.Sub("t")).CreateTable(spec, 0).status());
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(dir.Sub("t")));
  EXPECT_TRUE(ReadIds(*table).empty());
  auto writer = table->NewWriter();
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("'file.compression'"), std::string::npos)
      << writer.status().ToString();
  // Options read at every open are refused at open.
  spec.options = {{"file.format", "csv"}};
  ASSERT_OK(meta::SchemaManager(io::LocalFileIO(), dir.Sub("u")).CreateTable(spec, 0).status());
  auto opened = Table::Open(dir.Sub("u"));
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("'file.format'"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// MemIndexer plugins declare their options

TEST(OptionWiringTest, BuiltinPluginsDeclareTheirOptions) {
  realtime::EnsureBuiltinMemIndexers();
  auto dir_row = meta::OptionRegistry::Global().Find("realtime.spill.dir");
  auto threshold_row = meta::OptionRegistry::Global().Find("realtime.spill.memory-threshold");
  ASSERT_NE(dir_row, nullptr);
  ASSERT_NE(threshold_row, nullptr);
  EXPECT_EQ(dir_row->owner, "realtime:spilling");
  EXPECT_EQ(realtime::MemIndexerOptionNames("spilling"),
            (std::vector<std::string>{"realtime.spill.dir", "realtime.spill.memory-threshold"}));
  EXPECT_TRUE(realtime::MemIndexerOptionNames("columnar").empty());

  TempDir dir;
  // Parsed at create: the error names the option.
  auto bad = Table::Create(
      dir.Sub("bad"), Spec(R"("realtime.enabled": "true", "realtime.mem-indexer": "spilling", )"
                           R"("realtime.spill.dir": "/tmp/x", )"
                           R"("realtime.spill.memory-threshold": "lots")"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'realtime.spill.memory-threshold'"), std::string::npos)
      << bad.status().ToString();
  // An option of another plugin would be ignored: refused when the table is opened.
  auto foreign = Table::Create(
      dir.Sub("foreign"), Spec(R"("realtime.enabled": "true", "realtime.spill.dir": "/tmp/x")"));
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("realtime.spill.dir"), std::string::npos);
  EXPECT_NE(foreign.status().message().find("'spilling'"), std::string::npos)
      << foreign.status().ToString();
  // Effective() lists them with their defaults.
  ASSERT_OK_AND_ASSIGN(auto options, meta::CoreOptions::Make({}, false));
  auto effective = options.Effective();
  EXPECT_EQ(*meta::FindOption(effective, "realtime.spill.memory-threshold"), "0 b (default)");
  EXPECT_EQ(*meta::FindOption(effective, "realtime.spill.dir"),
            "none: required by the spilling plugin (default)");
}

// ---------------------------------------------------------------------------------------------
// docs/options.md

// The key table of docs/options.md, generated from the registry's rows (built-in plugins
// included): this test fails when they drift; FRESHET_WRITE_OPTIONS_DOC=1 rewrites the table.
std::string MarkdownTable() {
  auto cell = [](const std::string& text) {
    std::string out;
    for (char c : text) {
      if (c == '|') {
        out += "\\|";
      } else if (c == '<') {
        out += "&lt;";
      } else if (c == '>') {
        out += "&gt;";
      } else {
        out += c;
      }
    }
    return out;
  };
  std::ostringstream out;
  out << "| Option | Type | Default | Owner | From | Accepted values | Description |\n"
      << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& row : meta::OptionRegistry::Global().Rows()) {
    if (row->owner.starts_with("test")) continue;  // rows other tests register
    std::string default_text =
        row->default_value ? "`" + cell(*row->default_value) + "`" : cell(row->default_note);
    std::string accepted = cell(row->AcceptedValues());
    if (row->check == meta::OptionCheck::kWrite) accepted += " (checked when written)";
    out << "| `" << cell(row->name) << "` | " << meta::OptionTypeName(row->type) << " | "
        << default_text << " | " << row->owner << " | " << row->origin << " | " << accepted << " | "
        << cell(row->description) << " |\n";
  }
  return out.str();
}

TEST(OptionWiringTest, DocsTableIsTheRegistry) {
  realtime::EnsureBuiltinMemIndexers();
  const std::string path = std::string(FRESHET_SOURCE_DIR) + "/docs/options.md";
  const std::string begin = "<!-- options-table:begin -->\n";
  const std::string end = "<!-- options-table:end -->";
  std::string doc = testing::ReadWholeFile(path);
  size_t from = doc.find(begin);
  size_t to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << path;
  ASSERT_NE(to, std::string::npos) << path;
  from += begin.size();
  std::string table = MarkdownTable();
  if (const char* write = std::getenv("FRESHET_WRITE_OPTIONS_DOC"); write && *write == '1') {
    doc.replace(from, to - from, table);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(from, to - from), table)
      << "docs/options.md is out of date: run FRESHET_WRITE_OPTIONS_DOC=1 "
         "<build>/tests/table_test --gtest_filter='*DocsTable*'";
}

}  // namespace
}  // namespace freshet
