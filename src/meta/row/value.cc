#include "meta/row/value.h"

namespace freshet::meta {

namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
// Computed from the remainder so that it cannot overflow, even for INT64_MIN.
int64_t FloorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

}  // namespace

std::string Decimal::ToBigEndianBytes() const {
  std::string bytes;
  for (int shift = 120; shift >= 0; shift -= 8) {
    bytes.push_back(static_cast<char>(static_cast<uint8_t>(unscaled >> shift)));
  }
  // Drop leading bytes that only repeat the sign of the next byte.
  size_t start = 0;
  while (start + 1 < bytes.size()) {
    auto lead = static_cast<uint8_t>(bytes[start]);
    auto next_sign = static_cast<uint8_t>(bytes[start + 1]) & 0x80;
    if ((lead == 0x00 && next_sign == 0) || (lead == 0xFF && next_sign != 0)) {
      ++start;
    } else {
      break;
    }
  }
  return bytes.substr(start);
}

Result<__int128> Decimal::UnscaledFromBigEndianBytes(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) {
    return Status::Corruption("a decimal needs 1 to 16 bytes, got ", bytes.size());
  }
  unsigned __int128 value =
      (static_cast<uint8_t>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char byte : bytes) value = (value << 8) | static_cast<uint8_t>(byte);
  return static_cast<__int128>(value);
}

// ---------------------------------------------------------------------------------------------
// Timestamp

Timestamp Timestamp::FromEpochNanos(int64_t nanos) {
  return {FloorDiv(nanos, 1000000), static_cast<int32_t>(FloorMod(nanos, 1000000))};
}

Timestamp Timestamp::FromEpochMicros(int64_t micros) {
  return {FloorDiv(micros, 1000), static_cast<int32_t>(FloorMod(micros, 1000) * 1000)};
}

}  // namespace freshet::meta
