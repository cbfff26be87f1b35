// The int8 micro-kernels' shared parts, written once over traits and instantiated by each ISA's
// file (anonymous namespace: each translation unit keeps its own copy, see
// kernels/mmm/x86_64/tile_simd.h):
//   - q_epilogue: stage 0 (i32 offsets) on the accumulator registers, conversion to float, then
//     the register stage of the one fused epilogue (epilogue_regs, kernels/epilogue_impl.h) with a
//     store that requantizes (clamp to the output range, round half to even, add the zero point,
//     narrow) or writes f32 / i32;
//   - q_tile_wide_portable: the Wide16 tile in plain C++ (the generic kernel, and NEON's, which
//     the compiler vectorizes into widening multiply-accumulates);
//   - q_store_edge: a partial tile through the scalar qstore_one.
// Traits S (besides epilogue_regs' float ones): VI (W i32 lanes), set1i, addi, loadi, storei,
// cvt (i32 -> f32), loadf, storef, store_q<Signed>(dst, v, lo, hi, zp) (v already in [lo, hi]
// after the clamp it applies; rounds half to even; adds zp; stores W bytes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/epilogue_impl.h"
#include "kernels/quant/qmmm.h"

namespace kiln::kernels {
namespace {

inline TileArgs q_float_args(const QTileArgs& q) {
  TileArgs f{};
  f.row_scale = q.row_scale;
  f.col_scale = q.col_scale;
  f.row_bias = q.row_bias;
  f.col_bias = q.col_bias;
  f.clamp = q.clamp;
  f.min = q.min;
  f.max = q.max;
  return f;
}

template <class S, int R, int NV>
[[gnu::always_inline]] inline void q_epilogue(typename S::VI (&acc)[R][NV], const QTileArgs& q) {
  using V = typename S::V;
  constexpr int W = S::W;
  if (q.row_offset) {
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
      const auto o = S::set1i(q.row_offset[i]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) acc[i][j] = S::addi(acc[i][j], o);
    }
  }
  if (q.col_offset) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) {
      const auto o = S::loadi(q.col_offset + j * W);
#pragma GCC unroll 16
      for (int i = 0; i < R; i++) acc[i][j] = S::addi(acc[i][j], o);
    }
  }
  if (q.output == OutputType::I32) {
    int32_t* c = static_cast<int32_t*>(q.c);
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) S::storei(c + i * q.ldc + j * W, acc[i][j]);
    }
    return;
  }
  V v[R][NV];
#pragma GCC unroll 16
  for (int i = 0; i < R; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) v[i][j] = S::cvt(acc[i][j]);
  }
  const TileArgs f = q_float_args(q);
  auto load = [](const float* p, int) { return S::loadf(p); };
  switch (q.output) {
    case OutputType::F32: {
      float* c = static_cast<float*>(q.c);
      epilogue_regs<S, R, NV>(v, f, load,
                              [&](int i, int j, V x) { S::storef(c + i * q.ldc + j * W, x); });
      break;
    }
    case OutputType::U8: {
      uint8_t* c = static_cast<uint8_t*>(q.c);
      const float lo = static_cast<float>(0 - q.zero_point);
      const float hi = static_cast<float>(255 - q.zero_point);
      epilogue_regs<S, R, NV>(v, f, load, [&](int i, int j, V x) {
        S::template store_q<false>(c + i * q.ldc + j * W, x, lo, hi, q.zero_point);
      });
      break;
    }
    case OutputType::I8: {
      int8_t* c = static_cast<int8_t*>(q.c);
      const float lo = static_cast<float>(-128 - q.zero_point);
      const float hi = static_cast<float>(127 - q.zero_point);
      epilogue_regs<S, R, NV>(v, f, load, [&](int i, int j, V x) {
        S::template store_q<true>(c + i * q.ldc + j * W, x, lo, hi, q.zero_point);
      });
      break;
    }
    case OutputType::I32:
      break;
  }
}

// A partial tile: the MR x NR sums `acc` (row-major) through the scalar epilogue, rows x cols.
template <int MR, int NR>
[[gnu::noinline]] void q_store_edge(const int32_t (&acc)[MR * NR], const QTileArgs& t, int rows,
                                    int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) qstore_one(acc[i * NR + j], t, i, j);
}

// t moved to its output (i, j).
[[gnu::always_inline]] inline QTileArgs q_shift(const QTileArgs& t, int64_t i, int64_t j) {
  QTileArgs o = t;
  if (o.row_scale) o.row_scale += i;
  if (o.col_scale) o.col_scale += j;
  if (o.row_bias) o.row_bias += i;
  if (o.col_bias) o.col_bias += j;
  if (o.row_offset) o.row_offset += i;
  if (o.col_offset) o.col_offset += j;
  const size_t size = t.output == OutputType::U8 || t.output == OutputType::I8 ? 1 : 4;
  o.c = static_cast<char*>(t.c) + static_cast<size_t>(i * t.ldc + j) * size;
  return o;
}

// The epilogue of a row of n sums, W at a time, then one by one.
template <class S>
void q_row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  constexpr int W = S::W;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    typename S::VI v[1][1] = {{S::loadi(acc + j)}};
    q_epilogue<S, 1, 1>(v, q_shift(t, 0, j));
  }
  for (; j < n; j++) qstore_one(acc[j], t, 0, j);
}

// A depthwise channel plane (see QDepthwiseFn) tap by tap over the whole plane: any kernel size
// (the fallback for kernels wider or taller than kMaxDwTaps).
template <class T>
inline void q_depthwise_plane_taps(const QDepthwisePlane& g, const T* __restrict x, int32_t zx,
                                   const int32_t* __restrict wt, int32_t* __restrict acc) {
  for (int64_t i = 0; i < g.oh * g.ow; i++) acc[i] = 0;
  for (int64_t ky = 0; ky < g.kh; ky++) {
    for (int64_t kx = 0; kx < g.kw; kx++) {
      const int32_t wv = wt[ky * g.kw + kx];
      const int64_t off = kx * g.dil_w - g.pad_left;
      for (int64_t oy = 0; oy < g.oh; oy++) {
        const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dil_h;
        if (iy < 0 || iy >= g.h) continue;
        const T* xr = x + iy * g.w;
        int32_t* ar = acc + oy * g.ow;
        for (int64_t ox = 0; ox < g.ow; ox++) {
          const int64_t ix = ox * g.stride_w + off;
          if (ix >= 0 && ix < g.w) ar[ox] += (static_cast<int32_t>(xr[ix]) - zx) * wv;
        }
      }
    }
  }
}

constexpr int64_t kMaxDwTaps = 16;

// 3x3 taps over the outputs [a, b) of one row, every tap inside the row: one sum per output in
// a register (the compiler vectorizes over ox: widen, multiply, add). r[ky] points at the
// input row of tap row ky shifted by -pad_left (a row outside the input has weights 0), d is
// the dilation along the row; c = -zx * (sum of the weights used).
template <class T, int S>
inline void q_dw_row3(const T* const* r, int64_t d, const int32_t* w, int32_t c, int64_t a,
                      int64_t b, int32_t* __restrict ar) {
  const T *r00 = r[0], *r01 = r[0] + d, *r02 = r[0] + 2 * d;
  const T *r10 = r[1], *r11 = r[1] + d, *r12 = r[1] + 2 * d;
  const T *r20 = r[2], *r21 = r[2] + d, *r22 = r[2] + 2 * d;
  const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
                w7 = w[7], w8 = w[8];
  for (int64_t ox = a; ox < b; ox++) {
    const int64_t i = ox * S;
    ar[ox] = c + r00[i] * w0 + r01[i] * w1 + r02[i] * w2 + r10[i] * w3 + r11[i] * w4 + r12[i] * w5 +
             r20[i] * w6 + r21[i] * w7 + r22[i] * w8;
  }
}

// A depthwise channel plane (see QDepthwiseFn) row by row: a row's sums stay in L1 (or in
// registers for 3x3 kernels) while every tap adds to them. Tap rows outside the input get
// weights 0; the outputs whose taps all fall inside the row (the interior) run without bounds
// checks, the few at the edges through a checked loop.
template <class T>
inline void q_depthwise_plane_t(const QDepthwisePlane& g, const T* __restrict x, int32_t zx,
                                const int32_t* __restrict wt, int32_t* __restrict acc) {
  if (g.kh > kMaxDwTaps || g.kw > kMaxDwTaps) return q_depthwise_plane_taps(g, x, zx, wt, acc);
  // The interior [a, b): 0 <= ox * stride + kx * dil - pad_left < w for every kx.
  int64_t a = 0, b = g.ow;
  for (int64_t kx = 0; kx < g.kw; kx++) {
    const int64_t off = kx * g.dil_w - g.pad_left;
    const int64_t lo = off >= 0 ? 0 : (-off + g.stride_w - 1) / g.stride_w;
    const int64_t hi = g.w - off <= 0 ? 0 : (g.w - off + g.stride_w - 1) / g.stride_w;
    a = std::max(a, lo);
    b = std::min(b, hi);
  }
  a = std::min(a, g.ow);
  b = std::max(b, a);
  const bool fused3 = g.kh == 3 && g.kw == 3 && (g.stride_w == 1 || g.stride_w == 2);
  const T* rows[kMaxDwTaps] = {};
  int32_t wrow[kMaxDwTaps * kMaxDwTaps] = {};
  for (int64_t oy = 0; oy < g.oh; oy++) {
    int32_t* ar = acc + oy * g.ow;
    int32_t wsum = 0;
    for (int64_t ky = 0; ky < g.kh; ky++) {
      const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dil_h;
      const bool in = iy >= 0 && iy < g.h;
      rows[ky] = x + (in ? iy : 0) * g.w - g.pad_left;
      for (int64_t kx = 0; kx < g.kw; kx++) {
        const int32_t wv = in ? wt[ky * g.kw + kx] : 0;
        wrow[ky * g.kw + kx] = wv;
        wsum += wv;
      }
    }
    const int32_t c = -zx * wsum;
    // Edges: the taps inside the row only.
    auto edge = [&](int64_t ox) {
      int32_t s = 0;
      for (int64_t ky = 0; ky < g.kh; ky++)
        for (int64_t kx = 0; kx < g.kw; kx++) {
          const int64_t ix = ox * g.stride_w + kx * g.dil_w;  // in rows[ky]'s shifted frame
          const int64_t real = ix - g.pad_left;
          if (real >= 0 && real < g.w)
            s += (static_cast<int32_t>(rows[ky][ix]) - zx) * wrow[ky * g.kw + kx];
        }
      ar[ox] = s;
    };
    for (int64_t ox = 0; ox < a; ox++) edge(ox);
    for (int64_t ox = b; ox < g.ow; ox++) edge(ox);
    if (fused3) {
      if (g.stride_w == 1)
        q_dw_row3<T, 1>(rows, g.dil_w, wrow, c, a, b, ar);
      else
        q_dw_row3<T, 2>(rows, g.dil_w, wrow, c, a, b, ar);
      continue;
    }
    for (int64_t ox = a; ox < b; ox++) ar[ox] = c;
    for (int64_t ky = 0; ky < g.kh; ky++)
      for (int64_t kx = 0; kx < g.kw; kx++) {
        const int32_t wv = wrow[ky * g.kw + kx];
        if (wv == 0) continue;
        const T* xs = rows[ky] + kx * g.dil_w;
        if (g.stride_w == 1) {
          for (int64_t ox = a; ox < b; ox++) ar[ox] += xs[ox] * wv;
        } else {
          for (int64_t ox = a; ox < b; ox++) ar[ox] += xs[ox * g.stride_w] * wv;
        }
      }
  }
}

inline void q_depthwise_plane(const QDepthwisePlane& g, const void* x, bool x_signed, int32_t zx,
                              const int32_t* wt, int32_t* acc) {
  if (x_signed)
    q_depthwise_plane_t(g, static_cast<const int8_t*>(x), zx, wt, acc);
  else
    q_depthwise_plane_t(g, static_cast<const uint8_t*>(x), zx, wt, acc);
}

// Portable float/int "vectors" of one lane.
struct QScalarLanes : ScalarLanes {
  using VI = int32_t;
  static VI set1i(int32_t x) { return x; }
  static VI addi(VI a, VI b) { return a + b; }
  static VI loadi(const int32_t* p) { return *p; }
  static void storei(int32_t* p, VI v) { *p = v; }
  static V cvt(VI v) { return static_cast<float>(v); }
  static V loadf(const float* p) { return *p; }
  static void storef(float* p, V v) { *p = v; }
  template <bool Signed, class T>
  static void store_q(T* p, V v, float lo, float hi, int32_t zp) {
    v = v < lo ? lo : (v > hi ? hi : v);
    *p = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + zp);
  }
};

// The Wide16 tile in plain C++: a (kg x MR pairs), b (kg x NR pairs) of i16.
template <int MR, int NR>
inline void q_tile_wide_portable(int64_t kg, const int32_t* a32, const int32_t* b32,
                                 const QTileArgs& t, int rows, int cols) {
  const int16_t* a = reinterpret_cast<const int16_t*>(a32);
  const int16_t* b = reinterpret_cast<const int16_t*>(b32);
  int32_t acc[MR * NR] = {};
  for (int64_t g = 0; g < kg; g++) {
    const int16_t* ag = a + g * MR * 2;
    const int16_t* bg = b + g * NR * 2;
    for (int i = 0; i < MR; i++) {
      const int32_t a0 = ag[2 * i], a1 = ag[2 * i + 1];
      for (int j = 0; j < NR; j++) acc[i * NR + j] += a0 * bg[2 * j] + a1 * bg[2 * j + 1];
    }
  }
  if (rows == MR && cols == NR) {
    int32_t v[MR][NR];
    for (int i = 0; i < MR; i++)
      for (int j = 0; j < NR; j++) v[i][j] = acc[i * NR + j];
    q_epilogue<QScalarLanes, MR, NR>(v, t);
  } else {
    q_store_edge<MR, NR>(acc, t, rows, cols);
  }
}

}  // namespace
}  // namespace kiln::kernels
