// Parquet page checksums at the speed of the CPU's carry-less multiply.
//
// Why: Parquet's page CRC is CRC-32 with zlib's polynomial (not CRC-32C, so not the SSE4.2
// instruction). Arrow computes it with a table-driven loop at ~4 GB/s; a full compaction writes a
// CRC over every output page and verifies one over every input page, and that loop was 7% of its
// CPU (docs/benchmarks.md). Java's CRC32 class is an intrinsic using PCLMULQDQ. libdeflate's
// crc32 uses the same instructions (~14 GB/s on the benchmark VM).
//
// How: Arrow's Parquet library calls `arrow::internal::crc32` through the dynamic linker, so a
// definition of that symbol earlier in the process's lookup order replaces Arrow's own for
// Parquet. parquet_page_crc.cc defines it (same signature, checked against Arrow's header, same
// result: standard CRC-32 continuing from `prev`); freshet_format's link interface forces it into
// every program that links freshet's subsystems, and libfreshet.so exports it
// (cmake/libfreshet.map). A process where libarrow precedes freshet in the lookup order (Arrow
// loaded first with RTLD_GLOBAL) keeps Arrow's implementation: same checksums, slower.
#pragma once

#include <cstddef>
#include <cstdint>

namespace freshet::format {

// CRC-32 (zlib's polynomial, pre- and post-inverted) of `data`, continuing from `crc`.
uint32_t PageCrc32(uint32_t crc, const void* data, size_t length);

// True when Parquet's page checksums in this process go through PageCrc32 (the replacement took
// effect), false when they use Arrow's own implementation.
bool ParquetUsesPageCrc32();

}  // namespace freshet::format
