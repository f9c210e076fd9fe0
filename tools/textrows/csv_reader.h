// RFC 4180 CSV records, read one at a time from a stream (no whole-file buffer). The values are
// text; json_rows.h (CsvRowParser) turns records into rows of a table. docs/json-rows.md, "CSV
// input", has the rules.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "freshet/result.h"

namespace freshet::textrows {

struct CsvField {
  std::string text;
  bool quoted = false;  // written in double quotes: "" is an empty string, an empty field is null
};

struct CsvRecord {
  int64_t line = 0;  // 1-based line on which the record starts
  std::vector<CsvField> fields;
};

// Splits CSV text into records: ',' separates fields, '"' quotes a field (quotes inside doubled;
// a quoted field may hold commas, CR and LF), records end with LF or CRLF. An empty line is a
// record of one empty unquoted field. A UTF-8 byte order mark at the start is skipped. Errors are
// Invalid and start with "<source>:<line>: ".
class CsvReader {
 public:
  CsvReader(std::istream* in, std::string source);

  // The next record, or false at the end of the input.
  Result<bool> Next(CsvRecord* record);

  // Bytes consumed from the stream so far.
  int64_t bytes_read() const { return bytes_read_; }

 private:
  static constexpr int kEnd = -1;
  int Get();
  int Peek();
  bool Fill();
  Status Error(int64_t line, const std::string& message) const;

  std::istream* in_;
  std::string source_;
  std::string buffer_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  int64_t bytes_read_ = 0;
  bool started_ = false;
};

}  // namespace freshet::textrows
