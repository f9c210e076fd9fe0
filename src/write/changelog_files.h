// Changelog files of primary-key tables (docs/streaming-reads.md, "Changelog producers").
//
// Java's `changelog-producer` decides who writes them: the writer at each flush (`input`: the
// input records, unmerged, in key order), full compactions (`full-compaction`) or compactions of
// level-0 files (`lookup`). They have the key-value layout of data files and live beside them,
// named `<changelog-file.prefix><uuid>-<n>.<ext>`; `changelog-file.format`,
// `changelog-file.compression` and `changelog-file.stats-mode` replace their data-file twins when
// set (Java's KeyValueFileWriterFactory for a changelog WriteFormatKey).
#pragma once

#include <memory>

#include "freshet/result.h"
#include "io/file_io.h"
#include "mergetree/key_value.h"
#include "meta/schema/table_schema.h"
#include "write/key_value_file_writer.h"

namespace freshet::write {

enum class ChangelogProducer : int8_t { kNone, kInput, kFullCompaction, kLookup };

// The table's `changelog-producer`.
Result<ChangelogProducer> GetChangelogProducer(const meta::TableSchema& schema);

// `schema` with the changelog-file options in place of the data-file ones: what the changelog
// files of a table are written with.
Result<meta::TableSchema> ChangelogFileSchema(const meta::TableSchema& schema);

// The format of a table's changelog files. `layout` as for KeyValueFileFormat::Make.
Result<KeyValueFileFormat> MakeChangelogFileFormat(std::shared_ptr<io::FileIO> file_io,
                                                   const meta::TableSchema& schema,
                                                   const mergetree::MergeLayout* layout);

}  // namespace freshet::write
