#include "write/append_compact_manager.h"

#include <algorithm>
#include <tuple>

#include "meta/options/core_options.h"
#include "meta/options/option_registry.h"

namespace freshet::write {

namespace {

// Java's AppendCompactCoordinator: plans that pack nothing before a partition is compacted
// whole (COMPACT_AGE), and its full compaction's least number of files (FULL_COMPACT_MIN_FILE).
constexpr int kCompactAge = 5;
constexpr size_t kFullCompactMinFiles = 3;

bool SequenceOrder(const meta::DataFileMeta& a, const meta::DataFileMeta& b) {
  return std::tie(a.min_sequence_number, a.file_name) <
         std::tie(b.min_sequence_number, b.file_name);
}

}  // namespace

Result<AppendCompactOptions> AppendCompactOptions::FromTableOptions(
    const meta::TableSchema& schema) {
  const auto& options = schema.options();
  FRESHET_ASSIGN_OR_RETURN(auto core, meta::CoreOptions::Make(options, false));
  AppendCompactOptions out;
  FRESHET_ASSIGN_OR_RETURN(out.min_file_num,
                           meta::GetIntOption(options, "compaction.min.file-num"));
  FRESHET_ASSIGN_OR_RETURN(out.file_num_limit,
                           meta::GetIntOption(options, "compaction.file-num-limit"));
  FRESHET_ASSIGN_OR_RETURN(out.force_rewrite_all_files,
                           meta::GetBoolOption(options, "compaction.force-rewrite-all-files"));
  FRESHET_ASSIGN_OR_RETURN(out.force_compact, meta::GetBoolOption(options, "commit.force-compact"));
  out.target_file_size = core.target_file_size();
  // Java 1.x: target-file-size / 10 * 7, in integer steps.
  out.compaction_file_size = out.target_file_size / 10 * 7;
  out.open_file_cost = core.source_split_open_file_cost();
  out.write_only = core.write_only();
  return out;
}

void SortBySequence(std::vector<meta::DataFileMeta>* files) {
  std::sort(files->begin(), files->end(), SequenceOrder);
}

std::optional<std::vector<meta::DataFileMeta>> PickCompactBefore(
    std::vector<meta::DataFileMeta>* queue, const AppendCompactOptions& options) {
  size_t begin = 0;  // the window is queue[begin, end)
  int64_t window_size = 0;
  for (size_t end = 1; end <= queue->size(); ++end) {
    window_size += (*queue)[end - 1].file_size;
    if (static_cast<int64_t>(end - begin) >= options.min_file_num) {
      std::vector<meta::DataFileMeta> picked(queue->begin() + static_cast<ptrdiff_t>(begin),
                                             queue->begin() + static_cast<ptrdiff_t>(end));
      queue->erase(queue->begin(), queue->begin() + static_cast<ptrdiff_t>(end));
      return picked;
    }
    if (window_size >= options.target_file_size * 2) {
      window_size -= (*queue)[begin].file_size;
      ++begin;
    }
  }
  // Nothing picked: the files that slid out of the window are forgotten, as Java drops them.
  queue->erase(queue->begin(), queue->begin() + static_cast<ptrdiff_t>(begin));
  return std::nullopt;
}

std::vector<meta::DataFileMeta> PickFullCompaction(const std::vector<meta::DataFileMeta>& files,
                                                   const AppendCompactOptions& options) {
  if (options.force_rewrite_all_files) return files;
  if (files.size() < kFullCompactMinFiles) return {};
  auto first_small = std::find_if(files.begin(), files.end(), [&](const auto& file) {
    return file.file_size < options.compaction_file_size;
  });
  std::vector<meta::DataFileMeta> rest(first_small, files.end());
  auto small = std::count_if(rest.begin(), rest.end(), [&](const auto& file) {
    return file.file_size < options.compaction_file_size;
  });
  auto large = static_cast<ptrdiff_t>(rest.size()) - small;
  if (small > large && rest.size() >= kFullCompactMinFiles) return rest;
  return {};
}

void PendingCompaction::Add(CompactionResult result, io::FileIO& file_io) {
  for (auto& file : result.before) {
    auto pending = std::find_if(after.begin(), after.end(), [&](const auto& written_file) {
      return written_file.file_name == file.file_name;
    });
    if (pending == after.end()) {
      before.push_back(std::move(file));
      continue;
    }
    // Written by an earlier compaction of this commit and replaced already: it never lands.
    after.erase(pending);
    std::vector<std::string> names = file.extra_files;  // its `.index` file goes with it
    names.push_back(file.file_name);
    for (const std::string& name : names) {
      const std::string suffix = "/" + name;
      auto path = std::find_if(written.begin(), written.end(), [&](const std::string& p) {
        return p.size() >= suffix.size() &&
               p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0;
      });
      if (path != written.end()) {
        (void)file_io.Delete(*path, false);
        written.erase(path);
      }
    }
  }
  for (auto& file : result.after) after.push_back(std::move(file));
  for (auto& path : result.written) written.push_back(std::move(path));
}

void PendingCompaction::Discard(io::FileIO& file_io) {
  for (const auto& path : written) (void)file_io.Delete(path, false);
  before.clear();
  after.clear();
  written.clear();
}

AppendBucketCompactManager::AppendBucketCompactManager(std::string partition, int32_t bucket,
                                                       std::vector<meta::DataFileMeta> restored,
                                                       const AppendCompactOptions* options,
                                                       std::shared_ptr<AppendRewriter> rewriter,
                                                       CompactionThread* thread,
                                                       std::shared_ptr<io::FileIO> file_io)
    : partition_(std::move(partition)),
      bucket_(bucket),
      options_(options),
      rewriter_(std::move(rewriter)),
      to_compact_(std::move(restored)),
      task_(thread, std::move(file_io)) {
  SortBySequence(&to_compact_);
}

void AppendBucketCompactManager::AddNewFiles(const std::vector<meta::DataFileMeta>& files) {
  for (const auto& file : files) {
    bool known = std::any_of(to_compact_.begin(), to_compact_.end(),
                             [&](const auto& f) { return f.file_name == file.file_name; });
    if (!known) to_compact_.push_back(file);
  }
  SortBySequence(&to_compact_);
}

void AppendBucketCompactManager::Trigger(bool full) {
  if (task_.running()) return;
  if (full) {
    std::vector<meta::DataFileMeta> picked = PickFullCompaction(to_compact_, *options_);
    // Java submits its full compaction with three files or more and forgets them all then,
    // whether the task rewrites them or not.
    if (to_compact_.size() >= kFullCompactMinFiles || options_->force_rewrite_all_files) {
      to_compact_.clear();
    }
    if (!picked.empty()) Start(std::move(picked));
    return;
  }
  std::optional<std::vector<meta::DataFileMeta>> picked =
      PickCompactBefore(&to_compact_, *options_);
  if (picked) Start(std::move(*picked));
}

void AppendBucketCompactManager::Start(std::vector<meta::DataFileMeta> files) {
  // The task owns copies of what it needs: the queue changes on the writer's thread.
  task_.Start([rewriter = rewriter_, partition = partition_, bucket = bucket_,
               files = std::move(files)] { return rewriter->Rewrite(partition, bucket, files); });
}

Result<std::optional<CompactionResult>> AppendBucketCompactManager::TakeResult(bool blocking) {
  std::optional<Result<CompactionResult>> taken = task_.Take(blocking);
  if (!taken) return std::optional<CompactionResult>();
  if (!taken->ok()) {
    return taken->status().WithContext("compaction of bucket " + std::to_string(bucket_));
  }
  CompactionResult result = std::move(**taken);
  if (!result.after.empty() && result.after.back().file_size < options_->compaction_file_size) {
    to_compact_.push_back(result.after.back());
    SortBySequence(&to_compact_);
  }
  return std::optional<CompactionResult>(std::move(result));
}

void AppendBucketCompactManager::Reset(std::vector<meta::DataFileMeta> files) {
  task_.Discard();
  to_compact_ = std::move(files);
  SortBySequence(&to_compact_);
}

std::vector<AppendCompactTask> AppendCompactCoordinator::Plan(
    const std::map<std::string, std::vector<meta::DataFileMeta>>& live, bool full) {
  std::vector<AppendCompactTask> tasks;
  int64_t budget = options_->file_num_limit;
  for (const auto& [partition, files] : live) {
    std::vector<meta::DataFileMeta> small;
    for (const auto& file : files) {
      if (budget <= 0) break;
      if (file.file_size >= options_->compaction_file_size) continue;
      small.push_back(file);
      --budget;
    }
    Age& age = ages_[partition];
    std::set<std::string> names;
    for (const auto& file : small) names.insert(file.file_name);
    bool new_files = std::any_of(names.begin(), names.end(),
                                 [&](const auto& name) { return !age.small_files.count(name); });
    if (new_files) age.plans = 0;
    std::vector<std::vector<meta::DataFileMeta>> packed = Pack(small, full);
    if (packed.empty() && ++age.plans > kCompactAge && small.size() > 1) {
      packed.push_back(std::move(small));
    }
    for (auto& pack : packed) {
      for (const auto& file : pack) names.erase(file.file_name);
      SortBySequence(&pack);
      tasks.push_back(AppendCompactTask{partition, std::move(pack)});
    }
    age.small_files = std::move(names);
  }
  return tasks;
}

std::vector<std::vector<meta::DataFileMeta>> AppendCompactCoordinator::Pack(
    std::vector<meta::DataFileMeta> files, bool take_rest) const {
  // Smallest first, so that bins fill with as many files as they can take.
  std::stable_sort(files.begin(), files.end(),
                   [](const auto& a, const auto& b) { return a.file_size < b.file_size; });
  std::vector<std::vector<meta::DataFileMeta>> packed;
  std::vector<meta::DataFileMeta> bin;
  int64_t weight = 0;
  for (auto& file : files) {
    weight += file.file_size + options_->open_file_cost;
    bin.push_back(std::move(file));
    if (bin.size() > 1 && weight >= options_->target_file_size * 2) {
      packed.push_back(std::move(bin));
      bin.clear();
      weight = 0;
    }
  }
  size_t least = take_rest ? 2 : static_cast<size_t>(std::max(options_->min_file_num, 1));
  if (bin.size() >= least) packed.push_back(std::move(bin));
  return packed;
}

}  // namespace freshet::write
