#include "meta/manifest/manifest.h"

namespace freshet::meta {

std::string EmptySerializedRow() { return std::string(12, '\0'); }

SimpleStats SimpleStats::Empty() {
  return SimpleStats{EmptySerializedRow(), EmptySerializedRow(),
                     std::vector<std::optional<int64_t>>{}};
}

const char* FileKindName(FileKind kind) { return kind == FileKind::kAdd ? "ADD" : "DELETE"; }

FileIdentifier FileIdentifier::Of(const ManifestEntry& entry) {
  return FileIdentifier{entry.partition,         entry.bucket,           entry.file.level,
                        entry.file.file_name,    entry.file.extra_files, entry.file.embedded_index,
                        entry.file.external_path};
}

}  // namespace freshet::meta
