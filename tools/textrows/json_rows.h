// Rows as text: JSON lines and CSV in and out, an aligned table out.
//
// The JSON conventions are the CLI contract shared with the Java and Python interop harnesses
// (interop/README.md, "JSON rows"); docs/json-rows.md lists them with examples. In short: one
// object per line, keys = column names in column order, separators ", " and ": "; FLOAT/DOUBLE
// as shortest round-trip numbers (Java layout), NaN/Infinity as strings; DECIMAL as a string with
// the column's scale; binary as base64; DATE / TIME / TIMESTAMP as text; ARRAY as an array, MAP
// and MULTISET as [[key, value], ...]; ROW as an object.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "freshet/row_kind.h"
#include "meta/types/data_type.h"
#include "textrows/csv_reader.h"

namespace freshet::textrows {

using ::freshet::RowKind;
using ::freshet::RowKindShortString;

// The key (JSON) or header column (CSV) giving a row's kind ("+I", "-U", "+U", "-D"; +I when
// absent), unless the table has a column of that name; as the writer's `_ROW_KIND` column
// (freshet/table.h). JSON also takes "_kind" (the interop harnesses' key).
inline constexpr char kRowKindKey[] = "_ROW_KIND";

struct ParsedRows {
  std::shared_ptr<arrow::RecordBatch> batch;  // in bridge::ToArrowSchema(fields)
  std::vector<int8_t> row_kinds;  // one RowKind per row, from "_ROW_KIND" / "_kind" (default +I)
  std::vector<int64_t> lines;     // the input line on which each row starts
};

// Parses JSON lines (blank lines are skipped) into a batch of `fields`. Errors are Invalid and
// start with "line N: " (1-based, counting every line): invalid JSON, a line that is not an
// object, an unknown key, a missing or null value for a NOT NULL column, or a value of the wrong
// type ("line 3: column 'price': expected a DECIMAL(10, 2) as a string or number, got true").
// With a `source` (a file name) they start with "<source>:N: " instead; `first_line` is the
// number of the text's first line (for a chunk of a longer input).
Result<ParsedRows> ParseJsonRows(std::string_view text, const std::vector<meta::DataField>& fields,
                                 std::string_view source = {}, int64_t first_line = 1);

// CSV records (csv_reader.h) into batches of `fields`. The header record names the columns, in
// any order; each must be a column of `fields`, at most once; columns it leaves out are null.
// A field is the value's text as the CSV printer writes it (the JSON-lines text, strings without
// quotes, nested values as JSON); an empty field is null, a quoted empty field "" is the empty
// string for CHAR/VARCHAR/STRING and BINARY/VARBINARY/BYTES. An empty line is a null row when the
// header has one column and is skipped otherwise. A header column `_ROW_KIND` (kRowKindKey, when
// no column of `fields` has that name) gives each row's kind; an empty field there is +I, and
// rows are +I without it.
class CsvRowParser {
 public:
  // Checks the header: unknown, repeated or missing NOT NULL columns are Invalid errors starting
  // with "<source>:<line>: ".
  static Result<CsvRowParser> Make(const CsvRecord& header,
                                   const std::vector<meta::DataField>& fields, std::string source);

  // One batch of data records. Errors are Invalid and start with "<source>:<line>: ", then name
  // the column: "rows.csv:3: column 'amount': expected an integer for INT, got "abc"". A record
  // with another number of fields than the header is an error.
  Result<ParsedRows> Parse(const std::vector<CsvRecord>& records) const;

 private:
  std::vector<meta::DataField> fields_;
  std::vector<int> columns_;  // per header position: the index in fields_
  std::string source_;
};

// One JSON object per row, each followed by '\n'. `batch` must be in ToArrowSchema(fields)
// (or the same Arrow types under any names).
Result<std::string> FormatJsonRows(const arrow::RecordBatch& batch,
                                   const std::vector<meta::DataField>& fields);

// CSV: a header row of column names, then one line per row, '\n' line ends. Fields holding a
// comma, quote, CR or LF are quoted with quotes doubled (RFC 4180). Text is the JSON text without
// the outer quotes of strings; nested values are their JSON text; null is an empty field (an empty
// string is written as "").
Result<std::string> FormatCsvRows(const arrow::RecordBatch& batch,
                                  const std::vector<meta::DataField>& fields);

// A plain aligned table for terminals: header, a dashed rule, one line per row, columns padded
// to their widest cell (numbers right-aligned), null shown as "null", control characters as
// their JSON escapes.
Result<std::string> FormatTableRows(const arrow::RecordBatch& batch,
                                    const std::vector<meta::DataField>& fields);

}  // namespace freshet::textrows
