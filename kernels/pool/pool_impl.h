// The body of the pool kernels in GCC vector extensions, included by one .cpp per ISA (each
// compiled with its ISA's flags). It reuses the vector type of vec_math_impl.h; anonymous
// namespace: see kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include <algorithm>
#include <limits>

#include "kernels/elementwise/vec_math_impl.h"
#include "kernels/pool/pool.h"

namespace kiln::kernels {
namespace {

// The even lanes of the 2 kW floats lo:hi (lo[0], lo[2], ..., hi[0], hi[2], ...).
inline Vf even_lanes(Vf lo, Vf hi) {
#if defined(__AVX512F__)
  return __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#elif defined(__AVX__)
  return __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
#else
  return __builtin_shufflevector(lo, hi, 0, 2, 4, 6);
#endif
}

// v > best ? v : best, lane by lane (NaN in v: best stays; NaN in best: it stays).
inline Vf keep_max(Vf v, Vf best) {
  return v > best ? v : best;
}
inline float keep_max(float v, float best) {
  return v > best ? v : best;
}

// out[t] = max over i < kw of r[t * S + i] (from -inf, i ascending) for t < count. Reads
// r[0 .. (count - 1) * S + kw] (S = 2: one float past the last window, the odd lane of the last
// pair, loaded and dropped). A count that is not a whole number of vectors ends with one vector
// overlapping the previous one (same values stored twice).
template <int S>
void row_window_max(const float* r, int64_t kw, int64_t count, float* out) {
  const Vf lowest = splat(-std::numeric_limits<float>::infinity());
  auto block = [&](int64_t t) {
    Vf best = lowest;
    for (int64_t i = 0; i < kw; i++) {
      const float* p = r + t * S + i;
      Vf v = S == 1 ? load(p) : even_lanes(load(p), load(p + kW));
      best = keep_max(v, best);
    }
    store(out + t, best);
  };
  int64_t t = 0;
  for (; t + kW <= count; t += kW) block(t);
  if (t == count) return;
  if (count >= kW) return block(count - kW);
  for (; t < count; t++) {
    float best = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < kw; i++) best = keep_max(r[t * S + i], best);
    out[t] = best;
  }
}

inline Vf odd_lanes(Vf lo, Vf hi) {
#if defined(__AVX512F__)
  return __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
#elif defined(__AVX__)
  return __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
#else
  return __builtin_shufflevector(lo, hi, 1, 3, 5, 7);
#endif
}

// a[1], ..., a[kW - 1], b[0].
inline Vf shift_in(Vf a, Vf b) {
#if defined(__AVX512F__)
  return __builtin_shufflevector(a, b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
#elif defined(__AVX__)
  return __builtin_shufflevector(a, b, 1, 2, 3, 4, 5, 6, 7, 8);
#else
  return __builtin_shufflevector(a, b, 1, 2, 3, 4);
#endif
}

// The max of column x[0], x[ld], ... x[(rows - 1) ld], from the first row down.
template <int Rows>
inline Vf column_max_v(const float* x, int64_t ld) {
  Vf v = load(x);
  for (int r = 1; r < Rows; r++) v = keep_max(load(x + r * ld), v);
  return v;
}
inline float column_max_s(const float* x, int64_t ld, int64_t rows) {
  float v = x[0];
  for (int64_t r = 1; r < rows; r++) v = keep_max(x[r * ld], v);
  return v;
}

// The 3-wide windows of stride 2 (the usual 3x3 s2 max pool) straight from `Rows` input rows at r
// (row stride ld), without a row of column maxima in between (whose misaligned reloads would wait
// for its stores): out[t] = max of the column maxima at r[2t], r[2t + 1], r[2t + 2], from -inf,
// for t < count. Reads r[0 .. lim] of each row only (lim >= 2 count): past 2 count, the values
// are loaded into lanes that are dropped, so lim may reach into the next row.
template <int Rows>
void windows_3s2(const float* r, int64_t ld, int64_t count, int64_t lim, float* out) {
  const Vf lowest = splat(-std::numeric_limits<float>::infinity());
  // Outputs t .. t + kW: taps 0 and 1 are the even and odd lanes of the pair at r + 2t, tap 2 the
  // even lanes of the pair at r + 2t + 2; reads r[2t .. 2t + 2 kW + 1].
  auto block = [&](int64_t t) {
    const float* p = r + 2 * t;
    Vf lo = column_max_v<Rows>(p, ld), hi = column_max_v<Rows>(p + kW, ld);
    Vf e2 = even_lanes(column_max_v<Rows>(p + 2, ld), column_max_v<Rows>(p + 2 + kW, ld));
    store(out + t, keep_max(e2, keep_max(odd_lanes(lo, hi), keep_max(even_lanes(lo, hi), lowest))));
  };
  int64_t t = 0;
  // While the next vector's pair is inside the row too, tap 2 is this pair's even lanes shifted
  // by one with the next pair's first even lane, and the next pair is carried over: half the
  // column maxima of block().
  if (t + 2 * kW <= count + kW && 4 * kW - 1 <= lim) {
    Vf lo = column_max_v<Rows>(r, ld), hi = column_max_v<Rows>(r + kW, ld);
    Vf e = even_lanes(lo, hi), o = odd_lanes(lo, hi);
    for (; t + kW <= count && 2 * (t + 2 * kW) - 1 <= lim; t += kW) {
      const float* pn = r + 2 * (t + kW);
      Vf lo2 = column_max_v<Rows>(pn, ld), hi2 = column_max_v<Rows>(pn + kW, ld);
      Vf en = even_lanes(lo2, hi2);
      store(out + t, keep_max(shift_in(e, en), keep_max(o, keep_max(e, lowest))));
      e = en;
      o = odd_lanes(lo2, hi2);
    }
  }
  for (; t + kW <= count && 2 * (t + kW) + 1 <= lim; t += kW) block(t);
  if (t < count) {
    // One more vector, overlapping the previous one, as far right as the row allows.
    const int64_t last = std::min(count - kW, (lim - 1) / 2 - kW);
    if (last >= 0 && last + kW > t) {
      block(last);
      t = last + kW;
    }
  }
  for (; t < count; t++) {
    float best = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < 3; i++) best = keep_max(column_max_s(r + 2 * t + i, ld, Rows), best);
    out[t] = best;
  }
}

// Lanes of the 3-wide stride-2 windows of column maxima c[0, 2W] (c0 = c[0, W), c1 = c[W, 2W),
// c2 = c[2, W + 2), c3 = c[W + 1, 2W + 1)): e[j], o[j], e2[j] = c[2j], c[2j + 1], c[2j + 2]. On
// AVX2 in the lane order 0 1 4 5 2 3 6 7 (in-lane shuffles only; unscramble() restores it).
inline void split_3s2(Vf c0, Vf c1, Vf c2, Vf c3, Vf& e, Vf& o, Vf& e2) {
#if defined(__AVX512F__)
  e = __builtin_shufflevector(c0, c1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  o = __builtin_shufflevector(c0, c1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  e2 = __builtin_shufflevector(c2, c3, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31);
#elif defined(__AVX__)
  e = __builtin_shufflevector(c0, c1, 0, 2, 8, 10, 4, 6, 12, 14);
  o = __builtin_shufflevector(c0, c1, 1, 3, 9, 11, 5, 7, 13, 15);
  e2 = __builtin_shufflevector(c2, c3, 0, 2, 9, 11, 4, 6, 13, 15);
#else
  e = __builtin_shufflevector(c0, c1, 0, 2, 4, 6);
  o = __builtin_shufflevector(c0, c1, 1, 3, 5, 7);
  e2 = __builtin_shufflevector(c2, c3, 0, 2, 5, 7);
#endif
}

inline Vf unscramble(Vf v) {
#if defined(__AVX__) && !defined(__AVX512F__)
  return __builtin_shufflevector(v, v, 0, 1, 4, 5, 2, 3, 6, 7);
#else
  return v;
#endif
}

// The 3x3 stride-2 windows of whole kernel rows, ROWS (1 or 2) output rows at once: output row i
// reads input rows r + 2i ld .. r + (2i + 2) ld (two rows share one), out_i[t] = the max of the
// column maxima (from the window's first row down) at 2t, 2t + 1, 2t + 2, from -inf, for
// t < count (count >= kW). Reads r[0, 2 count] of each row only. Per output vector: four column
// maxima of three rows, three in-lane shuffles, three max.
template <int ROWS>
void windows_3x3s2(const float* r, int64_t ld, int64_t count, float* out0, float* out1) {
  const Vf lowest = splat(-std::numeric_limits<float>::infinity());
  const float* __restrict r0 = r;
  const float* __restrict r1 = r + ld;
  const float* __restrict r2 = r + 2 * ld;
  const float* __restrict r3 = r + 3 * ld;
  const float* __restrict r4 = r + 4 * ld;
  auto block = [=](int64_t t) __attribute__((always_inline)) {
    const int64_t i = 2 * t;
    Vf c0[4], c1[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
      const int64_t at = i + (k == 0 ? 0 : k == 1 ? kW : k == 2 ? 2 : kW + 1);
      const Vf shared = load(r2 + at);
      c0[k] = keep_max(shared, keep_max(load(r1 + at), load(r0 + at)));
      if (ROWS == 2) c1[k] = keep_max(load(r4 + at), keep_max(load(r3 + at), shared));
    }
    Vf e, o, e2;
    split_3s2(c0[0], c0[1], c0[2], c0[3], e, o, e2);
    store(out0 + t, unscramble(keep_max(e2, keep_max(o, keep_max(e, lowest)))));
    if (ROWS == 2) {
      split_3s2(c1[0], c1[1], c1[2], c1[3], e, o, e2);
      store(out1 + t, unscramble(keep_max(e2, keep_max(o, keep_max(e, lowest)))));
    }
  };
  int64_t t = 0;
  for (; t + kW <= count; t += kW) block(t);
  if (t < count) block(count - kW);
}

// rr[i] = max over the `rows` rows (stride `ld`) of x[r * ld + i], from row 0 down, for i < ld.
// Like the rows, a width that is not a whole number of vectors ends with an overlapping vector.
template <int Rows>
inline void column_max_fixed(const float* x, int64_t ld, float* rr) {
  auto block = [&](int64_t i) {
    Vf v = load(x + i);
    for (int r = 1; r < Rows; r++) v = keep_max(load(x + r * ld + i), v);
    store(rr + i, v);
  };
  int64_t i = 0;
  for (; i + kW <= ld; i += kW) block(i);
  if (i < ld) block(ld - kW);
}

void column_max(const float* x, int64_t ld, int64_t rows, float* rr) {
  if (ld >= kW) {
    if (rows == 1) return std::memcpy(rr, x, static_cast<size_t>(ld) * sizeof(float)), void();
    if (rows == 2) return column_max_fixed<2>(x, ld, rr);
    if (rows == 3) return column_max_fixed<3>(x, ld, rr);
  }
  int64_t i = 0;
  for (; i + kW <= ld; i += kW) {
    Vf v = load(x + i);
    for (int64_t r = 1; r < rows; r++) v = keep_max(load(x + r * ld + i), v);
    store(rr + i, v);
  }
  for (; i < ld; i++) {
    float v = x[i];
    for (int64_t r = 1; r < rows; r++) v = keep_max(x[r * ld + i], v);
    rr[i] = v;
  }
}

// out[t] = max(r[2t], r[2t + 1]) for t < count, in row_window_max<2>'s order (from -inf, the
// even tap first); reads r[0 .. 2 count) only.
void pairs_max(const float* r, int64_t count, float* out) {
  const Vf lowest = splat(-std::numeric_limits<float>::infinity());
  int64_t t = 0;
  for (; t + kW <= count; t += kW) {
    const Vf lo = load(r + 2 * t), hi = load(r + 2 * t + kW);
    store(out + t, keep_max(odd_lanes(lo, hi), keep_max(even_lanes(lo, hi), lowest)));
  }
  for (; t < count; t++)
    out[t] = keep_max(r[2 * t + 1], keep_max(r[2 * t], -std::numeric_limits<float>::infinity()));
}

// The outputs [first, last) of a row whose whole window lies inside the input row.
struct InsideOutputs {
  int64_t first, last;
};
inline InsideOutputs inside_outputs(const MaxPool2dGeometry& g) {
  const int64_t iw = g.in_w, ow = g.out_w, kw = g.kernel_w, sx = g.stride_w, px = g.pad_w;
  const int64_t in0 = std::min<int64_t>(ow, (px + sx - 1) / sx);
  const int64_t in1 =
      iw - kw + px < 0 ? in0 : std::clamp<int64_t>((iw - kw + px) / sx + 1, in0, ow);
  return {in0, in1};
}

void max_pool_2d_impl(const float* x, float* y, int64_t planes, const MaxPool2dGeometry& g,
                      float* rr) {
  // 1 x 2 windows of stride 2 that tile the rows exactly, no padding (pooling the frequency axis
  // of audio feature maps): every plane's rows are one run of pairs, with no per-row work.
  if (g.kernel_h == 1 && g.stride_h == 1 && g.pad_h == 0 && g.out_h == g.in_h && g.kernel_w == 2 &&
      g.stride_w == 2 && g.pad_w == 0 && g.in_w == 2 * g.out_w) {
    pairs_max(x, planes * g.out_h * g.out_w, y);
    return;
  }
  const float lowest = -std::numeric_limits<float>::infinity();
  const int64_t ih = g.in_h, iw = g.in_w, oh = g.out_h, ow = g.out_w;
  const int64_t kh = g.kernel_h, kw = g.kernel_w, sy = g.stride_h, sx = g.stride_w;
  const int64_t py = g.pad_h, px = g.pad_w;
  // Outputs [in0, in1) have their whole window inside the row.
  const auto [in0, in1] = inside_outputs(g);
  rr[iw] = lowest;  // read (and dropped) by the stride-2 rows' last vector
  const float* x_end = x + planes * ih * iw;
  const bool fused_3s2 = sx == 2 && kw == 3 && in1 > in0;
  // Output ox of the kernel rows at xr (three of them, row stride iw), a window at a row end.
  auto window_max = [&](const float* xr, int64_t ld, int64_t ox) {
    const int64_t x0 = std::max<int64_t>(ox * sx - px, 0);
    const int64_t x1 = std::min<int64_t>(ox * sx - px + kw, iw);
    float best = lowest;
    for (int64_t i = x0; i < x1; i++) best = keep_max(column_max_s(xr + i, ld, kh), best);
    return best;
  };
  // 3x3 windows whose kernel rows are all inside, at least a vector of them per row: whole
  // windows straight from the input rows (windows_3x3s2), two output rows at a time when the
  // vertical stride is 2 too.
  const bool whole_3x3s2 = fused_3s2 && kh == 3 && in1 - in0 >= kW;
  auto full_rows = [&](int64_t oy) { return oy * sy - py >= 0 && oy * sy - py + kh <= ih; };
  for (int64_t p = 0; p < planes; p++) {
    const float* xp = x + p * ih * iw;
    float* yp = y + p * oh * ow;
    for (int64_t oy = 0; oy < oh; oy++) {
      // Column maxima over the kernel rows inside the input, from the first one down.
      const int64_t y0 = std::max<int64_t>(oy * sy - py, 0);
      const int64_t y1 = std::min<int64_t>(oy * sy - py + kh, ih);
      const int64_t rows = y1 - y0;
      float* out = yp + oy * ow;
      if (whole_3x3s2 && full_rows(oy)) {
        const float* xr = xp + y0 * iw;
        const bool pair = sy == 2 && oy + 1 < oh && full_rows(oy + 1);
        const int64_t n_rows = pair ? 2 : 1;
        for (int64_t i = 0; i < n_rows; i++) {
          float* o = out + i * ow;
          const float* xi = xr + i * sy * iw;
          for (int64_t ox = 0; ox < in0; ox++) o[ox] = window_max(xi, iw, ox);
          for (int64_t ox = in1; ox < ow; ox++) o[ox] = window_max(xi, iw, ox);
        }
        const float* r = xr + in0 * sx - px;
        if (pair) {
          windows_3x3s2<2>(r, iw, in1 - in0, out + in0, out + ow + in0);
          oy++;
        } else {
          windows_3x3s2<1>(r, iw, in1 - in0, out + in0, nullptr);
        }
        continue;
      }
      if (fused_3s2 && rows >= 1 && rows <= 3) {
        const float* xr = xp + y0 * iw;
        auto edge = [&](int64_t ox) {
          const int64_t x0 = std::max<int64_t>(ox * sx - px, 0);
          const int64_t x1 = std::min<int64_t>(ox * sx - px + kw, iw);
          float best = lowest;
          for (int64_t i = x0; i < x1; i++) best = keep_max(column_max_s(xr + i, iw, rows), best);
          out[ox] = best;
        };
        for (int64_t ox = 0; ox < in0; ox++) edge(ox);
        const int64_t off = in0 * sx - px;
        // The last column the bottom row may read: its own last one, or one more (the next row's
        // first) when that is still inside x, so that rows end with a whole vector.
        const bool more = xr + (rows - 1) * iw + iw < x_end;
        const int64_t lim = iw - 1 - off + (more ? 1 : 0);
        if (rows == 3) {
          windows_3s2<3>(xr + off, iw, in1 - in0, lim, out + in0);
        } else if (rows == 2) {
          windows_3s2<2>(xr + off, iw, in1 - in0, lim, out + in0);
        } else {
          windows_3s2<1>(xr + off, iw, in1 - in0, lim, out + in0);
        }
        for (int64_t ox = in1; ox < ow; ox++) edge(ox);
        continue;
      }
      if (rows <= 0) {
        std::fill(rr, rr + iw, lowest);
      } else {
        column_max(xp + y0 * iw, iw, rows, rr);
      }
      auto edge = [&](int64_t ox) {
        const int64_t x0 = std::max<int64_t>(ox * sx - px, 0);
        const int64_t x1 = std::min<int64_t>(ox * sx - px + kw, iw);
        float best = lowest;
        for (int64_t i = x0; i < x1; i++) best = keep_max(rr[i], best);
        out[ox] = best;
      };
      for (int64_t ox = 0; ox < in0; ox++) edge(ox);
      if (in1 > in0) {
        const float* r = rr + in0 * sx - px;
        if (sx == 2) {
          row_window_max<2>(r, kw, in1 - in0, out + in0);
        } else if (sx == 1) {
          row_window_max<1>(r, kw, in1 - in0, out + in0);
        } else {
          for (int64_t ox = in0; ox < in1; ox++) edge(ox);
        }
      }
      for (int64_t ox = in1; ox < ow; ox++) edge(ox);
    }
  }
}

// A register of doubles (half as many lanes as Vf) and the floats it is widened from.
typedef double Vd __attribute__((vector_size(kW * 4)));
constexpr int64_t kWd = kW / 2;
typedef float Vfd __attribute__((vector_size(kWd * 4)));  // the floats one Vd holds

inline Vd load_widen(const float* p) {
  Vfd v;
  std::memcpy(&v, p, sizeof(v));
  return __builtin_convertvector(v, Vd);
}

// Sums in double, four vector accumulators (so the adds overlap), then lanes in order.
void average_planes_impl(const float* x, float* y, int64_t planes, int64_t n) {
  for (int64_t p = 0; p < planes; p++) {
    const float* xp = x + p * n;
    Vd a0{}, a1{}, a2{}, a3{};
    int64_t i = 0;
    for (; i + 4 * kWd <= n; i += 4 * kWd) {
      a0 += load_widen(xp + i);
      a1 += load_widen(xp + i + kWd);
      a2 += load_widen(xp + i + 2 * kWd);
      a3 += load_widen(xp + i + 3 * kWd);
    }
    for (; i + kWd <= n; i += kWd) a0 += load_widen(xp + i);
    Vd a = (a0 + a1) + (a2 + a3);
    double sum = 0;
    for (int64_t l = 0; l < kWd; l++) sum += a[l];
    for (; i < n; i++) sum += static_cast<double>(xp[i]);
    y[p] = static_cast<float>(sum / static_cast<double>(n));
  }
}

// rr[i] = the sum over `rows` rows (stride ld) of x[r * ld + i], from row 0 down, i < n.
void column_sum(const float* x, int64_t ld, int64_t rows, int64_t n, float* rr) {
  int64_t i = 0;
  for (; i + kW <= n; i += kW) {
    Vf v = load(x + i);
    for (int64_t r = 1; r < rows; r++) v += load(x + r * ld + i);
    store(rr + i, v);
  }
  for (; i < n; i++) {
    float v = x[i];
    for (int64_t r = 1; r < rows; r++) v += x[r * ld + i];
    rr[i] = v;
  }
}

// out[t] = (sum over i < kw of r[t * S + i]) / div for t < count; reads r[0 .. (count - 1) S +
// kw] (S = 2: one float past, dropped), as row_window_max.
template <int S>
void row_window_avg(const float* r, int64_t kw, int64_t count, float div, float* out) {
  const Vf d = splat(div);
  auto block = [&](int64_t t) {
    const float* p = r + t * S;
    Vf s = S == 1 ? load(p) : even_lanes(load(p), load(p + kW));
    for (int64_t i = 1; i < kw; i++) {
      const float* q = r + t * S + i;
      s += S == 1 ? load(q) : even_lanes(load(q), load(q + kW));
    }
    store(out + t, exact_div(s, d));
  };
  int64_t t = 0;
  for (; t + kW <= count; t += kW) block(t);
  if (t == count) return;
  if (count >= kW) return block(count - kW);
  for (; t < count; t++) {
    float s = r[t * S];
    for (int64_t i = 1; i < kw; i++) s += r[t * S + i];
    out[t] = exact_div(s, div);
  }
}

void average_pool_2d_impl(const float* x, float* y, int64_t planes, const MaxPool2dGeometry& g,
                          bool include_pad, float* rr) {
  const int64_t ih = g.in_h, iw = g.in_w, oh = g.out_h, ow = g.out_w;
  const int64_t kh = g.kernel_h, kw = g.kernel_w, sy = g.stride_h, sx = g.stride_w;
  const int64_t py = g.pad_h, px = g.pad_w;
  // Outputs [in0, in1) have their whole window inside the row (count kw either way).
  const auto [in0, in1] = inside_outputs(g);
  rr[iw] = 0.0f;  // read (and dropped) by the stride-2 rows' last vector
  // Positions of a window starting at `start` (size k) inside [lo, hi).
  auto inside = [](int64_t start, int64_t k, int64_t lo, int64_t hi) {
    return std::max<int64_t>(0, std::min(start + k, hi) - std::max(start, lo));
  };
  for (int64_t p = 0; p < planes; p++) {
    const float* xp = x + p * ih * iw;
    float* yp = y + p * oh * ow;
    for (int64_t oy = 0; oy < oh; oy++) {
      const int64_t sy0 = oy * sy - py;
      const int64_t y0 = std::max<int64_t>(sy0, 0), y1 = std::min<int64_t>(sy0 + kh, ih);
      const int64_t rows = std::max<int64_t>(y1 - y0, 0);
      const int64_t cy = include_pad ? inside(sy0, kh, -py, ih + g.pad_end_h) : rows;
      float* out = yp + oy * ow;
      if (rows > 0) {
        column_sum(xp + y0 * iw, iw, rows, iw, rr);
      } else {
        std::fill(rr, rr + iw, 0.0f);
      }
      auto edge = [&](int64_t ox) {
        const int64_t sx0 = ox * sx - px;
        const int64_t x0 = std::max<int64_t>(sx0, 0), x1 = std::min<int64_t>(sx0 + kw, iw);
        const int64_t cx = include_pad ? inside(sx0, kw, -px, iw + g.pad_end_w) : x1 - x0;
        const int64_t count = cy * cx;
        float s = 0.0f;
        for (int64_t i = x0; i < x1; i++) s += rr[i];
        out[ox] = count > 0 ? exact_div(s, static_cast<float>(count))
                            : std::numeric_limits<float>::quiet_NaN();
      };
      for (int64_t ox = 0; ox < in0; ox++) edge(ox);
      if (in1 > in0 && cy > 0) {
        const float* r = rr + in0 * sx - px;
        const float div = static_cast<float>(cy * kw);
        if (sx == 2) {
          row_window_avg<2>(r, kw, in1 - in0, div, out + in0);
        } else if (sx == 1) {
          row_window_avg<1>(r, kw, in1 - in0, div, out + in0);
        } else {
          for (int64_t ox = in0; ox < in1; ox++) edge(ox);
        }
      } else {
        for (int64_t ox = in0; ox < in1; ox++) edge(ox);
      }
      for (int64_t ox = in1; ox < ow; ox++) edge(ox);
    }
  }
}

inline PoolKernels make_pool_kernels() {
  return PoolKernels{&max_pool_2d_impl, &average_planes_impl, &average_pool_2d_impl};
}

}  // namespace
}  // namespace kiln::kernels
