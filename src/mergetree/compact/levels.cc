#include "mergetree/compact/levels.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace freshet::mergetree::compact {

namespace {

// Files grouped by level.
std::map<int, std::vector<meta::DataFileMeta>> ByLevel(const std::vector<meta::DataFileMeta>& in) {
  std::map<int, std::vector<meta::DataFileMeta>> out;
  for (const auto& file : in) out[file.level].push_back(file);
  return out;
}

bool HasFile(const std::vector<meta::DataFileMeta>& files, const std::string& name) {
  return std::any_of(files.begin(), files.end(),
                     [&name](const meta::DataFileMeta& f) { return f.file_name == name; });
}

// `files` without those named in `removed`.
std::vector<meta::DataFileMeta> Without(const std::vector<meta::DataFileMeta>& files,
                                        const std::vector<meta::DataFileMeta>& removed) {
  std::unordered_set<std::string> names;
  for (const auto& file : removed) names.insert(file.file_name);
  std::vector<meta::DataFileMeta> kept;
  for (const auto& file : files) {
    if (!names.contains(file.file_name)) kept.push_back(file);
  }
  return kept;
}

}  // namespace

int64_t SortedRun::TotalSize() const {
  int64_t total = 0;
  for (const auto& file : files) total += file.file_size;
  return total;
}

bool Level0Before(const meta::DataFileMeta& a, const meta::DataFileMeta& b) {
  if (a.max_sequence_number != b.max_sequence_number) {
    return a.max_sequence_number > b.max_sequence_number;
  }
  if (a.min_sequence_number != b.min_sequence_number) {
    return a.min_sequence_number < b.min_sequence_number;
  }
  if (a.creation_time_millis != b.creation_time_millis) {
    return a.creation_time_millis < b.creation_time_millis;  // unset first
  }
  return a.file_name < b.file_name;
}

Levels::Levels(std::vector<meta::DataTypePtr> key_types, int num_levels)
    : key_types_(std::move(key_types)), runs_(static_cast<size_t>(num_levels - 1)) {}

Result<Levels> Levels::Create(std::vector<meta::DataTypePtr> key_types,
                              std::vector<meta::DataFileMeta> files, int num_levels) {
  int restored = num_levels;
  for (const auto& file : files) {
    if (file.level < 0 || file.level >= kMaxLevels) {
      return Status::Corruption("data file ", file.file_name, " has level ", file.level,
                                ", outside 0 to ", kMaxLevels - 1);
    }
    restored = std::max(restored, file.level + 1);
  }
  if (restored < 2 || restored > kMaxLevels) {
    return Status::Invalid(
        "a merge tree has 2 to ", kMaxLevels, " levels, not ", restored,
        " (option num-levels, by default num-sorted-run.compaction-trigger + 1)");
  }
  Levels levels(std::move(key_types), restored);
  FRESHET_RETURN_NOT_OK(levels.Update({}, files));
  return levels;
}

int Levels::NumberOfSortedRuns() const {
  int count = static_cast<int>(level0_.size());
  for (const auto& run : runs_) count += run.empty() ? 0 : 1;
  return count;
}

int Levels::NonEmptyHighestLevel() const {
  for (int level = MaxLevel(); level >= 1; --level) {
    if (!RunOfLevel(level).empty()) return level;
  }
  return level0_.empty() ? -1 : 0;
}

int64_t Levels::TotalFileSize() const {
  int64_t total = 0;
  for (const auto& file : level0_) total += file.file_size;
  for (const auto& run : runs_) total += run.TotalSize();
  return total;
}

std::vector<LevelSortedRun> Levels::LevelSortedRuns() const {
  std::vector<LevelSortedRun> runs;
  for (const auto& file : level0_) runs.push_back(LevelSortedRun{0, SortedRun{{file}}});
  for (int level = 1; level <= MaxLevel(); ++level) {
    if (!RunOfLevel(level).empty()) runs.push_back(LevelSortedRun{level, RunOfLevel(level)});
  }
  return runs;
}

std::vector<meta::DataFileMeta> Levels::AllFiles() const {
  std::vector<meta::DataFileMeta> files = level0_;
  for (const auto& run : runs_) files.insert(files.end(), run.files.begin(), run.files.end());
  return files;
}

Status Levels::CheckUpdate(const std::vector<meta::DataFileMeta>& before,
                           const std::vector<meta::DataFileMeta>& after) const {
  auto at_its_level = [this](const meta::DataFileMeta& file) {
    if (file.level == 0) return HasFile(level0_, file.file_name);
    return file.level > 0 && file.level <= MaxLevel() &&
           HasFile(RunOfLevel(file.level).files, file.file_name);
  };
  for (const auto& file : before) {
    if (!at_its_level(file)) {
      return Status::Invalid("compaction input ", file.file_name, " is not at level ", file.level,
                             " of the merge tree");
    }
  }
  std::set<std::string> names;
  for (const auto& file : level0_) names.insert(file.file_name);
  for (const auto& run : runs_) {
    for (const auto& file : run.files) names.insert(file.file_name);
  }
  for (const auto& file : before) names.erase(file.file_name);
  for (const auto& file : after) {
    if (file.level < 0 || file.level > MaxLevel()) {
      return Status::Invalid("data file ", file.file_name, " has level ", file.level,
                             ", outside the merge tree's levels 0 to ", MaxLevel());
    }
    if (!names.insert(file.file_name).second) {
      return Status::Invalid("data file ", file.file_name, " is already in the merge tree");
    }
  }
  return Status::OK();
}

Result<SortedRun> Levels::RebuildLevel(
    int level, const std::vector<meta::DataFileMeta>& removed,
    const std::vector<meta::DataFileMeta>& added,
    std::unordered_map<std::string, FileKeyRange>* ranges) const {
  SortedRun run{Without(RunOfLevel(level).files, removed)};
  for (const auto& file : added) {
    FRESHET_ASSIGN_OR_RETURN((*ranges)[file.file_name], DecodeKeyRange(file, key_types_));
    run.files.push_back(file);
  }
  auto range_of = [&](const meta::DataFileMeta& file) -> const FileKeyRange& {
    auto it = ranges->find(file.file_name);
    return it != ranges->end() ? it->second : ranges_.at(file.file_name);
  };
  std::stable_sort(run.files.begin(), run.files.end(),
                   [&](const meta::DataFileMeta& a, const meta::DataFileMeta& b) {
                     return CompareFileKeys(range_of(a).min, range_of(b).min) < 0;
                   });
  for (size_t i = 1; i < run.files.size(); ++i) {
    if (CompareFileKeys(range_of(run.files[i]).min, range_of(run.files[i - 1]).max) <= 0) {
      return Status::Corruption("data files ", run.files[i - 1].file_name, " and ",
                                run.files[i].file_name, " of level ", level,
                                " have overlapping key ranges");
    }
  }
  return run;
}

Status Levels::Update(const std::vector<meta::DataFileMeta>& before,
                      const std::vector<meta::DataFileMeta>& after) {
  FRESHET_RETURN_NOT_OK(CheckUpdate(before, after));
  auto removed = ByLevel(before);
  auto added = ByLevel(after);
  std::set<int> touched;
  for (const auto& [level, files] : removed) touched.insert(level);
  for (const auto& [level, files] : added) touched.insert(level);
  touched.erase(0);
  // Build every changed level first, so that a failure leaves the levels as they were.
  std::unordered_map<std::string, FileKeyRange> new_ranges;
  std::map<int, SortedRun> new_runs;
  for (int level : touched) {
    FRESHET_ASSIGN_OR_RETURN(new_runs[level],
                             RebuildLevel(level, removed[level], added[level], &new_ranges));
  }
  for (const auto& [level, files] : removed) {
    if (level == 0) continue;
    for (const auto& file : files) ranges_.erase(file.file_name);
  }
  for (auto& [name, range] : new_ranges) ranges_[name] = std::move(range);
  for (auto& [level, run] : new_runs) runs_[static_cast<size_t>(level - 1)] = std::move(run);
  level0_ = Without(level0_, removed[0]);
  level0_.insert(level0_.end(), added[0].begin(), added[0].end());
  std::sort(level0_.begin(), level0_.end(), Level0Before);
  return Status::OK();
}

}  // namespace freshet::mergetree::compact
