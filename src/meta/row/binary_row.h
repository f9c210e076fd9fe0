// BinaryRow: Paimon's binary row layout, byte-identical to Java's BinaryRowWriter output.
//
// Layout of a row of arity n (all little-endian):
//   [header byte (RowKind) + null bits: HeaderSize(n) bytes][n x 8-byte slots][variable part]
// Null bit of field i is bit (i + 8) counted LSB-first from the row start. Values up to 8 bytes
// live in their slot; strings/bytes up to 7 bytes are inlined (byte 7 = 0x80 | length); longer
// ones, non-compact decimals (precision > 18) and non-compact timestamps (precision > 3) live in
// the variable part, 8-byte aligned and zero-padded, with the slot holding (offset << 32) | size.
// Java compares rows byte for byte (partitions, bucket grouping, conflict checks), so every
// padding byte matters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "freshet/result.h"
#include "meta/row/value.h"
#include "meta/types/data_type.h"

namespace freshet::meta {

class BinaryRow {
 public:
  // Size of the header plus null bits for `arity` fields (8 bytes up to 56 fields).
  static int32_t HeaderSize(int32_t arity) { return ((arity + 63 + 8) / 64) * 8; }
  static int32_t FixedPartSize(int32_t arity) { return HeaderSize(arity) + 8 * arity; }

  // The row with no fields (8 zero bytes).
  BinaryRow() : arity_(0), bytes_(8, '\0') {}
  // Wraps row bytes; fails if they are too short for the fixed part of `arity` fields.
  static Result<BinaryRow> FromBytes(std::string bytes, int32_t arity);

  int32_t arity() const { return arity_; }
  const std::string& bytes() const { return bytes_; }
  uint8_t row_kind() const { return static_cast<uint8_t>(bytes_[0]); }

  // Precondition: 0 <= pos < arity() (false otherwise).
  bool IsNullAt(int32_t pos) const;

  // Getters read the slot as the given type; a null field reads as zero / empty. Errors: pos out
  // of range, or a variable-part reference outside the row (a corrupt row).
  Result<bool> GetBoolean(int32_t pos) const;
  Result<int8_t> GetByte(int32_t pos) const;
  Result<int16_t> GetShort(int32_t pos) const;
  Result<int32_t> GetInt(int32_t pos) const;
  Result<int64_t> GetLong(int32_t pos) const;
  Result<float> GetFloat(int32_t pos) const;
  Result<double> GetDouble(int32_t pos) const;
  // STRING / CHAR / VARCHAR / BINARY / VARBINARY bytes.
  Result<std::string> GetBinary(int32_t pos) const;
  Result<Decimal> GetDecimal(int32_t pos, int32_t precision, int32_t scale) const;
  Result<Timestamp> GetTimestamp(int32_t pos, int32_t precision) const;
  // Reads field `pos` as `type` (Value::Null() for a null field).
  Result<Value> GetValue(int32_t pos, const DataType& type) const;

  // Java equality: same bytes (and arity).
  bool operator==(const BinaryRow& other) const = default;

 private:
  BinaryRow(int32_t arity, std::string bytes) : arity_(arity), bytes_(std::move(bytes)) {}
  Status CheckPos(int32_t pos) const;
  uint64_t Slot(int32_t pos) const;
  Result<std::string_view> VarBytes(int32_t pos, uint64_t offset, uint64_t size) const;

  int32_t arity_;
  std::string bytes_;
};

// Builds a BinaryRow field by field, like Java's BinaryRowWriter. Variable-length data is laid
// out in the order of the Write calls, so write fields in field order to match Java.
class BinaryRowWriter {
 public:
  explicit BinaryRowWriter(int32_t arity);

  void SetRowKind(uint8_t kind) { buffer_[0] = static_cast<char>(kind); }
  // A null field: null bit set, slot zero. For non-compact DECIMAL/TIMESTAMP use WriteDecimal /
  // WriteTimestamp with nullopt instead, which also reserves the variable-part space.
  void SetNullAt(int32_t pos);
  void WriteBoolean(int32_t pos, bool value);
  void WriteByte(int32_t pos, int8_t value);
  void WriteShort(int32_t pos, int16_t value);
  void WriteInt(int32_t pos, int32_t value);
  void WriteLong(int32_t pos, int64_t value);
  void WriteFloat(int32_t pos, float value);
  void WriteDouble(int32_t pos, double value);
  void WriteBinary(int32_t pos, std::string_view bytes);
  void WriteDecimal(int32_t pos, const std::optional<Decimal>& value, int32_t precision);
  void WriteTimestamp(int32_t pos, const std::optional<Timestamp>& value, int32_t precision);

  // Returns the row; the writer is then reset for another row.
  BinaryRow Finish();

 private:
  size_t SlotOffset(int32_t pos) const { return header_size_ + 8 * static_cast<size_t>(pos); }
  void WriteSlot(int32_t pos, uint64_t value);
  // Appends zero-padded space of at least `size` bytes (rounded to 8); returns its offset.
  size_t AppendVar(std::string_view data, size_t reserved_size);

  int32_t arity_;
  size_t header_size_;
  std::string buffer_;
};

// Writes `value` as `type` at `pos` (null values included). Fails if the value's kind does not
// match the type (e.g. a string for an INT column).
Status WriteValue(BinaryRowWriter* writer, int32_t pos, const DataType& type, const Value& value);
// A row of `values` typed by `types` (same length).
Result<BinaryRow> BuildBinaryRow(const std::vector<DataTypePtr>& types,
                                 const std::vector<Value>& values);
Result<BinaryRow> BuildBinaryRow(const std::vector<DataField>& fields,
                                 const std::vector<Value>& values);

// Manifest form (Java SerializationUtils.serializeBinaryRow): 4-byte big-endian arity + bytes.
std::string SerializeBinaryRow(const BinaryRow& row);
Result<BinaryRow> DeserializeBinaryRow(std::string_view data);

}  // namespace freshet::meta
