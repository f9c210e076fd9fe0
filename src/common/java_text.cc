#include "common/java_text.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace freshet {

namespace {

// Significant digits and decimal exponent of `value` (> 0) as Java's Double/Float.toString
// (JDK 19+) chooses them: the shortest decimal that rounds back to the value, closest to it; when
// that has one digit, the closest two-digit decimal instead (the layout always shows d.d, so Java
// spends the second digit on accuracy: Float.MIN_VALUE is 1.4E-45, not 1.0E-45).
template <typename T>
void JavaDigits(T value, std::string* digits, int* exponent) {
  char buffer[64];
  auto shortest =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view text(buffer, shortest.ptr - buffer);
  if (text.find('e') == 1) {  // one digit: "5e-324"
    auto two =
        std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific, 1);
    text = std::string_view(buffer, two.ptr - buffer);
  }
  size_t e = text.find('e');
  digits->clear();
  for (char c : text.substr(0, e)) {
    if (c != '.') digits->push_back(c);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  std::string_view exponent_text = text.substr(e + 1);
  if (exponent_text[0] == '+') exponent_text.remove_prefix(1);
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), *exponent);
}

// Java's Double.toString / Float.toString layout: plain with at least one fraction digit for
// 1e-3 <= |v| < 1e7 ("0.001", "3.0", "-0.0"), otherwise "d.dddE[-]n" ("1.0E20", "4.9E-324").
template <typename T>
std::string JavaFloatingText(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  std::string out = value < 0 ? "-" : "";
  std::string digits;
  int exponent = 0;
  JavaDigits(std::fabs(value), &digits, &exponent);
  if (exponent >= -3 && exponent < 7) {
    if (exponent < 0) return out + "0." + std::string(-exponent - 1, '0') + digits;
    size_t integral = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= integral)
      return out + digits + std::string(integral - digits.size(), '0') + ".0";
    return out + digits.substr(0, integral) + "." + digits.substr(integral);
  }
  out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  return out + "E" + std::to_string(exponent);
}

}  // namespace

std::string JavaDoubleToString(double value) { return JavaFloatingText(value); }
std::string JavaFloatToString(float value) { return JavaFloatingText(value); }

}  // namespace freshet
