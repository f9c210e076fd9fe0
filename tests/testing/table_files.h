// Files of a table as its snapshots list them, for tests of writes and compactions (header-only:
// the tests that use it link the meta layer).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/manifest/manifest_file.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::testing {

// The live entries of snapshot `id` (default: the latest) of the table at `path`.
inline std::vector<meta::ManifestEntry> LiveEntries(const std::string& path,
                                                    std::optional<int64_t> id = std::nullopt) {
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path);
  auto latest = snapshots.LatestSnapshot();
  EXPECT_TRUE(latest.ok() && latest->has_value());
  if (!latest.ok() || !latest->has_value()) return {};
  meta::Snapshot snapshot = **latest;
  if (id) {
    auto read = snapshots.ReadSnapshot(*id);
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    if (!read.ok()) return {};
    snapshot = *read;
  }
  meta::ManifestFile manifests(file_io, path);
  auto live = meta::ReadLiveEntries(manifests, snapshot);
  EXPECT_TRUE(live.ok()) << live.status().ToString();
  return live.ok() ? *live : std::vector<meta::ManifestEntry>{};
}

// Data files on disk that no snapshot lists: what a failed write or compaction must not leave.
inline std::set<std::string> UnreferencedDataFiles(const std::string& path) {
  auto file_io = io::LocalFileIO();
  meta::SnapshotManager snapshots(file_io, path);
  meta::ManifestFile manifests(file_io, path);
  std::set<std::string> referenced;
  auto ids = snapshots.ListSnapshotIds();
  EXPECT_TRUE(ids.ok());
  if (!ids.ok()) return {};
  for (int64_t id : *ids) {
    auto snapshot = snapshots.ReadSnapshot(id);
    EXPECT_TRUE(snapshot.ok());
    if (!snapshot.ok()) continue;
    auto live = meta::ReadLiveEntries(manifests, *snapshot);
    EXPECT_TRUE(live.ok());
    if (!live.ok()) continue;
    for (const auto& e : *live) referenced.insert(e.file.file_name);
  }
  std::set<std::string> unreferenced;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("data-", 0) == 0 && !referenced.count(name)) unreferenced.insert(name);
  }
  return unreferenced;
}

}  // namespace freshet::testing
