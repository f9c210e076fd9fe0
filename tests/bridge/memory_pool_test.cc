#include "bridge/memory_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace freshet::bridge {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;  // which cannot follow a multi-threaded fork()
#else
constexpr bool kThreadSanitizer = false;
#endif

using std::chrono::milliseconds;

// The system pool, recording the size of every live block it handed out.
class RecordingPool : public arrow::MemoryPool {
 public:
  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override {
    ARROW_RETURN_NOT_OK(arrow::system_memory_pool()->Allocate(size, alignment, out));
    std::lock_guard lock(mu_);
    live_[*out] = size;
    ++allocations_;
    return arrow::Status::OK();
  }
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override {
    std::lock_guard lock(mu_);
    EXPECT_EQ(live_[*ptr], old_size);
    live_.erase(*ptr);
    ARROW_RETURN_NOT_OK(
        arrow::system_memory_pool()->Reallocate(old_size, new_size, alignment, ptr));
    live_[*ptr] = new_size;
    return arrow::Status::OK();
  }
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override {
    {
      std::lock_guard lock(mu_);
      auto it = live_.find(buffer);
      EXPECT_NE(it, live_.end()) << "freed a block this pool did not hand out";
      if (it != live_.end()) {
        EXPECT_EQ(it->second, size) << "freed with another size than allocated";
        live_.erase(it);
      }
      freed_.push_back(buffer);
    }
    arrow::system_memory_pool()->Free(buffer, size, alignment);
  }
  int64_t bytes_allocated() const override {
    std::lock_guard lock(mu_);
    int64_t total = 0;
    for (const auto& [block, size] : live_) total += size;
    return total;
  }
  int64_t total_bytes_allocated() const override { return 0; }
  int64_t num_allocations() const override {
    std::lock_guard lock(mu_);
    return allocations_;
  }
  std::string backend_name() const override { return "recording"; }

  int64_t SizeOf(uint8_t* block) const {
    std::lock_guard lock(mu_);
    auto it = live_.find(block);
    return it == live_.end() ? -1 : it->second;
  }
  std::vector<uint8_t*> freed() const {
    std::lock_guard lock(mu_);
    return freed_;
  }
  // Frees what a test let leak.
  void FreeLive() {
    std::lock_guard lock(mu_);
    for (const auto& [block, size] : live_) arrow::system_memory_pool()->Free(block, size);
    live_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::map<uint8_t*, int64_t> live_;
  std::vector<uint8_t*> freed_;
  int64_t allocations_ = 0;
};

struct Pools {
  explicit Pools(RecyclingLimits limits = {}) : pool(&small, &large, limits) {}
  RecordingPool small;
  RecordingPool large;
  RecyclingMemoryPool pool;
};

TEST(RecyclingMemoryPoolTest, AFreedLargeBlockIsHandedOutAgainWithItsPages) {
  Pools pools;
  uint8_t* first = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(100 * 1024, &first).ok());
  std::memset(first, 7, 100 * 1024);
  pools.pool.Free(first, 100 * 1024);
  EXPECT_GT(pools.pool.cached_bytes(), 0);

  uint8_t* second = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(100 * 1024, &second).ok());
  EXPECT_EQ(second, first);
  EXPECT_EQ(pools.pool.reuses(), 1);
  EXPECT_EQ(pools.pool.cached_bytes(), 0);
  EXPECT_EQ(pools.large.num_allocations(), 1);
  pools.pool.Free(second, 100 * 1024);
}

TEST(RecyclingMemoryPoolTest, SmallBlocksGoToTheWrappedPoolUncached) {
  Pools pools;
  uint8_t* block = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(1000, &block).ok());
  EXPECT_EQ(pools.small.SizeOf(block), 1000);
  EXPECT_EQ(pools.large.num_allocations(), 0);
  pools.pool.Free(block, 1000);
  EXPECT_EQ(pools.small.bytes_allocated(), 0);
  EXPECT_EQ(pools.pool.cached_bytes(), 0);
}

TEST(RecyclingMemoryPoolTest, LargeBlocksAreRoundedUpByAtMostAQuarter) {
  Pools pools;
  std::mt19937_64 random(1);
  for (int i = 0; i < 200; ++i) {
    const int64_t size = 32 * 1024 + static_cast<int64_t>(random() % (64 << 20));
    uint8_t* block = nullptr;
    ASSERT_TRUE(pools.pool.Allocate(size, &block).ok());
    const int64_t capacity = pools.large.SizeOf(block);
    EXPECT_GE(capacity, size);
    EXPECT_LE(capacity, size + size / 4) << size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % arrow::kDefaultBufferAlignment, 0u);
    pools.pool.Free(block, size);
  }
}

TEST(RecyclingMemoryPoolTest, ReallocateKeepsTheBlockWithinItsClassAndTheBytesAcross) {
  Pools pools;
  uint8_t* block = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(70'000, &block).ok());  // the 80 KiB class
  for (int i = 0; i < 70'000; ++i) block[i] = static_cast<uint8_t>(i * 31);
  uint8_t* same = block;
  ASSERT_TRUE(pools.pool.Reallocate(70'000, 80'000, &same).ok());
  EXPECT_EQ(same, block);
  EXPECT_EQ(pools.large.num_allocations(), 1);

  uint8_t* moved = same;
  ASSERT_TRUE(pools.pool.Reallocate(80'000, 1 << 20, &moved).ok());
  EXPECT_NE(moved, block);
  for (int i = 0; i < 70'000; ++i) ASSERT_EQ(moved[i], static_cast<uint8_t>(i * 31)) << i;
  uint8_t* small = moved;
  ASSERT_TRUE(pools.pool.Reallocate(1 << 20, 100, &small).ok());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(small[i], static_cast<uint8_t>(i * 31)) << i;
  EXPECT_EQ(pools.small.SizeOf(small), 100);
  pools.pool.Free(small, 100);
  EXPECT_EQ(pools.pool.bytes_allocated(), 0);
}

// Arrow's builders shrink each finished buffer to its size: the block stays where it is while the
// size uses at least half of it, and keeps its class for the cache when freed at the new size.
TEST(RecyclingMemoryPoolTest, ReallocateKeepsABlockItStillHalfFills) {
  Pools pools;
  uint8_t* block = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(1 << 20, &block).ok());  // the 1 MiB class
  for (int i = 0; i < 600'000; ++i) block[i] = static_cast<uint8_t>(i * 7);
  uint8_t* kept = block;
  ASSERT_TRUE(pools.pool.Reallocate(1 << 20, 600'000, &kept).ok());
  EXPECT_EQ(kept, block);
  EXPECT_EQ(pools.pool.bytes_allocated(), 600'000);
  // Growing again within the block keeps it too, whatever class the size alone would have.
  ASSERT_TRUE(pools.pool.Reallocate(600'000, 900'000, &kept).ok());
  EXPECT_EQ(kept, block);
  ASSERT_TRUE(pools.pool.Reallocate(900'000, 524'288, &kept).ok());  // exactly half
  EXPECT_EQ(kept, block);
  EXPECT_EQ(pools.large.num_allocations(), 1);
  for (int i = 0; i < 524'288; ++i) ASSERT_EQ(kept[i], static_cast<uint8_t>(i * 7)) << i;

  // Freed at its last size, it is cached as the 1 MiB block it is: a 1 MiB request gets it.
  pools.pool.Free(kept, 524'288);
  EXPECT_EQ(pools.pool.cached_bytes(), 1 << 20);
  uint8_t* again = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(1 << 20, &again).ok());
  EXPECT_EQ(again, block);
  for (int i = 0; i < (1 << 20); i += 4096) again[i] = 1;  // all of it is there

  // Below half, the bytes move to a block of their own class.
  uint8_t* moved = again;
  ASSERT_TRUE(pools.pool.Reallocate(1 << 20, 300'000, &moved).ok());
  EXPECT_NE(moved, block);
  EXPECT_EQ(pools.large.SizeOf(moved), 320 * 1024);
  pools.pool.Free(moved, 300'000);
  EXPECT_EQ(pools.pool.bytes_allocated(), 0);
  // Every block goes back to the system pool with the size it was allocated with (RecordingPool
  // checks it).
  pools.pool.ReleaseUnused();
  EXPECT_EQ(pools.large.bytes_allocated(), 0);
}

// Blocks kept at another size and freed by other threads: each returns to the cache at its class.
TEST(RecyclingMemoryPoolTest, KeptBlocksFreedOnOtherThreadsKeepTheirClass) {
  Pools pools;
  constexpr int kBlocks = 64;
  std::vector<uint8_t*> blocks(kBlocks);
  std::vector<int64_t> sizes(kBlocks);
  std::mt19937_64 random(3);
  for (int i = 0; i < kBlocks; ++i) {
    const int64_t capacity = int64_t{64 * 1024} << (i % 6);
    ASSERT_TRUE(pools.pool.Allocate(capacity, &blocks[i]).ok());
    sizes[i] = capacity / 2 + static_cast<int64_t>(random() % (capacity / 2));
    uint8_t* kept = blocks[i];
    ASSERT_TRUE(pools.pool.Reallocate(capacity, sizes[i], &kept).ok());
    ASSERT_EQ(kept, blocks[i]);
  }
  std::vector<std::thread> freers;
  for (int t = 0; t < 4; ++t) {
    freers.emplace_back([&, t] {
      for (int i = t; i < kBlocks; i += 4) pools.pool.Free(blocks[i], sizes[i]);
    });
  }
  for (auto& freer : freers) freer.join();
  EXPECT_EQ(pools.pool.bytes_allocated(), 0);
  pools.pool.ReleaseUnused();
  EXPECT_EQ(pools.large.bytes_allocated(), 0);  // each freed with its allocated size
}

TEST(RecyclingMemoryPoolTest, TheLeastRecentlyFreedBlocksMakeRoomPastTheLimit) {
  RecyclingLimits limits;
  limits.max_cached_bytes = 256 * 1024;
  Pools pools(limits);
  std::vector<uint8_t*> blocks(4);
  for (auto& block : blocks) ASSERT_TRUE(pools.pool.Allocate(128 * 1024, &block).ok());
  for (auto* block : blocks) pools.pool.Free(block, 128 * 1024);
  EXPECT_EQ(pools.pool.cached_bytes(), 256 * 1024);
  EXPECT_EQ(pools.large.freed(), (std::vector<uint8_t*>{blocks[0], blocks[1]}));
  uint8_t* again = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(128 * 1024, &again).ok());
  EXPECT_EQ(again, blocks[3]);  // the most recently freed
  pools.pool.Free(again, 128 * 1024);
}

TEST(RecyclingMemoryPoolTest, IdleBlocksAreReturnedByTheTrimmer) {
  RecyclingLimits limits;
  limits.max_idle = milliseconds(20);
  Pools pools(limits);
  uint8_t* block = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(256 * 1024, &block).ok());
  pools.pool.Free(block, 256 * 1024);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pools.large.bytes_allocated() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(pools.large.bytes_allocated(), 0);
  EXPECT_EQ(pools.pool.cached_bytes(), 0);
}

TEST(RecyclingMemoryPoolTest, ReleaseUnusedAndDestructionReturnEveryCachedBlock) {
  RecordingPool small;
  RecordingPool large;
  {
    RecyclingMemoryPool pool(&small, &large);
    uint8_t* a = nullptr;
    uint8_t* b = nullptr;
    ASSERT_TRUE(pool.Allocate(40 * 1024, &a).ok());
    ASSERT_TRUE(pool.Allocate(3 << 20, &b).ok());
    pool.Free(a, 40 * 1024);
    pool.ReleaseUnused();
    EXPECT_EQ(pool.cached_bytes(), 0);
    EXPECT_EQ(large.SizeOf(a), -1);
    pool.Free(b, 3 << 20);
    EXPECT_GT(large.bytes_allocated(), 0);
  }
  EXPECT_EQ(large.bytes_allocated(), 0);
}

TEST(RecyclingMemoryPoolTest, CountsLiveAndPeakBytesAsRequested) {
  Pools pools;
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  ASSERT_TRUE(pools.pool.Allocate(50 * 1024, &a).ok());
  ASSERT_TRUE(pools.pool.Allocate(10, &b).ok());
  EXPECT_EQ(pools.pool.bytes_allocated(), 50 * 1024 + 10);
  pools.pool.Free(a, 50 * 1024);
  EXPECT_EQ(pools.pool.bytes_allocated(), 10);
  EXPECT_EQ(pools.pool.max_memory(), 50 * 1024 + 10);
  EXPECT_EQ(pools.pool.num_allocations(), 2);
  pools.pool.Free(b, 10);
}

// Threads allocating, filling, checking and freeing blocks of mixed sizes: no block is handed to
// two owners (the fill would be overwritten), every byte goes back. Run under TSan and ASan too.
TEST(RecyclingMemoryPoolTest, ConcurrentOwnersNeverShareABlock) {
  RecyclingLimits limits;
  limits.max_cached_bytes = 4 << 20;
  limits.max_idle = milliseconds(2);
  Pools pools(limits);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (int i = 0; i < 2000; ++i) {
        const int64_t size = 1 + static_cast<int64_t>(random() % (300 * 1024));
        uint8_t* block = nullptr;
        if (!pools.pool.Allocate(size, &block).ok()) {
          ++failures;
          continue;
        }
        const auto fill = static_cast<uint8_t>(t * 50 + i);
        std::memset(block, fill, static_cast<size_t>(size));
        if (i % 7 == 0) std::this_thread::yield();
        if (block[0] != fill || block[size - 1] != fill) ++failures;
        pools.pool.Free(block, size);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(pools.pool.bytes_allocated(), 0);
  pools.pool.ReleaseUnused();
  EXPECT_EQ(pools.large.bytes_allocated(), 0);
  EXPECT_EQ(pools.small.bytes_allocated(), 0);
}

TEST(RecyclingMemoryPoolTest, AfterStopAtExitFreedBlocksLeakAndTheTrimmerStops) {
  RecyclingLimits limits;
  limits.max_idle = milliseconds(10);
  RecordingPool small;
  RecordingPool large;
  {
    RecyclingMemoryPool pool(&small, &large, limits);
    uint8_t* cached = nullptr;
    uint8_t* later = nullptr;
    ASSERT_TRUE(pool.Allocate(64 * 1024, &cached).ok());
    ASSERT_TRUE(pool.Allocate(64 * 1024, &later).ok());
    pool.Free(cached, 64 * 1024);
    pool.StopAtExit();
    pool.Free(later, 64 * 1024);
    std::this_thread::sleep_for(milliseconds(50));  // past max_idle: a trimmer would return it
    pool.ReleaseUnused();
  }
  EXPECT_TRUE(large.freed().empty());
  EXPECT_EQ(large.bytes_allocated(), 2 * 64 * 1024);
  large.FreeLive();
}

// exit() in a process whose pool holds blocks and runs its trimmer returns 0: the pool stops
// before Arrow's pools are destroyed.
TEST(RecyclingMemoryPoolTest, AProcessExitsCleanlyWithCachedBlocks) {
  if (kThreadSanitizer) GTEST_SKIP() << "fork() of a multi-threaded process";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RecyclingMemoryPool* pool = DataMemoryPool();
    std::vector<uint8_t*> blocks(64);
    for (auto& block : blocks) {
      if (!pool->Allocate(256 * 1024, &block).ok()) _exit(2);
    }
    for (auto* block : blocks) pool->Free(block, 256 * 1024);
    std::exit(pool->cached_bytes() > 0 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A child forked while another thread uses the process-wide pool can use it (no lock inherited
// held) and gets a trimmer of its own.
TEST(RecyclingMemoryPoolTest, TheProcessPoolWorksInAForkedChild) {
  if (kThreadSanitizer) GTEST_SKIP() << "fork() of a multi-threaded process";
  RecyclingMemoryPool* pool = DataMemoryPool();
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!stop.load()) {
      uint8_t* block = nullptr;
      if (pool->Allocate(64 * 1024, &block).ok()) pool->Free(block, 64 * 1024);
    }
  });
  std::this_thread::sleep_for(milliseconds(5));
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (int i = 0; i < 100; ++i) {
      uint8_t* block = nullptr;
      if (!pool->Allocate(128 * 1024, &block).ok()) _exit(2);
      std::memset(block, 1, 128 * 1024);
      pool->Free(block, 128 * 1024);
    }
    _exit(pool->cached_bytes() > 0 ? 0 : 3);
  }
  stop = true;
  busy.join();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace freshet::bridge
