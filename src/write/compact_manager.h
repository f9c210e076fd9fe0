// Compaction inside a primary-key writer (Java's MergeTreeCompactManager and the writer's
// single-thread compaction executor; docs/compaction.md, "Compaction in the writer").
//
// Each partition-bucket the writer touches keeps its merge tree (mergetree/compact/levels.h),
// restored from the latest snapshot and updated with every flushed file. After a flush the
// table's strategy picks what to compact; the rewrite runs on the writer's compaction thread
// while Write goes on, and its result (files replaced, files added) joins the next commit as a
// COMPACT snapshot. One compaction per bucket runs at a time; writes wait for it only when the
// bucket has more sorted runs than `num-sorted-run.stop-trigger`.
//
// The rewrite itself lives in a layer above this one (compact/); the writer gets it as a
// CompactionRunner.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "mergetree/compact/compact_strategy.h"
#include "mergetree/compact/levels.h"
#include "meta/manifest/commit_message.h"
#include "meta/manifest/manifest.h"

namespace freshet::write {

// What one compaction did: `before` replaced by `after` (an upgraded file is in both, at its old
// and new level). `written`: paths of the new files, to delete when they are never committed.
struct CompactionResult {
  std::vector<meta::DataFileMeta> before;
  std::vector<meta::DataFileMeta> after;
  std::vector<std::string> written;
  // Changelog files the compaction produced (`lookup`, `full-compaction`); their paths are in
  // `written` too.
  std::vector<meta::DataFileMeta> changelog = {};
  // Deletion vectors: the bucket's new index file (path in `written` too) and the one it
  // replaces.
  meta::IndexIncrement index_files = {};
};

// The files of the levels above a unit's output level, lowest level first: where a lookup
// compaction (deletion vectors) finds the older versions of the keys it rewrites.
using UpperLevels = std::vector<std::vector<meta::DataFileMeta>>;

// Rewrites a picked unit of one partition-bucket. Run is called on the compaction thread only.
class CompactionRunner {
 public:
  virtual ~CompactionRunner() = default;
  virtual Result<CompactionResult> Run(const std::string& partition, int32_t bucket,
                                       const mergetree::compact::CompactUnit& unit,
                                       bool drop_delete, int max_level,
                                       const UpperLevels& upper_levels) = 0;
  // Forgets what the runner keeps of a bucket between compactions (its deletion vectors): the
  // bucket's compactions were refused or aborted. Called while none of the bucket's runs.
  virtual void Forget(const std::string& /*partition*/, int32_t /*bucket*/) {}
  // Deletion-vector tables: whether a file of the bucket has a vector (a full compaction
  // rewrites such top-level files, as Java's pickFullCompaction does). An unset function
  // otherwise. Called while none of the bucket's runs.
  virtual Result<std::function<bool(const meta::DataFileMeta&)>> DeletionVectorFilter(
      const std::string& /*partition*/, int32_t /*bucket*/) {
    return std::function<bool(const meta::DataFileMeta&)>();
  }
};

// A thread that runs tasks one after another, in submission order.
class CompactionThread {
 public:
  CompactionThread();
  // Finishes the queued tasks, then joins.
  ~CompactionThread();
  CompactionThread(const CompactionThread&) = delete;
  CompactionThread& operator=(const CompactionThread&) = delete;

  // Runs `task` after those submitted before; its value (a bucket's result, or the results of
  // an append table's planned tasks) comes through the future.
  template <typename Task>
  auto Submit(Task task) -> std::future<std::invoke_result_t<Task&>> {
    using Value = std::invoke_result_t<Task&>;
    auto packaged = std::make_shared<std::packaged_task<Value()>>(std::move(task));
    auto future = packaged->get_future();
    Enqueue([packaged] { (*packaged)(); });
    return future;
  }

 private:
  void Enqueue(std::function<void()> task);
  void Loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

// The one compaction a bucket has running at a time. Used by the writer's thread only. A result
// that is dropped (destroyed while running, Discard) takes its new files with it: they were
// never committed.
class RunningCompaction {
 public:
  RunningCompaction(CompactionThread* thread, std::shared_ptr<io::FileIO> file_io)
      : thread_(thread), file_io_(std::move(file_io)) {}
  ~RunningCompaction() { Discard(); }
  RunningCompaction(const RunningCompaction&) = delete;
  RunningCompaction& operator=(const RunningCompaction&) = delete;

  bool running() const { return task_.valid(); }
  // Starts `task` on the compaction thread; one at a time (the caller checks running()).
  void Start(std::function<Result<CompactionResult>()> task) {
    task_ = thread_->Submit(std::move(task));
  }
  // The finished result, waiting for it when `blocking`; nullopt when none runs or it has not
  // finished.
  std::optional<Result<CompactionResult>> Take(bool blocking);
  // Waits for the running compaction, if any, and deletes its new files.
  void Discard();
  void DeleteFiles(const std::vector<std::string>& paths) const;

 private:
  CompactionThread* thread_;
  std::shared_ptr<io::FileIO> file_io_;
  std::future<Result<CompactionResult>> task_;
};

// The compaction of one partition-bucket. Used by the writer's thread only (the rewrite runs on
// the compaction thread and touches nothing of this object).
class BucketCompactManager {
 public:
  BucketCompactManager(std::string partition, int32_t bucket, mergetree::compact::Levels levels,
                       const mergetree::compact::CompactionOptions* options,
                       std::shared_ptr<CompactionRunner> runner, CompactionThread* thread,
                       std::shared_ptr<io::FileIO> file_io);

  const mergetree::compact::Levels& levels() const { return levels_; }
  bool running() const { return task_.running(); }
  // More sorted runs than `num-sorted-run.stop-trigger`: writes wait for the compaction.
  bool MustWait() const;

  // Files a flush wrote, at level 0.
  Status AddNewFiles(const std::vector<meta::DataFileMeta>& files);
  // Submits a compaction when none runs and one is picked: the strategy's pick, or with `full`
  // every file into the top level. A no-op while one runs: take its result first.
  Status Trigger(bool full);
  // The finished compaction's result, if there is one (waiting for a running one when
  // `blocking`); the levels are updated with it. A failed compaction is its error.
  Result<std::optional<CompactionResult>> TakeResult(bool blocking);
  // The levels rebuilt from `files` (the bucket's live files), after a running compaction has
  // finished and its files were deleted: a commit refused this writer's compaction.
  Status Reset(std::vector<meta::DataFileMeta> files);

 private:
  std::string partition_;
  int32_t bucket_;
  mergetree::compact::Levels levels_;
  const mergetree::compact::CompactionOptions* options_;
  std::unique_ptr<mergetree::compact::CompactStrategy> strategy_;
  std::shared_ptr<CompactionRunner> runner_;
  // Last: destroyed first, it waits for the running compaction and deletes its new files.
  RunningCompaction task_;
};

}  // namespace freshet::write
