#include "scan/table_scan.h"

#include <algorithm>
#include <map>

#include "meta/manifest/manifest_file.h"
#include "meta/schema/schema_manager.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::scan {

int64_t DataSplit::RowCount() const {
  int64_t rows = 0;
  for (const auto& f : files) rows += f.row_count;
  return rows;
}

TableScan::TableScan(std::shared_ptr<io::FileIO> file_io, std::string table_path)
    : file_io_(std::move(file_io)), table_path_(std::move(table_path)) {}

Result<std::optional<meta::Snapshot>> TableScan::ResolveSnapshot(const ScanOptions& options) const {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  if (options.snapshot_id) {
    FRESHET_ASSIGN_OR_RETURN(meta::Snapshot s, snapshots.ReadSnapshot(*options.snapshot_id));
    return std::optional<meta::Snapshot>(std::move(s));
  }
  if (options.timestamp_millis) {
    FRESHET_ASSIGN_OR_RETURN(auto s, snapshots.SnapshotAtOrBefore(*options.timestamp_millis));
    if (!s) {
      return Status::NotFound("table '", table_path_, "' has no snapshot at or before ",
                              *options.timestamp_millis, " ms");
    }
    return s;
  }
  return snapshots.LatestSnapshot();
}

Result<bool> TableScan::MayMatch(const ScanOptions& options, const meta::ManifestEntry& entry,
                                 std::map<int64_t, meta::TableSchema>* schemas,
                                 ScanPlan* plan) const {
  if (!options.predicate) return true;
  FRESHET_ASSIGN_OR_RETURN(Outcomes by_partition,
                           EvaluatePartition(*options.predicate, entry.partition));
  if (!(by_partition & kTrue)) {
    ++plan->files_pruned_by_partition;
    return false;
  }
  auto it = schemas->find(entry.file.schema_id);
  if (it == schemas->end()) {
    meta::SchemaManager manager(file_io_, table_path_);
    FRESHET_ASSIGN_OR_RETURN(meta::TableSchema schema, manager.ReadSchema(entry.file.schema_id));
    it = schemas->emplace(entry.file.schema_id, std::move(schema)).first;
  }
  FRESHET_ASSIGN_OR_RETURN(Outcomes by_stats,
                           EvaluateFileStats(*options.predicate, entry.file, it->second));
  if (!(by_stats & kTrue)) {
    ++plan->files_pruned_by_stats;
    return false;
  }
  return true;
}

Result<ScanPlan> TableScan::Plan(const ScanOptions& options) const {
  ScanPlan plan;
  FRESHET_ASSIGN_OR_RETURN(plan.snapshot, ResolveSnapshot(options));
  if (!plan.snapshot) return plan;
  meta::ManifestFile manifests(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntries(manifests, *plan.snapshot));

  // Group by partition-bucket; keep a stable order (first appearance) for reproducible reads.
  std::map<std::pair<std::string, int32_t>, size_t> index;
  std::vector<DataSplit> groups;
  std::map<int64_t, meta::TableSchema> schemas;  // by id, for the files' statistics layout
  for (auto& entry : live) {
    FRESHET_ASSIGN_OR_RETURN(bool may_match, MayMatch(options, entry, &schemas, &plan));
    if (!may_match) continue;
    auto key = std::make_pair(entry.partition, entry.bucket);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) {
      groups.push_back(
          DataSplit{plan.snapshot->id, entry.partition, entry.bucket, entry.total_buckets, {}});
    }
    groups[it->second].files.push_back(std::move(entry.file));
  }
  for (auto& group : groups) {
    std::stable_sort(group.files.begin(), group.files.end(),
                     [](const meta::DataFileMeta& a, const meta::DataFileMeta& b) {
                       return a.min_sequence_number < b.min_sequence_number;
                     });
    // Cut into splits of about the target size, keeping sequence order.
    DataSplit current{group.snapshot_id, group.partition, group.bucket, group.total_buckets, {}};
    int64_t bytes = 0;
    for (auto& file : group.files) {
      if (!current.files.empty() && bytes + file.file_size > options.split_target_size) {
        plan.splits.push_back(current);
        current.files.clear();
        bytes = 0;
      }
      bytes += file.file_size;
      current.files.push_back(std::move(file));
    }
    if (!current.files.empty()) plan.splits.push_back(std::move(current));
  }
  return plan;
}

}  // namespace freshet::scan
