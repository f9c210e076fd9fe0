#include "meta/row/binary_row.h"

#include <cstring>

namespace freshet::meta {

namespace {

constexpr uint64_t kInlineMark = 0x80;  // high bit of slot byte 7 flags inline bytes
constexpr size_t kMaxInlineBytes = 7;
constexpr size_t kNonCompactDecimalBytes = 16;
constexpr size_t kNonCompactTimestampBytes = 8;

size_t RoundToWord(size_t size) { return (size + 7) & ~static_cast<size_t>(7); }

template <typename T>
T LoadLittleEndian(const char* data) {
  T value;
  std::memcpy(&value, data, sizeof(T));  // x86/ARM are little-endian, like Java's Unsafe
  return value;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// BinaryRow (reader)

Result<BinaryRow> BinaryRow::FromBytes(std::string bytes, int32_t arity) {
  if (arity < 0) return Status::Corruption("BinaryRow arity must not be negative, got ", arity);
  size_t fixed = static_cast<size_t>(FixedPartSize(arity));
  if (bytes.size() < fixed) {
    return Status::Corruption("BinaryRow of arity ", arity, " needs at least ", fixed,
                              " bytes, got ", bytes.size());
  }
  return BinaryRow(arity, std::move(bytes));
}

bool BinaryRow::IsNullAt(int32_t pos) const {
  if (pos < 0 || pos >= arity_) return false;
  int32_t bit = pos + 8;
  return (static_cast<uint8_t>(bytes_[bit / 8]) >> (bit % 8)) & 1;
}

Status BinaryRow::CheckPos(int32_t pos) const {
  if (pos < 0 || pos >= arity_) {
    return Status::Invalid("field ", pos, " is out of range for a BinaryRow of arity ", arity_);
  }
  return Status::OK();
}

uint64_t BinaryRow::Slot(int32_t pos) const {
  return LoadLittleEndian<uint64_t>(bytes_.data() + HeaderSize(arity_) + 8 * pos);
}

Result<std::string_view> BinaryRow::VarBytes(int32_t pos, uint64_t offset, uint64_t size) const {
  if (offset > bytes_.size() || size > bytes_.size() - offset) {
    return Status::Corruption("BinaryRow field ", pos, " points at bytes [", offset, ", ",
                              offset + size, ") outside the row of ", bytes_.size(), " bytes");
  }
  return std::string_view(bytes_).substr(offset, size);
}

#define FRESHET_FIXED_GETTER(Name, Type)                                         \
  Result<Type> BinaryRow::Name(int32_t pos) const {                              \
    FRESHET_RETURN_NOT_OK(CheckPos(pos));                                        \
    return LoadLittleEndian<Type>(bytes_.data() + HeaderSize(arity_) + 8 * pos); \
  }
FRESHET_FIXED_GETTER(GetByte, int8_t)
FRESHET_FIXED_GETTER(GetShort, int16_t)
FRESHET_FIXED_GETTER(GetInt, int32_t)
FRESHET_FIXED_GETTER(GetLong, int64_t)
FRESHET_FIXED_GETTER(GetFloat, float)
FRESHET_FIXED_GETTER(GetDouble, double)
#undef FRESHET_FIXED_GETTER

Result<bool> BinaryRow::GetBoolean(int32_t pos) const {
  FRESHET_ASSIGN_OR_RETURN(int8_t byte, GetByte(pos));
  return byte != 0;
}

Result<std::string> BinaryRow::GetBinary(int32_t pos) const {
  FRESHET_RETURN_NOT_OK(CheckPos(pos));
  uint64_t slot = Slot(pos);
  if ((slot >> 56) & kInlineMark) {
    size_t length = (slot >> 56) & 0x7F;
    if (length > kMaxInlineBytes) {
      return Status::Corruption("BinaryRow field ", pos, " has an inline length of ", length);
    }
    return std::string(bytes_.data() + HeaderSize(arity_) + 8 * pos, length);
  }
  FRESHET_ASSIGN_OR_RETURN(std::string_view data, VarBytes(pos, slot >> 32, slot & 0xFFFFFFFF));
  return std::string(data);
}

Result<Decimal> BinaryRow::GetDecimal(int32_t pos, int32_t precision, int32_t scale) const {
  FRESHET_RETURN_NOT_OK(CheckPos(pos));
  Decimal decimal{0, precision, scale};
  if (precision <= DataType::kMaxCompactDecimalPrecision) {
    decimal.unscaled = static_cast<int64_t>(Slot(pos));
    return decimal;
  }
  if (IsNullAt(pos)) return decimal;
  uint64_t slot = Slot(pos);
  FRESHET_ASSIGN_OR_RETURN(std::string_view data, VarBytes(pos, slot >> 32, slot & 0xFFFFFFFF));
  auto unscaled = Decimal::UnscaledFromBigEndianBytes(data);
  if (!unscaled.ok())
    return unscaled.status().WithContext("BinaryRow field " + std::to_string(pos));
  decimal.unscaled = *unscaled;
  return decimal;
}

Result<Timestamp> BinaryRow::GetTimestamp(int32_t pos, int32_t precision) const {
  FRESHET_RETURN_NOT_OK(CheckPos(pos));
  uint64_t slot = Slot(pos);
  if (precision <= DataType::kMaxCompactTimestampPrecision) {
    return Timestamp{static_cast<int64_t>(slot), 0};
  }
  auto nano_of_milli = static_cast<int32_t>(slot & 0xFFFFFFFF);
  if (nano_of_milli < 0 || nano_of_milli > 999999) {
    return Status::Corruption("BinaryRow field ", pos, " has nano-of-milli ", nano_of_milli);
  }
  FRESHET_ASSIGN_OR_RETURN(std::string_view millis,
                           VarBytes(pos, slot >> 32, kNonCompactTimestampBytes));
  return Timestamp{LoadLittleEndian<int64_t>(millis.data()), nano_of_milli};
}

Result<Value> BinaryRow::GetValue(int32_t pos, const DataType& type) const {
  FRESHET_RETURN_NOT_OK(CheckPos(pos));
  if (IsNullAt(pos)) return Value::Null();
  switch (type.root()) {
    case TypeRoot::kBoolean: {
      FRESHET_ASSIGN_OR_RETURN(bool v, GetBoolean(pos));
      return Value::Boolean(v);
    }
    case TypeRoot::kTinyInt: {
      FRESHET_ASSIGN_OR_RETURN(int8_t v, GetByte(pos));
      return Value::TinyInt(v);
    }
    case TypeRoot::kSmallInt: {
      FRESHET_ASSIGN_OR_RETURN(int16_t v, GetShort(pos));
      return Value::SmallInt(v);
    }
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: {
      FRESHET_ASSIGN_OR_RETURN(int32_t v, GetInt(pos));
      return Value::Int(v);
    }
    case TypeRoot::kBigInt: {
      FRESHET_ASSIGN_OR_RETURN(int64_t v, GetLong(pos));
      return Value::BigInt(v);
    }
    case TypeRoot::kFloat: {
      FRESHET_ASSIGN_OR_RETURN(float v, GetFloat(pos));
      return Value::Float(v);
    }
    case TypeRoot::kDouble: {
      FRESHET_ASSIGN_OR_RETURN(double v, GetDouble(pos));
      return Value::Double(v);
    }
    case TypeRoot::kDecimal: {
      FRESHET_ASSIGN_OR_RETURN(Decimal v, GetDecimal(pos, type.precision(), type.scale()));
      return Value::Dec(v);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      FRESHET_ASSIGN_OR_RETURN(std::string v, GetBinary(pos));
      return Value::String(std::move(v));
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      FRESHET_ASSIGN_OR_RETURN(Timestamp v, GetTimestamp(pos, type.precision()));
      return Value::Ts(v);
    }
    default:
      return Status::NotImplemented("reading ", type.ToString(), " from a BinaryRow");
  }
}

// ---------------------------------------------------------------------------------------------
// BinaryRowWriter

BinaryRowWriter::BinaryRowWriter(int32_t arity)
    : arity_(arity),
      header_size_(static_cast<size_t>(BinaryRow::HeaderSize(arity))),
      buffer_(static_cast<size_t>(BinaryRow::FixedPartSize(arity)), '\0') {}

void BinaryRowWriter::WriteSlot(int32_t pos, uint64_t value) {
  std::memcpy(buffer_.data() + SlotOffset(pos), &value, sizeof(value));
}

size_t BinaryRowWriter::AppendVar(std::string_view data, size_t reserved_size) {
  size_t offset = buffer_.size();
  buffer_.append(RoundToWord(std::max(data.size(), reserved_size)), '\0');
  std::memcpy(buffer_.data() + offset, data.data(), data.size());
  return offset;
}

void BinaryRowWriter::SetNullAt(int32_t pos) {
  int32_t bit = pos + 8;
  buffer_[bit / 8] = static_cast<char>(static_cast<uint8_t>(buffer_[bit / 8]) | (1u << (bit % 8)));
  WriteSlot(pos, 0);
}

void BinaryRowWriter::WriteBoolean(int32_t pos, bool value) { WriteSlot(pos, value ? 1 : 0); }
void BinaryRowWriter::WriteByte(int32_t pos, int8_t value) {
  WriteSlot(pos, static_cast<uint8_t>(value));
}
void BinaryRowWriter::WriteShort(int32_t pos, int16_t value) {
  WriteSlot(pos, static_cast<uint16_t>(value));
}
void BinaryRowWriter::WriteInt(int32_t pos, int32_t value) {
  WriteSlot(pos, static_cast<uint32_t>(value));
}
void BinaryRowWriter::WriteLong(int32_t pos, int64_t value) {
  WriteSlot(pos, static_cast<uint64_t>(value));
}
void BinaryRowWriter::WriteFloat(int32_t pos, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  WriteSlot(pos, bits);
}
void BinaryRowWriter::WriteDouble(int32_t pos, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  WriteSlot(pos, bits);
}

void BinaryRowWriter::WriteBinary(int32_t pos, std::string_view bytes) {
  if (bytes.size() <= kMaxInlineBytes) {
    uint64_t slot = 0;
    std::memcpy(&slot, bytes.data(), bytes.size());
    slot |= (kInlineMark | bytes.size()) << 56;
    WriteSlot(pos, slot);
    return;
  }
  size_t offset = AppendVar(bytes, 0);
  WriteSlot(pos, (static_cast<uint64_t>(offset) << 32) | bytes.size());
}

void BinaryRowWriter::WriteDecimal(int32_t pos, const std::optional<Decimal>& value,
                                   int32_t precision) {
  if (precision <= DataType::kMaxCompactDecimalPrecision) {
    if (value) {
      WriteLong(pos, static_cast<int64_t>(value->unscaled));
    } else {
      SetNullAt(pos);
    }
    return;
  }
  // Java reserves the 16 bytes even for null, so that the value can later be set in place.
  std::string data = value ? value->ToBigEndianBytes() : std::string();
  size_t offset = AppendVar(data, kNonCompactDecimalBytes);
  if (!value) SetNullAt(pos);
  WriteSlot(pos, (static_cast<uint64_t>(offset) << 32) | data.size());
}

void BinaryRowWriter::WriteTimestamp(int32_t pos, const std::optional<Timestamp>& value,
                                     int32_t precision) {
  if (precision <= DataType::kMaxCompactTimestampPrecision) {
    if (value) {
      WriteLong(pos, value->millis);
    } else {
      SetNullAt(pos);
    }
    return;
  }
  std::string millis(kNonCompactTimestampBytes, '\0');
  if (value) std::memcpy(millis.data(), &value->millis, sizeof(int64_t));
  size_t offset = AppendVar(millis, kNonCompactTimestampBytes);
  if (!value) SetNullAt(pos);
  uint64_t nano_of_milli = value ? static_cast<uint32_t>(value->nano_of_milli) : 0;
  WriteSlot(pos, (static_cast<uint64_t>(offset) << 32) | nano_of_milli);
}

BinaryRow BinaryRowWriter::Finish() {
  std::string bytes = std::move(buffer_);
  buffer_.assign(static_cast<size_t>(BinaryRow::FixedPartSize(arity_)), '\0');
  return *BinaryRow::FromBytes(std::move(bytes), arity_);
}

// ---------------------------------------------------------------------------------------------
// Typed writing

namespace {

Status Mismatch(int32_t pos, const DataType& type) {
  return Status::Invalid("value for field ", pos, " does not match its type ", type.ToString());
}

template <typename T, typename WriteFn>
Status WriteAs(const Value& value, int32_t pos, const DataType& type, WriteFn write) {
  const T* held = value.get_if<T>();
  if (held == nullptr) return Mismatch(pos, type);
  write(*held);
  return Status::OK();
}

}  // namespace

Status WriteValue(BinaryRowWriter* w, int32_t pos, const DataType& type, const Value& value) {
  bool null = value.is_null();
  switch (type.root()) {
    case TypeRoot::kDecimal: {
      if (null) {
        w->WriteDecimal(pos, std::nullopt, type.precision());
        return Status::OK();
      }
      const Decimal* decimal = value.get_if<Decimal>();
      if (decimal == nullptr || decimal->scale != type.scale()) return Mismatch(pos, type);
      w->WriteDecimal(pos, *decimal, type.precision());
      return Status::OK();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (null) {
        w->WriteTimestamp(pos, std::nullopt, type.precision());
        return Status::OK();
      }
      return WriteAs<Timestamp>(value, pos, type,
                                [&](Timestamp v) { w->WriteTimestamp(pos, v, type.precision()); });
    default:
      break;
  }
  if (null) {
    w->SetNullAt(pos);
    return Status::OK();
  }
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return WriteAs<bool>(value, pos, type, [&](bool v) { w->WriteBoolean(pos, v); });
    case TypeRoot::kTinyInt:
      return WriteAs<int8_t>(value, pos, type, [&](int8_t v) { w->WriteByte(pos, v); });
    case TypeRoot::kSmallInt:
      return WriteAs<int16_t>(value, pos, type, [&](int16_t v) { w->WriteShort(pos, v); });
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return WriteAs<int32_t>(value, pos, type, [&](int32_t v) { w->WriteInt(pos, v); });
    case TypeRoot::kBigInt:
      return WriteAs<int64_t>(value, pos, type, [&](int64_t v) { w->WriteLong(pos, v); });
    case TypeRoot::kFloat:
      return WriteAs<float>(value, pos, type, [&](float v) { w->WriteFloat(pos, v); });
    case TypeRoot::kDouble:
      return WriteAs<double>(value, pos, type, [&](double v) { w->WriteDouble(pos, v); });
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return WriteAs<std::string>(value, pos, type,
                                  [&](const std::string& v) { w->WriteBinary(pos, v); });
    default:
      return Status::NotImplemented("writing ", type.ToString(), " into a BinaryRow");
  }
}

Result<BinaryRow> BuildBinaryRow(const std::vector<DataTypePtr>& types,
                                 const std::vector<Value>& values) {
  if (types.size() != values.size()) {
    return Status::Invalid("a row of ", types.size(), " fields cannot take ", values.size(),
                           " values");
  }
  BinaryRowWriter writer(static_cast<int32_t>(types.size()));
  for (size_t i = 0; i < types.size(); ++i) {
    FRESHET_RETURN_NOT_OK(WriteValue(&writer, static_cast<int32_t>(i), *types[i], values[i]));
  }
  return writer.Finish();
}

Result<BinaryRow> BuildBinaryRow(const std::vector<DataField>& fields,
                                 const std::vector<Value>& values) {
  std::vector<DataTypePtr> types;
  types.reserve(fields.size());
  for (const DataField& field : fields) types.push_back(field.type);
  return BuildBinaryRow(types, values);
}

// ---------------------------------------------------------------------------------------------
// Manifest serialization

std::string SerializeBinaryRow(const BinaryRow& row) {
  auto arity = static_cast<uint32_t>(row.arity());
  std::string out = {static_cast<char>(arity >> 24), static_cast<char>(arity >> 16),
                     static_cast<char>(arity >> 8), static_cast<char>(arity)};
  return out + row.bytes();
}

Result<BinaryRow> DeserializeBinaryRow(std::string_view data) {
  if (data.size() < 4) {
    return Status::Corruption("a serialized BinaryRow needs a 4-byte arity, got ", data.size(),
                              " bytes");
  }
  uint32_t arity = 0;
  for (int i = 0; i < 4; ++i) arity = (arity << 8) | static_cast<uint8_t>(data[i]);
  if (arity > 1u << 20) return Status::Corruption("implausible BinaryRow arity ", arity);
  return BinaryRow::FromBytes(std::string(data.substr(4)), static_cast<int32_t>(arity));
}

}  // namespace freshet::meta
