// Helpers shared by the nn ops: accumulation types, conversions to and from them, and a
// cache-friendly reference matrix product.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/datum_type.h"

namespace kiln::ops::nn {

// f16/bf16 compute through float; f32 accumulates in float, f64 in double, integers in kind.
template <typename T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<f16> {
  using type = float;
};
template <>
struct AccOf<bf16> {
  using type = float;
};
template <typename T>
using Acc = typename AccOf<T>::type;

template <typename T>
inline constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

template <typename A, typename T>
inline A to_acc(T v) {
  if constexpr (is_half_v<T>) {
    return static_cast<A>(static_cast<float>(v));
  } else {
    return static_cast<A>(v);
  }
}

template <typename T, typename A>
inline T from_acc(A v) {
  if constexpr (is_half_v<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// `src` as an array of A: the pointer itself when the types agree, else converted into `buf`.
template <typename A, typename T>
const A* as_acc(const T* src, int64_t count, std::vector<A>& buf) {
  if constexpr (std::is_same_v<A, T>) {
    return src;
  } else {
    buf.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; i++) buf[static_cast<size_t>(i)] = to_acc<A>(src[i]);
    return buf.data();
  }
}

// The type matmul_acc multiplies and adds A in: integers in an unsigned type at least as wide as
// unsigned int (no promotion to signed int), so products wrap like two's complement (as ONNX
// Runtime's integer MatMul does) instead of overflowing, which is undefined behaviour.
template <typename A>
using WrapMulOf = std::conditional_t<!std::is_integral_v<A>, A,
                                     std::conditional_t<(sizeof(A) > 4), uint64_t, uint32_t>>;

// C[i*ldc + j] += sum_k A[i*a_si + k*a_sk] * B[k*ldb + j] for i < m, j < n, k < k_dim.
// i-k-j order with column tiles, so the innermost loop streams contiguous rows of B and C.
template <typename A>
void matmul_acc(int64_t m, int64_t n, int64_t k_dim, const A* a, int64_t a_si, int64_t a_sk,
                const A* b, int64_t ldb, A* c, int64_t ldc) {
  constexpr int64_t kTile = 512;
  for (int64_t j0 = 0; j0 < n; j0 += kTile) {
    int64_t jn = std::min(kTile, n - j0);
    for (int64_t i = 0; i < m; i++) {
      A* __restrict crow = c + i * ldc + j0;
      const A* arow = a + i * a_si;
      for (int64_t k = 0; k < k_dim; k++) {
        A av = arow[k * a_sk];
        const A* __restrict brow = b + k * ldb + j0;
        if constexpr (std::is_same_v<WrapMulOf<A>, A>) {
          for (int64_t j = 0; j < jn; j++) crow[j] += av * brow[j];
        } else {
          using W = WrapMulOf<A>;
          for (int64_t j = 0; j < jn; j++)
            crow[j] = static_cast<A>(static_cast<W>(crow[j]) +
                                     static_cast<W>(av) * static_cast<W>(brow[j]));
        }
      }
    }
  }
}

}  // namespace kiln::ops::nn
