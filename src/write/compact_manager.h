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
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "mergetree/compact/compact_strategy.h"
#include "mergetree/compact/levels.h"
#include "meta/manifest/manifest.h"

namespace freshet::write {

// What one compaction did: `before` replaced by `after` (an upgraded file is in both, at its old
// and new level). `written`: paths of the new files, to delete when they are never committed.
struct CompactionResult {
  std::vector<meta::DataFileMeta> before;
  std::vector<meta::DataFileMeta> after;
  std::vector<std::string> written;
};

// Rewrites a picked unit of one partition-bucket. Called on the compaction thread only.
class CompactionRunner {
 public:
  virtual ~CompactionRunner() = default;
  virtual Result<CompactionResult> Run(const std::string& partition, int32_t bucket,
                                       const mergetree::compact::CompactUnit& unit,
                                       bool drop_delete, int max_level) = 0;
};

// A thread that runs tasks one after another, in submission order.
class CompactionThread {
 public:
  CompactionThread();
  // Finishes the queued tasks, then joins.
  ~CompactionThread();
  CompactionThread(const CompactionThread&) = delete;
  CompactionThread& operator=(const CompactionThread&) = delete;

  std::future<Result<CompactionResult>> Submit(std::function<Result<CompactionResult>()> task);

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<Result<CompactionResult>()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

// The compaction of one partition-bucket. Used by the writer's thread only (the rewrite runs on
// the compaction thread and touches nothing of this object).
class BucketCompactManager {
 public:
  BucketCompactManager(std::string partition, int32_t bucket, mergetree::compact::Levels levels,
                       const mergetree::compact::CompactionOptions* options,
                       std::shared_ptr<CompactionRunner> runner, CompactionThread* thread,
                       std::shared_ptr<io::FileIO> file_io);
  // Waits for a running compaction and deletes its new files: they were never committed.
  ~BucketCompactManager();

  const mergetree::compact::Levels& levels() const { return levels_; }
  bool running() const { return task_.valid(); }
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
  void DeleteFiles(const std::vector<std::string>& paths) const;

  std::string partition_;
  int32_t bucket_;
  mergetree::compact::Levels levels_;
  const mergetree::compact::CompactionOptions* options_;
  std::unique_ptr<mergetree::compact::CompactStrategy> strategy_;
  std::shared_ptr<CompactionRunner> runner_;
  CompactionThread* thread_;
  std::shared_ptr<io::FileIO> file_io_;
  std::future<Result<CompactionResult>> task_;
};

}  // namespace freshet::write
