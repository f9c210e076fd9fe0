#include "meta/path/data_file_paths.h"

#include "io/file_io.h"
#include "meta/row/binary_row.h"

namespace freshet::meta {

Result<DataFilePaths> DataFilePaths::Make(std::string table_path, const TableSchema& schema) {
  DataFilePaths paths;
  paths.table_path_ = std::move(table_path);
  paths.partition_fields_ = schema.PartitionFields();
  FRESHET_ASSIGN_OR_RETURN(paths.naming_, PartitionNaming::FromOptions(schema.options()));
  return paths;
}

Result<std::string> DataFilePaths::BucketDirectory(const std::string& serialized_partition,
                                                   int32_t bucket) const {
  std::string dir = table_path_;
  if (!partition_fields_.empty()) {
    FRESHET_ASSIGN_OR_RETURN(BinaryRow row, DeserializeBinaryRow(serialized_partition));
    FRESHET_ASSIGN_OR_RETURN(std::string partition, PartitionPath(row, partition_fields_, naming_));
    dir = io::JoinPath(dir, partition);
  }
  // Postpone-bucket tables (bucket -2) keep their files in `bucket-postpone`.
  return io::JoinPath(dir, bucket == -2 ? "bucket-postpone" : "bucket-" + std::to_string(bucket));
}

Result<std::string> DataFilePaths::FilePath(const std::string& serialized_partition, int32_t bucket,
                                            const DataFileMeta& file) const {
  if (file.external_path) return *file.external_path;
  FRESHET_ASSIGN_OR_RETURN(std::string dir, BucketDirectory(serialized_partition, bucket));
  return io::JoinPath(dir, file.file_name);
}

Result<std::vector<std::string>> DataFilePaths::ExtraFilePaths(
    const std::string& serialized_partition, int32_t bucket, const DataFileMeta& file) const {
  std::vector<std::string> out;
  if (file.extra_files.empty()) return out;
  FRESHET_ASSIGN_OR_RETURN(std::string path, FilePath(serialized_partition, bucket, file));
  const std::string_view dir = io::ParentPath(path);
  for (const std::string& extra : file.extra_files) out.push_back(io::JoinPath(dir, extra));
  return out;
}

}  // namespace freshet::meta
