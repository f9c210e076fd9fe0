// What rows held in memory cost: the bytes allocated for their Arrow buffers (capacity, not the
// used size: builders over-allocate by up to 2x) plus the bookkeeping objects of every array and
// buffer, each shared buffer counted once. Small batches cost far more per row than their data
// size suggests; the memory budget must see that.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>

namespace freshet::realtime {

int64_t HeldBytes(const arrow::RecordBatch& batch);
// Adds one more array (offsets, row kinds...) to the same count; null counts nothing.
int64_t HeldBytes(const std::shared_ptr<arrow::Array>& array);

}  // namespace freshet::realtime
