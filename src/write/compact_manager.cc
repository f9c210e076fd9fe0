#include "write/compact_manager.h"

namespace freshet::write {

namespace mc = mergetree::compact;

CompactionThread::CompactionThread() : thread_([this] { Loop(); }) {}

CompactionThread::~CompactionThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CompactionThread::Enqueue(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void CompactionThread::Loop() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

std::optional<Result<CompactionResult>> RunningCompaction::Take(bool blocking) {
  if (!task_.valid()) return std::nullopt;
  if (!blocking && task_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return std::nullopt;
  }
  return task_.get();
}

void RunningCompaction::Discard() {
  if (!task_.valid()) return;
  Result<CompactionResult> result = task_.get();
  if (result.ok()) DeleteFiles(result->written);
}

void RunningCompaction::DeleteFiles(const std::vector<std::string>& paths) const {
  for (const std::string& path : paths) (void)file_io_->Delete(path, false);
}

BucketCompactManager::BucketCompactManager(std::string partition, int32_t bucket, mc::Levels levels,
                                           const mc::CompactionOptions* options,
                                           std::shared_ptr<CompactionRunner> runner,
                                           CompactionThread* thread,
                                           std::shared_ptr<io::FileIO> file_io)
    : partition_(std::move(partition)),
      bucket_(bucket),
      levels_(std::move(levels)),
      options_(options),
      strategy_(mc::MakeCompactStrategy(
          *options, mc::EstimateLastFullCompaction(levels_.AllFiles(), options->num_levels))),
      runner_(std::move(runner)),
      task_(thread, std::move(file_io)) {}

bool BucketCompactManager::MustWait() const {
  return mc::MustWaitForCompaction(levels_.NumberOfSortedRuns(), *options_);
}

Status BucketCompactManager::AddNewFiles(const std::vector<meta::DataFileMeta>& files) {
  return levels_.Update({}, files);
}

Status BucketCompactManager::Trigger(bool full) {
  if (task_.running()) return Status::OK();  // one at a time: its result goes in first
  std::optional<mc::CompactUnit> unit;
  if (full) {
    // Java's MergeTreeCompactManager: top-level files are rewritten to apply their deletion
    // vectors, or all of them with compaction.force-rewrite-all-files.
    mc::FullCompactionFilter filter;
    filter.force_rewrite_all_files = options_->force_rewrite_all_files;
    FRESHET_ASSIGN_OR_RETURN(filter.has_deletion_vector,
                             runner_->DeletionVectorFilter(partition_, bucket_));
    unit = mc::PickFullCompaction(levels_.NumberOfLevels(), levels_.LevelSortedRuns(), filter);
  } else {
    unit = strategy_->Pick(levels_.NumberOfLevels(), levels_.LevelSortedRuns());
    if (unit && !mc::WorthCompacting(*unit)) unit.reset();
  }
  if (!unit || unit->files.empty()) return Status::OK();
  bool drop_delete =
      mc::CanDropDelete(*unit, levels_.NonEmptyHighestLevel(), options_->deletion_vectors);
  int max_level = levels_.MaxLevel();
  UpperLevels upper_levels;
  for (int level = unit->output_level + 1; level <= max_level; ++level) {
    upper_levels.push_back(levels_.RunOfLevel(level).files);
  }
  // The task owns copies of everything it needs: the levels change on the writer's thread.
  task_.Start([runner = runner_, partition = partition_, bucket = bucket_, unit = std::move(*unit),
               drop_delete, max_level, upper_levels = std::move(upper_levels)] {
    return runner->Run(partition, bucket, unit, drop_delete, max_level, upper_levels);
  });
  return Status::OK();
}

Result<std::optional<CompactionResult>> BucketCompactManager::TakeResult(bool blocking) {
  std::optional<Result<CompactionResult>> taken = task_.Take(blocking);
  if (!taken) return std::optional<CompactionResult>();
  Result<CompactionResult>& result = *taken;
  if (!result.ok()) {
    return result.status().WithContext("compaction of bucket " + std::to_string(bucket_));
  }
  Status updated = levels_.Update(result->before, result->after);
  if (!updated.ok()) {
    task_.DeleteFiles(result->written);
    runner_->Forget(partition_, bucket_);  // its vectors named the deleted index file
    return updated.WithContext("applying a compaction of bucket " + std::to_string(bucket_));
  }
  return std::optional<CompactionResult>(std::move(*result));
}

Status BucketCompactManager::Reset(std::vector<meta::DataFileMeta> files) {
  task_.Discard();
  runner_->Forget(partition_, bucket_);
  FRESHET_ASSIGN_OR_RETURN(
      auto levels, mc::Levels::Create(levels_.key_types(), std::move(files), options_->num_levels));
  levels_ = std::move(levels);
  return Status::OK();
}

}  // namespace freshet::write
