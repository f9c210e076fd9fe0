// Text forms of DATE, TIME, TIMESTAMP and DECIMAL values, written once for every caller: JSON
// lines and CSV (tools/textrows), predicate literals (scan/predicate), partition directory names
// (meta/partition) and Timestamp/Decimal's own string conversions (value.h).
//
// The grammar is Java's (java.time ISO forms, BigDecimal): dates "[+-]YYYY-MM-DD" with at least
// four year digits (a sign or more digits for years outside 0000-9999, as LocalDate prints
// them), times "HH:MM[:SS[.fraction]]", timestamps "<date>( |T)<time>", zone "Z" or "+HH:MM"
// where the caller allows one. Every field has its exact width; anything else is not a value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "meta/row/value.h"

namespace freshet::meta {

// A DATE as its day number since 1970-01-01.
std::optional<int32_t> ParseDateText(std::string_view text);
// A TIME(precision) as the millisecond of the day; fraction digits beyond `precision` (and
// beyond milliseconds, which is what Paimon stores) are cut, as Java truncates them.
std::optional<int32_t> ParseTimeText(std::string_view text, int precision);
// "HH:MM:SS" plus exactly `precision` fraction digits (0 = none).
std::string FormatTimeText(int32_t millis_of_day, int precision);

// A TIMESTAMP(precision) read as a UTC wall clock, fraction cut after `precision` digits. With
// `allow_zone` (TIMESTAMP WITH LOCAL TIME ZONE) a trailing "Z" or "+HH:MM" offset is applied;
// without it only a trailing "Z" is accepted and ignored.
std::optional<Timestamp> ParseTimestampText(std::string_view text, int precision, bool allow_zone);
// "YYYY-MM-DD HH:MM:SS" plus exactly `precision` fraction digits (0 = none).
std::string FormatTimestampText(const Timestamp& ts, int precision);

// Decimal text ("-12.5", "1e3", "7") into the unscaled value of DECIMAL(precision, scale),
// rounded HALF_UP to the scale as Java's BigDecimal.setScale does. nullopt: not a number, or
// more digits than `precision`. A precision above DECIMAL's 38 only asks whether the text is a
// number at all.
std::optional<__int128> ParseDecimalText(std::string_view text, int precision, int scale);
// Java BigDecimal.toPlainString() of unscaled * 10^-scale: "12.30000", "-0.05", "7".
std::string FormatDecimalText(__int128 unscaled, int scale);

}  // namespace freshet::meta
