// IntervalPartition: groups a bucket's data files into sections whose key ranges do not overlap,
// each split into as few sorted runs as possible (Java's IntervalPartition).
//
// A section's runs must be merged by key; sections follow one another in key order, so a read
// concatenates them. A section holding one run needs no merge at all (its keys are unique).
#pragma once

#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/types/data_type.h"

namespace freshet::mergetree {

// The files of one sorted run, in key order.
using SortedRunFiles = std::vector<meta::DataFileMeta>;
// The runs of one section.
using Section = std::vector<SortedRunFiles>;

// `key_types`: the types of the trimmed primary key, which `min_key`/`max_key` rows hold.
// Corruption when a file's key rows cannot be decoded.
Result<std::vector<Section>> PartitionIntoSections(std::vector<meta::DataFileMeta> files,
                                                   const std::vector<meta::DataTypePtr>& key_types);

}  // namespace freshet::mergetree
