// The Avro binary encoding, driven by a schema: zigzag varints, length-prefixed bytes and strings,
// blocked arrays and maps.
//
// Decoding treats its input as untrusted. Every length and count is checked against the bytes that
// are left before anything is allocated, so corrupt or truncated input yields Status::Corruption
// (with a message saying what was wrong) rather than a crash or a huge allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "container/avro/avro_schema.h"
#include "container/avro/avro_value.h"
#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet::container::avro {

// Appends the encodings of primitive values to `out`.
void EncodeLong(int64_t value, std::string* out);
inline void EncodeInt(int32_t value, std::string* out) { EncodeLong(value, out); }
void EncodeBytes(std::string_view bytes, std::string* out);  // also strings
void EncodeFloat(float value, std::string* out);
void EncodeDouble(double value, std::string* out);

// A bounds-checked cursor over encoded bytes.
class AvroDecoder {
 public:
  explicit AvroDecoder(std::string_view data) : data_(data) {}
  // Starts at offset `pos` (clamped to the end), so positions in messages are absolute.
  AvroDecoder(std::string_view data, size_t pos) : data_(data), pos_(std::min(pos, data.size())) {}

  // Inline for the one-byte varints that most are (union branches, small counts and lengths);
  // a manifest entry holds dozens.
  Result<int64_t> ReadLong() {
    int64_t value;
    if (ReadOneByteVarint(&value)) return value;
    return ReadLongSlow();
  }
  Result<int32_t> ReadInt() {
    int64_t value;
    if (ReadOneByteVarint(&value)) return static_cast<int32_t>(value);  // within -64..63
    return ReadIntSlow();
  }
  Result<bool> ReadBoolean();
  Result<float> ReadFloat();
  Result<double> ReadDouble();
  // A length-prefixed byte string (bytes or string); the view points into the input.
  Result<std::string_view> ReadBytes();
  Result<std::string_view> ReadFixed(size_t size);
  // The item count of the next array/map block (0 ends the array or map). A negative count in the
  // input is followed by the block's byte size, which is read and checked here.
  Result<int64_t> ReadBlockCount();

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  bool ReadOneByteVarint(int64_t* value) {
    if (pos_ >= data_.size()) return false;
    const auto byte = static_cast<uint8_t>(data_[pos_]);
    if ((byte & 0x80) != 0) return false;
    ++pos_;
    *value = static_cast<int64_t>(byte >> 1) ^ -static_cast<int64_t>(byte & 1);
    return true;
  }
  Result<int64_t> ReadLongSlow();
  Result<int32_t> ReadIntSlow();
  Status Truncated(const char* what, uint64_t needed) const;

  std::string_view data_;
  size_t pos_ = 0;
};

// Appends the encoding of `value` as an instance of `node`. A union node accepts either a union
// value (explicit branch) or a plain value, which goes to the first branch of a matching type;
// int values are accepted for long, and float values for double. Returns Invalid, naming the
// field path, when the value does not fit the schema.
Status EncodeValue(const AvroNode& node, const AvroValue& value, std::string* out);

// Decodes one value of `node`, which must belong to `schema` (record values keep a reference to
// it). Returns Corruption when the input is not a valid encoding.
Result<AvroValue> DecodeValue(const AvroSchema& schema, const AvroNode& node, AvroDecoder* in);

// Convenience for a single datum: the encoding of `value` as an instance of the root type, and the
// value decoded from exactly `data` (trailing bytes are Corruption).
Result<std::string> EncodeDatum(const AvroSchema& schema, const AvroValue& value);
Result<AvroValue> DecodeDatum(const AvroSchema& schema, std::string_view data);

}  // namespace freshet::container::avro
