// Conversion of Arrow C++ errors into freshet Status (Arrow stays an implementation detail).
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <utility>

#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet {

inline Status FromArrowStatus(const arrow::Status& st) {
  if (st.ok()) return Status::OK();
  if (st.IsIOError()) return Status::IOError(st.message());
  if (st.IsInvalid() || st.IsTypeError()) return Status::Invalid(st.message());
  if (st.IsNotImplemented()) return Status::NotImplemented(st.message());
  if (st.IsKeyError() || st.IsIndexError()) return Status::NotFound(st.message());
  if (st.IsOutOfMemory() || st.IsCapacityError()) return Status::ResourceExhausted(st.message());
  if (st.IsSerializationError()) return Status::Corruption(st.message());
  return Status::Internal(st.ToString());
}

template <typename T>
Result<T> FromArrowResult(arrow::Result<T>&& result) {
  if (!result.ok()) return FromArrowStatus(result.status());
  return std::move(result).MoveValueUnsafe();
}

}  // namespace freshet

// Returns the converted error of an arrow::Status expression.
#define FRESHET_RETURN_NOT_OK_ARROW(expr) FRESHET_RETURN_NOT_OK(::freshet::FromArrowStatus(expr))
// FRESHET_ASSIGN_OR_RETURN_ARROW(auto x, arrow::Result<X> expression): declares x, or returns
// the converted error.
#define FRESHET_ASSIGN_OR_RETURN_ARROW(lhs, rexpr) \
  FRESHET_ASSIGN_OR_RETURN(lhs, ::freshet::FromArrowResult(rexpr))
