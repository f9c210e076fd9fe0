#include "mergetree/interval_partition.h"

#include <algorithm>
#include <optional>
#include <queue>

#include "mergetree/file_key_range.h"

namespace freshet::mergetree {

namespace {

using Key = FileKey;

int CompareKeys(const Key& a, const Key& b) { return CompareFileKeys(a, b); }

struct FileRange {
  meta::DataFileMeta file;
  Key min;
  Key max;
};

// Packs a section's files (sorted by min key) into sorted runs: each file joins the run whose
// last file ends first, if that run ends before the file starts; else it opens a new run.
Section PackIntoRuns(std::vector<FileRange>& section) {
  struct Run {
    std::vector<FileRange*> files;
  };
  std::vector<Run> runs;
  auto ends_later = [&runs](size_t a, size_t b) {
    return CompareKeys(runs[a].files.back()->max, runs[b].files.back()->max) > 0;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(ends_later)> by_end(ends_later);
  for (FileRange& file : section) {
    if (!by_end.empty() && CompareKeys(runs[by_end.top()].files.back()->max, file.min) < 0) {
      size_t run = by_end.top();
      by_end.pop();
      runs[run].files.push_back(&file);
      by_end.push(run);
    } else {
      runs.push_back(Run{{&file}});
      by_end.push(runs.size() - 1);
    }
  }
  Section result;
  while (!by_end.empty()) {
    SortedRunFiles run;
    for (FileRange* file : runs[by_end.top()].files) run.push_back(std::move(file->file));
    by_end.pop();
    result.push_back(std::move(run));
  }
  return result;
}

}  // namespace

Result<std::vector<Section>> PartitionIntoSections(
    std::vector<meta::DataFileMeta> files, const std::vector<meta::DataTypePtr>& key_types) {
  std::vector<FileRange> ranges;
  ranges.reserve(files.size());
  for (auto& file : files) {
    FRESHET_ASSIGN_OR_RETURN(FileKeyRange range, DecodeKeyRange(file, key_types));
    ranges.push_back(FileRange{std::move(file), std::move(range.min), std::move(range.max)});
  }
  std::stable_sort(ranges.begin(), ranges.end(), [](const FileRange& a, const FileRange& b) {
    int c = CompareKeys(a.min, b.min);
    return c != 0 ? c < 0 : CompareKeys(a.max, b.max) < 0;
  });
  std::vector<Section> sections;
  std::vector<FileRange> section;
  std::optional<Key> bound;  // the highest max key of the section so far
  for (FileRange& range : ranges) {
    if (!section.empty() && CompareKeys(range.min, *bound) > 0) {
      sections.push_back(PackIntoRuns(section));
      section.clear();
      bound.reset();
    }
    if (!bound || CompareKeys(range.max, *bound) > 0) bound = range.max;
    section.push_back(std::move(range));
  }
  if (!section.empty()) sections.push_back(PackIntoRuns(section));
  return sections;
}

}  // namespace freshet::mergetree
