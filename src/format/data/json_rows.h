// Rows as text: JSON lines in and out, CSV and an aligned table out.
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
#include "meta/types/data_type.h"

namespace freshet::format {

// Paimon's RowKind byte values.
enum class RowKind : int8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };

// "+I", "-U", "+U", "-D".
const char* RowKindShortString(RowKind kind);

struct ParsedRows {
  std::shared_ptr<arrow::RecordBatch> batch;  // in ToArrowSchema(fields)
  std::vector<int8_t> row_kinds;              // one RowKind per row, from "_kind" (default +I)
};

// Parses JSON lines (blank lines are skipped) into a batch of `fields`. Errors are Invalid and
// start with "line N: " (1-based, counting every line): invalid JSON, a line that is not an
// object, an unknown key, a missing or null value for a NOT NULL column, or a value of the wrong
// type ("line 3: column 'price': expected a DECIMAL(10, 2) as a string or number, got true").
Result<ParsedRows> ParseJsonRows(std::string_view text, const std::vector<meta::DataField>& fields);

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

}  // namespace freshet::format
