// Helpers shared by the element-wise ops: compute types (f16/bf16 go through float),
// wrapping integer arithmetic, and broadcasting loops.
#pragma once

#include <array>
#include <limits>
#include <type_traits>

#include "core/broadcast.h"
#include "core/datum_type.h"
#include "core/fact.h"
#include "core/tensor.h"

namespace kiln::ops {

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

// The type arithmetic on T is done in: float for f16/bf16, T otherwise.
template <typename T>
using compute_t = std::conditional_t<is_half_v<T>, float, T>;

template <typename T, typename C>
inline T from_compute(C v) {
  if constexpr (is_half_v<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Unsigned type wide enough that arithmetic on it never promotes to a signed int: integer
// add/sub/mul wrap around (two's complement) instead of being undefined on overflow.
template <typename T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
inline T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
}
template <typename T>
inline T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) - static_cast<wrap_t<T>>(b));
}
template <typename T>
inline T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
}

// out[i] = f(a[ia], b[ib]) over the broadcast of a and b (out already has the broadcast shape).
template <typename A, typename B, typename O, typename F>
void broadcast_binary(const Tensor& a, const Tensor& b, Tensor& out, F&& f) {
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  O* po = out.data<O>();
  int64_t n = out.numel();
  if (a.shape() == out.shape() && b.shape() == out.shape()) {
    for (int64_t i = 0; i < n; i++) po[i] = f(pa[i], pb[i]);
  } else if (a.shape() == out.shape() && b.numel() == 1) {
    for (int64_t i = 0; i < n; i++) po[i] = f(pa[i], pb[0]);
  } else if (b.shape() == out.shape() && a.numel() == 1) {
    for (int64_t i = 0; i < n; i++) po[i] = f(pa[0], pb[i]);
  } else if (out.rank() <= kSmallRank) {
    std::array<std::array<int64_t, kSmallRank>, 2> strides;
    broadcast_strides_into(a.shape(), out.shape(), strides[0].data());
    broadcast_strides_into(b.shape(), out.shape(), strides[1].data());
    for_each_broadcast<2>(out.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& o) {
      po[i] = f(pa[o[0]], pb[o[1]]);
    });
  } else {
    std::array<std::vector<int64_t>, 2> strides{broadcast_strides(a.shape(), out.shape()),
                                                broadcast_strides(b.shape(), out.shape())};
    for_each_broadcast<2>(out.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& o) {
      po[i] = f(pa[o[0]], pb[o[1]]);
    });
  }
}

// The broadcast shape of the given facts (each non-null).
std::vector<Dim> broadcast_facts(const std::vector<const Fact*>& facts);

}  // namespace kiln::ops
