// Partition directory names, exactly as Java Paimon builds them (k1=v1/k2=v2/).
//
// Java readers rebuild directory names from the partition BinaryRow stored in manifests rather
// than parsing directories, so a writer must reproduce Java's names byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "freshet/result.h"
#include "meta/row/binary_row.h"
#include "meta/schema/table_schema.h"

namespace freshet::meta {

// How partition values become names (options partition.default-name, partition.legacy-name).
struct PartitionNaming {
  std::string default_name = "__DEFAULT_PARTITION__";
  // true: Java toString() of the internal value (DATE as its day number, TIMESTAMP as
  // LocalDateTime.toString()); false: the value cast to STRING (DATE as yyyy-MM-dd ...).
  bool legacy_name = true;

  static Result<PartitionNaming> FromOptions(const Options& options);
};

// Escapes the ASCII characters Java escapes in path names as %XX (uppercase hex): 0x00-0x1F,
// " # % ' * / : = ? \ 0x7F { } [ ] ^. Non-ASCII bytes are kept as they are.
std::string EscapePathName(std::string_view name);

// The unescaped name of one non-null partition value (before the default-name rule).
Result<std::string> PartitionValueName(const Value& value, const DataType& type, bool legacy_name);

// (key, value-name) pairs, unescaped, with null / empty / whitespace-only values replaced by the
// default name.
Result<std::vector<std::pair<std::string, std::string>>> PartitionSpec(
    const BinaryRow& partition, const std::vector<DataField>& partition_fields,
    const PartitionNaming& naming);

// "k1=v1/k2=v2/" (escaped); "" for an unpartitioned table.
Result<std::string> PartitionPath(const BinaryRow& partition,
                                  const std::vector<DataField>& partition_fields,
                                  const PartitionNaming& naming);

}  // namespace freshet::meta
