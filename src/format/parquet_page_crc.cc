#include "format/parquet_page_crc.h"

#include <arrow/util/crc32.h>
#include <libdeflate.h>

#include "format/arrow_symbols.h"

namespace freshet::format {

namespace {

// The mangled name of arrow::internal::crc32(uint32_t, const void*, size_t).
constexpr const char kArrowCrc32Symbol[] = "_ZN5arrow8internal5crc32EjPKvm";

}  // namespace

uint32_t PageCrc32(uint32_t crc, const void* data, size_t length) {
  return libdeflate_crc32(crc, data, length);
}

bool ParquetUsesPageCrc32() {
  return BoundToObjectOf(kArrowCrc32Symbol, reinterpret_cast<const void*>(&PageCrc32));
}

}  // namespace freshet::format

// The replacement (parquet_page_crc.h): a qualified definition, so a change of Arrow's signature
// fails to compile instead of silently defining another function.
__attribute__((visibility("default"))) uint32_t arrow::internal::crc32(uint32_t prev,
                                                                       const void* data,
                                                                       size_t length) {
  return freshet::format::PageCrc32(prev, data, length);
}
