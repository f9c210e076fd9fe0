#include "meta/row/value.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace freshet::meta {

namespace {

constexpr int64_t kMillisPerDay = 86400000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
// Computed from the remainder so that it cannot overflow, even for INT64_MIN.
int64_t FloorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

struct Civil {
  int64_t year;
  int32_t month;
  int32_t day;
};

// Proleptic Gregorian calendar conversion (H. Hinnant's days_from_civil / civil_from_days).
Civil CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int32_t day = static_cast<int32_t>(doy - (153 * mp + 2) / 5 + 1);
  const int32_t month = static_cast<int32_t>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2), month, day};
}

std::string PadNumber(int64_t value, int width) {
  std::string digits = std::to_string(value);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// Java LocalDate.toString() year: 4 digits at least, '+' above 9999.
std::string FormatYear(int64_t year) {
  if (year < 0 && year > -1000) return "-" + PadNumber(-year, 4);
  if (year > 9999) return "+" + std::to_string(year);
  return PadNumber(year, 4);
}

std::string FormatDate(int64_t epoch_day) {
  Civil civil = CivilFromDays(epoch_day);
  return FormatYear(civil.year) + "-" + PadNumber(civil.month, 2) + "-" + PadNumber(civil.day, 2);
}

struct WallClock {
  int64_t epoch_day;
  int32_t hour, minute, second;
  int32_t nano_of_second;
};

WallClock ToWallClock(const Timestamp& ts) {
  int64_t millis_of_day = FloorMod(ts.millis, kMillisPerDay);
  WallClock clock;
  clock.epoch_day = FloorDiv(ts.millis, kMillisPerDay);
  clock.hour = static_cast<int32_t>(millis_of_day / 3600000);
  clock.minute = static_cast<int32_t>(millis_of_day / 60000 % 60);
  clock.second = static_cast<int32_t>(millis_of_day / 1000 % 60);
  clock.nano_of_second = static_cast<int32_t>(millis_of_day % 1000) * 1000000 + ts.nano_of_milli;
  return clock;
}

std::string AbsDigits(__int128 value) {
  unsigned __int128 magnitude =
      value < 0 ? static_cast<unsigned __int128>(-(value + 1)) + 1 : value;
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

int32_t EpochDayFromCivil(int64_t year, int32_t month, int32_t day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t yoe = year - era * 400;
  const int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int32_t>(era * 146097 + doe - 719468);
}

std::string FormatEpochDay(int32_t epoch_day) { return FormatDate(epoch_day); }

// ---------------------------------------------------------------------------------------------
// Decimal

Result<Decimal> Decimal::FromString(std::string_view text, int32_t precision, int32_t scale) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  size_t point = digits.find('.');
  std::string_view integral = digits.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? "" : digits.substr(point + 1);
  auto all_digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if ((integral.empty() && fraction.empty()) || !all_digits(integral) || !all_digits(fraction)) {
    return Status::Invalid("'", text, "' is not a decimal number");
  }
  if (static_cast<int32_t>(fraction.size()) > scale) {
    return Status::Invalid("'", text, "' has more than ", scale, " fraction digits");
  }
  std::string unscaled_digits = std::string(integral) + std::string(fraction);
  unscaled_digits.append(scale - fraction.size(), '0');
  size_t first = unscaled_digits.find_first_not_of('0');
  unscaled_digits = first == std::string::npos ? "0" : unscaled_digits.substr(first);
  if (static_cast<int32_t>(unscaled_digits.size()) > std::max(precision, 1)) {
    return Status::Invalid("'", text, "' does not fit DECIMAL(", precision, ", ", scale, ")");
  }
  Decimal decimal{0, precision, scale};
  for (char c : unscaled_digits) decimal.unscaled = decimal.unscaled * 10 + (c - '0');
  if (negative) decimal.unscaled = -decimal.unscaled;
  return decimal;
}

std::string Decimal::ToPlainString() const {
  std::string digits = AbsDigits(unscaled);
  if (scale > 0) {
    if (static_cast<int32_t>(digits.size()) <= scale) {
      digits.insert(0, scale - digits.size() + 1, '0');
    }
    digits.insert(digits.size() - scale, ".");
  }
  return unscaled < 0 ? "-" + digits : digits;
}

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

namespace {

// Reads 1 to `max_digits` decimal digits at the front of `text` (no sign, no spaces).
std::optional<int64_t> TakeDigits(std::string_view* text, size_t max_digits) {
  size_t n = 0;
  int64_t value = 0;
  while (n < text->size() && n < max_digits && (*text)[n] >= '0' && (*text)[n] <= '9') {
    value = value * 10 + ((*text)[n] - '0');
    ++n;
  }
  if (n == 0) return std::nullopt;
  text->remove_prefix(n);
  return value;
}

bool TakeChar(std::string_view* text, char c) {
  if (text->empty() || text->front() != c) return false;
  text->remove_prefix(1);
  return true;
}

}  // namespace

Result<Timestamp> Timestamp::FromIsoString(std::string_view text) {
  // [-]Y-M-D('T'|' ')h:m[:s[.fraction]], every field plain digits (1-2; years up to 6, so that
  // every accepted timestamp has an epoch day).
  std::string_view rest = text;
  const bool negative_year = TakeChar(&rest, '-');
  std::optional<int64_t> year = TakeDigits(&rest, 6);
  std::optional<int64_t> month, day, hour, minute;
  if (year && TakeChar(&rest, '-')) month = TakeDigits(&rest, 2);
  if (month && TakeChar(&rest, '-')) day = TakeDigits(&rest, 2);
  if (day && (TakeChar(&rest, 'T') || TakeChar(&rest, ' '))) hour = TakeDigits(&rest, 2);
  if (hour && TakeChar(&rest, ':')) minute = TakeDigits(&rest, 2);
  if (!minute) return Status::Invalid("'", text, "' is not a timestamp like 2024-01-01T10:00:00");
  int64_t second = 0;
  int32_t nano_of_second = 0;
  if (TakeChar(&rest, ':')) {
    std::optional<int64_t> seconds = TakeDigits(&rest, 2);
    if (!seconds) return Status::Invalid("'", text, "' has a bad seconds field");
    second = *seconds;
    if (TakeChar(&rest, '.')) {
      const size_t before = rest.size();
      std::optional<int64_t> fraction = TakeDigits(&rest, 9);
      if (!fraction) return Status::Invalid("'", text, "' has a bad fraction of a second");
      nano_of_second = static_cast<int32_t>(*fraction);
      for (size_t digits = before - rest.size(); digits < 9; ++digits) nano_of_second *= 10;
    }
  }
  if (!rest.empty() || *month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 ||
      *minute > 59 || second > 59) {
    return Status::Invalid("'", text, "' is not a valid timestamp");
  }
  const int64_t signed_year = negative_year ? -*year : *year;
  int64_t millis = static_cast<int64_t>(EpochDayFromCivil(signed_year, static_cast<int>(*month),
                                                          static_cast<int>(*day))) *
                       kMillisPerDay +
                   ((*hour * 60 + *minute) * 60 + second) * 1000LL + nano_of_second / 1000000;
  return Timestamp{millis, nano_of_second % 1000000};
}

std::string Timestamp::ToLocalDateTimeString() const {
  WallClock clock = ToWallClock(*this);
  std::string out = FormatDate(clock.epoch_day) + "T" + PadNumber(clock.hour, 2) + ":" +
                    PadNumber(clock.minute, 2);
  if (clock.second > 0 || clock.nano_of_second > 0) out += ":" + PadNumber(clock.second, 2);
  if (clock.nano_of_second > 0) {
    if (clock.nano_of_second % 1000000 == 0) {
      out += "." + PadNumber(clock.nano_of_second / 1000000, 3);
    } else if (clock.nano_of_second % 1000 == 0) {
      out += "." + PadNumber(clock.nano_of_second / 1000, 6);
    } else {
      out += "." + PadNumber(clock.nano_of_second, 9);
    }
  }
  return out;
}

std::string Timestamp::ToSqlString(int32_t precision) const {
  WallClock clock = ToWallClock(*this);
  std::string out = FormatDate(clock.epoch_day) + " " + PadNumber(clock.hour, 2) + ":" +
                    PadNumber(clock.minute, 2) + ":" + PadNumber(clock.second, 2);
  std::string fraction = PadNumber(clock.nano_of_second, 9);
  while (static_cast<int32_t>(fraction.size()) > precision && fraction.back() == '0') {
    fraction.pop_back();
  }
  if (!fraction.empty()) out += "." + fraction;
  return out;
}

}  // namespace freshet::meta
