// The memory pool every ORC reader is opened with.
//
// liborc does not check what its pool returns: when Arrow's ORC adapter cannot allocate (a
// damaged LENGTH stream asks for petabytes), liborc writes through a null pointer. This pool
// throws instead, std::bad_alloc when the allocator fails and std::length_error for a single
// request beyond 2 GiB (Arrow's limit for one string array: no valid batch needs more). Callers
// catch std::exception around the adapter's calls and report the file as corrupt.
#pragma once

#include <arrow/memory_pool.h>

namespace freshet::container {

// Process-wide; it outlives every batch read with it.
arrow::MemoryPool* OrcReadPool();

}  // namespace freshet::container
