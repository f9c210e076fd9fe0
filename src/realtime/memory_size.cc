#include "realtime/memory_size.h"

#include <arrow/api.h>

#include <unordered_set>

namespace freshet::realtime {

namespace {

// Rough sizes of the heap objects behind an ArrayData and a Buffer (object, control block,
// vector slots), measured once with GCC 12 / Arrow 26; they only need to be the right order.
constexpr int64_t kArrayDataOverhead = 192;
constexpr int64_t kBufferOverhead = 96;

int64_t HeldBytes(const arrow::ArrayData& data, std::unordered_set<const arrow::Buffer*>* seen) {
  int64_t bytes = kArrayDataOverhead;
  for (const auto& buffer : data.buffers) {
    if (buffer == nullptr || !seen->insert(buffer.get()).second) continue;
    bytes += kBufferOverhead + buffer->capacity();
  }
  for (const auto& child : data.child_data) bytes += HeldBytes(*child, seen);
  if (data.dictionary) bytes += HeldBytes(*data.dictionary, seen);
  return bytes;
}

}  // namespace

int64_t HeldBytes(const arrow::RecordBatch& batch) {
  std::unordered_set<const arrow::Buffer*> seen;
  int64_t bytes = 0;
  for (const auto& column : batch.column_data()) bytes += HeldBytes(*column, &seen);
  return bytes;
}

int64_t HeldBytes(const std::shared_ptr<arrow::Array>& array) {
  if (array == nullptr) return 0;
  std::unordered_set<const arrow::Buffer*> seen;
  return HeldBytes(*array->data(), &seen);
}

}  // namespace freshet::realtime
