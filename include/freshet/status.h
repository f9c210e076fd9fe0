// Status and Result: freshet's error model (in the style of Arrow C++ and LevelDB).
//
// Every fallible operation returns a Status (or a Result<T>). Messages name the object that is
// wrong (a file path, an option, a column) and what is wrong with it, so that an error printed as
// is tells the user what to fix.
#pragma once

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "freshet/export.h"

namespace freshet {

enum class StatusCode : int8_t {
  kOk = 0,
  kInvalid = 1,         // bad argument or bad input data
  kIOError = 2,         // the file system failed
  kNotFound = 3,        // a file, table, database or snapshot does not exist
  kAlreadyExists = 4,   // a create or a no-replace publish hit an existing object
  kCorruption = 5,      // a file exists but its content cannot be decoded
  kNotImplemented = 6,  // a valid feature freshet does not support yet
  kConflict = 7,        // a concurrent writer changed the table first
  kResourceExhausted = 8,
  kInternal = 9,
};

FRESHET_EXPORT const char* StatusCodeName(StatusCode code);

// Thread-safe: an immutable value (copies share one message), read and copied from any number of
// threads; only assigning to the same Status object from two threads needs the caller's lock.
class [[nodiscard]] FRESHET_EXPORT Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }

  template <typename... Args>
  static Status Invalid(Args&&... args) {
    return Status(StatusCode::kInvalid, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status IOError(Args&&... args) {
    return Status(StatusCode::kIOError, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotFound(Args&&... args) {
    return Status(StatusCode::kNotFound, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status AlreadyExists(Args&&... args) {
    return Status(StatusCode::kAlreadyExists, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Corruption(Args&&... args) {
    return Status(StatusCode::kCorruption, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotImplemented(Args&&... args) {
    return Status(StatusCode::kNotImplemented, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Conflict(Args&&... args) {
    return Status(StatusCode::kConflict, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status ResourceExhausted(Args&&... args) {
    return Status(StatusCode::kResourceExhausted, Concat(std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Internal(Args&&... args) {
    return Status(StatusCode::kInternal, Concat(std::forward<Args>(args)...));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;

  bool IsInvalid() const { return code() == StatusCode::kInvalid; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsNotImplemented() const { return code() == StatusCode::kNotImplemented; }
  bool IsConflict() const { return code() == StatusCode::kConflict; }
  bool IsResourceExhausted() const { return code() == StatusCode::kResourceExhausted; }

  // "IOError: cannot open '/x/snapshot-3': No such file or directory"
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context` and ": ".
  Status WithContext(const std::string& context) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  template <typename... Args>
  static std::string Concat(Args&&... args) {
    std::ostringstream out;
    (out << ... << std::forward<Args>(args));
    return out.str();
  }
  // Shared so that copying an error is cheap; an OK status allocates nothing.
  std::shared_ptr<const State> state_;
};

}  // namespace freshet

#define FRESHET_CONCAT_IMPL(a, b) a##b
#define FRESHET_CONCAT(a, b) FRESHET_CONCAT_IMPL(a, b)

#define FRESHET_RETURN_NOT_OK(expr)                    \
  do {                                                 \
    ::freshet::Status _freshet_status = (expr);        \
    if (!_freshet_status.ok()) return _freshet_status; \
  } while (false)
