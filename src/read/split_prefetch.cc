#include "read/split_prefetch.h"

#include <arrow/record_batch.h>
#include <arrow/util/byte_size.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace freshet::read {

namespace {

using BatchPtr = std::shared_ptr<arrow::RecordBatch>;

class PrefetchingReader : public format::BatchReader {
 public:
  PrefetchingReader(size_t splits, SplitOpener open, PrefetchOptions options)
      : open_(std::move(open)), options_(Clamped(options)), slots_(splits) {
    size_t workers = std::min<size_t>(splits, static_cast<size_t>(std::max(1, options_.threads)));
    workers_.reserve(workers);
    for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
  }

  ~PrefetchingReader() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    workers_may_go_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  Result<BatchPtr> Next() override {
    std::unique_lock lock(mutex_);
    while (current_ < slots_.size()) {
      Slot& slot = slots_[current_];
      if (!slot.batches.empty()) {
        BatchPtr batch = std::move(slot.batches.front());
        slot.batches.pop_front();
        held_bytes_ -= slot.sizes.front();
        slot.sizes.pop_front();
        lock.unlock();
        workers_may_go_.notify_all();
        return batch;
      }
      if (slot.done) {
        if (!slot.error.ok()) return slot.error;
        ++current_;
        lock.unlock();
        workers_may_go_.notify_all();  // the next split is now the caller's: never held back
        lock.lock();
        continue;
      }
      batch_ready_.wait(lock);
    }
    return BatchPtr();
  }

 private:
  // At least one batch may wait for the caller in its split (with none, its worker would wait
  // for the caller, and the caller for it); a negative bound is no bound beyond that batch.
  static PrefetchOptions Clamped(PrefetchOptions options) {
    options.max_current_batches = std::max<int64_t>(1, options.max_current_batches);
    options.max_memory = std::max<int64_t>(0, options.max_memory);
    return options;
  }

  struct Slot {
    std::deque<BatchPtr> batches;
    std::deque<int64_t> sizes;  // of `batches`, as counted in held_bytes_
    Status error;
    bool done = false;
  };

  // Takes splits in order until none is left, reading each to its end.
  void Work() {
    for (;;) {
      size_t index;
      {
        std::lock_guard lock(mutex_);
        if (stop_ || next_split_ >= slots_.size()) return;
        index = next_split_++;
      }
      Status status = ReadSplit(index);
      {
        std::lock_guard lock(mutex_);
        slots_[index].error = std::move(status);
        slots_[index].done = true;
      }
      batch_ready_.notify_all();
    }
  }

  // Reads split `index` into its slot; returns its error, if any (not Cancelled by a stop: the
  // slot is then never read).
  Status ReadSplit(size_t index) {
    try {
      FRESHET_ASSIGN_OR_RETURN(std::unique_ptr<format::BatchReader> reader, open_(index));
      for (;;) {
        FRESHET_ASSIGN_OR_RETURN(BatchPtr batch, reader->Next());
        if (!batch) return Status::OK();
        if (!Hold(index, std::move(batch))) return Status::OK();  // stopped
      }
    } catch (const std::exception& e) {  // must not escape a worker thread
      return Status::IOError("reading split ", index, ": ", e.what());
    }
  }

  // Adds a batch to split `index`'s slot, then waits while that split is ahead of the caller and
  // the batches held for such splits reach the bound, or while it is the caller's split and holds
  // enough batches already. False once the reader stops.
  bool Hold(size_t index, BatchPtr batch) {
    int64_t size = arrow::util::TotalBufferSize(*batch);
    std::unique_lock lock(mutex_);
    Slot& slot = slots_[index];
    slot.batches.push_back(std::move(batch));
    slot.sizes.push_back(size);
    held_bytes_ += size;
    batch_ready_.notify_all();
    workers_may_go_.wait(lock, [&] {
      if (stop_) return true;
      if (index == current_) {
        return static_cast<int64_t>(slot.batches.size()) < options_.max_current_batches;
      }
      return held_bytes_ < options_.max_memory;
    });
    return !stop_;
  }

  SplitOpener open_;
  const PrefetchOptions options_;
  std::mutex mutex_;
  std::condition_variable batch_ready_;     // the caller waits here
  std::condition_variable workers_may_go_;  // workers wait here
  std::vector<Slot> slots_;
  size_t next_split_ = 0;  // the next split a worker takes
  size_t current_ = 0;     // the split the caller reads
  int64_t held_bytes_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;  // last: started once everything above is set up
};

std::atomic<int64_t> readers_made{0};

}  // namespace

std::unique_ptr<format::BatchReader> MakePrefetchingReader(size_t splits, SplitOpener open,
                                                           PrefetchOptions options) {
  readers_made.fetch_add(1, std::memory_order_relaxed);
  return std::make_unique<PrefetchingReader>(splits, std::move(open), options);
}

int64_t PrefetchingReadersMade() { return readers_made.load(std::memory_order_relaxed); }

}  // namespace freshet::read
