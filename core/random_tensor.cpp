#include "core/random_tensor.h"

#include <cstring>

#include "base/error.h"

namespace kiln {

Tensor random_tensor(DatumType dt, const Shape& shape, std::mt19937_64& rng) {
  KILN_ENSURE(!is_object(dt), "cannot make random inputs of type {}", name_of(dt));
  Tensor t(dt, shape);
  dispatch_any(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      // rejected above
    } else {
      auto out = t.values_mut<T>();
      if constexpr (std::is_same_v<T, bool>) {
        std::bernoulli_distribution coin(0.5);
        for (auto& v : out) v = coin(rng);
      } else if constexpr (std::is_integral_v<T> || is_narrow_int_v<T>) {
        // Sub-byte integers keep the digits' low bits.
        std::uniform_int_distribution<int> digits(0, 9);
        for (auto& v : out) v = static_cast<T>(digits(rng));
      } else {
        std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
        for (auto& v : out) v = static_cast<T>(unit(rng));
      }
    }
  });
  return t;
}

std::string random_distribution_text(DatumType dt) {
  if (dt == DatumType::Bool) return "random true/false";
  if (is_integer(dt)) return "uniform integers in [0,9]";
  if (is_narrow(dt) && !is_narrow_float(dt)) return "uniform integers in [0,9], wrapped";
  return "uniform in [-1,1)";
}

bool is_constant_tensor(const Tensor& t) {
  if (t.is_null() || t.numel() < 2 || is_object(t.dtype())) return false;
  size_t width = size_of(t.dtype());
  const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
  for (int64_t i = 1; i < t.numel(); i++)
    if (std::memcmp(bytes, bytes + static_cast<size_t>(i) * width, width) != 0) return false;
  return true;
}

}  // namespace kiln
