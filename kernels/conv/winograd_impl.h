// The Winograd F(2x2, 3x3) input and output transforms, written as plain loops over runs of tiles
// that the compiler vectorizes, included by one .cpp per ISA (winograd.cpp for generic,
// x86_64/winograd_avx2.cpp, ...). Anonymous namespace: see kernels/mmm/x86_64/tile_simd.h.
//
//   Bᵀ = | 1  0 -1  0 |    G = |  1    0    0  |    Aᵀ = | 1  1  1  0 |
//        | 0  1  1  0 |        | 1/2  1/2  1/2 |         | 0  1 -1 -1 |
//        | 0 -1  1  0 |        | 1/2 -1/2  1/2 |
//        | 0  1  0 -1 |        |  0    0    1  |
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/conv/depthwise_vec_impl.h"
#include "kernels/conv/winograd.h"
#include "kernels/simd_width.h"

namespace kiln::kernels {
namespace {

// Calls fn(ty, tx0, tx1, j0) for each run of tiles [tx0, tx1) of tile row ty in [t0, t1), j0 being
// the run's first index within the block, cut also at multiples of `cut` (panel ends) when > 0.
template <class Fn>
inline void for_tile_runs(int64_t t0, int64_t t1, int64_t tiles_x, int64_t cut, Fn&& fn) {
  int64_t t = t0;
  while (t < t1) {
    const int64_t ty = t / tiles_x, tx = t % tiles_x;
    int64_t end = std::min(t1, t - tx + tiles_x);
    if (cut > 0) end = std::min(end, t0 + ((t - t0) / cut + 1) * cut);
    fn(ty, tx, tx + (end - t), t - t0);
    t = end;
  }
}

constexpr int kWinoVec = kSimdFloats;
using WVec = RowVec<kWinoVec>::type;

// lo, hi = the 2W floats e0 o0 e1 o1 ... (the inverse of deinterleave).
template <int W>
inline void interleave(typename RowVec<W>::type e, typename RowVec<W>::type o,
                       typename RowVec<W>::type& lo, typename RowVec<W>::type& hi) {
  if constexpr (W == 4) {
    lo = __builtin_shufflevector(e, o, 0, 4, 1, 5);
    hi = __builtin_shufflevector(e, o, 2, 6, 3, 7);
  } else if constexpr (W == 8) {
    lo = __builtin_shufflevector(e, o, 0, 8, 1, 9, 2, 10, 3, 11);
    hi = __builtin_shufflevector(e, o, 4, 12, 5, 13, 6, 14, 7, 15);
  } else {
    lo = __builtin_shufflevector(e, o, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    hi =
        __builtin_shufflevector(e, o, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  }
}

// V[ξ] = Bᵀ d B for `n` tiles of one row, kWinoVec tiles at a time: tile k's patch starts at
// in + 2k (rows pw apart); point ξ of tile k goes to v[ξ * ps + k]. Reads up to 2 kWinoVec + 2
// floats past the last patch of a row (the padded buffer has that slack).
// Lanes up to `room` (>= n) may be written with garbage: the panel row's later tiles, written
// after this run.
inline void input_run(const float* __restrict in, int64_t pw, int64_t n, int64_t room,
                      float* __restrict v, int64_t ps) {
  for (int64_t k = 0; k < n; k += kWinoVec) {
    WVec c[4][4];  // row r of the patches after (.) B: its 4 columns
    for (int r = 0; r < 4; r++) {
      const float* row = in + r * pw + 2 * k;
      WVec e, o, e2, o2;  // columns 0, 1, 2, 3 of kWinoVec patches
      deinterleave<kWinoVec>(row, e, o);
      deinterleave<kWinoVec>(row + 2, e2, o2);
      c[r][0] = e - e2;
      c[r][1] = o + e2;
      c[r][2] = e2 - o;
      c[r][3] = o - o2;
    }
    const int64_t lanes = k + kWinoVec <= room ? kWinoVec : std::min<int64_t>(kWinoVec, n - k);
    for (int col = 0; col < 4; col++) {
      // Bᵀ (.): the rows.
      store_row_vec<kWinoVec>(v + (0 + col) * ps + k, c[0][col] - c[2][col], lanes);
      store_row_vec<kWinoVec>(v + (4 + col) * ps + k, c[1][col] + c[2][col], lanes);
      store_row_vec<kWinoVec>(v + (8 + col) * ps + k, c[2][col] - c[1][col], lanes);
      store_row_vec<kWinoVec>(v + (12 + col) * ps + k, c[1][col] - c[3][col], lanes);
    }
  }
}

// Y = Aᵀ M A for `n` tiles of one row, kWinoVec tiles at a time: point ξ of tile k at
// m[ξ * ps + k] (read up to kWinoVec floats past the run: M has that slack); writes the 2x2
// outputs + bias into output rows y0 (and y1 when not null) at columns 2k, 2k + 1 (2k only for the
// last tile when `odd`), adding the residual rows r0 / r1 when not null, then clamping.
inline void output_run(const float* __restrict m, int64_t ps, int64_t n, float bias,
                       const float* __restrict r0, const float* __restrict r1, float lo, float hi,
                       float* __restrict y0, float* __restrict y1, bool odd) {
  const WVec lov = lo - WVec{}, hiv = hi - WVec{}, bv = bias - WVec{};
  // (Compared this way a NaN stays NaN when there is no clamp.)
  auto clamp = [&](WVec x) {
    x = x < lov ? lov : x;
    return x > hiv ? hiv : x;
  };
  const int64_t whole = odd ? n - 1 : n;  // tiles with both output columns
  for (int64_t k = 0; k < n; k += kWinoVec) {
    WVec a[2][4];  // Aᵀ (.): the rows
    for (int c = 0; c < 4; c++) {
      const WVec m0 = load_row_vec<kWinoVec>(m + (0 + c) * ps + k);
      const WVec m1 = load_row_vec<kWinoVec>(m + (4 + c) * ps + k);
      const WVec m2 = load_row_vec<kWinoVec>(m + (8 + c) * ps + k);
      const WVec m3 = load_row_vec<kWinoVec>(m + (12 + c) * ps + k);
      a[0][c] = m0 + m1 + m2;
      a[1][c] = m1 - m2 - m3;
    }
    WVec o[2][2];  // (.) A: output row, column parity
    for (int r = 0; r < 2; r++) {
      o[r][0] = a[r][0] + a[r][1] + a[r][2] + bv;
      o[r][1] = a[r][1] - a[r][2] - a[r][3] + bv;
    }
    const int rows = y1 ? 2 : 1;
    // Output columns of this vector of tiles (the odd last tile has its left one only).
    const int64_t cols = std::min<int64_t>(2 * kWinoVec, 2 * whole + (n - whole) - 2 * k);
    for (int r = 0; r < rows; r++) {
      const float* res = r == 0 ? r0 : r1;
      float* yr = r == 0 ? y0 : y1;
      WVec e = o[r][0], od = o[r][1];
      if (cols == 2 * kWinoVec) {
        if (res) {
          WVec re, ro;
          deinterleave<kWinoVec>(res + 2 * k, re, ro);
          e += re;
          od += ro;
        }
        WVec lo_half, hi_half;
        interleave<kWinoVec>(clamp(e), clamp(od), lo_half, hi_half);
        store_vec<kWinoVec>(yr + 2 * k, lo_half);
        store_vec<kWinoVec>(yr + 2 * k + kWinoVec, hi_half);
      } else {
        // The run's last tiles: the residual through a buffer, only the row's columns stored.
        if (res) {
          alignas(64) float buf[2 * kWinoVec] = {};
          __builtin_memcpy(buf, res + 2 * k, static_cast<size_t>(cols) * sizeof(float));
          WVec re, ro;
          deinterleave<kWinoVec>(buf, re, ro);
          e += re;
          od += ro;
        }
        WVec half[2];
        interleave<kWinoVec>(clamp(e), clamp(od), half[0], half[1]);
        // Whole vectors of the row's columns, then the last few lane by lane.
        const int64_t full = cols / kWinoVec;
        for (int64_t i = 0; i < full; i++) store_vec<kWinoVec>(yr + 2 * k + i * kWinoVec, half[i]);
        for (int64_t j = full * kWinoVec; j < cols; j++) yr[2 * k + j] = half[full][j % kWinoVec];
      }
    }
  }
}

inline void winograd_output_body(const WinogradBlock& b, const float* mbuf, int64_t ldm,
                                 int64_t point_stride, int64_t m0, int64_t m1,
                                 const WinogradOut& o) {
  const int64_t plane = o.oh * o.ow;
  for (int64_t co = m0; co < m1; co++) {
    const float* mrow = mbuf + (co - m0) * ldm;
    const float bias = o.bias ? o.bias[co] : 0.f;
    float* yc = o.y + co * plane;
    const float* rc = o.residual ? o.residual + co * o.residual_ld : nullptr;
    for_tile_runs(b.t0, b.t1, b.tiles_x, 0, [&](int64_t ty, int64_t tx0, int64_t tx1, int64_t j0) {
      const int64_t oy = 2 * ty, ox = 2 * tx0;
      const bool two_rows = oy + 1 < o.oh;
      const bool odd = 2 * tx1 > o.ow;
      output_run(mrow + j0, point_stride, tx1 - tx0, bias, rc ? rc + oy * o.ow + ox : nullptr,
                 rc && two_rows ? rc + (oy + 1) * o.ow + ox : nullptr, o.min, o.max,
                 yc + oy * o.ow + ox, two_rows ? yc + (oy + 1) * o.ow + ox : nullptr, odd);
    });
  }
}

// ---- F(4x4, 3x3) ----
//
//   Bᵀ = | 4  0 -5  0  1  0 |   G = |  1/4     0     0  |   Aᵀ = | 1  1  1  1  1  0 |
//        | 0 -4 -4  1  1  0 |       | -1/6  -1/6  -1/6 |        | 0  1 -1  2 -2  0 |
//        | 0  4 -4 -1  1  0 |       | -1/6   1/6  -1/6 |        | 0  1  1  4  4  0 |
//        | 0 -2 -1  2  1  0 |       | 1/24  1/12   1/6 |        | 0  1 -1  8 -8  1 |
//        | 0  2 -1 -2  1  0 |       | 1/24 -1/12   1/6 |
//        | 0  4  0 -5  0  1 |       |   0     0     1  |

// p[i][k] = s[4k + i] for the 4W floats at s.
inline void deinterleave4(const float* s, WVec p[4]) {
  WVec e1, o1, e2, o2;
  deinterleave<kWinoVec>(s, e1, o1);
  deinterleave<kWinoVec>(s + 2 * kWinoVec, e2, o2);
  even_odd<kWinoVec>(e1, e2, p[0], p[2]);
  even_odd<kWinoVec>(o1, o2, p[1], p[3]);
}

// The 4W floats p[0][0] p[1][0] p[2][0] p[3][0] p[0][1] ... into out[0..4).
inline void interleave4(const WVec p[4], WVec out[4]) {
  WVec a_lo, a_hi, b_lo, b_hi;
  interleave<kWinoVec>(p[0], p[2], a_lo, a_hi);
  interleave<kWinoVec>(p[1], p[3], b_lo, b_hi);
  interleave<kWinoVec>(a_lo, b_lo, out[0], out[1]);
  interleave<kWinoVec>(a_hi, b_hi, out[2], out[3]);
}

template <class T>
inline void bt6(const T d[6], T out[6]) {
  out[0] = 4 * d[0] - 5 * d[2] + d[4];
  out[1] = d[3] + d[4] - 4 * (d[1] + d[2]);
  out[2] = d[4] - d[3] + 4 * (d[1] - d[2]);
  out[3] = d[4] - d[2] + 2 * (d[3] - d[1]);
  out[4] = d[4] - d[2] + 2 * (d[1] - d[3]);
  out[5] = 4 * d[1] - 5 * d[3] + d[5];
}

template <class T>
inline void at6(const T m[6], T out[4]) {
  const T s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  out[0] = m[0] + s12 + s34;
  out[1] = d12 + 2 * d34;
  out[2] = s12 + 4 * s34;
  out[3] = d12 + 8 * d34 + m[5];
}

// V[ξ] = Bᵀ d B of F(4x4, 3x3) for `n` tiles of one row (patches 4 apart), as input_run.
inline void input_run4(const float* __restrict in, int64_t pw, int64_t n, int64_t room,
                       float* __restrict v, int64_t ps) {
  for (int64_t k = 0; k < n; k += kWinoVec) {
    WVec c[6][6];  // row r of the patches after (.) B: its 6 columns
    for (int r = 0; r < 6; r++) {
      const float* row = in + r * pw + 4 * k;
      WVec d[6], q[4];
      deinterleave4(row, d);
      deinterleave4(row + 4, q);
      d[4] = q[0];
      d[5] = q[1];
      bt6(d, c[r]);
    }
    const int64_t lanes = k + kWinoVec <= room ? kWinoVec : std::min<int64_t>(kWinoVec, n - k);
    for (int col = 0; col < 6; col++) {
      WVec d[6], out[6];
      for (int r = 0; r < 6; r++) d[r] = c[r][col];
      bt6(d, out);
      for (int r = 0; r < 6; r++)
        store_row_vec<kWinoVec>(v + (6 * r + col) * ps + k, out[r], lanes);
    }
  }
}

// The input transform of a block into V's panels, for output tiles of T x T (F(2x2) or F(4x4)).
template <int T>
inline void winograd_input_blocks(const WinogradBlock& b, float* v) {
  constexpr int points = (T + 2) * (T + 2);
  const int64_t nr = b.nr;
  const int64_t panels = (b.t1 - b.t0 + nr - 1) / nr;
  const int64_t panel_floats = b.panel_floats;
  const int64_t ps = b.point_floats;
  for_tile_runs(b.t0, b.t1, b.tiles_x, nr, [&](int64_t ty, int64_t tx0, int64_t tx1, int64_t j0) {
    const int64_t p = j0 / nr, j = j0 % nr;
    const float* in = b.padded + T * ty * b.pw + T * tx0;
    float* out = v + p * panel_floats + j;
    for (int64_t ci = 0; ci < b.c; ci++) {
      if constexpr (T == 2) {
        input_run(in + ci * b.plane, b.pw, tx1 - tx0, nr - j, out + ci * nr, ps);
      } else {
        input_run4(in + ci * b.plane, b.pw, tx1 - tx0, nr - j, out + ci * nr, ps);
      }
    }
  });
  // The last panel's lanes past the block's tiles: zeros (their products are computed, unused).
  const int64_t used = (b.t1 - b.t0) - (panels - 1) * nr;
  if (used < nr) {
    for (int xi = 0; xi < points; xi++) {
      float* last = v + xi * ps + (panels - 1) * panel_floats;
      for (int64_t ci = 0; ci < b.c; ci++)
        std::fill(last + ci * nr + used, last + ci * nr + nr, 0.f);
    }
  }
}

inline void winograd_input_body(const WinogradBlock& b, float* v) {
  winograd_input_blocks<2>(b, v);
}

inline void winograd_input_body4(const WinogradBlock& b, float* v) {
  winograd_input_blocks<4>(b, v);
}

// Y = Aᵀ M A of F(4x4, 3x3) for `n` tiles of one row: `rows` (1..4) output rows y[r] (residual
// rows res[r] or null), `cols` output columns from the run's first.
inline void output_run4(const float* __restrict m, int64_t ps, int64_t n, float bias,
                        const float* const res[4], float lo, float hi, float* const y[4], int rows,
                        int64_t cols) {
  const WVec lov = lo - WVec{}, hiv = hi - WVec{}, bv = bias - WVec{};
  auto clamp = [&](WVec x) {
    x = x < lov ? lov : x;
    return x > hiv ? hiv : x;
  };
  for (int64_t k = 0; k < n; k += kWinoVec) {
    WVec a[4][6];  // Aᵀ (.): 4 rows of 6 columns
    for (int c = 0; c < 6; c++) {
      WVec mc[6], out[4];
      for (int r = 0; r < 6; r++) mc[r] = load_row_vec<kWinoVec>(m + (6 * r + c) * ps + k);
      at6(mc, out);
      for (int r = 0; r < 4; r++) a[r][c] = out[r];
    }
    const int64_t vcols = std::min<int64_t>(4 * kWinoVec, cols - 4 * k);
    for (int r = 0; r < rows; r++) {
      WVec o[4];
      at6(a[r], o);
      for (int c = 0; c < 4; c++) o[c] += bv;
      float* yr = y[r] + 4 * k;
      const bool whole = vcols == 4 * kWinoVec;
      if (res[r]) {
        const float* rr = res[r] + 4 * k;
        alignas(64) float buf[4 * kWinoVec];
        if (!whole) {
          std::fill(buf, buf + 4 * kWinoVec, 0.f);
          __builtin_memcpy(buf, rr, static_cast<size_t>(vcols) * sizeof(float));
          rr = buf;
        }
        WVec q[4];
        deinterleave4(rr, q);
        for (int c = 0; c < 4; c++) o[c] += q[c];
      }
      for (int c = 0; c < 4; c++) o[c] = clamp(o[c]);
      WVec out[4];
      interleave4(o, out);
      if (whole) {
        for (int i = 0; i < 4; i++) store_vec<kWinoVec>(yr + i * kWinoVec, out[i]);
      } else {
        // Whole vectors of the row's columns, then the last few lane by lane.
        const int64_t full = vcols / kWinoVec;
        for (int64_t i = 0; i < full; i++) store_vec<kWinoVec>(yr + i * kWinoVec, out[i]);
        for (int64_t j = full * kWinoVec; j < vcols; j++) yr[j] = out[full][j % kWinoVec];
      }
    }
  }
}

inline void winograd_output_body4(const WinogradBlock& b, const float* mbuf, int64_t ldm,
                                  int64_t point_stride, int64_t m0, int64_t m1,
                                  const WinogradOut& o) {
  const int64_t plane = o.oh * o.ow;
  for (int64_t co = m0; co < m1; co++) {
    const float* mrow = mbuf + (co - m0) * ldm;
    const float bias = o.bias ? o.bias[co] : 0.f;
    float* yc = o.y + co * plane;
    const float* rc = o.residual ? o.residual + co * o.residual_ld : nullptr;
    for_tile_runs(b.t0, b.t1, b.tiles_x, 0, [&](int64_t ty, int64_t tx0, int64_t tx1, int64_t j0) {
      const int64_t oy = 4 * ty, ox = 4 * tx0;
      const int rows = static_cast<int>(std::min<int64_t>(4, o.oh - oy));
      float* y[4] = {};
      const float* res[4] = {};
      for (int r = 0; r < rows; r++) {
        y[r] = yc + (oy + r) * o.ow + ox;
        res[r] = rc ? rc + (oy + r) * o.ow + ox : nullptr;
      }
      output_run4(mrow + j0, point_stride, tx1 - tx0, bias, res, o.min, o.max, y, rows,
                  std::min<int64_t>(4 * (tx1 - tx0), o.ow - ox));
    });
  }
}

}  // namespace
}  // namespace kiln::kernels
