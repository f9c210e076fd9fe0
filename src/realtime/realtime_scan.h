// Real-time scan and read: committed files of a snapshot plus the uncommitted rows in memory.
//
// Plan() takes the write watermark as its cut, pins a view of every MemIndexer, then resolves the
// snapshot and plans its disk splits, then clips memory: memory contributes the rows with offset
// in [progress(S, pb), end of the cut's Writes in pb). Memory is reclaimed only after a snapshot
// covering it is published, so the pinned view still holds every row from progress(S) on; Plan()
// checks that and fails loudly instead of returning a result with a gap.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "freshet/realtime/mem_indexer.h"
#include "freshet/realtime/realtime_context.h"
#include "read/table_read.h"
#include "scan/table_scan.h"

namespace freshet::realtime {

// One partition-bucket: its disk splits in snapshot S and its pinned uncommitted rows.
struct RealtimeSplit {
  PartitionBucket pb;
  std::vector<scan::DataSplit> disk;
  MemIndexer* indexer = nullptr;  // null: no memory part (a bucket this process never wrote)
  std::shared_ptr<const ReadView> view;
  int64_t from_offset = 0;  // progress(S, pb): memory rows below it are on disk
  int64_t end_offset = 0;   // the query's cut: memory rows at or above it are not returned
};

struct RealtimeScanPlan {
  std::shared_ptr<const meta::Snapshot> snapshot;  // null: no snapshot yet
  std::vector<RealtimeSplit> splits;
  // Keeps the indexers (and the views' owners) alive while splits are read, on any thread.
  std::shared_ptr<RealtimeContext> context;
};

// `options.snapshot_id` / `timestamp_millis` must be unset: time travel reads disk only.
Result<RealtimeScanPlan> PlanRealtimeScan(const std::shared_ptr<RealtimeContext>& context,
                                          scan::ScanOptions options);

// Reader of `splits` of `plan` (disk files, then memory, per split), through `read`; `read` and
// `plan` must outlive it. Can be called any number of times, on any thread, while the plan lives.
Result<std::unique_ptr<read::BatchReader>> CreateRealtimeReader(
    const read::TableRead& read, const RealtimeScanPlan& plan,
    const std::vector<const RealtimeSplit*>& splits);
// Every split of the plan.
Result<std::unique_ptr<read::BatchReader>> CreateRealtimeReader(const read::TableRead& read,
                                                                const RealtimeScanPlan& plan);

}  // namespace freshet::realtime
