// Where a table's data files live: `<table>/<partition path>/bucket-<b>/<file>`, with partition
// directories named exactly as Java names them (Java rebuilds these paths from the manifest's
// partition row, so a differing name would hide the file from Java).
#pragma once

#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/partition/partition_path.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

class DataFilePaths {
 public:
  static Result<DataFilePaths> Make(std::string table_path, const TableSchema& schema);

  // `<table>/<partition path>/bucket-<b>` for a serialized partition row.
  Result<std::string> BucketDirectory(const std::string& serialized_partition,
                                      int32_t bucket) const;
  // The file's external path when it has one, else its place in the bucket directory.
  Result<std::string> FilePath(const std::string& serialized_partition, int32_t bucket,
                               const DataFileMeta& file) const;
  // The file's extra files (its `.index` file): in the directory the file itself is in.
  Result<std::vector<std::string>> ExtraFilePaths(const std::string& serialized_partition,
                                                  int32_t bucket, const DataFileMeta& file) const;

  const std::string& table_path() const { return table_path_; }

 private:
  std::string table_path_;
  std::vector<DataField> partition_fields_;
  PartitionNaming naming_;
};

}  // namespace freshet::meta
