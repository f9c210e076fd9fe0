#include "format/parquet_page_crc.h"

#include <arrow/util/crc32.h>
#include <dlfcn.h>
#include <libdeflate.h>

namespace freshet::format {

namespace {

// The mangled name of arrow::internal::crc32(uint32_t, const void*, size_t).
constexpr const char kArrowCrc32Symbol[] = "_ZN5arrow8internal5crc32EjPKvm";

}  // namespace

uint32_t PageCrc32(uint32_t crc, const void* data, size_t length) {
  return libdeflate_crc32(crc, data, length);
}

bool ParquetUsesPageCrc32() {
  // The definition the dynamic linker binds Parquet's calls to, and the object it lives in.
  void* bound = dlsym(RTLD_DEFAULT, kArrowCrc32Symbol);
  Dl_info bound_info{}, own_info{};
  if (bound == nullptr || dladdr(bound, &bound_info) == 0) return false;
  if (dladdr(reinterpret_cast<void*>(&PageCrc32), &own_info) == 0) return false;
  return bound_info.dli_fbase == own_info.dli_fbase;
}

}  // namespace freshet::format

// The replacement (parquet_page_crc.h): a qualified definition, so a change of Arrow's signature
// fails to compile instead of silently defining another function.
__attribute__((visibility("default"))) uint32_t arrow::internal::crc32(uint32_t prev,
                                                                       const void* data,
                                                                       size_t length) {
  return freshet::format::PageCrc32(prev, data, length);
}
