#include "realtime/write_sequencer.h"

#include <thread>

namespace freshet::realtime {

WriteSequencer::WriteSequencer() : ring_(new std::atomic<uint64_t>[kRingSize]) {
  for (uint64_t i = 0; i < kRingSize; ++i) ring_[i].store(0, std::memory_order_relaxed);
}

void WriteSequencer::Finish(uint64_t sequence) {
  // seq_cst store and loads: of two Writes finishing at once, at least one sees the other's flag
  // (a store-then-load race that acquire/release alone would not rule out).
  ring_[sequence % kRingSize].store(sequence, std::memory_order_seq_cst);
  Advance();
  uint64_t seen = watermark_.load(std::memory_order_acquire);
  for (int spins = 0; seen < sequence; seen = watermark_.load(std::memory_order_acquire)) {
    if (++spins < 64) {
      std::this_thread::yield();
    } else {
      watermark_.wait(seen, std::memory_order_acquire);
    }
  }
}

void WriteSequencer::Advance() {
  uint64_t mark = watermark_.load(std::memory_order_seq_cst);
  bool moved = false;
  while (ring_[(mark + 1) % kRingSize].load(std::memory_order_seq_cst) == mark + 1) {
    if (watermark_.compare_exchange_weak(mark, mark + 1, std::memory_order_seq_cst)) {
      ++mark;
      moved = true;
    }
    // On failure `mark` holds the newer watermark; go on from there.
  }
  if (moved) watermark_.notify_all();
}

}  // namespace freshet::realtime
