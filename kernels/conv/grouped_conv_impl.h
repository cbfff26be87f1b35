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
// The first n < kGcW floats at p (zeros beyond), and their store: nothing past them is read or
// written (AVX-512 k masks, AVX2 vmaskmovps).
inline GcVec gc_load_n(const float* p, int64_t n) {
#if defined(__AVX512F__)
  return reinterpret_cast<GcVec>(_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p));
#elif defined(__AVX2__)
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return reinterpret_cast<GcVec>(_mm256_maskload_ps(p, mask));
#else
  GcVec v{};
  for (int64_t i = 0; i < n; i++) v[i] = p[i];
  return v;
#endif
}
inline void gc_store_n(float* p, GcVec v, int64_t n) {
#if defined(__AVX512F__)
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), reinterpret_cast<__m512>(v));
#elif defined(__AVX2__)
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  _mm256_maskstore_ps(p, mask, reinterpret_cast<__m256>(v));
#else
  for (int64_t i = 0; i < n; i++) p[i] = v[i];
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

// Sums of R rows x V vectors from position q of the group's planes `in`.
template <int R, int V>
[[gnu::noinline]] void gc_tile(const float* __restrict in, int64_t channel_stride,
                               const int64_t* __restrict tap_off, int64_t taps, int64_t channels,
                               const float* __restrict w, int64_t ldw, float* __restrict out,
                               int64_t ldo) {
  GcVec acc[R][V];
  for (int r = 0; r < R; r++) {
    for (int v = 0; v < V; v++) acc[r][v] = GcVec{};
  }
  for (int64_t c = 0; c < channels; c++) {
    const float* pc = in + c * channel_stride;
    for (int64_t t = 0; t < taps; t++, w += ldw) {
      const float* p = pc + tap_off[t];
      GcVec xv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; v++) xv[v] = gc_load(p + v * kGcW);
#pragma GCC unroll 16
      for (int r = 0; r < R; r++) {
        const GcVec wr = gc_splat(w[r]);
#pragma GCC unroll 4
        for (int v = 0; v < V; v++) acc[r][v] += wr * xv[v];
      }
    }
  }
  for (int r = 0; r < R; r++) {
    for (int v = 0; v < V; v++) gc_store(out + r * ldo + v * kGcW, acc[r][v]);
  }
}

using GcTileFn = void (*)(const float*, int64_t, const int64_t*, int64_t, int64_t, const float*,
                          int64_t, float*, int64_t);

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

// Output row piece: `n` sums of output channel o at plane position j (acc: the sums), through
// the register stage into y.
inline void gc_store_piece(const TileArgs& whole, const float* acc, int64_t o, int64_t j,
                           int64_t n) {
  int64_t x = 0;
  for (; x + kGcW <= n; x += kGcW) {
    const TileArgs t = tile_args(whole, o, j + x);
    GcVec v[1][1] = {{gc_load(acc + x)}};
    epilogue_regs<GcLanes, 1, 1>(
        v, t, [](const float* p, int) { return gc_load(p); },
        [&](int, int, GcVec r) { gc_store(t.c, r); });
  }
  if (x < n) {
    // The last partial vector: its lanes past n read and write nothing.
    const int64_t m = n - x;
    const TileArgs t = tile_args(whole, o, j + x);
    GcVec v[1][1] = {{gc_load_n(acc + x, m)}};
    epilogue_regs<GcLanes, 1, 1>(
        v, t, [m](const float* p, int) { return gc_load_n(p, m); },
        [&](int, int, GcVec r) { gc_store_n(t.c, r, m); });
  }
}

inline void grouped_conv_body(const GroupedConvArgs& a, const GroupedConvLayout& l, int64_t i0,
                              int64_t i1, float* tile) {
  const ConvGeometry& g = a.geo;
  const int64_t kh = g.kernel[1], kw = g.kernel[2], taps = kh * kw;
  const int64_t cg = a.in_per_group, mg = a.out_per_group;
  const int64_t oh = g.out[1], ow = g.out[2], os = g.out_size();
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
  for (int64_t item = i0; item < i1; item++) {
    const int64_t grp = item / per_group, rest = item % per_group;
    const int64_t ti = rest / l.row_blocks, rb = rest % l.row_blocks;
    const int64_t q0 = ti * l.tile_q, q1 = std::min(q0 + l.tile_q, l.nq);
    const int64_t r0 = rb * l.rows, rows = std::min(l.rows, mg - r0);
    const int vecs = static_cast<int>((q1 - q0 + kGcW - 1) / kGcW);
    const float* in = a.planes + grp * cg * l.channel_stride + q0;
    const float* w = a.w + grp * cg * taps * mg + r0;
    gc_tile_for(static_cast<int>(rows), vecs)(in, l.channel_stride, off, taps, cg, w, mg, tile,
                                              l.tile_q);
    // The tile's positions that are outputs, one output row piece at a time.
    const int64_t o0 = grp * mg + r0;
    for (int64_t oy = q0 / l.pw; oy < oh && oy * l.pw < q1; oy++) {
      const int64_t row = oy * l.pw;
      const int64_t xs = std::max<int64_t>(q0 - row, 0), xe = std::min(q1 - row, ow);
      if (xs >= xe) continue;
      for (int64_t r = 0; r < rows; r++) {
        gc_store_piece(whole, tile + r * l.tile_q + row + xs - q0, o0 + r, oy * ow + xs, xe - xs);
      }
      if (ep.post_count > 0) {
        apply_post_steps(ep, a.y + o0 * os + oy * ow + xs, os, rows, xe - xs, o0, oy * ow + xs);
      }
    }
  }
}

}  // namespace
}  // namespace kiln::kernels
