#include "meta/row/value_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "meta/types/data_type.h"

namespace freshet::meta {

namespace {

constexpr int64_t kMillisPerDay = 86400000;
// |year| above this would overflow DATE's int32 day number (about ±5.8 million years).
constexpr int64_t kMaxAbsYear = 5000000;
constexpr int kMaxDecimalPrecision = DataType::kMaxDecimalPrecision;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t FloorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

std::string PadNumber(int64_t value, int width) {
  std::string digits = std::to_string(value);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
  return digits;
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
// Dates and times (proleptic Gregorian; years with a sign or more than 4 digits as Java prints
// them: "-0001-01-01", "+10000-01-01")

namespace {

// Reads exactly `count` digits at `*pos`.
bool ReadDigits(std::string_view text, size_t* pos, size_t count, int64_t* value) {
  if (*pos + count > text.size()) return false;
  int64_t result = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    result = result * 10 + (c - '0');
  }
  *pos += count;
  *value = result;
  return true;
}

bool ReadChar(std::string_view text, size_t* pos, char expected) {
  if (*pos >= text.size() || text[*pos] != expected) return false;
  ++*pos;
  return true;
}

bool IsLeapYear(int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int DaysInMonth(int64_t year, int64_t month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// "[+-]YYYY-MM-DD" at `*pos` (at least 4 year digits) into an epoch day.
bool ReadDate(std::string_view text, size_t* pos, int64_t* epoch_day) {
  const bool negative = *pos < text.size() && text[*pos] == '-';
  const bool signed_year = *pos < text.size() && (text[*pos] == '-' || text[*pos] == '+');
  if (signed_year) ++*pos;
  size_t year_digits = 0;
  while (*pos + year_digits < text.size() && year_digits < 8 &&
         std::isdigit(static_cast<unsigned char>(text[*pos + year_digits]))) {
    ++year_digits;
  }
  int64_t year = 0, month = 0, day = 0;
  // As java.time: a year of more than 4 digits needs its sign, '+' only for such a year.
  const bool plus = signed_year && !negative;
  if (year_digits > 4 ? !signed_year : plus) return false;
  if (year_digits < 4 || !ReadDigits(text, pos, year_digits, &year) || !ReadChar(text, pos, '-') ||
      !ReadDigits(text, pos, 2, &month) || !ReadChar(text, pos, '-') ||
      !ReadDigits(text, pos, 2, &day)) {
    return false;
  }
  if (negative) year = -year;
  if (year > kMaxAbsYear || year < -kMaxAbsYear || month < 1 || month > 12 || day < 1 ||
      day > DaysInMonth(year, month)) {
    return false;
  }
  *epoch_day = EpochDayFromCivil(year, static_cast<int32_t>(month), static_cast<int32_t>(day));
  return true;
}

// "HH:MM[:SS[.fraction]]" at `*pos` into nanoseconds of the day, the fraction cut after
// `precision` digits (Java truncates to the column's precision).
bool ReadTimeOfDay(std::string_view text, size_t* pos, int precision, int64_t* nano_of_day) {
  int64_t hour = 0, minute = 0, second = 0, nanos = 0;
  if (!ReadDigits(text, pos, 2, &hour) || !ReadChar(text, pos, ':') ||
      !ReadDigits(text, pos, 2, &minute)) {
    return false;
  }
  if (ReadChar(text, pos, ':')) {
    if (!ReadDigits(text, pos, 2, &second)) return false;
    if (ReadChar(text, pos, '.')) {
      size_t digits = 0;
      for (; *pos < text.size() && std::isdigit(static_cast<unsigned char>(text[*pos]));
           ++*pos, ++digits) {
        if (digits < static_cast<size_t>(precision)) nanos = nanos * 10 + (text[*pos] - '0');
      }
      if (digits == 0 || digits > 9) return false;  // java.time reads 1 to 9 digits
      for (int i = std::min<int>(static_cast<int>(digits), precision); i < 9; ++i) nanos *= 10;
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  *nano_of_day = ((hour * 60 + minute) * 60 + second) * 1000000000 + nanos;
  return true;
}

}  // namespace

std::optional<int32_t> ParseDateText(std::string_view text) {
  size_t pos = 0;
  int64_t epoch_day = 0;
  if (!ReadDate(text, &pos, &epoch_day) || pos != text.size()) return std::nullopt;
  return static_cast<int32_t>(epoch_day);
}

std::optional<int32_t> ParseTimeText(std::string_view text, int precision) {
  size_t pos = 0;
  int64_t nano_of_day = 0;
  if (!ReadTimeOfDay(text, &pos, std::min(precision, 3), &nano_of_day) || pos != text.size()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(nano_of_day / 1000000);
}

namespace {

// "±HH:MM" or "Z" at `*pos` into seconds east of UTC.
bool ReadZone(std::string_view text, size_t* pos, bool allow_offset, int64_t* offset_seconds) {
  *offset_seconds = 0;
  if (*pos == text.size()) return true;
  if (ReadChar(text, pos, 'Z')) return true;
  if (!allow_offset || (text[*pos] != '+' && text[*pos] != '-')) return false;
  int64_t sign = text[*pos] == '-' ? -1 : 1;
  ++*pos;
  int64_t hours = 0, minutes = 0;
  if (!ReadDigits(text, pos, 2, &hours) || !ReadChar(text, pos, ':') ||
      !ReadDigits(text, pos, 2, &minutes) || hours > 18 || minutes > 59) {
    return false;
  }
  *offset_seconds = sign * (hours * 3600 + minutes * 60);
  return true;
}

}  // namespace

std::optional<Timestamp> ParseTimestampText(std::string_view text, int precision, bool allow_zone) {
  size_t pos = 0;
  int64_t epoch_day = 0, nano_of_day = 0, offset_seconds = 0;
  if (!ReadDate(text, &pos, &epoch_day) || pos >= text.size() ||
      (text[pos] != ' ' && text[pos] != 'T')) {
    return std::nullopt;
  }
  ++pos;
  if (!ReadTimeOfDay(text, &pos, precision, &nano_of_day) ||
      !ReadZone(text, &pos, allow_zone, &offset_seconds) || pos != text.size()) {
    return std::nullopt;
  }
  int64_t millis = epoch_day * kMillisPerDay + nano_of_day / 1000000 - offset_seconds * 1000;
  return Timestamp{millis, static_cast<int32_t>(nano_of_day % 1000000)};
}

namespace {

std::string FormatFraction(int64_t nano_of_second, int precision) {
  if (precision <= 0) return "";
  return "." + PadNumber(nano_of_second, 9).substr(0, precision);
}

}  // namespace

std::string FormatTimeText(int32_t millis_of_day, int precision) {
  int64_t millis = millis_of_day;
  return PadNumber(millis / 3600000, 2) + ":" + PadNumber(millis / 60000 % 60, 2) + ":" +
         PadNumber(millis / 1000 % 60, 2) + FormatFraction(millis % 1000 * 1000000, precision);
}

std::string FormatTimestampText(const Timestamp& ts, int precision) {
  int64_t epoch_day = FloorDiv(ts.millis, kMillisPerDay);
  int64_t millis_of_day = ts.millis - epoch_day * kMillisPerDay;
  int64_t nano_of_second = millis_of_day % 1000 * 1000000 + ts.nano_of_milli;
  return FormatEpochDay(static_cast<int32_t>(epoch_day)) + " " +
         PadNumber(millis_of_day / 3600000, 2) + ":" + PadNumber(millis_of_day / 60000 % 60, 2) +
         ":" + PadNumber(millis_of_day / 1000 % 60, 2) + FormatFraction(nano_of_second, precision);
}

// ---------------------------------------------------------------------------------------------
// Numbers

std::optional<__int128> ParseDecimalText(std::string_view text, int precision, int scale) {
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) negative = text[pos++] == '-';
  std::string digits;
  int64_t exponent = 0;  // value = digits * 10^exponent
  bool seen_digit = false, seen_point = false;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c >= '0' && c <= '9') {
      seen_digit = true;
      if (!digits.empty() || c != '0') digits += c;
      if (seen_point) --exponent;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return std::nullopt;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    int64_t e = 0;
    std::string_view rest = text.substr(pos + 1);
    if (!rest.empty() && rest[0] == '+') rest.remove_prefix(1);
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), e);
    if (error != std::errc() || end != rest.data() + rest.size() || e > 100000 || e < -100000) {
      return std::nullopt;
    }
    exponent += e;
    pos = text.size();
  }
  if (pos != text.size()) return std::nullopt;
  int64_t shift = exponent + scale;  // unscaled = digits * 10^shift
  bool round_up = false;
  if (shift < 0) {
    int64_t drop = -shift;
    if (drop <= static_cast<int64_t>(digits.size())) {
      round_up = digits[digits.size() - drop] >= '5';
      digits.resize(digits.size() - drop);
    } else {
      digits.clear();
    }
  } else if (!digits.empty()) {
    if (shift > precision) return std::nullopt;
    digits.append(shift, '0');
  }
  if (static_cast<int>(digits.size()) > precision) return std::nullopt;
  __int128 unscaled = 0;
  constexpr __int128 kMaxBeforeDigit =
      static_cast<__int128>((static_cast<unsigned __int128>(1) << 127) - 1) / 10;
  for (char c : digits) {
    if (unscaled > kMaxBeforeDigit) return std::nullopt;  // more digits than any DECIMAL holds
    unscaled = unscaled * 10 + (c - '0');
  }
  if (round_up) ++unscaled;
  // A precision beyond DECIMAL's 38 digits only asks whether the text is a number at all.
  if (precision <= kMaxDecimalPrecision) {
    __int128 limit = 1;
    for (int i = 0; i < precision; ++i) limit *= 10;
    if (unscaled >= limit) return std::nullopt;
  }
  return negative ? -unscaled : unscaled;
}

std::string FormatDecimalText(__int128 unscaled, int scale) {
  bool negative = unscaled < 0;
  auto magnitude = negative ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1
                            : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (static_cast<int>(digits.size()) <= scale) digits.append(scale + 1 - digits.size(), '0');
  std::reverse(digits.begin(), digits.end());
  if (scale > 0) digits.insert(digits.size() - scale, ".");
  return negative ? "-" + digits : digits;
}

// ---------------------------------------------------------------------------------------------
// Decimal and Timestamp conversions (value.h)

Result<Decimal> Decimal::FromString(std::string_view text, int32_t precision, int32_t scale) {
  std::string_view digits = text;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
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
  // Plain digits with at most `scale` fraction digits: the shared parser neither rounds nor
  // scales them.
  std::optional<__int128> unscaled = ParseDecimalText(text, std::max(precision, 1), scale);
  if (!unscaled) {
    return Status::Invalid("'", text, "' does not fit DECIMAL(", precision, ", ", scale, ")");
  }
  return Decimal{*unscaled, precision, scale};
}

std::string Decimal::ToPlainString() const { return FormatDecimalText(unscaled, scale); }

Result<Timestamp> Timestamp::FromIsoString(std::string_view text) {
  std::optional<Timestamp> ts = ParseTimestampText(text, 9, /*allow_zone=*/false);
  if (!ts) {
    return Status::Invalid("'", text, "' is not a timestamp like 2024-01-01T10:00:00[.fffffffff]");
  }
  return *ts;
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
