// The body of the x86 micro-kernels, written once over a SIMD traits type (S::V a register of
// S::W floats, S::Mask a lane mask) and instantiated by one .cpp per ISA, each compiled with its
// own -m flags. Lives in an anonymous namespace so no inline function compiled for one ISA can be
// picked by the linker for another.
//
// One template computes both the full tile and every edge tile: R of the MR rows of the A panel
// and NV of the NVP vectors of the B panel, so a partial tile costs what its outputs cost (up to
// one vector of columns), and its last, partial vector is read and written with lane masks,
// straight into C.
#pragma once

#include <array>
#include <utility>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {
namespace {

// R rows x NV vectors of an MR x (NVP * S::W) tile. `Edge`: the last vector holds only
// `last_lanes` (1..W) columns and is loaded and stored under a mask.
template <class S, int MR, int NVP, int R, int NV, bool Edge>
inline void simd_tile(int64_t k, const float* __restrict a, const float* __restrict b,
                      const TileArgs& args, int last_lanes) {
  static_assert(R >= 1 && R <= MR && NV >= 1 && NV <= NVP);
  using V = typename S::V;
  constexpr int W = S::W;
  constexpr int NR = NVP * W;
  V acc[R][NV];
#pragma GCC unroll 16
  for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) acc[i][j] = S::zero();
  }
  for (int64_t kk = 0; kk < k; kk++) {
    V bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) bv[j] = S::load(b + j * W);
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
      V av = S::set1(a[i]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) acc[i][j] = S::fmadd(av, bv[j], acc[i][j]);
    }
    a += MR;
    b += NR;
  }
  // A local copy: stores into C cannot alias it, so its fields stay in registers.
  const TileArgs t = args;
  const V lo = S::set1(t.min), hi = S::set1(t.max), alpha = S::set1(t.leaky_alpha);
  const V zero = S::zero();
  const bool masked = Edge && last_lanes < W;
  const typename S::Mask mask = S::mask(Edge ? last_lanes : W);
  // Vector j of the row at p: whole, or the masked lanes of the last one.
  auto load = [&](const float* p, int j) {
    return (Edge && j == NV - 1 && masked) ? S::maskload(p, mask) : S::loadu(p);
  };
  // One pass over the accumulators per feature: each feature is tested once per tile, not once
  // per output vector (the accumulators stay in registers either way).
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
  if (t.residual) {
    each([&](V& v, int i, int j) {
      v = S::add(v, load(t.residual + i * t.residual_ld + j * W, j));
    });
  }
  if (t.accumulate) {
    each([&](V& v, int i, int j) { v = S::add(v, load(t.c + i * t.ldc + j * W, j)); });
  }
  if (t.leaky) {
    each([&](V& v, int, int) { v = S::add(S::max(v, zero), S::mul(alpha, S::min(v, zero))); });
  }
  if (t.clamp) each([&](V& v, int, int) { v = S::min(S::max(v, lo), hi); });
  each([&](V& v, int i, int j) {
    if (Edge && j == NV - 1 && masked) {
      S::maskstore(t.c + i * t.ldc + j * W, mask, v);
    } else {
      S::storeu(t.c + i * t.ldc + j * W, v);
    }
  });
}

// The full MR x NVP*W tile (a TileFn body).
template <class S, int MR, int NVP>
inline void simd_full_tile(int64_t k, const float* a, const float* b, const TileArgs& t) {
  simd_tile<S, MR, NVP, MR, NVP, false>(k, a, b, t, S::W);
}

// Edge tiles by (rows - 1) * NVP + vectors - 1: every rows x vectors shape of the tile.
template <class S, int MR, int NVP>
struct SimdEdgeTable {
  using Fn = void (*)(int64_t, const float*, const float*, const TileArgs&, int);
  template <int I>
  static void entry(int64_t k, const float* a, const float* b, const TileArgs& t, int lanes) {
    simd_tile<S, MR, NVP, I / NVP + 1, I % NVP + 1, true>(k, a, b, t, lanes);
  }
  template <size_t... I>
  static constexpr std::array<Fn, MR * NVP> make(std::index_sequence<I...>) {
    return {&entry<static_cast<int>(I)>...};
  }
  static constexpr std::array<Fn, MR* NVP> fns = make(std::make_index_sequence<MR * NVP>());
};

// An EdgeTileFn body: rows x cols (1..MR, 1..NVP*W) outputs of a tile, straight into C.
template <class S, int MR, int NVP>
inline void simd_edge_tile(int64_t k, const float* a, const float* b, const TileArgs& t, int rows,
                           int cols) {
  const int vectors = (cols + S::W - 1) / S::W;
  const int lanes = cols - (vectors - 1) * S::W;
  SimdEdgeTable<S, MR, NVP>::fns[(rows - 1) * NVP + vectors - 1](k, a, b, t, lanes);
}

}  // namespace
}  // namespace kiln::kernels
