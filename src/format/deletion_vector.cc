#include "format/deletion_vector.h"

#include <arrow/array/array_primitive.h>
#include <arrow/buffer.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_ops.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "common/arrow_status.h"
#include "io/file_io.h"

namespace freshet::format {

namespace {

// RoaringFormatSpec: the first 32 bits tell whether run containers may follow.
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieRuns = 12347;
// With run containers, the offset header is only written from this many containers on.
constexpr uint32_t kNoOffsetThreshold = 4;
constexpr uint32_t kMaxContainers = 1u << 16;
constexpr uint32_t kArrayMaxCardinality = 4096;
constexpr size_t kBitmapWords = 1024;
// Smallest serialized 32-bit bitmap (empty: cookie + count) plus its 64-bit key.
constexpr size_t kMinBitmap64Entry = 4 + 8;
constexpr uint8_t kIndexFileVersion = 1;

uint16_t LoadLe16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;  // freshet targets little-endian hosts only, as Arrow's wheels do
}
uint32_t LoadLe32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t LoadLe64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t LoadBe32(const char* p) { return __builtin_bswap32(LoadLe32(p)); }

uint32_t Crc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes a uInt length; a payload is below 2 GiB, but stay safe for any size.
  while (!bytes.empty()) {
    auto n = static_cast<uInt>(std::min<size_t>(bytes.size(), 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), n);
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

// A bounds-checked cursor over serialized bitmaps. Every count read from the input is checked
// against the bytes that remain before it sizes anything, so memory stays proportional to input.
class DeletionVector::Parser {
 public:
  explicit Parser(std::string_view bytes) : bytes_(bytes) {}

  // One portable 32-bit RoaringBitmap at the cursor; its positions get `high` as upper 32 bits.
  Status ParseRoaring32(uint64_t high, std::vector<Container>* out);
  // Java's Bitmap64DeletionVector layout: count, then (key, 32-bit bitmap) pairs.
  Status ParseRoaring64(std::vector<Container>* out);

  Status ExpectEnd() const {
    if (pos_ == bytes_.size()) return Status::OK();
    return Status::Corruption("deletion vector: ", bytes_.size() - pos_,
                              " unexpected bytes after the bitmap at offset ", pos_);
  }

 private:
  Status Need(size_t n, const char* what) const {
    if (bytes_.size() - pos_ >= n) return Status::OK();
    return Status::Corruption("deletion vector truncated: ", what, " needs ", n,
                              " bytes at offset ", pos_, ", only ", bytes_.size() - pos_, " left");
  }
  const char* Take(size_t n) {  // after Need(n)
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  Status ParseHeader(uint32_t* count, std::string_view* run_flags);
  Status ParseContainer(bool is_run, Container* c);
  Status ParseArray(Container* c);
  Status ParseBitmap(Container* c);
  Status ParseRuns(Container* c);

  std::string_view bytes_;
  size_t pos_ = 0;
};

Status DeletionVector::Parser::ParseHeader(uint32_t* count, std::string_view* run_flags) {
  FRESHET_RETURN_NOT_OK(Need(4, "roaring cookie"));
  uint32_t cookie = LoadLe32(Take(4));
  if (cookie == kCookieNoRuns) {
    FRESHET_RETURN_NOT_OK(Need(4, "container count"));
    *count = LoadLe32(Take(4));
    if (*count > kMaxContainers) {
      return Status::Corruption("deletion vector: roaring bitmap claims ", *count,
                                " containers, at most ", kMaxContainers, " exist");
    }
    return Status::OK();
  }
  if ((cookie & 0xFFFF) != kCookieRuns) {
    return Status::Corruption("deletion vector: unknown roaring cookie ", cookie, " at offset ",
                              pos_ - 4);
  }
  *count = (cookie >> 16) + 1;
  size_t flag_bytes = (*count + 7) / 8;
  FRESHET_RETURN_NOT_OK(Need(flag_bytes, "run-container flags"));
  *run_flags = std::string_view(Take(flag_bytes), flag_bytes);
  return Status::OK();
}

Status DeletionVector::Parser::ParseRoaring32(uint64_t high, std::vector<Container>* out) {
  const size_t start = pos_;
  uint32_t count = 0;
  std::string_view run_flags;
  FRESHET_RETURN_NOT_OK(ParseHeader(&count, &run_flags));
  const bool has_runs = !run_flags.empty();
  FRESHET_RETURN_NOT_OK(Need(size_t{count} * 4, "container keys and cardinalities"));
  const char* headers = Take(size_t{count} * 4);
  const char* offsets = nullptr;
  if (!has_runs || count >= kNoOffsetThreshold) {
    FRESHET_RETURN_NOT_OK(Need(size_t{count} * 4, "container offsets"));
    offsets = Take(size_t{count} * 4);
  }
  int64_t previous_key = -1;
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t key = LoadLe16(headers + 4 * i);
    if (key <= previous_key) {
      return Status::Corruption("deletion vector: container keys not ascending (", key, " after ",
                                previous_key, ")");
    }
    previous_key = key;
    // Readers may seek by offset, so a wrong one means the writer and we disagree on layout.
    if (offsets != nullptr && LoadLe32(offsets + 4 * i) != pos_ - start) {
      return Status::Corruption("deletion vector: container ", i, " has offset ",
                                LoadLe32(offsets + 4 * i), " but starts at ", pos_ - start);
    }
    Container c;
    c.key = (high << 16) | key;
    c.cardinality = uint32_t{LoadLe16(headers + 4 * i + 2)} + 1;
    bool is_run = has_runs && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
    FRESHET_RETURN_NOT_OK(ParseContainer(is_run, &c));
    out->push_back(std::move(c));
  }
  return Status::OK();
}

Status DeletionVector::Parser::ParseContainer(bool is_run, Container* c) {
  if (is_run) return ParseRuns(c);
  if (c->cardinality <= kArrayMaxCardinality) return ParseArray(c);
  return ParseBitmap(c);
}

Status DeletionVector::Parser::ParseArray(Container* c) {
  c->kind = ContainerKind::kArray;
  FRESHET_RETURN_NOT_OK(Need(size_t{c->cardinality} * 2, "array container"));
  const char* p = Take(size_t{c->cardinality} * 2);
  c->values.resize(c->cardinality);
  for (uint32_t i = 0; i < c->cardinality; ++i) {
    c->values[i] = LoadLe16(p + 2 * i);
    if (i > 0 && c->values[i] <= c->values[i - 1]) {
      return Status::Corruption("deletion vector: array container ", c->key,
                                " values not ascending");
    }
  }
  return Status::OK();
}

Status DeletionVector::Parser::ParseBitmap(Container* c) {
  c->kind = ContainerKind::kBitmap;
  FRESHET_RETURN_NOT_OK(Need(kBitmapWords * 8, "bitmap container"));
  const char* p = Take(kBitmapWords * 8);
  c->words.resize(kBitmapWords);
  uint64_t bits = 0;
  for (size_t i = 0; i < kBitmapWords; ++i) {
    c->words[i] = LoadLe64(p + 8 * i);
    bits += std::popcount(c->words[i]);
  }
  if (bits != c->cardinality) {
    return Status::Corruption("deletion vector: bitmap container ", c->key, " holds ", bits,
                              " positions, its header says ", c->cardinality);
  }
  return Status::OK();
}

Status DeletionVector::Parser::ParseRuns(Container* c) {
  c->kind = ContainerKind::kRun;
  FRESHET_RETURN_NOT_OK(Need(2, "run count"));
  uint16_t num_runs = LoadLe16(Take(2));
  FRESHET_RETURN_NOT_OK(Need(size_t{num_runs} * 4, "run container"));
  const char* p = Take(size_t{num_runs} * 4);
  c->runs.resize(num_runs);
  uint64_t total = 0;
  for (uint16_t i = 0; i < num_runs; ++i) {
    uint32_t first = LoadLe16(p + 4 * i);
    uint32_t last = first + LoadLe16(p + 4 * i + 2);
    if (last > 0xFFFF) {
      return Status::Corruption("deletion vector: run container ", c->key, " has a run past 65535");
    }
    if (i > 0 && first <= c->runs[i - 1].last) {
      return Status::Corruption("deletion vector: run container ", c->key,
                                " runs overlap or are not ascending");
    }
    c->runs[i] = Run{static_cast<uint16_t>(first), static_cast<uint16_t>(last)};
    total += last - first + 1;
  }
  if (total != c->cardinality) {
    return Status::Corruption("deletion vector: run container ", c->key, " holds ", total,
                              " positions, its header says ", c->cardinality);
  }
  return Status::OK();
}

Status DeletionVector::Parser::ParseRoaring64(std::vector<Container>* out) {
  FRESHET_RETURN_NOT_OK(Need(8, "64-bit bitmap count"));
  uint64_t count = LoadLe64(Take(8));
  // Checked before the loop so that an absurd count fails fast and clearly.
  if (count > (bytes_.size() - pos_) / kMinBitmap64Entry) {
    return Status::Corruption("deletion vector: 64-bit bitmap claims ", count,
                              " 32-bit bitmaps, but only ", bytes_.size() - pos_, " bytes follow");
  }
  int64_t previous_key = -1;
  for (uint64_t i = 0; i < count; ++i) {
    FRESHET_RETURN_NOT_OK(Need(4, "64-bit bitmap key"));
    auto key = static_cast<int32_t>(LoadLe32(Take(4)));
    // Java keeps keys within [0, Integer.MAX_VALUE - 1] and writes them ascending.
    if (key < 0 || key == std::numeric_limits<int32_t>::max() || key <= previous_key) {
      return Status::Corruption("deletion vector: 64-bit bitmap key ", key,
                                " out of range or not ascending (previous ", previous_key, ")");
    }
    previous_key = key;
    FRESHET_RETURN_NOT_OK(ParseRoaring32(static_cast<uint64_t>(key), out));
  }
  return Status::OK();
}

Result<DeletionVector> DeletionVector::Deserialize(std::string_view payload) {
  if (payload.size() < 4) {
    return Status::Corruption("deletion vector truncated: ", payload.size(),
                              " bytes, not even a magic number");
  }
  if (static_cast<int32_t>(LoadBe32(payload.data())) == kMagic32) {
    return DeserializeRoaring32(payload.substr(4));
  }
  if (static_cast<int32_t>(LoadLe32(payload.data())) == kMagic64) {
    return DeserializeRoaring64(payload.substr(4));
  }
  return Status::Corruption("deletion vector: invalid magic number ",
                            static_cast<int32_t>(LoadBe32(payload.data())), " (expected ", kMagic32,
                            " big-endian or ", kMagic64, " little-endian)");
}

Result<DeletionVector> DeletionVector::DeserializeRoaring32(std::string_view bitmap) {
  DeletionVector dv;
  Parser parser(bitmap);
  FRESHET_RETURN_NOT_OK(parser.ParseRoaring32(0, &dv.containers_));
  FRESHET_RETURN_NOT_OK(parser.ExpectEnd());
  for (const auto& c : dv.containers_) dv.cardinality_ += c.cardinality;
  return dv;
}

Result<DeletionVector> DeletionVector::DeserializeRoaring64(std::string_view bitmap) {
  DeletionVector dv;
  dv.is_64bit_ = true;
  Parser parser(bitmap);
  FRESHET_RETURN_NOT_OK(parser.ParseRoaring64(&dv.containers_));
  FRESHET_RETURN_NOT_OK(parser.ExpectEnd());
  for (const auto& c : dv.containers_) dv.cardinality_ += c.cardinality;
  return dv;
}

bool DeletionVector::ContainerHas(const Container& c, uint16_t low) {
  switch (c.kind) {
    case ContainerKind::kArray:
      return std::binary_search(c.values.begin(), c.values.end(), low);
    case ContainerKind::kBitmap:
      return (c.words[low >> 6] >> (low & 63)) & 1;
    case ContainerKind::kRun: {
      // The last run starting at or before `low` is the only one that can hold it.
      auto it = std::upper_bound(c.runs.begin(), c.runs.end(), low,
                                 [](uint16_t v, const Run& r) { return v < r.first; });
      return it != c.runs.begin() && low <= std::prev(it)->last;
    }
  }
  return false;
}

bool DeletionVector::IsDeleted(int64_t position) const {
  if (position < 0) return false;
  const uint64_t key = static_cast<uint64_t>(position) >> 16;
  auto it = std::lower_bound(containers_.begin(), containers_.end(), key,
                             [](const Container& c, uint64_t k) { return c.key < k; });
  if (it == containers_.end() || it->key != key) return false;
  return ContainerHas(*it, static_cast<uint16_t>(position & 0xFFFF));
}

template <typename Visit>
void DeletionVector::VisitRange(int64_t begin, int64_t end, Visit&& visit) const {
  begin = std::max<int64_t>(begin, 0);
  if (begin >= end) return;
  const uint64_t first_key = static_cast<uint64_t>(begin) >> 16;
  const uint64_t last_key = static_cast<uint64_t>(end - 1) >> 16;
  auto it = std::lower_bound(containers_.begin(), containers_.end(), first_key,
                             [](const Container& c, uint64_t k) { return c.key < k; });
  for (; it != containers_.end() && it->key <= last_key; ++it) {
    const auto base = static_cast<int64_t>(it->key << 16);
    // [lo, hi) within this container; hi may be 65536.
    const auto lo = static_cast<uint32_t>(std::max(begin, base) - base);
    const auto hi = static_cast<uint32_t>(std::min(end - base, int64_t{1} << 16));
    switch (it->kind) {
      case ContainerKind::kArray: {
        auto v = std::lower_bound(it->values.begin(), it->values.end(), lo);
        for (; v != it->values.end() && *v < hi; ++v) visit(base + *v, base + *v + 1);
        break;
      }
      case ContainerKind::kRun: {
        auto r = std::lower_bound(it->runs.begin(), it->runs.end(), lo,
                                  [](const Run& run, uint32_t v) { return run.last < v; });
        for (; r != it->runs.end() && r->first < hi; ++r) {
          uint32_t a = std::max<uint32_t>(r->first, lo);
          uint32_t b = std::min<uint32_t>(uint32_t{r->last} + 1, hi);
          visit(base + a, base + b);
        }
        break;
      }
      case ContainerKind::kBitmap: {
        const uint32_t first_word = lo >> 6;
        const uint32_t last_word = (hi - 1) >> 6;
        for (uint32_t w = first_word; w <= last_word; ++w) {
          uint64_t bits = it->words[w];
          if (w == first_word) bits &= ~uint64_t{0} << (lo & 63);
          if (w == last_word) bits &= ~uint64_t{0} >> (63 - ((hi - 1) & 63));
          const int64_t word_base = base + int64_t{w} * 64;
          if (bits == ~uint64_t{0}) {  // dense deletes: one stretch instead of 64
            visit(word_base, word_base + 64);
            continue;
          }
          for (; bits != 0; bits &= bits - 1) {
            int64_t p = word_base + std::countr_zero(bits);
            visit(p, p + 1);
          }
        }
        break;
      }
    }
  }
}

namespace {
// start + n without overflow (positions beyond INT64_MAX cannot be deleted anyway).
int64_t RangeEnd(int64_t start, int64_t n) {
  return start > std::numeric_limits<int64_t>::max() - n ? std::numeric_limits<int64_t>::max()
                                                         : start + n;
}
}  // namespace

int64_t DeletionVector::MarkDeleted(int64_t start, int64_t n, uint8_t* deleted) const {
  if (n <= 0) return 0;
  std::memset(deleted, 0, static_cast<size_t>(n));
  int64_t count = 0;
  VisitRange(start, RangeEnd(start, n), [&](int64_t a, int64_t b) {
    std::memset(deleted + (a - start), 1, static_cast<size_t>(b - a));
    count += b - a;
  });
  return count;
}

int64_t DeletionVector::CountDeleted(int64_t start, int64_t n) const {
  if (n <= 0) return 0;
  int64_t count = 0;
  VisitRange(start, RangeEnd(start, n), [&](int64_t a, int64_t b) { count += b - a; });
  return count;
}

Result<std::shared_ptr<arrow::BooleanArray>> DeletionVector::KeepMask(int64_t start,
                                                                      int64_t n) const {
  if (n < 0) return Status::Invalid("KeepMask: negative length ", n);
  FRESHET_ASSIGN_OR_RETURN_ARROW(std::shared_ptr<arrow::Buffer> bits, arrow::AllocateBitmap(n));
  uint8_t* data = bits->mutable_data();
  arrow::bit_util::SetBitsTo(data, 0, n, true);
  VisitRange(start, RangeEnd(start, n), [&](int64_t a, int64_t b) {
    arrow::bit_util::SetBitsTo(data, a - start, b - a, false);
  });
  return std::make_shared<arrow::BooleanArray>(n, std::move(bits));
}

void DeletionVector::ForEach(const std::function<void(int64_t)>& fn) const {
  VisitRange(0, std::numeric_limits<int64_t>::max(), [&](int64_t a, int64_t b) {
    for (int64_t p = a; p < b; ++p) fn(p);
  });
}

std::vector<int64_t> DeletionVector::ToVector() const {
  std::vector<int64_t> positions;
  positions.reserve(static_cast<size_t>(cardinality_));
  ForEach([&](int64_t p) { positions.push_back(p); });
  return positions;
}

// --- Index files ---

DeletionVectorIndexReader::DeletionVectorIndexReader(std::unique_ptr<io::RandomAccessFile> file,
                                                     int64_t size)
    : file_(std::move(file)), size_(size) {}
DeletionVectorIndexReader::DeletionVectorIndexReader(DeletionVectorIndexReader&&) noexcept =
    default;
DeletionVectorIndexReader& DeletionVectorIndexReader::operator=(
    DeletionVectorIndexReader&&) noexcept = default;
DeletionVectorIndexReader::~DeletionVectorIndexReader() = default;

Result<DeletionVectorIndexReader> DeletionVectorIndexReader::Open(io::FileIO& file_io,
                                                                  const std::string& path) {
  FRESHET_ASSIGN_OR_RETURN(auto file, file_io.OpenForRead(path));
  FRESHET_ASSIGN_OR_RETURN(int64_t size, file->Size());
  FRESHET_ASSIGN_OR_RETURN(std::string version, file->ReadAt(0, 1));
  if (version.size() != 1) {
    return Status::Corruption("deletion vector index file '", path, "' is empty");
  }
  if (static_cast<uint8_t>(version[0]) != kIndexFileVersion) {
    return Status::Corruption("deletion vector index file '", path, "' has version ",
                              int{static_cast<uint8_t>(version[0])}, ", expected ",
                              int{kIndexFileVersion});
  }
  return DeletionVectorIndexReader(std::move(file), size);
}

namespace {

// Checks the framing of one vector (size int, magic, CRC) in `bytes`, read at the range's offset,
// and returns its payload. Java records `length` differently for the two formats.
Result<std::string_view> FramedPayload(std::string_view bytes, int64_t length) {
  if (bytes.size() < 8) {
    return Status::Corruption("deletion vector truncated: ", bytes.size(),
                              " bytes where the size int and magic should be");
  }
  const auto size = static_cast<int32_t>(LoadBe32(bytes.data()));
  const char* magic = bytes.data() + 4;
  int64_t expected_size;
  if (static_cast<int32_t>(LoadBe32(magic)) == DeletionVector::kMagic32) {
    expected_size = length;  // 32-bit: the range is the payload
  } else if (static_cast<int32_t>(LoadLe32(magic)) == DeletionVector::kMagic64) {
    expected_size = length - 8;  // 64-bit: the range also covers the size int and CRC
  } else {
    return Status::Corruption("deletion vector: invalid magic number ",
                              static_cast<int32_t>(LoadBe32(magic)));
  }
  if (size != expected_size) {
    return Status::Corruption("deletion vector size ", size, " does not match the length ", length,
                              " recorded in the index manifest");
  }
  if (bytes.size() - 8 < static_cast<size_t>(size)) {
    return Status::Corruption("deletion vector truncated: payload of ", size,
                              " bytes plus CRC runs past the end of the file");
  }
  std::string_view payload = bytes.substr(4, static_cast<size_t>(size));
  uint32_t stored = LoadBe32(bytes.data() + 4 + size);
  uint32_t actual = Crc32(payload);
  if (stored != actual) {
    return Status::Corruption("deletion vector CRC mismatch: stored ", stored, ", computed ",
                              actual);
  }
  return payload;
}

}  // namespace

Result<DeletionVector> DeletionVectorIndexReader::Read(
    int64_t offset, int64_t length, std::optional<int64_t> expected_cardinality) const {
  const std::string context =
      "deletion vector at offset " + std::to_string(offset) + " of '" + file_->path() + "'";
  // Both bounds come from the index manifest; checking them against the file keeps a hostile
  // length from sizing the read buffer.
  if (offset < 1 || offset >= size_ || length < 4 || length > size_) {
    return Status::Corruption("range (offset ", offset, ", length ", length,
                              ") does not fit in the file of ", size_, " bytes")
        .WithContext(context);
  }
  // The frame is at most length + 8 bytes (32-bit); the 64-bit frame is exactly `length`.
  int64_t to_read = std::min(length + 8, size_ - offset);
  FRESHET_ASSIGN_OR_RETURN(std::string bytes, file_->ReadAt(offset, to_read));
  auto payload = FramedPayload(bytes, length);
  if (!payload.ok()) return payload.status().WithContext(context);
  auto dv = DeletionVector::Deserialize(*payload);
  if (!dv.ok()) return dv.status().WithContext(context);
  if (expected_cardinality.has_value() && *expected_cardinality != dv->cardinality()) {
    return Status::Corruption("holds ", dv->cardinality(),
                              " deleted positions, the index manifest says ", *expected_cardinality)
        .WithContext(context);
  }
  return dv;
}

Result<DeletionVector> ReadDeletionVector(io::FileIO& file_io, const std::string& index_file_path,
                                          int64_t offset, int64_t length,
                                          std::optional<int64_t> expected_cardinality) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, DeletionVectorIndexReader::Open(file_io, index_file_path));
  return reader.Read(offset, length, expected_cardinality);
}

Result<std::vector<std::pair<std::string, DeletionVector>>> ReadDeletionVectorIndexFile(
    io::FileIO& file_io, const std::string& index_file_path,
    const std::vector<meta::DeletionVectorRange>& ranges) {
  FRESHET_ASSIGN_OR_RETURN(auto reader, DeletionVectorIndexReader::Open(file_io, index_file_path));
  std::vector<std::pair<std::string, DeletionVector>> vectors;
  vectors.reserve(ranges.size());
  for (const auto& range : ranges) {
    FRESHET_ASSIGN_OR_RETURN(auto dv, reader.Read(range.offset, range.length, range.cardinality));
    vectors.emplace_back(range.data_file_name, std::move(dv));
  }
  return vectors;
}

}  // namespace freshet::format
