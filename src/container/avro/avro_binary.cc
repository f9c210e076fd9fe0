#include "container/avro/avro_binary.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace freshet::container::avro {

namespace {

// Only recursive schemas can nest this deep; deeper input is treated as corrupt rather than
// risking the stack.
constexpr int kMaxValueDepth = 500;
// Items that encode to zero bytes (nulls, empty records) are not limited by the input size, so
// their count is capped separately.
constexpr int64_t kMaxEmptyItems = int64_t{1} << 24;

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

void AppendLittleEndian(uint64_t bits, int size, std::string* out) {
  for (int i = 0; i < size; ++i) out->push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

uint64_t LoadLittleEndian(const char* p, int size) {
  uint64_t bits = 0;
  for (int i = 0; i < size; ++i) bits |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
  return bits;
}

}  // namespace

void EncodeLong(int64_t value, std::string* out) {
  uint64_t n = ZigZag(value);
  while (n >= 0x80) {
    out->push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out->push_back(static_cast<char>(n));
}

void EncodeBytes(std::string_view bytes, std::string* out) {
  EncodeLong(static_cast<int64_t>(bytes.size()), out);
  out->append(bytes);
}

void EncodeFloat(float value, std::string* out) {
  AppendLittleEndian(std::bit_cast<uint32_t>(value), 4, out);
}

void EncodeDouble(double value, std::string* out) {
  AppendLittleEndian(std::bit_cast<uint64_t>(value), 8, out);
}

// ---------------------------------------------------------------------------------------------
// AvroDecoder

Status AvroDecoder::Truncated(const char* what, uint64_t needed) const {
  return Status::Corruption(what, " at byte ", pos_, " is truncated (needs ", needed, " bytes, ",
                            remaining(), " left)");
}

Result<int64_t> AvroDecoder::ReadLongSlow() {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return Truncated("varint", 1);
    uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
    // The tenth byte may only contribute the single remaining bit.
    if (shift == 63 && byte > 1) {
      return Status::Corruption("varint ending at byte ", pos_, " overflows 64 bits");
    }
    result |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return UnZigZag(result);
  }
  return Status::Corruption("varint ending at byte ", pos_, " is longer than 10 bytes");
}

Result<int32_t> AvroDecoder::ReadIntSlow() {
  size_t start = pos_;
  FRESHET_ASSIGN_OR_RETURN(int64_t v, ReadLongSlow());
  if (v < INT32_MIN || v > INT32_MAX) {
    return Status::Corruption("int at byte ", start, " is out of range: ", v);
  }
  return static_cast<int32_t>(v);
}

Result<bool> AvroDecoder::ReadBoolean() {
  if (pos_ >= data_.size()) return Truncated("boolean", 1);
  uint8_t byte = static_cast<uint8_t>(data_[pos_]);
  if (byte > 1) return Status::Corruption("boolean at byte ", pos_, " has invalid value ", +byte);
  ++pos_;
  return byte == 1;
}

Result<float> AvroDecoder::ReadFloat() {
  if (remaining() < 4) return Truncated("float", 4);
  uint32_t bits = static_cast<uint32_t>(LoadLittleEndian(data_.data() + pos_, 4));
  pos_ += 4;
  return std::bit_cast<float>(bits);
}

Result<double> AvroDecoder::ReadDouble() {
  if (remaining() < 8) return Truncated("double", 8);
  uint64_t bits = LoadLittleEndian(data_.data() + pos_, 8);
  pos_ += 8;
  return std::bit_cast<double>(bits);
}

Result<std::string_view> AvroDecoder::ReadBytes() {
  size_t start = pos_;
  FRESHET_ASSIGN_OR_RETURN(int64_t length, ReadLong());
  if (length < 0) {
    return Status::Corruption("byte string at byte ", start, " has negative length ", length);
  }
  if (static_cast<uint64_t>(length) > remaining()) {
    return Truncated("byte string", static_cast<uint64_t>(length));
  }
  std::string_view result = data_.substr(pos_, static_cast<size_t>(length));
  pos_ += static_cast<size_t>(length);
  return result;
}

Result<std::string_view> AvroDecoder::ReadFixed(size_t size) {
  if (size > remaining()) return Truncated("fixed", size);
  std::string_view result = data_.substr(pos_, size);
  pos_ += size;
  return result;
}

Result<int64_t> AvroDecoder::ReadBlockCount() {
  size_t start = pos_;
  FRESHET_ASSIGN_OR_RETURN(int64_t count, ReadLong());
  if (count >= 0) return count;
  if (count == INT64_MIN) {
    return Status::Corruption("block count at byte ", start, " is out of range");
  }
  // A negative count announces the block's byte size, which lets readers skip it.
  FRESHET_ASSIGN_OR_RETURN(int64_t size, ReadLong());
  if (size < 0 || static_cast<uint64_t>(size) > remaining()) {
    return Status::Corruption("block at byte ", start, " claims a size of ", size, " bytes but ",
                              remaining(), " are left");
  }
  return -count;
}

// ---------------------------------------------------------------------------------------------
// Encoding

namespace {

// Whether a non-union value of type `value` may be written as `target` (with Avro's promotions).
bool Accepts(AvroType target, AvroType value, bool exact) {
  if (target == value) return true;
  if (exact) return false;
  return (target == AvroType::kLong && value == AvroType::kInt) ||
         (target == AvroType::kDouble && value == AvroType::kFloat);
}

Status Mismatch(const AvroNode& node, const AvroValue& value) {
  return Status::Invalid("cannot write an Avro ", AvroTypeName(value.Unwrapped().type()), " value",
                         " as ", AvroTypeName(node.type));
}

Status EncodeUnion(const AvroNode& node, const AvroValue& value, std::string* out) {
  int branch = -1;
  const AvroValue* inner = &value;
  if (value.type() == AvroType::kUnion) {
    branch = value.union_branch();
    inner = &value.union_value();
    if (branch < 0 || static_cast<size_t>(branch) >= node.branches.size()) {
      return Status::Invalid("union branch ", branch, " is out of range (the union has ",
                             node.branches.size(), " branches)");
    }
  } else {
    // Prefer an exact type match, then a promotion.
    for (bool exact : {true, false}) {
      for (size_t i = 0; i < node.branches.size() && branch < 0; ++i) {
        if (Accepts(node.branches[i]->type, value.type(), exact)) branch = static_cast<int>(i);
      }
    }
    if (branch < 0) {
      return Status::Invalid("an Avro ", AvroTypeName(value.type()),
                             " value matches no branch of the union");
    }
  }
  EncodeLong(branch, out);
  return EncodeValue(*node.branches[branch], *inner, out);
}

Status EncodeRecord(const AvroNode& node, const AvroValue& value, std::string* out) {
  const std::vector<AvroValue>& fields = value.fields();
  if (fields.size() != node.fields.size()) {
    return Status::Invalid("record ", node.FullName(), " has ", node.fields.size(),
                           " fields but the value has ", fields.size());
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    Status st = EncodeValue(*node.fields[i].type, fields[i], out);
    if (!st.ok()) return st.WithContext("field '" + node.fields[i].name + "'");
  }
  return Status::OK();
}

Status EncodeItems(const AvroNode& node, const AvroValue& value, std::string* out) {
  const std::vector<AvroValue>& items = value.items();
  bool is_map = node.type == AvroType::kMap;
  if (is_map && value.map_keys().size() != items.size()) {
    return Status::Invalid("map value has ", value.map_keys().size(), " keys but ", items.size(),
                           " values");
  }
  // One block holding everything, then the terminating empty block.
  if (!items.empty()) EncodeLong(static_cast<int64_t>(items.size()), out);
  for (size_t i = 0; i < items.size(); ++i) {
    if (is_map) EncodeBytes(value.map_keys()[i], out);
    Status st = EncodeValue(*node.items, items[i], out);
    if (!st.ok()) {
      return st.WithContext(is_map ? "map key '" + value.map_keys()[i] + "'"
                                   : "array item " + std::to_string(i));
    }
  }
  EncodeLong(0, out);
  return Status::OK();
}

}  // namespace

Status EncodeValue(const AvroNode& node, const AvroValue& value, std::string* out) {
  if (node.type == AvroType::kUnion) return EncodeUnion(node, value, out);
  const AvroValue& v = value.Unwrapped();
  if (!Accepts(node.type, v.type(), /*exact=*/false)) return Mismatch(node, v);
  switch (node.type) {
    case AvroType::kNull:
      return Status::OK();
    case AvroType::kBoolean:
      out->push_back(v.bool_value() ? 1 : 0);
      return Status::OK();
    case AvroType::kInt:
    case AvroType::kLong:
      EncodeLong(v.long_value(), out);
      return Status::OK();
    case AvroType::kFloat:
      EncodeFloat(v.float_value(), out);
      return Status::OK();
    case AvroType::kDouble:
      EncodeDouble(v.double_value(), out);
      return Status::OK();
    case AvroType::kBytes:
    case AvroType::kString:
      EncodeBytes(v.string_value(), out);
      return Status::OK();
    case AvroType::kFixed:
      if (v.string_value().size() != static_cast<size_t>(node.fixed_size)) {
        return Status::Invalid("fixed ", node.FullName(), " needs ", node.fixed_size,
                               " bytes but the value has ", v.string_value().size());
      }
      out->append(v.string_value());
      return Status::OK();
    case AvroType::kEnum:
      if (v.enum_index() < 0 || static_cast<size_t>(v.enum_index()) >= node.symbols.size()) {
        return Status::Invalid("enum ", node.FullName(), " has no symbol ", v.enum_index());
      }
      EncodeLong(v.enum_index(), out);
      return Status::OK();
    case AvroType::kRecord:
      return EncodeRecord(node, v, out);
    case AvroType::kArray:
    case AvroType::kMap:
      return EncodeItems(node, v, out);
    case AvroType::kUnion:
      break;
  }
  return Status::Internal("unhandled Avro type ", AvroTypeName(node.type));
}

// ---------------------------------------------------------------------------------------------
// Decoding

namespace {

class ValueDecoder {
 public:
  ValueDecoder(const AvroSchema& schema, AvroDecoder* in) : schema_(schema), in_(in) {}

  Result<AvroValue> Decode(const AvroNode& node) {
    if (++depth_ > kMaxValueDepth) {
      return Status::Corruption("value at byte ", in_->position(), " is nested deeper than ",
                                kMaxValueDepth, " levels");
    }
    Result<AvroValue> result = DecodeUnchecked(node);
    --depth_;
    return result;
  }

 private:
  Result<AvroValue> DecodeUnchecked(const AvroNode& node) {
    switch (node.type) {
      case AvroType::kNull:
        return AvroValue::Null();
      case AvroType::kBoolean: {
        FRESHET_ASSIGN_OR_RETURN(bool v, in_->ReadBoolean());
        return AvroValue::Boolean(v);
      }
      case AvroType::kInt: {
        FRESHET_ASSIGN_OR_RETURN(int32_t v, in_->ReadInt());
        return AvroValue::Int(v);
      }
      case AvroType::kLong: {
        FRESHET_ASSIGN_OR_RETURN(int64_t v, in_->ReadLong());
        return AvroValue::Long(v);
      }
      case AvroType::kFloat: {
        FRESHET_ASSIGN_OR_RETURN(float v, in_->ReadFloat());
        return AvroValue::Float(v);
      }
      case AvroType::kDouble: {
        FRESHET_ASSIGN_OR_RETURN(double v, in_->ReadDouble());
        return AvroValue::Double(v);
      }
      case AvroType::kBytes:
      case AvroType::kString: {
        FRESHET_ASSIGN_OR_RETURN(std::string_view v, in_->ReadBytes());
        return node.type == AvroType::kString ? AvroValue::String(std::string(v))
                                              : AvroValue::Bytes(std::string(v));
      }
      case AvroType::kFixed: {
        FRESHET_ASSIGN_OR_RETURN(std::string_view v, in_->ReadFixed(node.fixed_size));
        return AvroValue::Fixed(std::string(v));
      }
      case AvroType::kEnum:
        return DecodeEnum(node);
      case AvroType::kUnion:
        return DecodeUnion(node);
      case AvroType::kRecord:
        return DecodeRecord(node);
      case AvroType::kArray:
      case AvroType::kMap:
        return DecodeItems(node);
    }
    return Status::Internal("unhandled Avro type ", AvroTypeName(node.type));
  }

  Result<AvroValue> DecodeEnum(const AvroNode& node) {
    size_t start = in_->position();
    FRESHET_ASSIGN_OR_RETURN(int32_t index, in_->ReadInt());
    if (index < 0 || static_cast<size_t>(index) >= node.symbols.size()) {
      return Status::Corruption("enum index ", index, " at byte ", start, " is out of range for ",
                                node.FullName(), " (", node.symbols.size(), " symbols)");
    }
    return AvroValue::Enum(index, schema_.Share(node));
  }

  Result<AvroValue> DecodeUnion(const AvroNode& node) {
    size_t start = in_->position();
    FRESHET_ASSIGN_OR_RETURN(int64_t branch, in_->ReadLong());
    if (branch < 0 || static_cast<uint64_t>(branch) >= node.branches.size()) {
      return Status::Corruption("union branch ", branch, " at byte ", start,
                                " is out of range (the union has ", node.branches.size(),
                                " branches)");
    }
    FRESHET_ASSIGN_OR_RETURN(AvroValue inner, Decode(*node.branches[branch]));
    return AvroValue::Union(static_cast<int32_t>(branch), std::move(inner));
  }

  Result<AvroValue> DecodeRecord(const AvroNode& node) {
    std::vector<AvroValue> fields;
    fields.reserve(node.fields.size());
    for (const AvroField& field : node.fields) {
      Result<AvroValue> value = Decode(*field.type);
      if (!value.ok()) return value.status().WithContext("field '" + field.name + "'");
      fields.push_back(std::move(value).MoveValueUnsafe());
    }
    return AvroValue::Record(schema_.Share(node), std::move(fields));
  }

  Result<AvroValue> DecodeItems(const AvroNode& node) {
    bool is_map = node.type == AvroType::kMap;
    std::vector<std::string> keys;
    std::vector<AvroValue> values;
    int64_t total = 0;
    while (true) {
      size_t start = in_->position();
      FRESHET_ASSIGN_OR_RETURN(int64_t count, in_->ReadBlockCount());
      if (count == 0) break;
      FRESHET_RETURN_NOT_OK(CheckCount(node, count, total, start));
      total += count;
      // Every item but an empty one consumes at least a byte, so this reservation is bounded by
      // the input size.
      size_t reserve = static_cast<size_t>(std::min<int64_t>(count, in_->remaining()));
      values.reserve(values.size() + reserve);
      if (is_map) keys.reserve(keys.size() + reserve);
      for (int64_t i = 0; i < count; ++i) {
        if (is_map) {
          FRESHET_ASSIGN_OR_RETURN(std::string_view key, in_->ReadBytes());
          keys.emplace_back(key);
        }
        FRESHET_ASSIGN_OR_RETURN(AvroValue item, Decode(*node.items));
        values.push_back(std::move(item));
      }
    }
    return is_map ? AvroValue::Map(std::move(keys), std::move(values))
                  : AvroValue::Array(std::move(values));
  }

  Status CheckCount(const AvroNode& node, int64_t count, int64_t total, size_t start) {
    // Map entries always hold a key, so only arrays of empty items can outnumber the bytes.
    bool empty_items = node.type == AvroType::kArray && node.items->can_be_empty;
    if (!empty_items && static_cast<uint64_t>(count) > in_->remaining()) {
      return Status::Corruption(AvroTypeName(node.type), " block at byte ", start, " claims ",
                                count, " items but only ", in_->remaining(), " bytes are left");
    }
    if (empty_items && count > kMaxEmptyItems - total) {
      return Status::Corruption("array at byte ", start, " claims more than ", kMaxEmptyItems,
                                " empty items");
    }
    return Status::OK();
  }

  const AvroSchema& schema_;
  AvroDecoder* in_;
  int depth_ = 0;
};

}  // namespace

Result<AvroValue> DecodeValue(const AvroSchema& schema, const AvroNode& node, AvroDecoder* in) {
  return ValueDecoder(schema, in).Decode(node);
}

Result<std::string> EncodeDatum(const AvroSchema& schema, const AvroValue& value) {
  std::string out;
  FRESHET_RETURN_NOT_OK(EncodeValue(schema.root(), value, &out));
  return out;
}

Result<AvroValue> DecodeDatum(const AvroSchema& schema, std::string_view data) {
  AvroDecoder in(data);
  FRESHET_ASSIGN_OR_RETURN(AvroValue value, DecodeValue(schema, schema.root(), &in));
  if (!in.at_end()) {
    return Status::Corruption("datum has ", in.remaining(), " unread bytes after byte ",
                              in.position());
  }
  return value;
}

}  // namespace freshet::container::avro
