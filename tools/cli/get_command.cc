// freshet get: point lookups of a primary-key table (Table::Lookup). One JSON line per key, in
// the order given: the key's live row, or `null` when it has none.
#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/cli.h"
#include "common/arrow_status.h"
#include "freshet/table.h"
#include "textrows/columns.h"
#include "textrows/json_rows.h"

namespace freshet::cli {

namespace {

// The keys as JSON lines: every --key, then the lines of --keys-file ("-": standard input).
Result<std::string> KeyLines(const Args& args) {
  std::string text;
  for (const std::string& key : args.GetAll("key")) text += key + "\n";
  if (auto file = args.Get("keys-file")) {
    if (*file == "-") {
      text.append(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      std::ifstream in(*file, std::ios::binary);
      if (!in) return Status::IOError("cannot open --keys-file '", *file, "'");
      text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  if (text.empty()) {
    return Status::Invalid("give the keys with --key '{\"id\": 42}' or --keys-file; usage: ",
                           UsageOf("get"));
  }
  return text;
}

Status Get(const Args& args) {
  if (args.positionals().size() != 1) {
    return Status::Invalid("expected one table path; usage: ", UsageOf("get"));
  }
  FRESHET_ASSIGN_OR_RETURN(auto table, Table::Open(args.positionals()[0]));
  FRESHET_ASSIGN_OR_RETURN(textrows::Columns all, textrows::Columns::Of(*table));
  const std::vector<std::string> key_names = table->Schema().primary_keys;
  if (key_names.empty()) {
    return Status::Invalid("table '", table->path(),
                           "' has no primary key: get looks rows up by it");
  }
  textrows::Columns key_columns = all.Select(key_names);
  FRESHET_ASSIGN_OR_RETURN(std::string lines, KeyLines(args));
  FRESHET_ASSIGN_OR_RETURN(textrows::ParsedRows keys,
                           textrows::ParseJsonRows(lines, key_columns.fields(), "keys"));
  LookupOptions options;
  if (auto select = args.Get("select")) options.columns = SplitComma(*select);
  ArrowArray in, out;
  ArrowSchema in_schema, out_schema;
  FRESHET_RETURN_NOT_OK(FromArrowStatus(arrow::ExportRecordBatch(*keys.batch, &in, &in_schema)));
  Status looked_up = table->Lookup(&in, &in_schema, &out, &out_schema, options);
  in.release(&in);
  in_schema.release(&in_schema);
  FRESHET_RETURN_NOT_OK(looked_up);
  FRESHET_ASSIGN_OR_RETURN(auto result,
                           FromArrowResult(arrow::ImportRecordBatch(&out, &out_schema)));
  const textrows::Columns shown = all.Select(options.columns);
  const auto& found =
      static_cast<const arrow::BooleanArray&>(*result->GetColumnByName(kLookupFoundColumn));
  FRESHET_ASSIGN_OR_RETURN(auto rows,
                           FromArrowResult(result->RemoveColumn(result->num_columns() - 1)));
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    if (!found.Value(i)) {
      std::fputs("null\n", stdout);
      continue;
    }
    FRESHET_ASSIGN_OR_RETURN(std::string text,
                             textrows::FormatJsonRows(*rows->Slice(i, 1), shown.fields()));
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return Status::OK();
}

}  // namespace

int RunGet(const std::vector<std::string>& argv) {
  auto args = Args::Parse(argv, {}, {"key", "keys-file", "select"});
  if (!args.ok()) return Fail("get", args.status());
  Status st = Get(*args);
  return st.ok() ? 0 : Fail("get", st);
}

}  // namespace freshet::cli
