// Parquet's Zstandard pages decompressed on a context kept per thread.
//
// Why: Arrow's ZSTD codec creates a decompression context for every page it decompresses,
// allocating and initialising it each time (2% of a Parquet read, ~1% of a full compaction;
// docs/benchmarks.md), and the zstd bundled in the pyarrow wheel (1.5.7) decodes the bench's
// pages ~7% slower than the system's libzstd (1.5.4 on Debian 12), which freshet links for Avro
// manifests already. Compression stays Arrow's: there the bundled zstd is ~8% faster than the
// system's even on a reused context, and freshet's files stay byte for byte what they were.
//
// How: libparquet gets its codecs from `arrow::util::Codec::Create` through the dynamic linker, as
// it gets its page CRCs (parquet_page_crc.h). zstd_codec.cc defines that factory: for ZSTD without
// context parameters it returns a codec whose one-shot Decompress runs on the system libzstd with
// a context per thread; everything else (compression, streaming, other codecs) is the codec of
// Arrow's own factory, found in libarrow. A process where libarrow precedes freshet in the lookup
// order keeps Arrow's codec: same results, slower.
#pragma once

#include <arrow/util/compression.h>

#include <memory>

namespace freshet::format {

// True when `codec` is freshet's ZSTD codec: Arrow's ZSTD codec (of any level) with its one-shot
// Decompress on a context per thread, everything else Arrow's.
bool IsFreshetZstdCodec(const arrow::util::Codec& codec);

// Arrow's own codec factory (libarrow's `Codec::Create`, not the replacement).
arrow::Result<std::unique_ptr<arrow::util::Codec>> CreateArrowCodec(
    arrow::Compression::type type, const arrow::util::CodecOptions& options);

// What freshet's `arrow::util::Codec::Create` returns: freshet's ZSTD codec around Arrow's for
// ZSTD without context parameters, Arrow's own codec otherwise.
arrow::Result<std::unique_ptr<arrow::util::Codec>> CreateCodec(
    arrow::Compression::type type, const arrow::util::CodecOptions& options);

// True when `arrow::util::Codec::Create` in this process is freshet's (Parquet's ZSTD pages go
// through freshet's codec), false when it is Arrow's own.
bool ParquetUsesZstdCodec();

}  // namespace freshet::format
