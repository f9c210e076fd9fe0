// Paimon's row kinds: what a row of a primary-key table does to its key.
#pragma once

#include <cstdint>

namespace freshet {

// Java's RowKind byte values (stored in `_VALUE_KIND` and in BinaryRow headers).
enum class RowKind : int8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };

// "+I", "-U", "+U", "-D" (Java's RowKind.shortString()); "?" for a value out of range.
inline const char* RowKindShortString(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert:
      return "+I";
    case RowKind::kUpdateBefore:
      return "-U";
    case RowKind::kUpdateAfter:
      return "+U";
    case RowKind::kDelete:
      return "-D";
  }
  return "?";
}

}  // namespace freshet
