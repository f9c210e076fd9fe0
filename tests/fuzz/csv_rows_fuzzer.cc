// CSV input (`freshet write --input-format csv`): any text must give rows or a clean error; rows
// that parse must print as CSV and parse back to the same printed text.
#include <sstream>
#include <vector>

#include "fuzz_schema.h"
#include "fuzz_target.h"
#include "textrows/csv_reader.h"
#include "textrows/json_rows.h"

namespace {

using freshet::Result;
using freshet::textrows::CsvRecord;
using freshet::textrows::ParsedRows;

// Parses CSV text (a header, then records) into rows of `fields`.
Result<ParsedRows> ParseCsv(const std::string& text,
                            const std::vector<freshet::meta::DataField>& fields) {
  std::istringstream in(text);
  freshet::textrows::CsvReader reader(&in, "fuzz.csv");
  CsvRecord header;
  FRESHET_ASSIGN_OR_RETURN(bool has_header, reader.Next(&header));
  if (!has_header) return freshet::Status::Invalid("no header");
  FRESHET_ASSIGN_OR_RETURN(auto parser,
                           freshet::textrows::CsvRowParser::Make(header, fields, "fuzz.csv"));
  std::vector<CsvRecord> records;
  while (true) {
    CsvRecord record;
    FRESHET_ASSIGN_OR_RETURN(bool more, reader.Next(&record));
    if (!more) break;
    records.push_back(std::move(record));
  }
  return parser.Parse(records);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using freshet::fuzz::PropertyViolated;
  const auto& fields = freshet::fuzz::FuzzSchema().fields();
  auto rows = ParseCsv(std::string(freshet::fuzz::AsText(data, size)), fields);
  if (!rows.ok()) return 0;
  auto printed = freshet::textrows::FormatCsvRows(*rows->batch, fields);
  if (!printed.ok()) PropertyViolated("parsed rows do not print", printed.status());
  auto reparsed = ParseCsv(*printed, fields);
  if (!reparsed.ok()) PropertyViolated("printed rows do not parse", reparsed.status());
  auto reprinted = freshet::textrows::FormatCsvRows(*reparsed->batch, fields);
  if (!reprinted.ok() || *reprinted != *printed) PropertyViolated("rows changed in a round trip");
  return 0;
}
