// PrefetchingReader: the batches of a sequence of splits, in order, with the splits ahead of the
// caller decoded (and, for primary-key tables, merged) on worker threads meanwhile.
//
// A read of several splits on one thread leaves the machine's other cores idle while the caller
// waits for each split in turn. Here every split is read by a worker (one per core, at most one per
// split), and the caller takes the batches of split 0, then of split 1, ... exactly as a read on
// its own thread would return them. Batches of splits the caller has not reached yet are held in
// memory up to a bound; a worker that reaches it waits (the split the caller is reading is never
// held back, so the read always progresses). An error of a split is returned when the caller
// reaches that split, as a read on one thread would return it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "format/batch_reader.h"

namespace freshet::read {

struct PrefetchOptions {
  int threads = 2;                   // workers; at most one per split
  int64_t max_memory = 128LL << 20;  // bytes of batches held for splits ahead of the caller
  int64_t max_current_batches = 8;   // batches held for the split the caller is reading
};

// Opens split `index` (0 ≤ index < splits); called on a worker thread, once per split, with any
// state it needs of its own (the reader it returns is read and destroyed on that worker).
using SplitOpener = std::function<Result<std::unique_ptr<format::BatchReader>>(size_t index)>;

// Starts the workers at once. Destroying the reader stops them (after the batch each is decoding)
// and waits for them.
std::unique_ptr<format::BatchReader> MakePrefetchingReader(size_t splits, SplitOpener open,
                                                           PrefetchOptions options = {});

// How many prefetching readers this process has made (diagnostics; tests see whether a read
// took this path).
int64_t PrefetchingReadersMade();

}  // namespace freshet::read
