// WriteSequencer: the order of the Writes of one table in this process, and the watermark up to
// which all of them have finished (docs/realtime.md, "One Write, one unit").
//
// A Write takes a sequence number while it holds the locks of all its partition-buckets, so in
// every partition-bucket offsets grow with sequence numbers. It then stores its rows, releases
// the locks and calls Finish, which returns once every Write with a smaller number has finished
// too. The watermark is the highest W such that every Write numbered <= W has finished; queries
// and commits cut every partition-bucket at one watermark, so they hold whole Writes, and any
// Write that returned before a cut was taken is below it (read-your-writes).
//
// No lock: Assign is one atomic increment, Finish one store plus a short helping loop. Writes
// finish in any order; whoever finishes the lowest pending number advances the watermark over
// every finished number after it, and the others wait (briefly: a Write between Assign and
// Finish only copies rows into memory).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace freshet::realtime {

class WriteSequencer {
 public:
  WriteSequencer();

  // The next sequence number (the first is 1). Call with the Write's partition-buckets locked.
  uint64_t Assign() { return next_.fetch_add(1, std::memory_order_seq_cst) + 1; }
  // Marks `sequence` finished (stored or rolled back) and waits until watermark() >= sequence.
  // Every number Assign returned must be finished exactly once.
  void Finish(uint64_t sequence);
  // Every Write numbered at or below it has finished; numbers above may be in flight.
  uint64_t watermark() const { return watermark_.load(std::memory_order_acquire); }

 private:
  // Finished flags, one per number modulo the ring size (`ring_[s % size] == s`: s finished).
  // The ring is far larger than the number of Writes that can be in flight at once (one per
  // thread), so a slot is never reused before the watermark passed its previous number.
  static constexpr uint64_t kRingSize = uint64_t{1} << 16;
  void Advance();

  std::atomic<uint64_t> next_{0};
  std::atomic<uint64_t> watermark_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> ring_;
};

}  // namespace freshet::realtime
