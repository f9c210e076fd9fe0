// The manifest records of a Paimon table: manifest lists (ManifestFileMeta), data manifests
// (ManifestEntry holding a DataFileMeta) and index manifests (IndexManifestEntry).
//
// BinaryRow-typed fields (partition, keys, statistics rows) are kept in their serialized manifest
// form: a 4-byte big-endian arity followed by the row bytes. They are compared byte for byte (as
// Java does), and decoded with meta/row only where values are needed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace freshet::meta {

// The serialized empty row (arity 0): 4 zero bytes of arity plus 8 zero bytes of header.
std::string EmptySerializedRow();

struct SimpleStats {
  std::string min_values;  // serialized BinaryRow
  std::string max_values;
  // One count per column; nullopt = unknown. The outer optional is null only in odd files.
  std::optional<std::vector<std::optional<int64_t>>> null_counts;

  static SimpleStats Empty();
  bool operator==(const SimpleStats&) const = default;
};

enum class FileSource : int32_t { kAppend = 0, kCompact = 1 };

struct DataFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::string min_key;  // serialized BinaryRow (empty row for append tables)
  std::string max_key;
  SimpleStats key_stats;
  SimpleStats value_stats;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  int64_t schema_id = 0;
  int32_t level = 0;
  std::vector<std::string> extra_files;
  std::optional<int64_t> creation_time_millis;  // local wall clock stored as if it were UTC
  std::optional<int64_t> delete_row_count;
  std::optional<std::string> embedded_index;
  std::optional<int32_t> file_source;
  std::optional<std::vector<std::string>> value_stats_cols;
  std::optional<std::string> external_path;
  std::optional<int64_t> first_row_id;
  std::optional<std::vector<std::string>> write_cols;

  bool operator==(const DataFileMeta&) const = default;
};

enum class FileKind : int8_t { kAdd = 0, kDelete = 1 };
const char* FileKindName(FileKind kind);

struct ManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = -1;
  DataFileMeta file;

  bool operator==(const ManifestEntry&) const = default;
};

// One manifest file as listed in a manifest list.
struct ManifestFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t num_added_files = 0;
  int64_t num_deleted_files = 0;
  SimpleStats partition_stats;
  int64_t schema_id = 0;
  std::optional<int32_t> min_bucket;
  std::optional<int32_t> max_bucket;
  std::optional<int32_t> min_level;
  std::optional<int32_t> max_level;
  std::optional<int64_t> min_row_id;
  std::optional<int64_t> max_row_id;

  bool operator==(const ManifestFileMeta&) const = default;
};

struct DeletionVectorRange {
  std::string data_file_name;
  int32_t offset = 0;
  int32_t length = 0;
  std::optional<int64_t> cardinality;
  bool operator==(const DeletionVectorRange&) const = default;
};

// Index types of index manifest entries (`_INDEX_TYPE`).
inline constexpr char kDeletionVectorsIndexType[] = "DELETION_VECTORS";
inline constexpr char kHashIndexType[] = "HASH";

struct IndexManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;
  int32_t bucket = 0;
  std::string index_type;  // HASH, DELETION_VECTORS, ...
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::optional<std::vector<DeletionVectorRange>> deletion_vector_ranges;
  std::optional<std::string> external_path;

  bool operator==(const IndexManifestEntry&) const = default;
};

// The identity Java uses to merge ADD and DELETE entries of the same file (FileEntry.Identifier).
struct FileIdentifier {
  std::string partition;
  int32_t bucket;
  int32_t level;
  std::string file_name;
  std::vector<std::string> extra_files;
  std::optional<std::string> embedded_index;
  std::optional<std::string> external_path;

  static FileIdentifier Of(const ManifestEntry& entry);
  auto operator<=>(const FileIdentifier&) const = default;
};

}  // namespace freshet::meta
