// Pruning data files by their file index (meta/fileindex/file_index.h): a file whose bloom
// filter rules out every value an equality or IN predicate asks for holds no matching row.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/fileindex/file_index.h"
#include "meta/manifest/manifest.h"
#include "meta/path/data_file_paths.h"
#include "meta/schema/table_schema.h"
#include "scan/predicate.h"

namespace freshet::scan {

// Whether the predicate has a leaf a file index can answer (equality or IN with a literal).
bool AsksForValues(const Predicate& predicate);

// Whether a file whose index is `index` may hold a row for which `predicate` is TRUE. Columns are
// matched by field id in `file_schema` (the schema the file was written with); a column without
// a bloom filter, or whose type changed since, may hold anything.
Result<bool> FileIndexMayMatch(const Predicate& predicate, const meta::FileIndexContents& index,
                               const meta::TableSchema& file_schema);

// The index of a live file: its inlined bytes, else its `.index` extra file (parsed index files
// are kept in a process-wide cache: files never change once written). nullptr when it has none.
Result<std::shared_ptr<const meta::FileIndexContents>> LoadFileIndex(
    io::FileIO* file_io, const meta::DataFilePaths& paths, const meta::ManifestEntry& entry);

}  // namespace freshet::scan
