// Ordering of Paimon values, as Java compares them (keys, statistics, predicates).
#pragma once

#include <cmath>

#include "meta/row/value.h"

namespace freshet::meta {

// -1, 0 or 1 by operator<.
template <typename T>
int CompareThreeWay(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Java's Float.compare / Double.compare: numeric order, except -0.0 < 0.0 and NaN equal to
// itself and above everything.
template <typename F>
int JavaCompareFloating(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return CompareThreeWay<int>(std::isnan(a), std::isnan(b));
  if (a == b && a == 0) return CompareThreeWay<int>(!std::signbit(a), !std::signbit(b));
  return CompareThreeWay(a, b);
}

// <0, 0, >0. Nulls sort first; floats as Java Float/Double.compare (-0.0 < 0.0, NaN largest);
// strings and bytes unsigned byte-wise; decimals and timestamps numerically. Both values must
// belong to the same column type.
int CompareValues(const Value& a, const Value& b);

}  // namespace freshet::meta
