// Data-file metadata for commit tests: an append file of `rows` rows with empty statistics.
#pragma once

#include <cstdint>
#include <string>

#include "meta/manifest/manifest.h"

namespace freshet::commit {

inline meta::DataFileMeta TestDataFile(const std::string& name, int64_t rows) {
  meta::DataFileMeta f;
  f.file_name = name;
  f.file_size = 100 + rows;
  f.row_count = rows;
  f.min_key = meta::EmptySerializedRow();
  f.max_key = meta::EmptySerializedRow();
  f.key_stats = meta::SimpleStats::Empty();
  f.value_stats = meta::SimpleStats::Empty();
  f.delete_row_count = 0;
  f.file_source = 0;
  return f;
}

}  // namespace freshet::commit
