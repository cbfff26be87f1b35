// The register stage of the fused epilogue (kernels/epilogue.h), written once over a SIMD traits
// type S and instantiated by every micro-kernel: the portable one (ScalarLanes, one float per
// "vector"), x86 (tile_simd.h) and NEON (tile_neon.h). The order of operations lives only here,
// so every ISA rounds the same way. Anonymous namespace: each ISA's translation unit gets its
// own copy (see kernels/mmm/x86_64/tile_simd.h).
//
// S provides: V (a vector of S::W floats), W, zero(), set1(x), add(a, b), mul(a, b), and
// max_keep(v, bound) / min_keep(v, bound): the larger / smaller of v and bound, v when v is NaN
// (so NaNs pass a clamp and a LeakyRelu, as the reference ops do).
#pragma once

#include <cstdint>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {
namespace {

// One "vector" of one float: the portable micro-kernel's lanes.
struct ScalarLanes {
  using V = float;
  static constexpr int W = 1;
  static V zero() { return 0.0f; }
  static V set1(float x) { return x; }
  static V add(V a, V b) { return a + b; }
  static V mul(V a, V b) { return a * b; }
  static V max_keep(V v, V bound) { return bound > v ? bound : v; }
  static V min_keep(V v, V bound) { return bound < v ? bound : v; }
};

// Applies the register stage of `t` to R x NV accumulator vectors (an R-row, NV-vector corner of
// a tile, column vector j at columns [j * W, (j + 1) * W)), then stores each through `store`.
// `load(p, j)` reads the W floats at p of column vector j (the caller masks a partial last one).
// `store(i, j, v)` writes vector j of row i. One pass over the accumulators per feature: each
// feature is tested once per tile, not once per output vector.
template <class S, int R, int NV, class Load, class Store>
[[gnu::always_inline]] inline void epilogue_regs(typename S::V (&acc)[R][NV], const TileArgs& t,
                                                 Load&& load, Store&& store) {
  using V = typename S::V;
  constexpr int W = S::W;
  auto each = [&](auto&& f) {
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) f(acc[i][j], i, j);
    }
  };
  if (t.row_scale) each([&](V& v, int i, int) { v = S::mul(v, S::set1(t.row_scale[i])); });
  if (t.col_scale) each([&](V& v, int, int j) { v = S::mul(v, load(t.col_scale + j * W, j)); });
  if (t.row_bias) each([&](V& v, int i, int) { v = S::add(v, S::set1(t.row_bias[i])); });
  if (t.col_bias) each([&](V& v, int, int j) { v = S::add(v, load(t.col_bias + j * W, j)); });
  auto add_residual = [&] {
    each([&](V& v, int i, int j) {
      v = S::add(v, load(t.residual + i * t.residual_ld + j * W, j));
    });
  };
  if (t.residual && !t.residual_last) add_residual();
  if (t.accumulate) {
    each([&](V& v, int i, int j) { v = S::add(v, load(t.c + i * t.ldc + j * W, j)); });
  }
  if (t.leaky) {
    const V zero = S::zero(), alpha = S::set1(t.leaky_alpha);
    each([&](V& v, int, int) {
      v = S::add(S::max_keep(v, zero), S::mul(alpha, S::min_keep(v, zero)));
    });
  }
  if (t.clamp) {
    const V lo = S::set1(t.min), hi = S::set1(t.max);
    each([&](V& v, int, int) { v = S::min_keep(S::max_keep(v, lo), hi); });
  }
  if (t.residual && t.residual_last) add_residual();
  each([&](V& v, int i, int j) { store(i, j, v); });
}

}  // namespace
}  // namespace kiln::kernels
