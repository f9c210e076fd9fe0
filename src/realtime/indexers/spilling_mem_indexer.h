// SpillingMemIndexer: the "spilling" MemIndexer plugin. The building segment is the columnar
// plugin's; sealed segments move to local Arrow IPC files when memory is short.
//
// Table options:
//   realtime.spill.dir               (required) local directory for spill files, created on
//                                    first spill.
//   realtime.spill.memory-threshold  spill while the indexer's memory bytes exceed this (a
//                                    memory size such as "64 mb"); default 0: spill every sealed
//                                    segment.
//
// When: never under the write lock (SealForCommit stays cheap), but at the first of
// CreateCommitReaders for the segment (the flush thread reads it anyway) and Reclaim (oldest
// sealed segments first). Views pinned before a spill keep reading the in-memory arrays until
// they are released; views acquired after read the file (memory-mapped). A spill that fails (I/O
// error) leaves the segment in memory; the error is returned by CreateCommitReaders, or kept for
// last_spill_status() when Reclaim spilled.
//
// Usage(): bytes and rows are what is still in memory; spilled_bytes is the files on disk.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "meta/options/option_registry.h"
#include "realtime/indexers/columnar_mem_indexer.h"

namespace freshet::realtime {

class SpillingMemIndexer final : public ColumnarMemIndexer {
 public:
  static constexpr const char* kDirOption = "realtime.spill.dir";
  static constexpr const char* kThresholdOption = "realtime.spill.memory-threshold";

  static Result<std::unique_ptr<SpillingMemIndexer>> Make(const MemIndexerOptions& options);

  Result<RowBatchReaders> CreateCommitReaders(
      const std::shared_ptr<SealedSegment>& segment) override;

  // The error of the latest failed spill, OK if the latest spill succeeded or there was none.
  Status last_spill_status() const;

 private:
  SpillingMemIndexer(const MemIndexerOptions& options, std::string dir, int64_t threshold);

  void AfterReclaim() override;
  bool OverThreshold() const;
  // Moves the entry's rows to a file if they are still in memory; records the outcome.
  Status Spill(SegmentEntry& entry);
  Status WriteAndSwap(SegmentEntry& entry);

  const std::string dir_;
  const int64_t threshold_;
  mutable std::mutex status_mu_;
  Status last_spill_status_;
};

std::shared_ptr<MemIndexerFactory> MakeSpillingMemIndexerFactory();
// The table options the plugin reads (kDirOption, kThresholdOption), declared to the option
// registry when the plugin is registered (realtime/indexers/mem_indexer_registry.h).
std::vector<meta::OptionDef> SpillingMemIndexerOptions();

}  // namespace freshet::realtime
