#include "format/arrow_symbols.h"

#include <dlfcn.h>

namespace freshet::format {

namespace {

// arrow::default_memory_pool(): defined by libarrow alone, so its address names the library.
constexpr const char kArrowOnlySymbol[] = "_ZN5arrow19default_memory_poolEv";

}  // namespace

void* ArrowsOwnDefinition(const char* symbol) {
  void* marker = dlsym(RTLD_DEFAULT, kArrowOnlySymbol);
  Dl_info arrow_library{};
  if (marker == nullptr || dladdr(marker, &arrow_library) == 0) return nullptr;
  // Already loaded (RTLD_NOLOAD): this only returns a handle, whose lookup starts in libarrow.
  void* handle = dlopen(arrow_library.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* definition = dlsym(handle, symbol);
  dlclose(handle);  // drops the reference dlopen added; libarrow stays loaded
  return definition;
}

bool BoundToObjectOf(const char* symbol, const void* own) {
  void* bound = dlsym(RTLD_DEFAULT, symbol);
  Dl_info bound_info{}, own_info{};
  if (bound == nullptr || dladdr(bound, &bound_info) == 0) return false;
  if (dladdr(own, &own_info) == 0) return false;
  return bound_info.dli_fbase == own_info.dli_fbase;
}

}  // namespace freshet::format
