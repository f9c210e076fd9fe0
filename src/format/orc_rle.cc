#include "format/orc_rle.h"

#include <array>
#include <cstddef>

namespace freshet::format {
namespace {

using Visitor = std::function<bool(uint64_t)>;

// A uint64 needs ceil(64 / 7) = 10 base-128 digits; the 10th may only carry bit 63.
constexpr int kMaxVarintBytes = 10;
// RLE v1: a run header 0..127 means (header + 3) values; a header 128..255 means 256 - header.
constexpr unsigned kV1MinRepeat = 3;
// RLE v2 SHORT_REPEAT stores (count - 3) in three bits.
constexpr unsigned kV2MinRepeat = 3;
// PATCHED_BASE: the reference writers split a gap wider than 255 into (255, patch 0) fillers.
constexpr uint64_t kPatchGapFiller = 255;

// The 5-bit "fixed bit width" code of RLE v2 (spec table "The 5 bit width encoding table").
constexpr std::array<uint8_t, 32> kFixedBitWidths = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                     12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                                     23, 24, 26, 28, 30, 32, 40, 48, 56, 64};

// The width a PATCHED_BASE patch-list entry of `bits` (1..64) significant bits is packed with.
unsigned ClosestFixedBits(unsigned bits) {
  for (uint8_t width : kFixedBitWidths) {
    if (width >= bits) return width;
  }
  return 64;
}

// Bytes taken by `count` values of `width` bits; a bit-packed block is padded to whole bytes.
size_t PackedBytes(unsigned width, size_t count) { return (width * count + 7) / 8; }

// A bounds-checked cursor over the stream; every read fails instead of running past the end.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}

  bool AtEnd() const { return pos_ == data_.size(); }

  bool ReadByte(uint8_t* out) {
    if (AtEnd()) return false;
    *out = static_cast<uint8_t>(data_[pos_++]);
    return true;
  }

  // `bytes` (1..8) bytes, most significant first.
  bool ReadBigEndian(unsigned bytes, uint64_t* out) {
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; ++i) {
      uint8_t b;
      if (!ReadByte(&b)) return false;
      value = (value << 8) | b;
    }
    *out = value;
    return true;
  }

  // Unsigned LEB128. Rejects digits beyond 64 bits instead of shifting them away (or by >= 64,
  // which is undefined behaviour in the C++ reader and wraps silently in the Java one).
  bool ReadVarint(uint64_t* out) {
    uint64_t value = 0;
    for (int i = 0; i < kMaxVarintBytes; ++i) {
      uint8_t b;
      if (!ReadByte(&b)) return false;
      uint64_t digit = b & 0x7F;
      if (i == kMaxVarintBytes - 1 && digit > 1) return false;
      value |= digit << (7 * i);
      if ((b & 0x80) == 0) {
        *out = value;
        return true;
      }
    }
    return false;
  }

  // The next `n` bytes as one block, so a run is known to be complete before it is decoded.
  bool Take(size_t n, std::string_view* out) {
    if (data_.size() - pos_ < n) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Reads big-endian, MSB-first bit-packed values from a block sized with PackedBytes(), so reads
// never run past it.
class BitReader {
 public:
  explicit BitReader(std::string_view block) : block_(block) {}

  // One value of `width` (0..64) bits.
  uint64_t Read(unsigned width) {
    uint64_t value = 0;
    while (width > 0) {
      const unsigned bit_in_byte = bit_pos_ % 8;
      const unsigned available = 8 - bit_in_byte;
      const unsigned take = width < available ? width : available;
      const uint8_t byte = static_cast<uint8_t>(block_[bit_pos_ / 8]);
      const unsigned bits = (byte >> (available - take)) & ((1u << take) - 1);
      value = (value << take) | bits;  // take <= 8, so this never shifts by 64
      bit_pos_ += take;
      width -= take;
    }
    return value;
  }

 private:
  std::string_view block_;
  size_t bit_pos_ = 0;
};

// Two's complement of zigzag: 0, 1, 2, 3 -> 0, -1, 1, -2 (as uint64 bit patterns).
uint64_t UnZigZag(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }

// --- RLE v1 ---

bool DecodeV1Group(ByteReader& in, const Visitor& visit) {
  uint8_t header;
  if (!in.ReadByte(&header)) return false;
  if (header >= 0x80) {  // literals: 256 - header varints
    for (unsigned i = 0; i < 256u - header; ++i) {
      uint64_t value;
      if (!in.ReadVarint(&value) || !visit(value)) return false;
    }
    return true;
  }
  uint8_t delta_byte;
  uint64_t value;
  if (!in.ReadByte(&delta_byte) || !in.ReadVarint(&value)) return false;
  // The delta is a signed byte; sign-extending it to uint64 makes `value += delta` wrap correctly.
  const uint64_t delta =
      static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(delta_byte)));
  for (unsigned i = 0; i < header + kV1MinRepeat; ++i, value += delta) {
    if (!visit(value)) return false;
  }
  return true;
}

// --- RLE v2 ---

// The 9-bit run length of DIRECT, PATCHED_BASE and DELTA: the header's low bit, then a byte, + 1.
bool ReadV2RunLength(uint8_t header, ByteReader& in, unsigned* length) {
  uint8_t low;
  if (!in.ReadByte(&low)) return false;
  *length = (((header & 1u) << 8) | low) + 1;
  return true;
}

unsigned V2WidthCode(uint8_t header) { return (header >> 1) & 0x1F; }

bool DecodeShortRepeat(uint8_t header, ByteReader& in, const Visitor& visit) {
  const unsigned bytes = ((header >> 3) & 0x07) + 1;
  const unsigned count = (header & 0x07) + kV2MinRepeat;
  uint64_t value;
  if (!in.ReadBigEndian(bytes, &value)) return false;
  for (unsigned i = 0; i < count; ++i) {
    if (!visit(value)) return false;
  }
  return true;
}

bool DecodeDirect(uint8_t header, ByteReader& in, const Visitor& visit) {
  const unsigned width = kFixedBitWidths[V2WidthCode(header)];
  unsigned length;
  std::string_view block;
  if (!ReadV2RunLength(header, in, &length) || !in.Take(PackedBytes(width, length), &block)) {
    return false;
  }
  BitReader bits(block);
  for (unsigned i = 0; i < length; ++i) {
    if (!visit(bits.Read(width))) return false;
  }
  return true;
}

// Walks a PATCHED_BASE patch list, folding (255, 0) filler entries into the following gap. Fails
// if the list ends inside a filler chain (the reference readers index past the list there).
class PatchList {
 public:
  PatchList(std::string_view block, unsigned entry_width, unsigned patch_width, unsigned entries)
      : bits_(block), entry_width_(entry_width), patch_width_(patch_width), remaining_(entries) {}

  bool empty() const { return remaining_ == 0; }

  // The next patch and its distance from the previous one (from index 0 for the first patch).
  bool Next(uint64_t* gap, uint64_t* patch) {
    uint64_t total_gap = 0;
    while (remaining_ > 0) {
      --remaining_;
      const uint64_t entry = bits_.Read(entry_width_);
      // patch_width_ <= 63 because patch width + gap width (>= 1) <= 64 was checked.
      const uint64_t entry_gap = entry >> patch_width_;
      const uint64_t entry_patch = entry & ((uint64_t{1} << patch_width_) - 1);
      total_gap += entry_gap;
      if (entry_gap != kPatchGapFiller || entry_patch != 0) {
        *gap = total_gap;
        *patch = entry_patch;
        return true;
      }
    }
    return false;
  }

 private:
  BitReader bits_;
  unsigned entry_width_;
  unsigned patch_width_;
  unsigned remaining_;
};

// `patch` moved above the `width` low bits of a value. Fails if any of its bits would fall off the
// top of 64 bits: no writer emits that, and the readers disagree on it (Java shifts by width % 64).
bool ShiftPatch(uint64_t patch, unsigned width, uint64_t* out) {
  if (patch == 0) {
    *out = 0;
    return true;
  }
  if (width >= 64 || (patch >> (64 - width)) != 0) return false;
  *out = patch << width;
  return true;
}

bool DecodePatchedBase(uint8_t header, ByteReader& in, const Visitor& visit) {
  const unsigned width = kFixedBitWidths[V2WidthCode(header)];
  unsigned length;
  uint8_t third, fourth;
  if (!ReadV2RunLength(header, in, &length) || !in.ReadByte(&third) || !in.ReadByte(&fourth)) {
    return false;
  }
  const unsigned base_bytes = ((third >> 5) & 0x07) + 1;
  const unsigned patch_width = kFixedBitWidths[third & 0x1F];
  const unsigned gap_width = ((fourth >> 5) & 0x07) + 1;
  const unsigned patch_entries = fourth & 0x1F;
  // Both reference readers reject an empty patch list and a gap + patch wider than 64 bits.
  if (patch_entries == 0 || patch_width + gap_width > 64) return false;

  // The base is sign-magnitude: its most significant stored bit is the sign.
  uint64_t base;
  if (!in.ReadBigEndian(base_bytes, &base)) return false;
  const uint64_t sign_bit = uint64_t{1} << (8 * base_bytes - 1);
  if ((base & sign_bit) != 0) base = 0 - (base & ~sign_bit);

  std::string_view data_block, patch_block;
  const unsigned entry_width = ClosestFixedBits(patch_width + gap_width);
  if (!in.Take(PackedBytes(width, length), &data_block) ||
      !in.Take(PackedBytes(entry_width, patch_entries), &patch_block)) {
    return false;
  }

  PatchList patches(patch_block, entry_width, patch_width, patch_entries);
  uint64_t gap, patch;
  if (!patches.Next(&gap, &patch)) return false;
  uint64_t patch_index = gap;
  bool pending = true;  // a patch is waiting for index `patch_index`
  BitReader data(data_block);
  for (unsigned i = 0; i < length; ++i) {
    uint64_t value = data.Read(width);
    if (pending && i == patch_index) {
      uint64_t high;
      if (!ShiftPatch(patch, width, &high)) return false;
      value |= high;
      pending = !patches.empty();
      if (pending) {
        if (!patches.Next(&gap, &patch)) return false;
        patch_index = i + gap;  // gaps after the first are relative to the previous patch
      }
    }
    if (!visit(base + value)) return false;
  }
  // A patch past the run (or a zero gap, which points back at an applied index) is never applied;
  // no writer emits one, and the readers would silently drop it.
  return !pending;
}

bool DecodeDelta(uint8_t header, ByteReader& in, const Visitor& visit) {
  const unsigned code = V2WidthCode(header);
  const unsigned width = code == 0 ? 0 : kFixedBitWidths[code];  // 0: every delta is the base
  unsigned length;
  uint64_t value, zigzag_delta;
  if (!ReadV2RunLength(header, in, &length) || !in.ReadVarint(&value) ||
      !in.ReadVarint(&zigzag_delta)) {
    return false;
  }
  const uint64_t delta_base = UnZigZag(zigzag_delta);

  if (width == 0) {
    for (unsigned i = 0; i < length; ++i, value += delta_base) {
      if (!visit(value)) return false;
    }
    return true;
  }

  // Packed deltas follow the first two values, so a packed run needs two of them; the C++ reader
  // rejects a shorter one while the Java reader would still emit two values.
  if (length < 2) return false;
  std::string_view block;
  if (!in.Take(PackedBytes(width, length - 2), &block)) return false;
  if (!visit(value)) return false;
  value += delta_base;
  if (!visit(value)) return false;
  // The packed magnitudes take the sign of the delta base (zigzag's low bit).
  const bool decreasing = (zigzag_delta & 1) != 0;
  BitReader bits(block);
  for (unsigned i = 2; i < length; ++i) {
    const uint64_t magnitude = bits.Read(width);
    value = decreasing ? value - magnitude : value + magnitude;
    if (!visit(value)) return false;
  }
  return true;
}

bool DecodeV2Run(ByteReader& in, const Visitor& visit) {
  uint8_t header;
  if (!in.ReadByte(&header)) return false;
  switch (header >> 6) {
    case 0:
      return DecodeShortRepeat(header, in, visit);
    case 1:
      return DecodeDirect(header, in, visit);
    case 2:
      return DecodePatchedBase(header, in, visit);
    default:
      return DecodeDelta(header, in, visit);
  }
}

}  // namespace

bool DecodeUnsignedOrcRle(std::string_view stream, OrcRleVersion version, const Visitor& visit) {
  ByteReader in(stream);
  // Each run consumes at least its header byte, so this loop ends after at most stream.size() runs.
  while (!in.AtEnd()) {
    const bool ok =
        version == OrcRleVersion::kV1 ? DecodeV1Group(in, visit) : DecodeV2Run(in, visit);
    if (!ok) return false;
  }
  return true;
}

}  // namespace freshet::format
