#include "write/table_write.h"

#include <algorithm>
#include <set>

#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"
#include "write/append_table_write.h"
#include "write/key_value_table_write.h"

namespace freshet::write {

Result<std::unique_ptr<TableWrite>> MakeTableWrite(std::shared_ptr<io::FileIO> file_io,
                                                   std::string table_path, meta::TableSchema schema,
                                                   std::shared_ptr<CompactionRunner> compaction) {
  if (schema.primary_keys().empty()) {
    FRESHET_ASSIGN_OR_RETURN(
        auto write,
        AppendTableWrite::Make(std::move(file_io), std::move(table_path), std::move(schema)));
    return std::unique_ptr<TableWrite>(std::move(write));
  }
  FRESHET_ASSIGN_OR_RETURN(auto write,
                           KeyValueTableWrite::Make(std::move(file_io), std::move(table_path),
                                                    std::move(schema), std::move(compaction)));
  return std::unique_ptr<TableWrite>(std::move(write));
}

Result<BucketFiles> LoadBucketFiles(const std::shared_ptr<io::FileIO>& file_io,
                                    const std::string& table_path) {
  BucketFiles files;
  meta::SnapshotManager snapshots(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(auto latest, snapshots.LatestSnapshot());
  if (!latest) return files;
  meta::ManifestFile manifests(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *latest));
  for (auto& e : live) files[{e.partition, e.bucket}].push_back(std::move(e.file));
  return files;
}

std::vector<meta::DataFileMeta> NewCompactedFiles(const meta::CommitMessage& message) {
  std::set<std::string> replaced;
  for (const auto& file : message.compact_before) replaced.insert(file.file_name);
  std::vector<meta::DataFileMeta> fresh;
  for (const auto& file : message.compact_after) {
    if (!replaced.count(file.file_name)) fresh.push_back(file);
  }
  return fresh;
}

Result<MaxSequenceNumbers> LoadMaxSequenceNumbers(const std::shared_ptr<io::FileIO>& file_io,
                                                  const std::string& table_path) {
  FRESHET_ASSIGN_OR_RETURN(BucketFiles files, LoadBucketFiles(file_io, table_path));
  MaxSequenceNumbers max_numbers;
  for (const auto& [key, bucket_files] : files) {
    int64_t& max = max_numbers.try_emplace(key, -1).first->second;
    for (const auto& file : bucket_files) max = std::max(max, file.max_sequence_number);
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
    std::vector<meta::DataFileMeta> files = message.new_files;
    for (auto& file : NewCompactedFiles(message)) files.push_back(std::move(file));
    files.insert(files.end(), message.changelog_files.begin(), message.changelog_files.end());
    files.insert(files.end(), message.compact_changelog_files.begin(),
                 message.compact_changelog_files.end());
    for (const auto& file : files) {
      FRESHET_ASSIGN_OR_RETURN(std::string path,
                               paths.FilePath(message.partition, message.bucket, file));
      remove(path);
    }
  }
  return first_error;
}

}  // namespace freshet::write
