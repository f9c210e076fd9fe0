#include "meta/fileindex/file_index.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>

#include "meta/options/option_registry.h"

namespace freshet::meta {

namespace {

constexpr int64_t kMagic = 1493475289347502LL;
constexpr int32_t kVersion = 1;
constexpr int32_t kEmptyIndexFlag = -1;
constexpr std::string_view kFileIndexPrefix = "file-index.";
constexpr std::string_view kColumnsSuffix = ".columns";

void PutInt32(std::string* out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(u >> shift));
}

void PutInt64(std::string* out, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(u >> shift));
}

// Java's modified UTF-8 (DataOutput.writeUTF without the length): NUL as C0 80, a character
// above U+FFFF as its two UTF-16 surrogates of three bytes each; the rest is UTF-8.
std::string ToModifiedUtf8(std::string_view utf8) {
  std::string out;
  for (size_t i = 0; i < utf8.size();) {
    auto c = static_cast<unsigned char>(utf8[i]);
    if (c == 0) {
      out += "\xC0\x80";
      ++i;
    } else if (c >= 0xF0 && i + 3 < utf8.size()) {
      uint32_t cp = ((c & 0x07u) << 18) |
                    ((static_cast<unsigned char>(utf8[i + 1]) & 0x3Fu) << 12) |
                    ((static_cast<unsigned char>(utf8[i + 2]) & 0x3Fu) << 6) |
                    (static_cast<unsigned char>(utf8[i + 3]) & 0x3Fu);
      cp -= 0x10000;
      for (uint32_t unit : {0xD800u + (cp >> 10), 0xDC00u + (cp & 0x3FFu)}) {
        out.push_back(static_cast<char>(0xE0 | (unit >> 12)));
        out.push_back(static_cast<char>(0x80 | ((unit >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (unit & 0x3F)));
      }
      i += 4;
    } else {
      out.push_back(static_cast<char>(c));
      ++i;
    }
  }
  return out;
}

// The reverse (surrogate pairs back to four-byte UTF-8); names are compared as UTF-8.
std::string FromModifiedUtf8(std::string_view mutf8) {
  std::string out;
  for (size_t i = 0; i < mutf8.size();) {
    auto c = static_cast<unsigned char>(mutf8[i]);
    if (c == 0xC0 && i + 1 < mutf8.size() && static_cast<unsigned char>(mutf8[i + 1]) == 0x80) {
      out.push_back('\0');
      i += 2;
      continue;
    }
    if (c == 0xED && i + 5 < mutf8.size() &&
        (static_cast<unsigned char>(mutf8[i + 1]) & 0xF0) == 0xA0 &&
        static_cast<unsigned char>(mutf8[i + 3]) == 0xED &&
        (static_cast<unsigned char>(mutf8[i + 4]) & 0xF0) == 0xB0) {
      auto unit = [&](size_t at) {
        return ((static_cast<unsigned char>(mutf8[at]) & 0x0Fu) << 12) |
               ((static_cast<unsigned char>(mutf8[at + 1]) & 0x3Fu) << 6) |
               (static_cast<unsigned char>(mutf8[at + 2]) & 0x3Fu);
      };
      uint32_t cp = 0x10000 + ((unit(i) - 0xD800u) << 10) + (unit(i + 3) - 0xDC00u);
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      i += 6;
      continue;
    }
    out.push_back(static_cast<char>(c));
    ++i;
  }
  return out;
}

void PutUtf(std::string* out, std::string_view utf8) {
  std::string encoded = ToModifiedUtf8(utf8);
  auto length = static_cast<uint16_t>(encoded.size());
  out->push_back(static_cast<char>(length >> 8));
  out->push_back(static_cast<char>(length & 0xFF));
  out->append(encoded);
}

// Java String.hashCode() of UTF-8 text (over its UTF-16 code units).
int32_t JavaStringHash(std::string_view utf8) {
  uint32_t h = 0;
  auto add = [&](uint32_t unit) { h = 31 * h + unit; };
  for (size_t i = 0; i < utf8.size();) {
    auto c = static_cast<unsigned char>(utf8[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0) {
      cp = c & 0x07u;
      len = 4;
    } else if (c >= 0xE0) {
      cp = c & 0x0Fu;
      len = 3;
    } else if (c >= 0xC0) {
      cp = c & 0x1Fu;
      len = 2;
    }
    for (size_t k = 1; k < len && i + k < utf8.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3Fu);
    }
    i += len;
    if (cp >= 0x10000) {
      add(0xD800u + ((cp - 0x10000) >> 10));
      add(0xDC00u + ((cp - 0x10000) & 0x3FFu));
    } else {
      add(cp);
    }
  }
  return static_cast<int32_t>(h);
}

// Reads big-endian fields from a bounded buffer; every read checks the bounds.
class Cursor {
 public:
  explicit Cursor(std::string_view data) : data_(data) {}
  Result<int32_t> Int32() {
    FRESHET_RETURN_NOT_OK(Need(4));
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(data_[pos_++]);
    return static_cast<int32_t>(v);
  }
  Result<int64_t> Int64() {
    FRESHET_RETURN_NOT_OK(Need(8));
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v = (v << 8) | static_cast<unsigned char>(data_[pos_++]);
    return static_cast<int64_t>(v);
  }
  Result<std::string> Utf() {
    FRESHET_RETURN_NOT_OK(Need(2));
    size_t length = (static_cast<size_t>(static_cast<unsigned char>(data_[pos_])) << 8) |
                    static_cast<unsigned char>(data_[pos_ + 1]);
    pos_ += 2;
    FRESHET_RETURN_NOT_OK(Need(length));
    std::string out = FromModifiedUtf8(data_.substr(pos_, length));
    pos_ += length;
    return out;
  }
  size_t position() const { return pos_; }

 private:
  Status Need(size_t n) const {
    if (data_.size() - pos_ < n) {
      return Status::IOError("file index is truncated: ", n, " bytes needed at offset ", pos_,
                             " of ", data_.size());
    }
    return Status::OK();
  }
  std::string_view data_;
  size_t pos_ = 0;
};

Result<double> ParseFpp(const std::string& key, const std::string& text) {
  double fpp = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fpp);
  if (ec != std::errc() || end != text.data() + text.size() || !(fpp > 0 && fpp < 1)) {
    return Status::Invalid("option '", key, "' has an invalid value '", text,
                           "'; accepted values: a probability between 0 and 1 (exclusive)");
  }
  return fpp;
}

// Float.floatToIntBits / Double.doubleToLongBits: every NaN as the canonical one.
int64_t JavaFloatBits(float v) {
  if (std::isnan(v)) return 0x7fc00000;
  int32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

int64_t JavaDoubleBits(double v) {
  if (std::isnan(v)) return 0x7ff8000000000000LL;
  int64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// BloomFilter64

BloomFilter64 BloomFilter64::ForItems(int64_t items, double fpp) {
  // Java: bits = (int)(-n ln p / ln^2 2), rounded up to the next multiple of 8 (a whole byte more
  // when it already is one); hash functions = max(1, round(bits / n * ln 2)).
  const double ln2 = std::log(2.0);
  auto nb = static_cast<int32_t>(-static_cast<double>(items) * std::log(fpp) / (ln2 * ln2));
  int32_t num_bits = nb + (8 - (nb % 8));
  auto hashes = static_cast<int32_t>(
      std::max<int64_t>(1, std::llround(static_cast<double>(num_bits) / items * ln2)));
  return BloomFilter64(hashes, std::string(static_cast<size_t>(num_bits / 8), '\0'));
}

namespace {

// Checks a serialized filter's header; returns its hash-function count.
Result<int32_t> CheckSerializedFilter(std::string_view serialized) {
  if (serialized.size() < 5) {
    return Status::IOError("bloom-filter index of ", serialized.size(),
                           " bytes: too short (a hash-function count and at least one byte)");
  }
  Cursor cursor(serialized);
  FRESHET_ASSIGN_OR_RETURN(int32_t hashes, cursor.Int32());
  if (hashes <= 0 || hashes > 1024) {
    return Status::IOError("bloom-filter index has ", hashes, " hash functions");
  }
  if (serialized.size() - 4 > static_cast<size_t>(INT32_MAX / 8)) {
    return Status::IOError("bloom-filter index of ", serialized.size(), " bytes is too large");
  }
  return hashes;
}

// Visits the bit positions of `hash` in a set of `bits` bytes until `visit` returns false.
// Java: int hash1 = (int) hash64, hash2 = (int) (hash64 >>> 32); combined = hash1 + i * hash2 in
// int arithmetic, flipped when negative, modulo the bit count.
template <typename Visit>
bool ForEachProbe(int32_t num_hash_functions, size_t bytes, int64_t hash, Visit visit) {
  const auto hash1 = static_cast<uint32_t>(static_cast<uint64_t>(hash));
  const auto hash2 = static_cast<uint32_t>(static_cast<uint64_t>(hash) >> 32);
  const auto bits = static_cast<int32_t>(bytes * 8);
  for (int32_t i = 1; i <= num_hash_functions; ++i) {
    auto combined = static_cast<int32_t>(hash1 + static_cast<uint32_t>(i) * hash2);
    if (combined < 0) combined = ~combined;
    if (!visit(combined % bits)) return false;
  }
  return true;
}

bool BitAt(std::string_view bits, int32_t pos) {
  return (static_cast<unsigned char>(bits[static_cast<size_t>(pos >> 3)]) & (1 << (pos & 7))) != 0;
}

}  // namespace

Result<BloomFilter64> BloomFilter64::Parse(std::string_view serialized) {
  FRESHET_ASSIGN_OR_RETURN(int32_t hashes, CheckSerializedFilter(serialized));
  return BloomFilter64(hashes, std::string(serialized.substr(4)));
}

Result<bool> BloomFilter64::TestSerialized(std::string_view serialized, int64_t hash) {
  FRESHET_ASSIGN_OR_RETURN(int32_t hashes, CheckSerializedFilter(serialized));
  std::string_view bits = serialized.substr(4);
  return ForEachProbe(hashes, bits.size(), hash, [bits](int32_t pos) { return BitAt(bits, pos); });
}

void BloomFilter64::AddHash(int64_t hash) {
  ForEachProbe(num_hash_functions_, bits_.size(), hash, [this](int32_t pos) {
    bits_[static_cast<size_t>(pos >> 3)] |= static_cast<char>(1 << (pos & 7));
    return true;
  });
}

bool BloomFilter64::TestHash(int64_t hash) const {
  return ForEachProbe(num_hash_functions_, bits_.size(), hash,
                      [this](int32_t pos) { return BitAt(bits_, pos); });
}

std::string BloomFilter64::Serialize() const {
  std::string out;
  out.reserve(4 + bits_.size());
  PutInt32(&out, num_hash_functions_);
  out.append(bits_);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hashes

int64_t BloomHashOfLong(int64_t key) {
  // Thomas Wang's 64-bit mix, with Java's wrapping arithmetic and sign-extending shifts.
  auto u = static_cast<uint64_t>(key);
  auto sar = [](uint64_t v, int n) { return static_cast<uint64_t>(static_cast<int64_t>(v) >> n); };
  u = ~u + (u << 21);
  u = u ^ sar(u, 24);
  u = (u + (u << 3)) + (u << 8);
  u = u ^ sar(u, 14);
  u = (u + (u << 2)) + (u << 4);
  u = u ^ sar(u, 28);
  u = u + (u << 31);
  return static_cast<int64_t>(u);
}

int64_t BloomHashOfBytes(std::string_view bytes) {
  return static_cast<int64_t>(XXH64(bytes.data(), bytes.size(), 0));
}

bool BloomFilterSupports(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return true;
    default:
      return false;
  }
}

Result<int64_t> BloomHashOf(const Value& value, const DataType& type) {
  auto mismatch = [&]() {
    return Status::Invalid("bloom-filter hash: value does not match type ", type.ToString());
  };
  switch (type.root()) {
    case TypeRoot::kTinyInt:
      if (auto v = value.get_if<int8_t>()) return BloomHashOfLong(*v);
      return mismatch();
    case TypeRoot::kSmallInt:
      if (auto v = value.get_if<int16_t>()) return BloomHashOfLong(*v);
      return mismatch();
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      if (auto v = value.get_if<int32_t>()) return BloomHashOfLong(*v);
      return mismatch();
    case TypeRoot::kBigInt:
      if (auto v = value.get_if<int64_t>()) return BloomHashOfLong(*v);
      return mismatch();
    case TypeRoot::kFloat:
      if (auto v = value.get_if<float>()) return BloomHashOfLong(JavaFloatBits(*v));
      return mismatch();
    case TypeRoot::kDouble:
      if (auto v = value.get_if<double>()) return BloomHashOfLong(JavaDoubleBits(*v));
      return mismatch();
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      if (auto v = value.get_if<std::string>()) return BloomHashOfBytes(*v);
      return mismatch();
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (auto v = value.get_if<Timestamp>()) {
        return BloomHashOfLong(type.precision() <= 3 ? v->millis
                                                     : v->millis * 1000 + v->nano_of_milli / 1000);
      }
      return mismatch();
    default:
      return Status::NotImplemented("the bloom-filter file index does not support type ",
                                    type.ToString());
  }
}

// ---------------------------------------------------------------------------------------------
// Options

Result<FileIndexSpec> FileIndexSpec::FromSchema(const TableSchema& schema) {
  FileIndexSpec spec;
  const Options& options = schema.options();
  FRESHET_ASSIGN_OR_RETURN(spec.in_manifest_threshold,
                           GetMemorySizeOption(options, "file-index.in-manifest-threshold"));
  FRESHET_ASSIGN_OR_RETURN(spec.read_enabled, GetBoolOption(options, "file-index.read.enabled"));
  std::vector<std::string> names;
  for (const auto& [key, value] : options) {
    if (!key.starts_with(kFileIndexPrefix) || !key.ends_with(kColumnsSuffix)) continue;
    std::string type = key.substr(kFileIndexPrefix.size(),
                                  key.size() - kFileIndexPrefix.size() - kColumnsSuffix.size());
    if (type != kBloomFilterIndexType) {
      return Status::NotImplemented("option '", key, "': freshet writes only the ",
                                    kBloomFilterIndexType, " file index, not '", type, "'");
    }
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = std::min(value.find(',', start), value.size());
      std::string name = value.substr(start, comma - start);
      name.erase(0, name.find_first_not_of(" \t"));
      name.erase(name.find_last_not_of(" \t") + 1);
      if (name.empty()) {
        return Status::Invalid("option '", key, "' lists an empty column in '", value, "'");
      }
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      start = comma + 1;
    }
  }
  for (const std::string& name : names) {
    std::string key = std::string(kFileIndexPrefix) + kBloomFilterIndexType + ".columns";
    if (name.find('[') != std::string::npos) {
      return Status::NotImplemented("option '", key, "': column '", name,
                                    "' is a map entry; freshet indexes top-level columns only");
    }
    int index = schema.FieldIndex(name);
    if (index < 0) {
      return Status::Invalid("option '", key, "' names column '", name,
                             "', which the table does not have");
    }
    const DataField& field = schema.fields()[static_cast<size_t>(index)];
    if (!BloomFilterSupports(*field.type)) {
      return Status::Invalid("option '", key, "': column '", name, "' is ", field.type->ToString(),
                             ", which the bloom-filter index cannot hash");
    }
    FileIndexColumn column{name, field.type};
    std::string prefix = std::string(kFileIndexPrefix) + kBloomFilterIndexType + "." + name + ".";
    FRESHET_ASSIGN_OR_RETURN(column.items, GetIntOption(options, prefix + "items"));
    FRESHET_ASSIGN_OR_RETURN(std::string fpp, GetStringOption(options, prefix + "fpp"));
    FRESHET_ASSIGN_OR_RETURN(column.fpp, ParseFpp(prefix + "fpp", fpp));
    spec.bloom_filter_columns.push_back(std::move(column));
  }
  // Per-column options of columns no `.columns` option lists: Java refuses them.
  for (const auto& [key, value] : options) {
    if (!key.starts_with(kFileIndexPrefix) || key.ends_with(kColumnsSuffix)) continue;
    std::string rest = key.substr(kFileIndexPrefix.size());
    if (std::count(rest.begin(), rest.end(), '.') != 2) continue;
    std::string type = rest.substr(0, rest.find('.'));
    std::string column = rest.substr(type.size() + 1, rest.rfind('.') - type.size() - 1);
    if (type == kBloomFilterIndexType &&
        std::find(names.begin(), names.end(), column) != names.end()) {
      continue;
    }
    return Status::Invalid("option '", key, "': column '", column, "' is not declared in '",
                           kFileIndexPrefix, type, kColumnsSuffix, "'");
  }
  std::vector<std::string> ordered_names;
  for (const auto& column : spec.bloom_filter_columns) ordered_names.push_back(column.name);
  std::vector<FileIndexColumn> ordered;
  for (size_t i : JavaHashMapOrder(ordered_names)) {
    ordered.push_back(spec.bloom_filter_columns[i]);
  }
  spec.bloom_filter_columns = std::move(ordered);
  return spec;
}

// ---------------------------------------------------------------------------------------------
// Container

std::string SerializeFileIndex(const std::vector<FileIndexEntry>& entries) {
  // Group by column (first appearance), as Java's map of maps.
  std::vector<std::pair<std::string, std::vector<const FileIndexEntry*>>> columns;
  for (const FileIndexEntry& e : entries) {
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&](const auto& c) { return c.first == e.column; });
    if (it == columns.end()) {
      columns.emplace_back(e.column, std::vector<const FileIndexEntry*>{});
      it = columns.end() - 1;
    }
    it->second.push_back(&e);
  }
  // Head length: magic, version, head length, column count, per column its name and index count,
  // per index its name, start and length, the redundant length.
  size_t head_length = 8 + 4 + 4 + 4 + 4;
  for (const auto& [column, indexes] : columns) {
    head_length += 2 + ToModifiedUtf8(column).size() + 4;
    for (const FileIndexEntry* e : indexes)
      head_length += 2 + ToModifiedUtf8(e->index_type).size() + 8;
  }
  std::string head;
  std::string body;
  PutInt64(&head, kMagic);
  PutInt32(&head, kVersion);
  PutInt32(&head, static_cast<int32_t>(head_length));
  PutInt32(&head, static_cast<int32_t>(columns.size()));
  for (const auto& [column, indexes] : columns) {
    PutUtf(&head, column);
    PutInt32(&head, static_cast<int32_t>(indexes.size()));
    for (const FileIndexEntry* e : indexes) {
      PutUtf(&head, e->index_type);
      if (!e->bytes) {
        PutInt32(&head, kEmptyIndexFlag);
        PutInt32(&head, 0);
        continue;
      }
      PutInt32(&head, static_cast<int32_t>(head_length + body.size()));
      PutInt32(&head, static_cast<int32_t>(e->bytes->size()));
      body.append(*e->bytes);
    }
  }
  PutInt32(&head, 0);  // redundant length: nothing in version 1
  return head + body;
}

Result<FileIndexContents> FileIndexContents::Parse(std::string bytes) {
  FileIndexContents out;
  out.bytes_ = std::move(bytes);
  const std::string_view data = out.bytes_;
  Cursor cursor(data);
  FRESHET_ASSIGN_OR_RETURN(int64_t magic, cursor.Int64());
  if (magic != kMagic) return Status::IOError("not a Paimon file index (magic ", magic, ")");
  FRESHET_ASSIGN_OR_RETURN(int32_t version, cursor.Int32());
  if (version != kVersion) {
    return Status::NotImplemented("file index version ", version, " (freshet reads version 1)");
  }
  FRESHET_ASSIGN_OR_RETURN(int32_t head_length, cursor.Int32());
  if (head_length < 20 || static_cast<size_t>(head_length) > data.size()) {
    return Status::IOError("file index head length ", head_length, " outside its ", data.size(),
                           " bytes");
  }
  Cursor head(data.substr(0, static_cast<size_t>(head_length)));
  FRESHET_RETURN_NOT_OK(head.Int64().status());
  FRESHET_RETURN_NOT_OK(head.Int64().status());
  FRESHET_ASSIGN_OR_RETURN(int32_t num_columns, head.Int32());
  if (num_columns < 0) return Status::IOError("file index has ", num_columns, " columns");
  for (int32_t c = 0; c < num_columns; ++c) {
    FRESHET_ASSIGN_OR_RETURN(std::string column, head.Utf());
    FRESHET_ASSIGN_OR_RETURN(int32_t num_indexes, head.Int32());
    if (num_indexes < 0) return Status::IOError("file index column has ", num_indexes, " indexes");
    for (int32_t i = 0; i < num_indexes; ++i) {
      FRESHET_ASSIGN_OR_RETURN(std::string type, head.Utf());
      FRESHET_ASSIGN_OR_RETURN(int32_t start, head.Int32());
      FRESHET_ASSIGN_OR_RETURN(int32_t length, head.Int32());
      std::optional<std::string_view> index;
      if (start != kEmptyIndexFlag) {
        if (start < head_length || length < 0 || static_cast<size_t>(start) > data.size() ||
            static_cast<size_t>(length) > data.size() - static_cast<size_t>(start)) {
          return Status::IOError("file index of column '", column, "' (", type, ") at ", start, "+",
                                 length, " lies outside the ", data.size(), " bytes");
        }
        index = data.substr(static_cast<size_t>(start), static_cast<size_t>(length));
      }
      out.indexes_[{column, type}] = index;
    }
  }
  return out;
}

const std::optional<std::string_view>* FileIndexContents::Find(const std::string& column,
                                                               const std::string& type) const {
  auto it = indexes_.find({column, type});
  return it == indexes_.end() ? nullptr : &it->second;
}

std::vector<FileIndexEntry> FileIndexContents::Entries() const {
  std::vector<FileIndexEntry> out;
  for (const auto& [key, bytes] : indexes_) {
    out.push_back(
        FileIndexEntry{key.first, key.second,
                       bytes ? std::optional<std::string>(std::string(*bytes)) : std::nullopt});
  }
  return out;
}

std::vector<size_t> JavaHashMapOrder(const std::vector<std::string>& keys) {
  // A HashMap starts with 16 buckets and doubles past 3/4 full; a key's bucket is its spread
  // hash (h ^ h >>> 16) masked by the table size; a resize keeps each bucket's insertion order.
  uint32_t capacity = 16;
  while (keys.size() > capacity * 3 / 4) capacity *= 2;
  std::vector<size_t> order(keys.size());
  std::vector<uint32_t> bucket(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    order[i] = i;
    auto h = static_cast<uint32_t>(JavaStringHash(keys[i]));
    bucket[i] = (h ^ (h >> 16)) & (capacity - 1);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bucket[a] < bucket[b]; });
  return order;
}

}  // namespace freshet::meta
