#include "meta/row/value_compare.h"

#include <cmath>
#include <cstring>

namespace freshet::meta {

namespace {

int CompareDecimals(const Decimal& a, const Decimal& b) {
  __int128 x = a.unscaled, y = b.unscaled;
  // Same column means same scale; align anyway so mixed scales still order correctly.
  for (int32_t s = a.scale; s < b.scale; ++s) x *= 10;
  for (int32_t s = b.scale; s < a.scale; ++s) y *= 10;
  return CompareThreeWay(x, y);
}

}  // namespace

int CompareValues(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return CompareThreeWay<int>(!a.is_null(), !b.is_null());
  return std::visit(
      [&](const auto& x) -> int {
        using T = std::decay_t<decltype(x)>;
        const T* y = b.get_if<T>();
        if (y == nullptr) return CompareThreeWay(a.storage().index(), b.storage().index());
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return JavaCompareFloating(x, *y);
        } else if constexpr (std::is_same_v<T, Decimal>) {
          return CompareDecimals(x, *y);
        } else if constexpr (std::is_same_v<T, Timestamp>) {
          if (x.millis != y->millis) return CompareThreeWay(x.millis, y->millis);
          return CompareThreeWay(x.nano_of_milli, y->nano_of_milli);
        } else if constexpr (std::is_same_v<T, std::string>) {
          int c = x.compare(*y);  // char_traits<char> compares as unsigned char
          return c < 0 ? -1 : (c > 0 ? 1 : 0);
        } else {
          return CompareThreeWay(x, *y);
        }
      },
      a.storage());
}

}  // namespace freshet::meta
