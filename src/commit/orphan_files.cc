#include "commit/orphan_files.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::commit {

using meta::Snapshot;

namespace {

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The directories whose files may be orphans, each with the name prefixes a file there must have
// to be a candidate (empty: any name that is not hidden). Never snapshot/, schema/, tag/,
// consumer/, changelog/ or branch/ content.
struct CandidateDir {
  std::string path;
  std::vector<std::string_view> prefixes;
};

// `<table>/<k1=v1>/.../bucket-N` directories, `levels` partition levels deep (Java's
// listFileDirs: partition directories contain '=', bucket directories start with "bucket-").
Status ListBucketDirs(io::FileIO& file_io, const std::string& dir, size_t levels,
                      std::vector<CandidateDir>* out) {
  FRESHET_ASSIGN_OR_RETURN(auto children, file_io.ListDir(dir));
  for (const io::FileInfo& child : children) {
    if (!child.is_dir) continue;
    if (levels == 0) {
      if (StartsWith(child.name, "bucket-")) out->push_back({child.path, {}});
    } else if (child.name.find('=') != std::string::npos) {
      FRESHET_RETURN_NOT_OK(ListBucketDirs(file_io, child.path, levels - 1, out));
    }
  }
  return Status::OK();
}

// Reads the snapshot-shaped JSON files `<dir>/<prefix>*` (tags, changelogs).
Result<std::vector<Snapshot>> ReadSnapshotFiles(io::FileIO& file_io, const std::string& dir,
                                                std::string_view prefix) {
  std::vector<Snapshot> out;
  FRESHET_ASSIGN_OR_RETURN(auto infos, file_io.ListDir(dir));
  for (const io::FileInfo& info : infos) {
    if (info.is_dir || !StartsWith(info.name, prefix)) continue;
    Result<std::string> text = file_io.ReadFile(info.path);
    if (!text.ok() && text.status().IsNotFound()) continue;  // deleted since the listing
    FRESHET_RETURN_NOT_OK(text.status());
    FRESHET_ASSIGN_OR_RETURN(Snapshot s, Snapshot::FromJson(*text, info.path));
    out.push_back(std::move(s));
  }
  return out;
}

// The names of every file the snapshots reference. Manifests are read once each.
class UsedFiles {
 public:
  UsedFiles(std::shared_ptr<io::FileIO> file_io, const std::string& table_path)
      : manifests_(std::move(file_io), table_path) {}

  // Adds what `s` references. With `tolerant`, NotFound of any of its files drops the rest of
  // the snapshot (Java's retryReadingFiles default): it is being expired.
  Status Add(const Snapshot& s, bool tolerant) {
    Status st = AddStrict(s);
    if (tolerant && st.IsNotFound()) return Status::OK();
    return st.WithContext("reading what snapshot " + std::to_string(s.id) + " references");
  }

  const std::set<std::string>& names() const { return names_; }

 private:
  Status AddStrict(const Snapshot& s) {
    std::vector<std::string> lists = {s.base_manifest_list, s.delta_manifest_list};
    if (s.changelog_manifest_list) lists.push_back(*s.changelog_manifest_list);
    for (const std::string& list : lists) {
      if (list.empty()) continue;
      names_.insert(list);
      FRESHET_ASSIGN_OR_RETURN(auto metas, manifests_.ReadManifestList(list));
      for (const meta::ManifestFileMeta& m : metas) FRESHET_RETURN_NOT_OK(AddManifest(m.file_name));
    }
    if (s.index_manifest) {
      names_.insert(*s.index_manifest);
      FRESHET_ASSIGN_OR_RETURN(auto index, manifests_.ReadIndexManifest(*s.index_manifest));
      for (const meta::IndexManifestEntry& e : index) names_.insert(e.file_name);
    }
    if (s.statistics) names_.insert(*s.statistics);
    return Status::OK();
  }

  // ADD and DELETE entries alike, as Java does: a file a snapshot's manifests name stays.
  Status AddManifest(const std::string& name) {
    names_.insert(name);
    if (!read_manifests_.insert(name).second) return Status::OK();
    FRESHET_ASSIGN_OR_RETURN(auto entries, manifests_.ReadManifest(name));
    for (const meta::ManifestEntry& e : entries) {
      names_.insert(e.file.file_name);
      for (const std::string& extra : e.file.extra_files) names_.insert(extra);
      if (e.file.external_path) names_.insert(std::string(io::BaseName(*e.file.external_path)));
    }
    return Status::OK();
  }

  meta::ManifestFile manifests_;
  std::set<std::string> read_manifests_;
  std::set<std::string> names_;
};

}  // namespace

Result<OrphanCleanResult> RemoveOrphanFiles(std::shared_ptr<io::FileIO> file_io,
                                            const std::string& table_path,
                                            const meta::TableSchema& schema,
                                            const OrphanCleanOptions& options) {
  // Branches keep their own snapshots, whose data files lie in the main bucket directories.
  FRESHET_ASSIGN_OR_RETURN(auto branches, file_io->ListDir(io::JoinPath(table_path, "branch")));
  for (const io::FileInfo& b : branches) {
    if (b.is_dir && StartsWith(b.name, "branch-")) {
      return Status::NotImplemented("removing orphan files of a table with branches (", b.name,
                                    ")");
    }
  }

  // 1. Candidates, listed before any snapshot is read.
  std::vector<CandidateDir> dirs = {
      {io::JoinPath(table_path, "manifest"), {"manifest-", "index-manifest-"}},
      {io::JoinPath(table_path, "index"), {"index-"}},
      {io::JoinPath(table_path, "statistics"), {"stat-"}},
  };
  FRESHET_RETURN_NOT_OK(
      ListBucketDirs(*file_io, table_path, schema.partition_keys().size(), &dirs));
  std::map<std::string, std::vector<io::FileInfo>> candidates;  // by name
  for (const CandidateDir& dir : dirs) {
    FRESHET_ASSIGN_OR_RETURN(auto files, file_io->ListDir(dir.path));
    for (io::FileInfo& f : files) {
      if (f.is_dir || StartsWith(f.name, ".")) continue;
      if (f.modification_time_ms >= options.older_than_millis) continue;  // may be committed yet
      if (!dir.prefixes.empty() &&
          std::none_of(dir.prefixes.begin(), dir.prefixes.end(),
                       [&](std::string_view p) { return StartsWith(f.name, p); })) {
        continue;
      }
      candidates[f.name].push_back(std::move(f));
    }
  }
  OrphanCleanResult result;
  if (candidates.empty()) return result;

  // 2. What is used: every snapshot, tag and changelog, read after the listing.
  meta::SnapshotManager snapshot_manager(file_io, table_path);
  FRESHET_ASSIGN_OR_RETURN(std::vector<int64_t> ids, snapshot_manager.ListSnapshotIds());
  UsedFiles used(file_io, table_path);
  for (int64_t id : ids) {
    Result<Snapshot> s = snapshot_manager.ReadSnapshot(id);
    if (!s.ok() && s.status().IsNotFound()) continue;  // expired since the listing
    FRESHET_RETURN_NOT_OK(s.status());
    // Only a snapshot older than the latest can be expiring while we read it.
    FRESHET_RETURN_NOT_OK(used.Add(*s, /*tolerant=*/id != ids.back()));
  }
  FRESHET_ASSIGN_OR_RETURN(auto tags,
                           ReadSnapshotFiles(*file_io, io::JoinPath(table_path, "tag"), "tag-"));
  for (const Snapshot& s : tags) FRESHET_RETURN_NOT_OK(used.Add(s, false));
  FRESHET_ASSIGN_OR_RETURN(
      auto changelogs,
      ReadSnapshotFiles(*file_io, io::JoinPath(table_path, "changelog"), "changelog-"));
  for (const Snapshot& s : changelogs) FRESHET_RETURN_NOT_OK(used.Add(s, true));

  // 3. Delete the candidates nothing names.
  std::string prefix = table_path;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  for (const auto& [name, files] : candidates) {
    if (used.names().count(name)) continue;
    for (const io::FileInfo& f : files) {
      OrphanFile orphan;
      orphan.path = StartsWith(f.path, prefix) ? f.path.substr(prefix.size()) : f.path;
      orphan.size = f.size;
      orphan.modification_time_ms = f.modification_time_ms;
      result.files.push_back(std::move(orphan));
    }
  }
  std::sort(result.files.begin(), result.files.end(),
            [](const OrphanFile& a, const OrphanFile& b) { return a.path < b.path; });
  for (const OrphanFile& f : result.files) {
    if (!options.dry_run) {
      FRESHET_RETURN_NOT_OK(file_io->Delete(io::JoinPath(table_path, f.path), false)
                                .WithContext("removing orphan file " + f.path));
    }
    result.total_bytes += f.size;
  }
  return result;
}

}  // namespace freshet::commit
