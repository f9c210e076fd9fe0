// OrcRle: a strict, allocation-free decoder for Apache ORC's unsigned integer run-length encodings
// (RLE v1 and RLE v2, ORC specification "Run Length Encoding"). It exists to validate ORC LENGTH
// streams before a library decodes them: the reference readers trust the stream (they read past a
// truncated patch list, shift by 64 or more, or keep shifting an over-long varint), so a hostile
// file is checked here first. The decoder never reads out of bounds, never allocates, and consumes
// at least one input byte per run, so it terminates on any input.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace freshet::format {

// Which ORC integer RLE a stream uses: v1 for ColumnEncoding DIRECT/DICTIONARY, v2 for
// DIRECT_V2/DICTIONARY_V2.
enum class OrcRleVersion { kV1, kV2 };

// Decodes an *unsigned* ORC integer RLE stream (already decompressed) and calls `visit(value)` for
// every value in order. Returns false as soon as the input is malformed (truncated run, bit width
// or run header out of range, varint longer than 10 bytes, etc.) or `visit` returns false. On
// failure, the values already visited are those read before the fault: v2 runs and v1 repeat runs
// are emitted only once complete, v1 literals one varint at a time.
// Arithmetic (v1 runs, v2 DELTA and PATCHED_BASE) wraps modulo 2^64, as the Java reader's does.
bool DecodeUnsignedOrcRle(std::string_view stream, OrcRleVersion version,
                          const std::function<bool(uint64_t)>& visit);

}  // namespace freshet::format
