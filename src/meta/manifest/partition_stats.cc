#include "meta/manifest/partition_stats.h"

#include "meta/row/binary_row.h"
#include "meta/row/value_compare.h"

namespace freshet::meta {

PartitionStatsCollector::PartitionStatsCollector(std::vector<DataField> partition_fields)
    : fields_(std::move(partition_fields)),
      min_(fields_.size()),
      max_(fields_.size()),
      null_counts_(fields_.size(), 0) {}

Status PartitionStatsCollector::Add(const std::string& serialized_partition) {
  FRESHET_ASSIGN_OR_RETURN(BinaryRow row, DeserializeBinaryRow(serialized_partition));
  if (row.arity() != static_cast<int32_t>(fields_.size())) {
    return Status::Invalid("partition row has ", row.arity(), " fields, the table has ",
                           fields_.size(), " partition keys");
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    FRESHET_ASSIGN_OR_RETURN(Value v, row.GetValue(static_cast<int32_t>(i), *fields_[i].type));
    if (v.is_null()) {
      ++null_counts_[i];
      continue;
    }
    if (min_[i].is_null() || CompareValues(v, min_[i]) < 0) min_[i] = v;
    if (max_[i].is_null() || CompareValues(v, max_[i]) > 0) max_[i] = v;
  }
  return Status::OK();
}

Result<SimpleStats> PartitionStatsCollector::Finish() const {
  SimpleStats stats;
  FRESHET_ASSIGN_OR_RETURN(BinaryRow min_row, BuildBinaryRow(fields_, min_));
  FRESHET_ASSIGN_OR_RETURN(BinaryRow max_row, BuildBinaryRow(fields_, max_));
  stats.min_values = SerializeBinaryRow(min_row);
  stats.max_values = SerializeBinaryRow(max_row);
  stats.null_counts.emplace();
  for (int64_t n : null_counts_) stats.null_counts->push_back(n);
  return stats;
}

Result<SimpleStats> PartitionStatsOf(const std::vector<DataField>& partition_fields,
                                     const std::vector<ManifestEntry>& entries) {
  PartitionStatsCollector collector(partition_fields);
  for (const auto& entry : entries) FRESHET_RETURN_NOT_OK(collector.Add(entry.partition));
  return collector.Finish();
}

}  // namespace freshet::meta
