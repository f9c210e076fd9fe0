#include "format/deletion_vector_writer.h"

#include <zlib.h>

#include <algorithm>

#include "common/uuid.h"

namespace freshet::format {

namespace {

constexpr uint32_t kArrayMax = 4096;  // Java's ArrayContainer.DEFAULT_MAX_SIZE
constexpr int32_t kCookieNoRun = 12346;
constexpr int32_t kCookieRun = 12347;
constexpr int32_t kNoOffsetThreshold = 4;
constexpr size_t kBitmapBytes = 8192;

void PutLE16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}
void PutLE32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutLE64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutBE32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xff));
}

uint32_t Crc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
  return static_cast<uint32_t>(crc);
}

// One container of a bitmap being serialized: its low values and the form chosen for them.
struct OutContainer {
  enum Kind { kArray, kBitmap, kRun } kind = kArray;
  uint16_t key = 0;
  std::vector<uint16_t> values;                     // ascending
  std::vector<std::pair<uint16_t, uint16_t>> runs;  // (first, last)

  size_t Bytes() const {
    switch (kind) {
      case kArray:
        return 2 * values.size();
      case kBitmap:
        return kBitmapBytes;
      case kRun:
        return 2 + 4 * runs.size();
    }
    return 0;
  }
};

OutContainer MakeContainer(uint16_t key, std::vector<uint16_t> values, bool run_optimize) {
  OutContainer c;
  c.key = key;
  for (uint16_t v : values) {
    if (!c.runs.empty() && c.runs.back().second + 1 == v) {
      c.runs.back().second = v;
    } else {
      c.runs.emplace_back(v, v);
    }
  }
  c.kind = values.size() <= kArrayMax ? OutContainer::kArray : OutContainer::kBitmap;
  if (run_optimize) {
    // Java's Container.runOptimize: a run container when it is strictly smaller.
    size_t run_bytes = 2 + 4 * c.runs.size();
    size_t own_bytes = c.kind == OutContainer::kArray ? 2 * values.size() : kBitmapBytes;
    if (own_bytes > run_bytes) c.kind = OutContainer::kRun;
  }
  c.values = std::move(values);
  return c;
}

// Java's RoaringArray.serialize (the portable format).
std::string SerializeContainers(const std::vector<OutContainer>& containers) {
  std::string out;
  auto size = static_cast<int32_t>(containers.size());
  bool has_run = std::any_of(containers.begin(), containers.end(),
                             [](const OutContainer& c) { return c.kind == OutContainer::kRun; });
  uint32_t offset = 0;
  if (has_run) {
    PutLE32(&out, static_cast<uint32_t>(kCookieRun | ((size - 1) << 16)));
    std::string run_flags(static_cast<size_t>((size + 7) / 8), '\0');
    for (int32_t i = 0; i < size; ++i) {
      if (containers[static_cast<size_t>(i)].kind == OutContainer::kRun) {
        run_flags[static_cast<size_t>(i / 8)] |= static_cast<char>(1 << (i % 8));
      }
    }
    out += run_flags;
    offset = static_cast<uint32_t>(size < kNoOffsetThreshold ? 4 + 4 * size + run_flags.size()
                                                             : 4 + 8 * size + run_flags.size());
  } else {
    PutLE32(&out, static_cast<uint32_t>(kCookieNoRun));
    PutLE32(&out, static_cast<uint32_t>(size));
    offset = static_cast<uint32_t>(4 + 4 + 8 * size);
  }
  for (const OutContainer& c : containers) {
    PutLE16(&out, c.key);
    PutLE16(&out, static_cast<uint16_t>(c.values.size() - 1));
  }
  if (!has_run || size >= kNoOffsetThreshold) {
    for (const OutContainer& c : containers) {
      PutLE32(&out, offset);
      offset += static_cast<uint32_t>(c.Bytes());
    }
  }
  for (const OutContainer& c : containers) {
    switch (c.kind) {
      case OutContainer::kArray:
        for (uint16_t v : c.values) PutLE16(&out, v);
        break;
      case OutContainer::kBitmap: {
        std::vector<uint64_t> words(kBitmapBytes / 8, 0);
        for (uint16_t v : c.values) words[v >> 6] |= uint64_t{1} << (v & 63);
        for (uint64_t w : words) PutLE64(&out, w);
        break;
      }
      case OutContainer::kRun:
        PutLE16(&out, static_cast<uint16_t>(c.runs.size()));
        for (const auto& [first, last] : c.runs) {
          PutLE16(&out, first);
          PutLE16(&out, static_cast<uint16_t>(last - first));
        }
        break;
    }
  }
  return out;
}

// Positions (ascending, all with the same high 32 bits) as one 32-bit bitmap.
std::string SerializeBitmap32(std::vector<int64_t>::const_iterator begin,
                              std::vector<int64_t>::const_iterator end, bool run_optimize) {
  std::vector<OutContainer> containers;
  auto it = begin;
  while (it != end) {
    auto key = static_cast<uint16_t>((static_cast<uint64_t>(*it) >> 16) & 0xffff);
    std::vector<uint16_t> values;
    for (; it != end && ((static_cast<uint64_t>(*it) >> 16) & 0xffff) == key; ++it) {
      values.push_back(static_cast<uint16_t>(*it & 0xffff));
    }
    containers.push_back(MakeContainer(key, std::move(values), run_optimize));
  }
  return SerializeContainers(containers);
}

}  // namespace

std::string SerializeRoaring32(const std::vector<int64_t>& sorted_positions, bool run_optimize) {
  return SerializeBitmap32(sorted_positions.begin(), sorted_positions.end(), run_optimize);
}

DeletionBitmap DeletionBitmap::From(const DeletionVector& vector) {
  DeletionBitmap bitmap;
  vector.ForEach([&](int64_t position) { bitmap.Add(position); });
  return bitmap;
}

bool DeletionBitmap::Add(int64_t position) {
  auto u = static_cast<uint64_t>(position);
  Container& c = containers_[u >> 16];
  auto low = static_cast<uint16_t>(u & 0xffff);
  if (!c.words.empty()) {
    uint64_t bit = uint64_t{1} << (low & 63);
    if (c.words[low >> 6] & bit) return false;
    c.words[low >> 6] |= bit;
  } else {
    auto at = std::lower_bound(c.values.begin(), c.values.end(), low);
    if (at != c.values.end() && *at == low) return false;
    c.values.insert(at, low);
    if (c.values.size() > kArrayMax) {
      c.words.assign(1024, 0);
      for (uint16_t v : c.values) c.words[v >> 6] |= uint64_t{1} << (v & 63);
      c.values.clear();
      c.values.shrink_to_fit();
    }
  }
  ++c.cardinality;
  ++cardinality_;
  return true;
}

bool DeletionBitmap::Contains(int64_t position) const {
  auto u = static_cast<uint64_t>(position);
  auto it = containers_.find(u >> 16);
  if (it == containers_.end()) return false;
  auto low = static_cast<uint16_t>(u & 0xffff);
  const Container& c = it->second;
  if (!c.words.empty()) return (c.words[low >> 6] >> (low & 63)) & 1;
  return std::binary_search(c.values.begin(), c.values.end(), low);
}

std::vector<int64_t> DeletionBitmap::ToVector() const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(cardinality_));
  for (const auto& [key, c] : containers_) {
    auto base = static_cast<int64_t>(key << 16);
    if (c.words.empty()) {
      for (uint16_t v : c.values) out.push_back(base + v);
      continue;
    }
    for (size_t w = 0; w < c.words.size(); ++w) {
      for (uint64_t bits = c.words[w]; bits != 0; bits &= bits - 1) {
        out.push_back(base +
                      static_cast<int64_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
      }
    }
  }
  return out;
}

Result<std::string> DeletionBitmap::SerializePayload(bool bitmap64) const {
  std::vector<int64_t> positions = ToVector();
  std::string out;
  if (!bitmap64) {
    if (!positions.empty() && positions.back() > int64_t{0xffffffff}) {
      return Status::Invalid("deleted position ", positions.back(),
                             " does not fit a 32-bit deletion vector: set "
                             "deletion-vectors.bitmap64 = true");
    }
    PutBE32(&out, static_cast<uint32_t>(DeletionVector::kMagic32));
    out += SerializeBitmap32(positions.begin(), positions.end(), false);
    return out;
  }
  PutLE32(&out, static_cast<uint32_t>(DeletionVector::kMagic64));
  // Java allocates a bitmap for every high key up to the largest and serializes them all.
  uint64_t count = positions.empty() ? 0 : (static_cast<uint64_t>(positions.back()) >> 32) + 1;
  PutLE64(&out, count);
  auto it = positions.begin();
  for (uint64_t high = 0; high < count; ++high) {
    auto end = std::find_if(it, positions.end(),
                            [high](int64_t p) { return (static_cast<uint64_t>(p) >> 32) != high; });
    PutLE32(&out, static_cast<uint32_t>(high));
    out += SerializeBitmap32(it, end, true);
    it = end;
  }
  return out;
}

meta::IndexManifestEntry WrittenDeletionVectors::ToEntry() const {
  meta::IndexManifestEntry entry;
  entry.kind = meta::FileKind::kAdd;
  entry.index_type = meta::kDeletionVectorsIndexType;
  entry.file_name = file_name;
  entry.file_size = file_size;
  entry.row_count = static_cast<int64_t>(ranges.size());
  entry.deletion_vector_ranges = ranges;
  return entry;
}

Result<std::pair<std::string, std::vector<meta::DeletionVectorRange>>> EncodeDeletionVectorFile(
    const std::vector<std::pair<std::string, const DeletionBitmap*>>& vectors, bool bitmap64) {
  std::string bytes(1, '\x01');  // version
  std::vector<meta::DeletionVectorRange> ranges;
  for (const auto& [data_file, bitmap] : vectors) {
    FRESHET_ASSIGN_OR_RETURN(std::string payload, bitmap->SerializePayload(bitmap64));
    meta::DeletionVectorRange range;
    range.data_file_name = data_file;
    range.offset = static_cast<int32_t>(bytes.size());
    // Java records the payload size for 32-bit vectors, but size int + payload + CRC for
    // 64-bit ones.
    range.length = static_cast<int32_t>(payload.size() + (bitmap64 ? 8 : 0));
    range.cardinality = bitmap->cardinality();
    PutBE32(&bytes, static_cast<uint32_t>(payload.size()));
    bytes += payload;
    PutBE32(&bytes, Crc32(payload));
    ranges.push_back(std::move(range));
  }
  return std::make_pair(std::move(bytes), std::move(ranges));
}

DeletionVectorFileWriter::DeletionVectorFileWriter(std::shared_ptr<io::FileIO> file_io,
                                                   std::string directory, bool bitmap64)
    : file_io_(std::move(file_io)),
      directory_(std::move(directory)),
      bitmap64_(bitmap64),
      uuid_(RandomUuid()) {}

Result<WrittenDeletionVectors> DeletionVectorFileWriter::Write(
    const std::vector<std::pair<std::string, const DeletionBitmap*>>& vectors) {
  FRESHET_ASSIGN_OR_RETURN(auto encoded, EncodeDeletionVectorFile(vectors, bitmap64_));
  WrittenDeletionVectors written;
  written.file_name = "index-" + uuid_ + "-" + std::to_string(next_++);
  std::string path = io::JoinPath(directory_, written.file_name);
  FRESHET_RETURN_NOT_OK(file_io_->MakeDirs(directory_));
  Status status = file_io_->WriteFile(path, encoded.first);
  if (!status.ok()) {
    (void)file_io_->Delete(path, false);  // a partial file must not be mistaken for an index
    return status;
  }
  written.file_size = static_cast<int64_t>(encoded.first.size());
  written.ranges = std::move(encoded.second);
  return written;
}

}  // namespace freshet::format
