#include "container/orc/orc_read_pool.h"

#include <new>
#include <stdexcept>
#include <string>

namespace freshet::container {

namespace {

constexpr int64_t kMaxAllocation = int64_t{1} << 31;

class ThrowingPool : public arrow::MemoryPool {
 public:
  explicit ThrowingPool(arrow::MemoryPool* wrapped) : wrapped_(wrapped) {}

  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override {
    Check(size);
    ThrowIfFailed(wrapped_->Allocate(size, alignment, out));
    return arrow::Status::OK();
  }
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override {
    Check(new_size);
    ThrowIfFailed(wrapped_->Reallocate(old_size, new_size, alignment, ptr));
    return arrow::Status::OK();
  }
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override {
    wrapped_->Free(buffer, size, alignment);
  }
  int64_t bytes_allocated() const override { return wrapped_->bytes_allocated(); }
  int64_t total_bytes_allocated() const override { return wrapped_->total_bytes_allocated(); }
  int64_t num_allocations() const override { return wrapped_->num_allocations(); }
  std::string backend_name() const override { return wrapped_->backend_name(); }

 private:
  static void Check(int64_t size) {
    if (size < 0 || size > kMaxAllocation) {
      throw std::length_error("the ORC reader asked for " + std::to_string(size) +
                              " bytes at once (damaged lengths?)");
    }
  }
  static void ThrowIfFailed(const arrow::Status& status) {
    if (!status.ok()) throw std::bad_alloc();
  }

  arrow::MemoryPool* wrapped_;
};

}  // namespace

arrow::MemoryPool* OrcReadPool() {
  static auto* pool = new ThrowingPool(arrow::default_memory_pool());  // never destroyed
  return pool;
}

}  // namespace freshet::container
