#include "mergetree/file_key_range.h"

#include "meta/row/binary_row.h"
#include "meta/row/value_compare.h"

namespace freshet::mergetree {

namespace {

Result<FileKey> DecodeKey(const std::string& serialized,
                          const std::vector<meta::DataTypePtr>& types, const std::string& file_name,
                          const char* which) {
  auto row = meta::DeserializeBinaryRow(serialized);
  if (!row.ok() || row->arity() != static_cast<int32_t>(types.size())) {
    return Status::Corruption("data file ", file_name, " has a ", which,
                              " that is not a row of the ", types.size(), " primary-key fields");
  }
  FileKey key;
  for (size_t i = 0; i < types.size(); ++i) {
    auto value = row->GetValue(static_cast<int32_t>(i), *types[i]);
    if (!value.ok()) {
      return Status::Corruption("data file ", file_name, " has an unreadable ", which, ": ",
                                value.status().message());
    }
    key.push_back(std::move(*value));
  }
  return key;
}

}  // namespace

Result<FileKeyRange> DecodeKeyRange(const meta::DataFileMeta& file,
                                    const std::vector<meta::DataTypePtr>& key_types) {
  FileKeyRange range;
  FRESHET_ASSIGN_OR_RETURN(range.min,
                           DecodeKey(file.min_key, key_types, file.file_name, "minimum key"));
  FRESHET_ASSIGN_OR_RETURN(range.max,
                           DecodeKey(file.max_key, key_types, file.file_name, "maximum key"));
  if (CompareFileKeys(range.min, range.max) > 0) {
    return Status::Corruption("data file ", file.file_name,
                              " has a minimum key above its maximum key");
  }
  return range;
}

int CompareFileKeys(const FileKey& a, const FileKey& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    int c = meta::CompareValues(a[i], b[i]);
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace freshet::mergetree
