#include "commit/conflict_check.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "mergetree/file_key_range.h"

namespace freshet::commit {

namespace {

using meta::FileKind;
using meta::ManifestEntry;

// A data file as a manifest identifies it.
using FileId = std::tuple<std::string, int32_t, int32_t, std::string>;

FileId IdOf(const ManifestEntry& e) {
  return FileId{e.partition, e.bucket, e.file.level, e.file.file_name};
}

std::string Describe(const ManifestEntry& e) {
  return "'" + e.file.file_name + "' (bucket " + std::to_string(e.bucket) + ", level " +
         std::to_string(e.file.level) + ")";
}

// The live files once `delta` is applied to `live`, or the conflict that prevents it.
Result<std::map<FileId, const ManifestEntry*>> Apply(const std::vector<ManifestEntry>& live,
                                                     const std::vector<ManifestEntry>& delta) {
  std::map<FileId, const ManifestEntry*> files;
  for (const ManifestEntry& e : live) files[IdOf(e)] = &e;
  std::set<FileId> added, deleted;
  for (const ManifestEntry& e : delta) {
    FileId id = IdOf(e);
    if (e.kind == FileKind::kAdd) {
      if (files.count(id) || deleted.count(id)) {
        return Status::Conflict("the commit adds file ", Describe(e),
                                ", which is live or deleted by the same commit");
      }
      added.insert(id);
      files[id] = &e;
    } else {
      if (added.count(id)) {
        return Status::Conflict("the commit adds and deletes the same file ", Describe(e));
      }
      if (files.erase(id) == 0) {
        return Status::Conflict("file ", Describe(e),
                                " is no longer live: another commit replaced it first");
      }
      deleted.insert(id);
    }
  }
  return files;
}

// Levels of the partition-buckets in `touched` only: the others did not change.
Status CheckLevelKeyRanges(const std::map<FileId, const ManifestEntry*>& files,
                           const std::set<std::pair<std::string, int32_t>>& touched,
                           const std::vector<meta::DataTypePtr>& key_types) {
  struct Ranged {
    mergetree::FileKeyRange range;
    const ManifestEntry* entry;
  };
  std::map<std::tuple<std::string, int32_t, int32_t>, std::vector<Ranged>> levels;
  for (const auto& [id, entry] : files) {
    if (entry->file.level < 1 || !touched.count({entry->partition, entry->bucket})) continue;
    FRESHET_ASSIGN_OR_RETURN(auto range, mergetree::DecodeKeyRange(entry->file, key_types));
    levels[{entry->partition, entry->bucket, entry->file.level}].push_back(
        Ranged{std::move(range), entry});
  }
  for (auto& [level, ranged] : levels) {
    std::sort(ranged.begin(), ranged.end(), [](const Ranged& a, const Ranged& b) {
      return mergetree::CompareFileKeys(a.range.min, b.range.min) < 0;
    });
    for (size_t i = 1; i < ranged.size(); ++i) {
      if (mergetree::CompareFileKeys(ranged[i - 1].range.max, ranged[i].range.min) >= 0) {
        return Status::Conflict("files ", Describe(*ranged[i - 1].entry), " and ",
                                Describe(*ranged[i].entry),
                                " would overlap in key range on one level: another commit "
                                "changed that level first");
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckDeletionVectorBase(const std::vector<meta::IndexManifestEntry>& live,
                               const std::vector<meta::IndexManifestEntry>& changes) {
  using Bucket = std::pair<std::string, int32_t>;
  auto is_dv = [](const meta::IndexManifestEntry& e) { return e.index_type == "DELETION_VECTORS"; };
  std::map<Bucket, std::set<std::string>> live_files, deleted, added;
  for (const auto& e : live) {
    if (is_dv(e) && e.kind == FileKind::kAdd)
      live_files[{e.partition, e.bucket}].insert(e.file_name);
  }
  for (const auto& e : changes) {
    if (!is_dv(e)) continue;
    Bucket bucket{e.partition, e.bucket};
    if (e.kind == FileKind::kAdd) {
      added[bucket].insert(e.file_name);
      continue;
    }
    deleted[bucket].insert(e.file_name);
    if (!live_files[bucket].count(e.file_name)) {
      return Status::Conflict("deletion-vector index file '", e.file_name, "' of bucket ", e.bucket,
                              " is no longer live: another commit replaced it first");
    }
  }
  for (const auto& [bucket, files] : added) {
    if (deleted[bucket] != live_files[bucket]) {
      return Status::Conflict("the deletion vectors of bucket ", bucket.second,
                              " changed since the compaction read them: another commit "
                              "replaced their index file first");
    }
  }
  return Status::OK();
}

Status CheckNoConflicts(const std::vector<ManifestEntry>& live,
                        const std::vector<ManifestEntry>& delta,
                        const std::vector<meta::DataTypePtr>& key_types) {
  FRESHET_ASSIGN_OR_RETURN(auto files, Apply(live, delta));
  if (key_types.empty()) return Status::OK();
  std::set<std::pair<std::string, int32_t>> touched;
  for (const ManifestEntry& e : delta) touched.insert({e.partition, e.bucket});
  return CheckLevelKeyRanges(files, touched, key_types);
}

}  // namespace freshet::commit
