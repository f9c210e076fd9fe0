#include "commit/index_manifest_update.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

namespace freshet::commit {

using meta::FileKind;
using meta::IndexManifestEntry;

namespace {

// One file per partition-bucket and type: the newest one wins.
std::vector<IndexManifestEntry> CombinePerBucket(std::vector<IndexManifestEntry> previous,
                                                 const std::vector<IndexManifestEntry>& changes) {
  using Key = std::tuple<std::string, int32_t, std::string>;
  auto key_of = [](const IndexManifestEntry& e) {
    return Key{e.partition, e.bucket, e.index_type};
  };
  std::map<Key, IndexManifestEntry> live;
  for (auto& e : previous) live[key_of(e)] = std::move(e);
  for (const auto& e : changes) {
    if (e.kind == FileKind::kDelete) live.erase(key_of(e));
  }
  for (const auto& e : changes) {
    if (e.kind == FileKind::kAdd) live[key_of(e)] = e;
  }
  std::vector<IndexManifestEntry> out;
  for (auto& [key, e] : live) out.push_back(std::move(e));
  return out;
}

// By file name; deletion-vector files also may not cover one data file twice.
Result<std::vector<IndexManifestEntry>> CombineByFileName(
    std::vector<IndexManifestEntry> previous, const std::vector<IndexManifestEntry>& changes,
    bool check_covered_files) {
  std::map<std::string, IndexManifestEntry> live;
  std::set<std::string> covered;
  auto covered_files = [&](const IndexManifestEntry& e) {
    std::vector<std::string> files;
    if (check_covered_files && e.deletion_vector_ranges) {
      for (const auto& range : *e.deletion_vector_ranges) files.push_back(range.data_file_name);
    }
    return files;
  };
  for (auto& e : previous) {
    for (auto& f : covered_files(e)) covered.insert(std::move(f));
    live[e.file_name] = std::move(e);
  }
  for (const auto& e : changes) {
    bool exists = live.count(e.file_name) > 0;
    if (e.kind == FileKind::kAdd) {
      if (exists) return Status::Invalid("index file ", e.file_name, " is added twice");
      for (const auto& f : covered_files(e)) {
        if (!covered.insert(f).second) {
          return Status::Invalid("data file ", f, " gets a second deletion vector (index file ",
                                 e.file_name, ")");
        }
      }
      live[e.file_name] = e;
    } else {
      if (!exists) return Status::Invalid("index file ", e.file_name, " is deleted but not live");
      for (const auto& f : covered_files(live[e.file_name])) covered.erase(f);
      live.erase(e.file_name);
    }
  }
  std::vector<IndexManifestEntry> out;
  for (auto& [name, e] : live) out.push_back(std::move(e));
  return out;
}

}  // namespace

Result<std::vector<IndexManifestEntry>> ApplyIndexChanges(
    std::vector<IndexManifestEntry> previous, const std::vector<IndexManifestEntry>& changes,
    bool unaware_bucket) {
  std::map<std::string, std::vector<IndexManifestEntry>> previous_by_type, changes_by_type;
  for (auto& e : previous) {
    if (e.kind != FileKind::kAdd) {
      return Status::Corruption("index manifest holds a DELETE entry for ", e.file_name);
    }
    previous_by_type[e.index_type].push_back(std::move(e));
  }
  for (const auto& e : changes) changes_by_type[e.index_type].push_back(e);
  for (const auto& [type, entries] : changes_by_type) previous_by_type[type];  // every type

  std::vector<IndexManifestEntry> out;
  for (auto& [type, entries] : previous_by_type) {
    const std::vector<IndexManifestEntry>& delta = changes_by_type[type];
    bool per_bucket = type == meta::kHashIndexType ||
                      (type == meta::kDeletionVectorsIndexType && !unaware_bucket);
    std::vector<IndexManifestEntry> combined;
    if (per_bucket) {
      combined = CombinePerBucket(std::move(entries), delta);
    } else {
      FRESHET_ASSIGN_OR_RETURN(
          combined,
          CombineByFileName(std::move(entries), delta, type == meta::kDeletionVectorsIndexType));
    }
    for (auto& e : combined) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace freshet::commit
