#include "write/table_write.h"

#include <algorithm>

#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"
#include "write/append_table_write.h"
#include "write/key_value_table_write.h"

namespace freshet::write {

Result<std::unique_ptr<TableWrite>> MakeTableWrite(std::shared_ptr<io::FileIO> file_io,
                                                   std::string table_path,
                                                   meta::TableSchema schema) {
  if (schema.primary_keys().empty()) {
    FRESHET_ASSIGN_OR_RETURN(
        auto write,
        AppendTableWrite::Make(std::move(file_io), std::move(table_path), std::move(schema)));
    return std::unique_ptr<TableWrite>(std::move(write));
  }
  FRESHET_ASSIGN_OR_RETURN(
      auto write,
      KeyValueTableWrite::Make(std::move(file_io), std::move(table_path), std::move(schema)));
  return std::unique_ptr<TableWrite>(std::move(write));
}

Result<MaxSequenceNumbers> LoadMaxSequenceNumbers(const std::shared_ptr<io::FileIO>& file_io,
                                                  const std::string& table_path) {
  MaxSequenceNumbers max_numbers;
  meta::SnapshotManager snapshots(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(auto latest, snapshots.LatestSnapshot());
  if (!latest) return max_numbers;
  meta::ManifestFile manifests(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *latest));
  for (const auto& e : live) {
    int64_t& max = max_numbers.try_emplace({e.partition, e.bucket}, -1).first->second;
    max = std::max(max, e.file.max_sequence_number);
  }
  return max_numbers;
}

int64_t NextSequenceNumber(const MaxSequenceNumbers& max, const std::string& partition,
                           int32_t bucket) {
  auto it = max.find({partition, bucket});
  return it == max.end() ? 0 : it->second + 1;
}

Status DeleteUncommittedFiles(io::FileIO& file_io, const meta::DataFilePaths& paths,
                              const std::vector<std::string>& pending,
                              const std::vector<meta::CommitMessage>& uncommitted) {
  Status first_error;
  auto remove = [&](const std::string& path) {
    Status st = file_io.Delete(path, false);
    if (!st.ok() && first_error.ok()) first_error = st;
  };
  for (const auto& path : pending) remove(path);
  for (const auto& message : uncommitted) {
    for (const auto& file : message.new_files) {
      FRESHET_ASSIGN_OR_RETURN(std::string path,
                               paths.FilePath(message.partition, message.bucket, file));
      remove(path);
    }
  }
  return first_error;
}

}  // namespace freshet::write
