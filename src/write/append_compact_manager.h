// Compaction of append tables (docs/compaction.md, "Append tables"): what Java's
// BucketedAppendCompactManager picks in a fixed-bucket writer, what its AppendCompactCoordinator
// packs for unaware-bucket tables, and the writer-side state around a running compaction.
//
// Append files are never merged by key: a compaction concatenates small files, in the order
// readers concatenate them (by min sequence number), into new files whose sequence numbers start
// at the first file's. The rewrite itself lives in compact/ (an AppendRewriter).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "freshet/result.h"
#include "io/file_io.h"
#include "meta/manifest/manifest.h"
#include "meta/schema/table_schema.h"
#include "write/compact_manager.h"

namespace freshet::write {

// The options Java's append compaction reads.
struct AppendCompactOptions {
  int32_t min_file_num = 5;              // compaction.min.file-num
  int32_t file_num_limit = 100000;       // compaction.file-num-limit (unaware-bucket planning)
  int64_t target_file_size = 0;          // target-file-size (256 mb for append tables)
  int64_t compaction_file_size = 0;      // files below it are small: target-file-size / 10 * 7
  int64_t open_file_cost = 0;            // source.split.open-file-cost (unaware-bucket packing)
  bool force_rewrite_all_files = false;  // compaction.force-rewrite-all-files
  bool force_compact = false;            // commit.force-compact: commits wait for compaction
  bool write_only = false;               // write-only: writers do not compact

  static Result<AppendCompactOptions> FromTableOptions(const meta::TableSchema& schema);
};

// Rewrites files of one partition-bucket, in the given order, into new files (file source
// COMPACT) whose sequence numbers start at the first file's min sequence number. Called on a
// compaction thread; on failure it deletes what it wrote.
class AppendRewriter {
 public:
  virtual ~AppendRewriter() = default;
  virtual Result<CompactionResult> Rewrite(const std::string& partition, int32_t bucket,
                                           const std::vector<meta::DataFileMeta>& files) = 0;
};

// Orders files as append readers concatenate them: by min sequence number (then name, so that
// equal numbers, as unaware-bucket writers leave them, order the same everywhere).
void SortBySequence(std::vector<meta::DataFileMeta>* files);

// Java's best-effort pick over `queue` (sorted by SortBySequence): a window of consecutive
// files grows from the oldest one until it holds `compaction.min.file-num` files; while it is
// at least twice `target-file-size`, its oldest file leaves it. Files that left the window
// leave the queue (Java's writer forgets them); the picked ones leave it too.
std::optional<std::vector<meta::DataFileMeta>> PickCompactBefore(
    std::vector<meta::DataFileMeta>* queue, const AppendCompactOptions& options);

// Java's full compaction of a bucket's `files` (sorted): nothing (empty) with fewer than three
// files; otherwise the files after the leading large ones, if the small files outnumber the
// large ones and there are at least three. With `compaction.force-rewrite-all-files`, every file.
std::vector<meta::DataFileMeta> PickFullCompaction(const std::vector<meta::DataFileMeta>& files,
                                                   const AppendCompactOptions& options);

// Compaction results of one partition-bucket not committed yet, merged as Java's
// CompactIncrement: a file a pending compaction wrote and a later one replaced leaves both lists
// and the disk (append compaction never upgrades a file, so it was this writer's).
struct PendingCompaction {
  std::vector<meta::DataFileMeta> before;
  std::vector<meta::DataFileMeta> after;
  std::vector<std::string> written;

  bool empty() const { return before.empty() && after.empty(); }
  void Add(CompactionResult result, io::FileIO& file_io);
  // Deletes the new files (never committed) and forgets everything.
  void Discard(io::FileIO& file_io);
};

// The compaction of one fixed bucket in a writer: Java's BucketedAppendCompactManager. Used by
// the writer's thread only.
class AppendBucketCompactManager {
 public:
  // `restored`: the bucket's live files in the latest snapshot.
  AppendBucketCompactManager(std::string partition, int32_t bucket,
                             std::vector<meta::DataFileMeta> restored,
                             const AppendCompactOptions* options,
                             std::shared_ptr<AppendRewriter> rewriter, CompactionThread* thread,
                             std::shared_ptr<io::FileIO> file_io);

  // Files waiting to be picked, oldest first.
  const std::vector<meta::DataFileMeta>& to_compact() const { return to_compact_; }
  bool running() const { return task_.running(); }

  // Files a flush wrote (a file already known is not added twice).
  void AddNewFiles(const std::vector<meta::DataFileMeta>& files);
  // Starts the best-effort pick's compaction, or with `full` a full compaction, unless one
  // runs (its result goes in first) or nothing is picked.
  void Trigger(bool full);
  // The finished compaction's result, if any (waiting when `blocking`). Its last new file goes
  // back to the queue when it is still small, as in Java.
  Result<std::optional<CompactionResult>> TakeResult(bool blocking);
  // The queue rebuilt from `files` (the bucket's live files) after the running compaction was
  // discarded: a commit refused this writer's compaction.
  void Reset(std::vector<meta::DataFileMeta> files);

 private:
  void Start(std::vector<meta::DataFileMeta> files);

  std::string partition_;
  int32_t bucket_;
  const AppendCompactOptions* options_;
  std::shared_ptr<AppendRewriter> rewriter_;
  std::vector<meta::DataFileMeta> to_compact_;
  RunningCompaction task_;  // last: destroyed first, it discards a running compaction
};

// One compaction Java's AppendCompactCoordinator plans for an unaware-bucket table: files of
// one partition, rewritten together (bucket 0).
struct AppendCompactTask {
  std::string partition;
  std::vector<meta::DataFileMeta> files;  // sorted by SortBySequence
};

// Java's AppendCompactCoordinator: the small files (below the compaction file size) of each
// partition are sorted by size and packed into bins; a bin of two files or more is a task once
// its files, each weighing its size plus `source.split.open-file-cost`, reach twice
// `target-file-size`; what is left is a task when it has `compaction.min.file-num` files. A
// partition whose files packed nothing for more than five plans in a row (no new small file
// meanwhile) has all of them compacted, as the streaming coordinator ages them out.
class AppendCompactCoordinator {
 public:
  explicit AppendCompactCoordinator(const AppendCompactOptions* options) : options_(options) {}

  // `live`: serialized partition -> its live files. `full`: the rest of each partition is a task
  // whenever it has two files or more (freshet's full compaction of unaware-bucket tables).
  // At most `compaction.file-num-limit` small files are considered, as Java's scan.
  std::vector<AppendCompactTask> Plan(
      const std::map<std::string, std::vector<meta::DataFileMeta>>& live, bool full);

 private:
  std::vector<std::vector<meta::DataFileMeta>> Pack(std::vector<meta::DataFileMeta> files,
                                                    bool take_rest) const;

  const AppendCompactOptions* options_;
  struct Age {
    int plans = 0;                      // plans in a row that packed nothing
    std::set<std::string> small_files;  // seen at the last plan
  };
  std::map<std::string, Age> ages_;
};

}  // namespace freshet::write
