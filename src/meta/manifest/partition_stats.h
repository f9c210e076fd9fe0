// Statistics over the partition values of manifest entries, for `_PARTITION_STATS` in manifest
// lists. Readers skip whole manifests with them, so they must never exclude a present value.
#pragma once

#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/row/value.h"
#include "meta/types/data_type.h"

namespace freshet::meta {

class PartitionStatsCollector {
 public:
  explicit PartitionStatsCollector(std::vector<DataField> partition_fields);

  // Adds one serialized partition row (manifest form).
  Status Add(const std::string& serialized_partition);
  Result<SimpleStats> Finish() const;

 private:
  std::vector<DataField> fields_;
  std::vector<Value> min_;
  std::vector<Value> max_;
  std::vector<int64_t> null_counts_;
};

// Stats of the partitions of `entries`.
Result<SimpleStats> PartitionStatsOf(const std::vector<DataField>& partition_fields,
                                     const std::vector<ManifestEntry>& entries);

}  // namespace freshet::meta
