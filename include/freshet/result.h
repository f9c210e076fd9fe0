// Result<T>: a value or the Status that explains why there is none.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "freshet/status.h"

namespace freshet {

// Thread safety as T's: const access from many threads at once; a Result being moved from or
// assigned to is for one thread at a time.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "a Result cannot hold an OK status without a value");
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  const T& ValueOrDie() const& {
    assert(ok());
    return *value_;
  }
  T& ValueOrDie() & {
    assert(ok());
    return *value_;
  }
  T ValueOrDie() && {
    assert(ok());
    return std::move(*value_);
  }
  T MoveValueUnsafe() { return std::move(*value_); }

  const T& operator*() const& { return ValueOrDie(); }
  T& operator*() & { return ValueOrDie(); }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace freshet

#define FRESHET_ASSIGN_OR_RETURN_IMPL(result_name, lhs, rexpr) \
  auto&& result_name = (rexpr);                                \
  if (!result_name.ok()) return result_name.status();          \
  lhs = std::move(result_name).MoveValueUnsafe();

// FRESHET_ASSIGN_OR_RETURN(auto x, MakeX()); declares x, or returns the error from the caller.
#define FRESHET_ASSIGN_OR_RETURN(lhs, rexpr) \
  FRESHET_ASSIGN_OR_RETURN_IMPL(FRESHET_CONCAT(_freshet_result_, __COUNTER__), lhs, rexpr)
