// Generic values of one field, in Paimon's internal representation (what BinaryRow stores).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "freshet/result.h"

namespace freshet::meta {

// A DECIMAL(precision, scale) value: unscaled * 10^-scale.
struct Decimal {
  __int128 unscaled = 0;
  int32_t precision = 10;
  int32_t scale = 0;

  // Parses "-12.3" into DECIMAL(precision, scale), padding the fraction with zeros. Fails when the
  // text has more fraction digits than `scale` or more digits than `precision` (Java's overflow).
  static Result<Decimal> FromString(std::string_view text, int32_t precision, int32_t scale);
  // Java BigDecimal.toPlainString(): "12.30000", "-0.05", "7".
  std::string ToPlainString() const;
  // Java BigInteger.toByteArray() of the unscaled value: minimal big-endian two's complement.
  std::string ToBigEndianBytes() const;
  static Result<__int128> UnscaledFromBigEndianBytes(std::string_view bytes);

  bool operator==(const Decimal& other) const = default;
};

// A TIMESTAMP value as Paimon stores it: epoch millis plus the nanoseconds within that milli.
// TIMESTAMP WITH LOCAL TIME ZONE uses the same representation for the UTC instant.
struct Timestamp {
  int64_t millis = 0;
  int32_t nano_of_milli = 0;  // 0..999999

  static Timestamp FromEpochNanos(int64_t nanos);
  static Timestamp FromEpochMicros(int64_t micros);
  // "2024-01-01T10:00", "2024-01-01T10:00:05.123456789" (also with ' ' instead of 'T'), read
  // as a UTC wall clock.
  static Result<Timestamp> FromIsoString(std::string_view text);
  // Java LocalDateTime.toString() of the UTC wall clock: "2024-01-01T10:00" (zero seconds and
  // fraction dropped), "...T10:00:05.120" (fraction in groups of 3 digits).
  std::string ToLocalDateTimeString() const;
  // "yyyy-MM-dd HH:mm:ss" plus the fraction, trimmed of trailing zeros but kept to at least
  // `precision` digits (the TIMESTAMP -> STRING cast).
  std::string ToSqlString(int32_t precision) const;

  bool operator==(const Timestamp& other) const = default;
};

// "YYYY-MM-DD" for a day number since 1970-01-01 (Java LocalDate.toString()).
std::string FormatEpochDay(int32_t epoch_day);
int32_t EpochDayFromCivil(int64_t year, int32_t month, int32_t day);

// One field value. Strings and binary values are both bytes (the type says which); DATE is the
// day number (int32) and TIME the millisecond of the day (int32), as Paimon stores them.
class Value {
 public:
  using Storage = std::variant<std::monostate, bool, int8_t, int16_t, int32_t, int64_t, float,
                               double, Decimal, std::string, Timestamp>;

  Value() = default;
  static Value Null() { return Value(); }
  static Value Boolean(bool v) { return Value(Storage(v)); }
  static Value TinyInt(int8_t v) { return Value(Storage(v)); }
  static Value SmallInt(int16_t v) { return Value(Storage(v)); }
  static Value Int(int32_t v) { return Value(Storage(v)); }
  static Value BigInt(int64_t v) { return Value(Storage(v)); }
  static Value Float(float v) { return Value(Storage(v)); }
  static Value Double(double v) { return Value(Storage(v)); }
  static Value Dec(Decimal v) { return Value(Storage(v)); }
  static Value String(std::string v) { return Value(Storage(std::move(v))); }
  static Value Bytes(std::string v) { return Value(Storage(std::move(v))); }
  static Value Ts(Timestamp v) { return Value(Storage(v)); }

  bool is_null() const { return std::holds_alternative<std::monostate>(storage_); }
  const Storage& storage() const { return storage_; }
  // The held value if it is a T, else null.
  template <typename T>
  const T* get_if() const {
    return std::get_if<T>(&storage_);
  }

  bool operator==(const Value& other) const = default;

 private:
  explicit Value(Storage storage) : storage_(std::move(storage)) {}
  Storage storage_;
};

}  // namespace freshet::meta
