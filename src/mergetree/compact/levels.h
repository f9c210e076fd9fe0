// Levels: the data files of one bucket's merge tree, by level, as Java Paimon's Levels keeps them
// (docs/compaction.md). Pure bookkeeping: no I/O.
//
// Level 0 holds files whose key ranges may overlap, each one a sorted run of its own, newest
// first. Every level above holds one sorted run: files in key order whose key ranges do not
// overlap. Compaction strategies (mergetree/compact/compact_strategy.h) pick from
// LevelSortedRuns(); a rewrite's inputs and outputs go back in with Update().
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "freshet/result.h"
#include "mergetree/file_key_range.h"
#include "meta/manifest/manifest.h"
#include "meta/types/data_type.h"

namespace freshet::mergetree::compact {

// Files whose key ranges do not overlap, in key order (Java's SortedRun).
struct SortedRun {
  std::vector<meta::DataFileMeta> files;

  // The sum of the files' sizes.
  int64_t TotalSize() const;
  bool empty() const { return files.empty(); }
};

// A sorted run and its level (Java's LevelSortedRun).
struct LevelSortedRun {
  int level = 0;
  SortedRun run;
};

// Java's order of level-0 files: larger max sequence number first; then smaller min sequence
// number, earlier creation time (unset first) and file name. True when `a` comes before `b`.
bool Level0Before(const meta::DataFileMeta& a, const meta::DataFileMeta& b);

class Levels {
 public:
  // Java has no bound; this one keeps a hostile `num-levels` or file level from exhausting memory.
  static constexpr int kMaxLevels = 1024;

  // `key_types`: the types of the trimmed primary key, which `min_key`/`max_key` rows hold.
  // `files` are placed at their `level`; there are max(num_levels, highest level + 1) levels.
  // Invalid with fewer than 2 or more than kMaxLevels levels, or when a file name appears twice;
  // Corruption when a file's level is negative or not below kMaxLevels, a key cannot be decoded
  // or the files of a level above 0 overlap.
  static Result<Levels> Create(std::vector<meta::DataTypePtr> key_types,
                               std::vector<meta::DataFileMeta> files, int num_levels);

  const std::vector<meta::DataTypePtr>& key_types() const { return key_types_; }
  int NumberOfLevels() const { return static_cast<int>(runs_.size()) + 1; }
  int MaxLevel() const { return static_cast<int>(runs_.size()); }
  // Level-0 files plus non-empty levels above (the count the compaction triggers compare).
  int NumberOfSortedRuns() const;
  // The highest level holding a file; -1 when there is none.
  int NonEmptyHighestLevel() const;
  int64_t TotalFileSize() const;

  // Level 0, newest first (Level0Before).
  const std::vector<meta::DataFileMeta>& Level0() const { return level0_; }
  // The run of `level`, 1 <= level <= MaxLevel().
  const SortedRun& RunOfLevel(int level) const { return runs_[static_cast<size_t>(level - 1)]; }
  // Each level-0 file as a run, then each non-empty level above, lowest first.
  std::vector<LevelSortedRun> LevelSortedRuns() const;
  // Every file, in LevelSortedRuns() order.
  std::vector<meta::DataFileMeta> AllFiles() const;

  // Removes `before` (the inputs of a rewrite, found by file name at their `level`) and adds
  // `after` (its outputs, or a new level-0 file) at their `level`. An upgraded file is in both,
  // at its old and its new level. Invalid (and nothing changes) when a `before` file is not
  // there, an `after` file is already there or its level is not below NumberOfLevels();
  // Corruption when a key cannot be decoded or a level above 0 would overlap.
  Status Update(const std::vector<meta::DataFileMeta>& before,
                const std::vector<meta::DataFileMeta>& after);

 private:
  Levels(std::vector<meta::DataTypePtr> key_types, int num_levels);
  Status CheckUpdate(const std::vector<meta::DataFileMeta>& before,
                     const std::vector<meta::DataFileMeta>& after) const;
  // The files of `level` (>= 1) after removing `removed` names and adding `added`, in key order;
  // Corruption when they overlap.
  Result<SortedRun> RebuildLevel(int level, const std::vector<meta::DataFileMeta>& removed,
                                 const std::vector<meta::DataFileMeta>& added,
                                 std::unordered_map<std::string, FileKeyRange>* ranges) const;

  std::vector<meta::DataTypePtr> key_types_;
  std::vector<meta::DataFileMeta> level0_;  // kept sorted by Level0Before
  std::vector<SortedRun> runs_;             // levels 1 .. MaxLevel()
  // Decoded key ranges of the files above level 0, by file name.
  std::unordered_map<std::string, FileKeyRange> ranges_;
};

}  // namespace freshet::mergetree::compact
