#include "bridge/memory_pool.h"

#include <pthread.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace freshet::bridge {

namespace {

constexpr int64_t kBlockAlignment = arrow::kDefaultBufferAlignment;

}  // namespace

RecyclingMemoryPool::RecyclingMemoryPool(arrow::MemoryPool* wrapped, arrow::MemoryPool* blocks,
                                         RecyclingLimits limits)
    : wrapped_(wrapped), blocks_(blocks), limits_(limits) {}

RecyclingMemoryPool::~RecyclingMemoryPool() {
  {
    std::lock_guard lock(mu_);
    shutting_down_ = true;
  }
  cached_.notify_all();
  if (trimmer_ != nullptr) {
    trimmer_->join();
    delete trimmer_;
  }
  ReturnToWrapped(TakeIdle(std::chrono::steady_clock::time_point::max()));
}

std::string RecyclingMemoryPool::backend_name() const { return wrapped_->backend_name(); }

bool RecyclingMemoryPool::Recycled(int64_t size, int64_t alignment) const {
  return size >= limits_.min_block_bytes && size <= (int64_t{1} << kMaxLog2) &&
         alignment <= kBlockAlignment;
}

// Four classes per power of two: 2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k (at most 25% unused).
int RecyclingMemoryPool::ClassOf(int64_t size) {
  const int log2 = std::bit_width(static_cast<uint64_t>(size)) - 1;
  const int64_t base = int64_t{1} << log2;
  const int64_t step = base / kClassesPerDoubling;
  const int64_t quarters = (size - base + step - 1) / step;  // 0..4
  return log2 * kClassesPerDoubling + static_cast<int>(quarters);
}

int64_t RecyclingMemoryPool::CapacityOf(int size_class) {
  const int log2 = size_class / kClassesPerDoubling;
  const int64_t base = int64_t{1} << log2;
  return base + (size_class % kClassesPerDoubling) * (base / kClassesPerDoubling);
}

void RecyclingMemoryPool::Account(int64_t delta, bool is_new_allocation) {
  const int64_t now = bytes_allocated_.fetch_add(delta) + delta;
  if (delta > 0) {
    total_bytes_allocated_.fetch_add(delta);
    int64_t peak = max_memory_.load();
    while (now > peak && !max_memory_.compare_exchange_weak(peak, now)) {
    }
  }
  if (is_new_allocation) num_allocations_.fetch_add(1);
}

arrow::Status RecyclingMemoryPool::TakeBlock(int64_t size, int64_t alignment, uint8_t** out) {
  if (!Recycled(size, alignment)) return wrapped_->Allocate(size, alignment, out);
  const int size_class = ClassOf(size);
  {
    std::lock_guard lock(mu_);
    auto& blocks = free_[size_class];
    if (!blocks.empty()) {
      *out = blocks.back().data;  // the most recently freed: the likeliest to be in cache
      blocks.pop_back();
      cached_bytes_ -= CapacityOf(size_class);
      reuses_.fetch_add(1, std::memory_order_relaxed);
      return arrow::Status::OK();
    }
  }
  return blocks_->Allocate(CapacityOf(size_class), kBlockAlignment, out);
}

int RecyclingMemoryPool::BlockClass(uint8_t* block, int64_t size, bool forget) {
  // The owner of `block` made the entry (if any) before handing the block over, so this load sees
  // it counted.
  if (kept_count_.load(std::memory_order_relaxed) == 0) return ClassOf(size);
  std::lock_guard lock(mu_);
  auto it = kept_classes_.find(block);
  if (it == kept_classes_.end()) return ClassOf(size);
  const int size_class = it->second;
  if (forget) {
    kept_classes_.erase(it);
    kept_count_.store(static_cast<int64_t>(kept_classes_.size()), std::memory_order_relaxed);
  }
  return size_class;
}

void RecyclingMemoryPool::NoteBlockSize(uint8_t* block, int size_class, int64_t size) {
  const bool kept = ClassOf(size) != size_class;
  if (!kept && kept_count_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  if (kept) {
    kept_classes_[block] = size_class;
  } else {
    kept_classes_.erase(block);
  }
  kept_count_.store(static_cast<int64_t>(kept_classes_.size()), std::memory_order_relaxed);
}

void RecyclingMemoryPool::GiveBlock(uint8_t* buffer, int64_t size, int64_t alignment) {
  if (!Recycled(size, alignment)) return wrapped_->Free(buffer, size, alignment);
  const int size_class = BlockClass(buffer, size, /*forget=*/true);
  if (exiting_.load()) return;  // leaked: the process is exiting (StopAtExit)
  const int64_t capacity = CapacityOf(size_class);
  if (capacity > limits_.max_cached_bytes) return blocks_->Free(buffer, capacity, kBlockAlignment);
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<uint8_t*, int64_t>> evicted;
  bool wake_trimmer = false;
  {
    std::lock_guard lock(mu_);
    if (shutting_down_) {
      evicted.emplace_back(buffer, capacity);
    } else {
      // The block just freed is the likeliest to be asked for again: the oldest make room.
      while (cached_bytes_ + capacity > limits_.max_cached_bytes) {
        evicted.push_back(TakeOldestLocked());
      }
      wake_trimmer = cached_bytes_ == 0;
      free_[size_class].push_back({buffer, now});
      cached_bytes_ += capacity;
      if (!trimmer_started_) {
        trimmer_started_ = true;
        trimmer_ = new std::thread([this] { RunTrimmer(); });
      }
    }
  }
  ReturnToWrapped(evicted);
  if (wake_trimmer) cached_.notify_one();
}

int RecyclingMemoryPool::OldestClassLocked() const {
  int oldest = -1;
  for (int size_class = 0; size_class < kClasses; ++size_class) {
    const auto& blocks = free_[size_class];
    if (blocks.empty()) continue;
    if (oldest < 0 || blocks.front().freed_at < free_[oldest].front().freed_at) {
      oldest = size_class;
    }
  }
  return oldest;
}

std::pair<uint8_t*, int64_t> RecyclingMemoryPool::TakeOldestLocked() {
  const int oldest_class = OldestClassLocked();
  auto& blocks = free_[oldest_class];
  std::pair<uint8_t*, int64_t> oldest{blocks.front().data, CapacityOf(oldest_class)};
  blocks.erase(blocks.begin());
  cached_bytes_ -= oldest.second;
  return oldest;
}

arrow::Status RecyclingMemoryPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  if (size < 0) return arrow::Status::Invalid("negative allocation size ", size);
  ARROW_RETURN_NOT_OK(TakeBlock(size, alignment, out));
  Account(size, true);
  return arrow::Status::OK();
}

void RecyclingMemoryPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  GiveBlock(buffer, size, alignment);
  Account(-size, false);
}

arrow::Status RecyclingMemoryPool::Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                                              uint8_t** ptr) {
  if (new_size < 0) return arrow::Status::Invalid("negative reallocation size ", new_size);
  const bool old_recycled = Recycled(old_size, alignment);
  const bool new_recycled = Recycled(new_size, alignment);
  if (!old_recycled && !new_recycled) {
    ARROW_RETURN_NOT_OK(wrapped_->Reallocate(old_size, new_size, alignment, ptr));
    Account(new_size - old_size, false);
    return arrow::Status::OK();
  }
  if (old_recycled && new_recycled) {
    const int size_class = BlockClass(*ptr, old_size, /*forget=*/false);
    const int64_t capacity = CapacityOf(size_class);
    if (new_size <= capacity && 2 * new_size >= capacity) {  // kept (the class comment)
      NoteBlockSize(*ptr, size_class, new_size);
      Account(new_size - old_size, false);
      return arrow::Status::OK();
    }
  }
  uint8_t* moved = nullptr;
  ARROW_RETURN_NOT_OK(TakeBlock(new_size, alignment, &moved));
  std::memcpy(moved, *ptr, static_cast<size_t>(std::min(old_size, new_size)));
  GiveBlock(*ptr, old_size, alignment);
  *ptr = moved;
  Account(new_size - old_size, false);
  return arrow::Status::OK();
}

std::vector<std::pair<uint8_t*, int64_t>> RecyclingMemoryPool::TakeIdle(
    std::chrono::steady_clock::time_point cutoff) {
  std::vector<std::pair<uint8_t*, int64_t>> idle;
  std::lock_guard lock(mu_);
  if (exiting_.load()) return idle;  // the cached blocks leak with the process
  for (int size_class = 0; size_class < kClasses; ++size_class) {
    auto& blocks = free_[size_class];
    // Pushed in the order they were freed, so the idle ones are a prefix.
    auto end = std::find_if(blocks.begin(), blocks.end(),
                            [&](const CachedBlock& block) { return block.freed_at >= cutoff; });
    for (auto it = blocks.begin(); it != end; ++it) {
      idle.emplace_back(it->data, CapacityOf(size_class));
      cached_bytes_ -= CapacityOf(size_class);
    }
    blocks.erase(blocks.begin(), end);
  }
  return idle;
}

void RecyclingMemoryPool::ReturnToWrapped(const std::vector<std::pair<uint8_t*, int64_t>>& blocks) {
  for (const auto& [data, capacity] : blocks) blocks_->Free(data, capacity, kBlockAlignment);
}

void RecyclingMemoryPool::ReleaseUnused() {
  ReturnToWrapped(TakeIdle(std::chrono::steady_clock::time_point::max()));
  wrapped_->ReleaseUnused();
}

int64_t RecyclingMemoryPool::cached_bytes() const {
  std::lock_guard lock(mu_);
  return cached_bytes_;
}

void RecyclingMemoryPool::RunTrimmer() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) {
    if (cached_bytes_ == 0) {
      cached_.wait(lock);
      continue;
    }
    const auto oldest = free_[OldestClassLocked()].front().freed_at;
    const auto now = std::chrono::steady_clock::now();
    if (now < oldest + limits_.max_idle) {
      cached_.wait_until(lock, oldest + limits_.max_idle);
      continue;
    }
    trimming_ = true;
    lock.unlock();
    ReturnToWrapped(TakeIdle(now - limits_.max_idle));
    lock.lock();
    trimming_ = false;
    trimmed_.notify_all();
  }
}

void RecyclingMemoryPool::StopAtExit() {
  std::thread* trimmer = nullptr;
  {
    std::unique_lock lock(mu_);
    exiting_ = true;
    shutting_down_ = true;
    cached_.notify_all();
    trimmed_.wait(lock, [this] { return !trimming_; });
    std::swap(trimmer, trimmer_);
  }
  if (trimmer != nullptr) {  // it ends at once: shutting_down_
    trimmer->join();
    delete trimmer;
  }
}

void RecyclingMemoryPool::LockBeforeFork() { mu_.lock(); }

void RecyclingMemoryPool::UnlockAfterFork(bool in_child) {
  if (in_child) {
    // The trimmer thread does not exist in the child; its handle is set aside without a join (a
    // joinable std::thread must not be destroyed), still referenced so that a leak checker does
    // not report it. The condition variables may record it as a waiter (a notify would wait for
    // it forever): they are made anew, the old ones abandoned without their destructors.
    if (trimmer_ != nullptr) abandoned_trimmers_.push_back(trimmer_);
    trimmer_ = nullptr;
    trimmer_started_ = false;
    trimming_ = false;
    new (&cached_) std::condition_variable();
    new (&trimmed_) std::condition_variable();
  }
  mu_.unlock();
}

RecyclingMemoryPool* DataMemoryPool() {
  static RecyclingMemoryPool* pool = [] {
    auto* made = new RecyclingMemoryPool(arrow::default_memory_pool(),  // never destroyed
                                         arrow::system_memory_pool());
    // Registered after Arrow's pools were made, so it runs before they are destroyed.
    std::atexit([] { DataMemoryPool()->StopAtExit(); });
    pthread_atfork([] { DataMemoryPool()->LockBeforeFork(); },
                   [] { DataMemoryPool()->UnlockAfterFork(false); },
                   [] { DataMemoryPool()->UnlockAfterFork(true); });
    return made;
  }();
  return pool;
}

}  // namespace freshet::bridge
