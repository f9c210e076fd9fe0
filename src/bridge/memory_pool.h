// The memory pool of freshet's data path: large blocks recycled, kept out of Arrow's huge-page
// arena.
//
// Why: reading or writing a data file allocates the same large buffers over and over (a row
// group's encoded pages, page buffers, 4,096-row output arrays). Arrow's default allocator
// (mimalloc) serves them from a 1 GiB arena advised for transparent huge pages and returns freed
// pages to the kernel after a delay; each reuse then faults in a fresh 2 MiB page, which the kernel
// may first have to compact memory for. On the 2-core VM of docs/benchmarks.md that was 30-60% of
// a Parquet read or write, varying from run to run ("Recycled blocks" there). Here blocks of
// 32 KiB and more come from the system allocator (ordinary pages) and are kept for reuse by size
// class once freed; smaller ones go to Arrow's default pool as before.
#pragma once

#include <arrow/memory_pool.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace freshet::bridge {

struct RecyclingLimits {
  int64_t min_block_bytes = 32 * 1024;  // smaller blocks are not recycled
  int64_t max_cached_bytes = 256 * 1024 * 1024;
  // A freed block not reused within this time is returned to the pool it came from.
  std::chrono::milliseconds max_idle{1000};
};

// An arrow::MemoryPool that passes blocks below `min_block_bytes` to `wrapped` and takes larger
// ones from `blocks`, rounded up to a size class (four per power of two). Freed large blocks are
// kept for reuse, the most recently freed handed out first, up to `max_cached_bytes` (the least
// recently freed make room); a background thread returns those idle for longer than `max_idle`,
// so an idle process does not keep them. Thread-safe.
//
// Reallocate keeps the block when the new size fits it and uses at least half of it (mimalloc's
// rule for shrinking): Arrow's builders shrink every finished buffer to its size, and a copy into
// a fresh block of the smaller class cost 2-5% of a Parquet read or compaction
// (docs/benchmarks.md). Such a block's class is no longer that of its size; a side table keeps it
// until the block is freed.
class RecyclingMemoryPool final : public arrow::MemoryPool {
 public:
  RecyclingMemoryPool(arrow::MemoryPool* wrapped, arrow::MemoryPool* blocks,
                      RecyclingLimits limits = {});
  ~RecyclingMemoryPool() override;
  RecyclingMemoryPool(const RecyclingMemoryPool&) = delete;
  RecyclingMemoryPool& operator=(const RecyclingMemoryPool&) = delete;

  using arrow::MemoryPool::Allocate;
  using arrow::MemoryPool::Free;
  using arrow::MemoryPool::Reallocate;
  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;
  // Returns every cached block to the wrapped pool, then asks it to release what it can.
  void ReleaseUnused() override;

  int64_t bytes_allocated() const override { return bytes_allocated_.load(); }
  int64_t max_memory() const override { return max_memory_.load(); }
  int64_t total_bytes_allocated() const override { return total_bytes_allocated_.load(); }
  int64_t num_allocations() const override { return num_allocations_.load(); }
  std::string backend_name() const override;

  // Bytes of freed blocks held for reuse, and how many allocations reused one.
  int64_t cached_bytes() const;
  int64_t reuses() const { return reuses_.load(); }

  // fork() protection for a pool that outlives the fork: the child must not inherit the lock held
  // by another thread, and has no trimmer thread (a new one starts with its first cached block).
  void LockBeforeFork();
  void UnlockAfterFork(bool in_child);
  // For a pool that outlives exit(): stops the trimmer (waiting for a return in progress) and
  // lets blocks freed from now on leak, so that nothing reaches `blocks` after the static objects
  // behind it (Arrow's pools) are destroyed.
  void StopAtExit();

 private:
  struct CachedBlock {
    uint8_t* data;
    std::chrono::steady_clock::time_point freed_at;
  };
  static constexpr int kClassesPerDoubling = 4;
  static constexpr int kMaxLog2 = 40;
  static constexpr int kClasses = (kMaxLog2 + 1) * kClassesPerDoubling;

  bool Recycled(int64_t size, int64_t alignment) const;
  static int ClassOf(int64_t size);
  // The class of a recycled block of `size` bytes (ClassOf(size) unless Reallocate kept it at
  // another size); `forget` drops its side-table entry (the block leaves its owner).
  int BlockClass(uint8_t* block, int64_t size, bool forget);
  // Records that `block` of class `size_class` now holds `size` bytes.
  void NoteBlockSize(uint8_t* block, int size_class, int64_t size);
  static int64_t CapacityOf(int size_class);
  // The block for `size` bytes, a cached one if any (no accounting).
  arrow::Status TakeBlock(int64_t size, int64_t alignment, uint8_t** out);
  void GiveBlock(uint8_t* buffer, int64_t size, int64_t alignment);
  void Account(int64_t delta, bool is_new_allocation);
  // Returns the blocks idle since before `cutoff` (all of them for the maximum time point).
  std::vector<std::pair<uint8_t*, int64_t>> TakeIdle(std::chrono::steady_clock::time_point cutoff);
  // The size class whose first block was freed least recently; -1 if none is cached. Under mu_.
  int OldestClassLocked() const;
  // The least recently freed block, removed from the cache (which must hold one). Under mu_.
  std::pair<uint8_t*, int64_t> TakeOldestLocked();
  void ReturnToWrapped(const std::vector<std::pair<uint8_t*, int64_t>>& blocks);
  void RunTrimmer();

  arrow::MemoryPool* const wrapped_;
  arrow::MemoryPool* const blocks_;
  const RecyclingLimits limits_;

  mutable std::mutex mu_;
  std::condition_variable cached_;   // the trimmer waits for a cached block, or for shutdown
  std::condition_variable trimmed_;  // StopAtExit waits for the trimmer's return to end
  std::array<std::vector<CachedBlock>, kClasses> free_;
  // Blocks in use whose class is not that of their size (Reallocate kept them), and their class.
  std::unordered_map<uint8_t*, int> kept_classes_;
  std::atomic<int64_t> kept_count_{0};  // kept_classes_.size(), read without the lock
  int64_t cached_bytes_ = 0;
  bool trimmer_started_ = false;
  bool shutting_down_ = false;
  std::atomic<bool> exiting_{false};  // StopAtExit was called: freed large blocks leak
  bool trimming_ = false;             // the trimmer is returning blocks outside the lock
  std::thread* trimmer_ = nullptr;
  std::vector<std::thread*> abandoned_trimmers_;  // handles of parents' trimmers, in a fork child

  std::atomic<int64_t> bytes_allocated_{0};
  std::atomic<int64_t> max_memory_{0};
  std::atomic<int64_t> total_bytes_allocated_{0};
  std::atomic<int64_t> num_allocations_{0};
  std::atomic<int64_t> reuses_{0};
};

// The process-wide pool of freshet's data path: small blocks from arrow::default_memory_pool(),
// large ones from arrow::system_memory_pool(). Never destroyed (buffers from it may outlive static
// destruction).
RecyclingMemoryPool* DataMemoryPool();

}  // namespace freshet::bridge
