// RealtimeContext: the process-local state of one table's real-time layer (docs/realtime.md).
//
// With the table option `realtime.enabled` = true, every Table opened on the same path in this
// process shares one context: the MemIndexers holding uncommitted rows (one per
// partition-bucket), the committed progress, and the views pinned by running queries. Writers
// put rows into it, Commit flushes and publishes them, and readers of the latest snapshot see
// committed files plus uncommitted rows, with nothing missing and nothing twice.
//
//   auto table = freshet::Table::Open(path);             // realtime.enabled = true
//   auto context = (*table)->Realtime();                  // progress, memory, callbacks
//   for (const auto& p : (*context)->CommittedProgress()) // where to replay a source from
//     ...
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "freshet/export.h"

namespace freshet::realtime {

// PartitionBucketProgress and RealtimeUsage are plain values (snapshots of the context's state).

// Progress of one partition-bucket: rows with offset < `end` are in committed snapshots.
struct PartitionBucketProgress {
  std::vector<std::pair<std::string, std::string>> partition;  // (column, value) pairs
  int32_t bucket = 0;
  int64_t end = 0;
};

struct RealtimeUsage {
  int64_t memory_bytes = 0;   // held by MemIndexers, including rows already flushed
  int64_t spilled_bytes = 0;  // in spill files (the spilling MemIndexer)
  int64_t rows_in_memory = 0;
  int64_t partition_buckets = 0;
  int64_t rows_written = 0;    // since the context was made
  int64_t rows_committed = 0;  // of those, committed by this process
  int64_t soft_limit_bytes = 0;
  int64_t hard_limit_bytes = 0;
};

// Thread-safe: every method may be called from any thread at any time, concurrently with
// writes, commits and queries of the table.
class FRESHET_EXPORT RealtimeContext {
 public:
  ~RealtimeContext();

  // Committed progress per partition-bucket, as of the latest commit seen by this process (the
  // latest snapshot's when the context was made).
  std::vector<PartitionBucketProgress> CommittedProgress() const;
  RealtimeUsage Usage() const;

  // Called on a writing thread, outside freshet's locks, when held memory crosses
  // `realtime.memory.soft-limit`: the application should commit soon. Called again only after
  // memory went back below the limit.
  void SetCommitRequestCallback(std::function<void(const RealtimeUsage&)> callback);

  // Frees memory of committed rows that no query pins any more (commits do this too).
  void CollectGarbage();

  class FRESHET_NO_EXPORT Impl;

 private:
  friend class Impl;
  // The library's access to the implementation (src/realtime/context.h); not part of the API.
  friend Impl& InternalImpl(RealtimeContext& context);
  FRESHET_NO_EXPORT explicit RealtimeContext(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace freshet::realtime
