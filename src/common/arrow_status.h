// Conversion of Arrow C++ errors into freshet Status (Arrow stays an implementation detail).
#pragma once

#include <arrow/status.h>

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

}  // namespace freshet

// Returns the converted error of an arrow::Status expression.
#define FRESHET_RETURN_NOT_OK_ARROW(expr) FRESHET_RETURN_NOT_OK(::freshet::FromArrowStatus(expr))
