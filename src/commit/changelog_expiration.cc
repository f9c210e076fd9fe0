#include "commit/changelog_expiration.h"

#include <algorithm>
#include <set>
#include <vector>

#include "meta/manifest/manifest_file.h"
#include "meta/options/option_registry.h"
#include "meta/path/data_file_paths.h"
#include "meta/snapshot/consumer_manager.h"
#include "meta/snapshot/long_lived_changelog.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::commit {

Result<ChangelogRetention> ChangelogRetention::FromSchema(const meta::TableSchema& schema) {
  const meta::Options& o = schema.options();
  ChangelogRetention r;
  FRESHET_ASSIGN_OR_RETURN(r.retain_min, meta::GetIntOption(o, "changelog.num-retained.min"));
  FRESHET_ASSIGN_OR_RETURN(r.retain_max, meta::GetIntOption(o, "changelog.num-retained.max"));
  FRESHET_ASSIGN_OR_RETURN(r.time_retained_ms,
                           meta::GetDurationOption(o, "changelog.time-retained"));
  FRESHET_ASSIGN_OR_RETURN(r.max_deletes, meta::GetIntOption(o, "snapshot.expire.limit"));
  FRESHET_ASSIGN_OR_RETURN(int32_t snapshot_min,
                           meta::GetIntOption(o, "snapshot.num-retained.min"));
  FRESHET_ASSIGN_OR_RETURN(int32_t snapshot_max,
                           meta::GetIntOption(o, "snapshot.num-retained.max"));
  FRESHET_ASSIGN_OR_RETURN(int64_t snapshot_time,
                           meta::GetDurationOption(o, "snapshot.time-retained"));
  FRESHET_ASSIGN_OR_RETURN(std::string producer, meta::GetStringOption(o, "changelog-producer"));
  // Java's CoreOptions.changelogLifecycleDecoupled; see the header for tables without producer.
  r.decoupled =
      producer != "none" && (r.retain_max > snapshot_max || r.time_retained_ms > snapshot_time ||
                             r.retain_min > snapshot_min);
  if (r.retain_max < r.retain_min) {
    return Status::Invalid("option 'changelog.num-retained.max' (", r.retain_max,
                           ") must be at least 'changelog.num-retained.min' (", r.retain_min, ")");
  }
  return r;
}

ChangelogExpiration::ChangelogExpiration(std::shared_ptr<io::FileIO> file_io,
                                         std::string table_path, meta::TableSchema schema,
                                         ChangelogRetention retention)
    : file_io_(std::move(file_io)),
      table_path_(std::move(table_path)),
      schema_(std::move(schema)),
      retention_(retention) {}

Result<int64_t> ChangelogExpiration::Expire(int64_t now_millis) {
  meta::SnapshotManager snapshots(file_io_, table_path_);
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> latest_snapshot, snapshots.LatestSnapshotId());
  if (!latest_snapshot) return 0;
  FRESHET_ASSIGN_OR_RETURN(auto ids, meta::LongLivedChangelogIds(*file_io_, table_path_));
  if (ids.empty()) return 0;
  const int64_t earliest = ids.front();
  const int64_t latest = ids.back();
  // ExpireChangelogImpl.expire: counts are taken against the latest snapshot; the latest
  // long-lived changelog stays (the range end is exclusive).
  int64_t min = std::max<int64_t>(*latest_snapshot - retention_.retain_max + 1, earliest);
  int64_t max_exclusive = *latest_snapshot - retention_.retain_min + 1;
  FRESHET_ASSIGN_OR_RETURN(std::optional<int64_t> consumer_min,
                           meta::ConsumerManager(file_io_, table_path_).MinNextSnapshot());
  if (consumer_min) max_exclusive = std::min(max_exclusive, *consumer_min);
  max_exclusive = std::min<int64_t>(max_exclusive, earliest + retention_.max_deletes);
  max_exclusive = std::min(max_exclusive, latest);
  for (int64_t id = min; id <= max_exclusive; ++id) {
    FRESHET_ASSIGN_OR_RETURN(auto changelog,
                             meta::ReadLongLivedChangelog(*file_io_, table_path_, id));
    if (changelog && now_millis - retention_.time_retained_ms <= changelog->time_millis) {
      return ExpireUntil(earliest, id);  // young enough to keep, and everything after it
    }
  }
  return ExpireUntil(earliest, max_exclusive);
}

Result<int64_t> ChangelogExpiration::ExpireUntil(int64_t earliest, int64_t end_exclusive) {
  if (end_exclusive <= earliest) return 0;
  FRESHET_ASSIGN_OR_RETURN(auto paths, meta::DataFilePaths::Make(table_path_, schema_));
  meta::ManifestFile manifests(file_io_, table_path_);
  int64_t expired = 0;
  for (int64_t id = earliest; id < end_exclusive; ++id) {
    FRESHET_ASSIGN_OR_RETURN(auto changelog,
                             meta::ReadLongLivedChangelog(*file_io_, table_path_, id));
    if (!changelog) continue;
    // Changelog files belong to their snapshot alone: nothing retained shares them. Leaves
    // first, so that an interrupted run can find the rest again.
    if (changelog->changelog_manifest_list) {
      const std::string& list = *changelog->changelog_manifest_list;
      auto metas = manifests.ReadManifestList(list);
      if (!metas.ok() && !metas.status().IsNotFound()) return metas.status();
      std::vector<std::string> names;
      if (metas.ok()) {
        for (const auto& m : *metas) names.push_back(m.file_name);
      }
      for (const auto& name : names) {
        auto entries = manifests.ReadManifest(name);
        if (!entries.ok() && !entries.status().IsNotFound()) return entries.status();
        if (!entries.ok()) continue;
        for (const auto& e : *entries) {
          FRESHET_ASSIGN_OR_RETURN(std::string path, paths.FilePath(e.partition, e.bucket, e.file));
          FRESHET_ASSIGN_OR_RETURN(auto extras,
                                   paths.ExtraFilePaths(e.partition, e.bucket, e.file));
          extras.push_back(path);  // the file last, so that a rerun finds its extras again
          for (const std::string& file : extras) {
            FRESHET_RETURN_NOT_OK(file_io_->Delete(file, false).WithContext("expiring changelog"));
          }
        }
      }
      for (const auto& name : names) {
        FRESHET_RETURN_NOT_OK(file_io_->Delete(manifests.PathOf(name), false));
      }
      FRESHET_RETURN_NOT_OK(file_io_->Delete(manifests.PathOf(list), false));
    }
    FRESHET_RETURN_NOT_OK(file_io_->Delete(meta::LongLivedChangelogPath(table_path_, id), false));
    ++expired;
  }
  FRESHET_RETURN_NOT_OK(
      meta::WriteLongLivedChangelogEarliestHint(*file_io_, table_path_, end_exclusive));
  return expired;
}

}  // namespace freshet::commit
