// A double converted to an integer type, saturating: C++ leaves a conversion out of the
// type's range undefined, and hostile models reach it (reductions of empty sets, scaled Gemm
// results, binary ops on huge values).
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace kiln {

// v truncated toward zero into T; NaN gives 0, values past T's range its lowest / highest.
template <typename T>
T saturate_int(double v) {
  static_assert(std::is_integral_v<T>);
  if (std::isnan(v)) return T(0);
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  return static_cast<T>(v);
}

}  // namespace kiln
