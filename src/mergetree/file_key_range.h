// The key range of a primary-key data file: its `minKey`/`maxKey` rows decoded into values of the
// trimmed primary key, and Java's key order over them.
#pragma once

#include <string>
#include <vector>

#include "freshet/result.h"
#include "meta/manifest/manifest.h"
#include "meta/row/value.h"
#include "meta/types/data_type.h"

namespace freshet::mergetree {

using FileKey = std::vector<meta::Value>;

struct FileKeyRange {
  FileKey min;
  FileKey max;
};

// `key_types`: the types of the trimmed primary key, which `min_key`/`max_key` rows hold.
// Corruption naming the file when a row cannot be decoded or its minimum exceeds its maximum.
Result<FileKeyRange> DecodeKeyRange(const meta::DataFileMeta& file,
                                    const std::vector<meta::DataTypePtr>& key_types);

// <0, 0, >0 as Java's key comparator orders `a` and `b` (same arity).
int CompareFileKeys(const FileKey& a, const FileKey& b);

}  // namespace freshet::mergetree
