// Ordering of Paimon values, as Java compares them (keys, statistics, predicates).
#pragma once

#include "meta/row/value.h"

namespace freshet::meta {

// <0, 0, >0. Nulls sort first; floats as Java Float/Double.compare (-0.0 < 0.0, NaN largest);
// strings and bytes unsigned byte-wise; decimals and timestamps numerically. Both values must
// belong to the same column type.
int CompareValues(const Value& a, const Value& b);

}  // namespace freshet::meta
