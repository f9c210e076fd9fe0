// Numbers as Java prints them (Double.toString / Float.toString, JDK 19+): partition directory
// names and JSON rows must show floating-point values exactly as Java Paimon does.
#pragma once

#include <string>

namespace freshet {

// Plain with at least one fraction digit for 1e-3 <= |v| < 1e7 ("0.001", "3.0", "-0.0"),
// otherwise "d.dddE[-]n" ("1.0E20", "4.9E-324"); NaN, Infinity, -Infinity.
std::string JavaDoubleToString(double value);
std::string JavaFloatToString(float value);

// Either of the above, by argument type.
inline std::string JavaFloatingToString(double value) { return JavaDoubleToString(value); }
inline std::string JavaFloatingToString(float value) { return JavaFloatToString(value); }

}  // namespace freshet
