// The grouped convolution body (kernels/conv/grouped_conv.h), written once in GCC vector
// extensions and included by one .cpp per ISA. Anonymous namespace: see
// kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/conv/grouped_conv.h"
#include "kernels/epilogue_impl.h"
#include "kernels/mmm/tile_args.h"
#include "kernels/partial_store.h"
#include "kernels/simd_width.h"

namespace kiln::kernels {
namespace {

constexpr int kGcW = kSimdFloats;
// Accumulators: R rows x V vectors. AVX-512 (32 registers): 8 x 3; 16 registers: 4 x 3.
#if defined(__AVX512F__)
constexpr int kGcRows = 8;
#else
constexpr int kGcRows = 4;
#endif
constexpr int kGcVecs = 3;

typedef float GcVec __attribute__((vector_size(kGcW * 4)));

inline GcVec gc_load(const float* p) {
  GcVec v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
inline void gc_store(float* p, GcVec v) {
  __builtin_memcpy(p, &v, sizeof(v));
}
// x in every lane (GcVec{} + x would add the zero: a scalar add before each broadcast).
inline GcVec gc_splat(float x) {
#if defined(__AVX512F__)
  return reinterpret_cast<GcVec>(_mm512_set1_ps(x));
#elif defined(__AVX__)
  return reinterpret_cast<GcVec>(_mm256_set1_ps(x));
#elif defined(__SSE2__)
  return reinterpret_cast<GcVec>(_mm_set1_ps(x));
#else
  return GcVec{} + x;
#endif
}
// The epilogue's lanes over GcVec (NaNs pass the clamp and LeakyRelu as in ScalarLanes).
struct GcLanes {
  using V = GcVec;
  static constexpr int W = kGcW;
  static V zero() { return V{}; }
  static V set1(float x) { return gc_splat(x); }
  static V add(V a, V b) { return a + b; }
  static V mul(V a, V b) { return a * b; }
  static V max_keep(V v, V bound) { return bound > v ? bound : v; }
  static V min_keep(V v, V bound) { return bound < v ? bound : v; }
};

// One tile's vectors of positions (up to kGcVecs), each inside one output row: vector v reads
// the group's planes at src[v] (plus each tap's offset) and its n[v] first lanes are the outputs
// at dst[v] of the output plane. Consecutive vectors follow each other in the output plane.
struct GcVectors {
  int64_t src[kGcVecs], dst[kGcVecs];
  int n[kGcVecs];
};

// R output channels (from o0) x V vectors: sums over the group's channels and taps in
// registers, then the epilogue's register stage, stored straight into y (a partial vector's
// lanes past n are neither read nor written: kernels/partial_store.h).
template <int R, int V>
[[gnu::noinline]] void gc_tile(const float* __restrict in, int64_t channel_stride,
                               const int64_t* __restrict tap_off, int64_t taps, int64_t channels,
                               const float* __restrict w, int64_t ldw, const GcVectors& vecs,
                               const TileArgs& whole, int64_t o0) {
  GcVec acc[R][V];
  int64_t src[V];
  for (int v = 0; v < V; v++) src[v] = vecs.src[v];
  for (int r = 0; r < R; r++) {
    for (int v = 0; v < V; v++) acc[r][v] = GcVec{};
  }
  for (int64_t c = 0; c < channels; c++) {
    const float* pc = in + c * channel_stride;
    for (int64_t t = 0; t < taps; t++, w += ldw) {
      const float* p = pc + tap_off[t];
      GcVec xv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; v++) xv[v] = gc_load(p + src[v]);
#pragma GCC unroll 16
      for (int r = 0; r < R; r++) {
        const GcVec wr = gc_splat(w[r]);
#pragma GCC unroll 4
        for (int v = 0; v < V; v++) acc[r][v] += wr * xv[v];
      }
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; v++) {
    GcVec col[R][1];
#pragma GCC unroll 16
    for (int r = 0; r < R; r++) col[r][0] = acc[r][v];
    const TileArgs t = tile_args(whole, o0, vecs.dst[v]);
    const int n = vecs.n[v];
    if (n == kGcW) {
      epilogue_regs<GcLanes, R, 1>(
          col, t, [](const float* q, int) { return gc_load(q); },
          [&](int i, int, GcVec x) { gc_store(t.c + i * t.ldc, x); });
    } else {
      epilogue_regs<GcLanes, R, 1>(
          col, t, [n](const float* q, int) { return load_lanes(q, n); },
          [&](int i, int, GcVec x) { store_lanes(t.c + i * t.ldc, x, n); });
    }
  }
}

using GcTileFn = void (*)(const float*, int64_t, const int64_t*, int64_t, int64_t, const float*,
                          int64_t, const GcVectors&, const TileArgs&, int64_t);

template <int R>
GcTileFn gc_tile_for_vecs(int v) {
  static_assert(kGcVecs == 3, "tile table");
  switch (v) {
    case 1:
      return gc_tile<R, 1>;
    case 2:
      return gc_tile<R, 2>;
    default:
      return gc_tile<R, 3>;
  }
}

GcTileFn gc_tile_for(int r, int v) {
  switch (r) {
    case 1:
      return gc_tile_for_vecs<1>(v);
    case 2:
      return gc_tile_for_vecs<2>(v);
    case 3:
      return gc_tile_for_vecs<3>(v);
#if defined(__AVX512F__)
    case 4:
      return gc_tile_for_vecs<4>(v);
    case 5:
      return gc_tile_for_vecs<5>(v);
    case 6:
      return gc_tile_for_vecs<6>(v);
    case 7:
      return gc_tile_for_vecs<7>(v);
    default:
      return gc_tile_for_vecs<8>(v);
#else
    default:
      return gc_tile_for_vecs<4>(v);
#endif
  }
}

// Items [i0, i1) of one group, its padded planes at `planes`.
inline void grouped_conv_body(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                              int64_t i1, const float* planes) {
  const ConvGeometry& g = a.geo;
  const int64_t kh = g.kernel[1], kw = g.kernel[2], taps = kh * kw;
  const int64_t cg = a.in_per_group, mg = a.out_per_group;
  const int64_t ow = g.out[2], os = g.out_size();
  int64_t off[kGroupedConvMaxTaps];
  for (int64_t ky = 0; ky < kh; ky++) {
    for (int64_t kx = 0; kx < kw; kx++) {
      const int64_t ry = ky * g.dilation[1], rx = kx * g.dilation[2];
      off[ky * kw + kx] =
          ((ry % l.sy) * l.sx + rx % l.sx) * l.plane + (ry / l.sy) * l.pw + rx / l.sx;
    }
  }
  const TileArgs whole = base_args(*a.ep, a.y, os);
  const Epilogue& ep = *a.ep;
  const int64_t per_group = l.tiles * l.row_blocks;
  // Tiles of `base` or `base + 1` vectors, the longer ones first.
  const int64_t base = l.vectors / l.tiles, longer = l.vectors % l.tiles;
  for (int64_t item = i0; item < i1; item++) {
    const int64_t grp = item / per_group, rest = item % per_group;
    const int64_t ti = rest / l.row_blocks, rb = rest % l.row_blocks;
    const int64_t v0 = ti * base + std::min(ti, longer);
    const int count = static_cast<int>(base + (ti < longer ? 1 : 0));
    GcVectors vecs;
    for (int v = 0; v < count; v++) {
      const int64_t oy = (v0 + v) / l.row_vectors, ox = (v0 + v) % l.row_vectors * kGcW;
      vecs.src[v] = oy * l.pw + ox;
      vecs.dst[v] = oy * ow + ox;
      vecs.n[v] = static_cast<int>(std::min<int64_t>(kGcW, ow - ox));
    }
    const int64_t r0 = rb * l.rows, rows = std::min(l.rows, mg - r0);
    const float* w = a.w + grp * cg * taps * mg + r0;
    const int64_t o0 = grp * mg + r0;
    gc_tile_for(static_cast<int>(rows), count)(planes, l.channel_stride, off, taps, cg, w, mg, vecs,
                                               whole, o0);
    if (ep.post_count > 0) {
      // The tile's outputs are one run of each output channel's plane.
      const int64_t j0 = vecs.dst[0], n = vecs.dst[count - 1] + vecs.n[count - 1] - j0;
      apply_post_steps(ep, a.y + o0 * os + j0, os, rows, n, o0, j0);
    }
  }
}

}  // namespace
}  // namespace kiln::kernels
