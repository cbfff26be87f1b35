// Stride-2 3x3 depthwise rows read in place (no ring): each output vector splits its input rows'
// windows into the three taps in registers. Included by kernels/conv/depthwise_rows_impl.h
// (anonymous namespace, compiled once per ISA).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/conv/depthwise.h"
#include "kernels/conv/depthwise_vec_impl.h"

namespace kiln::kernels {
namespace {

// Stride-2 3x3 rows read in place (W >= 4): the three taps of a row are split out of the input
// with in-register shuffles, no ring (measured on AVX2, 112 -> 56: 2.19 against 2.53 us per
// channel with the input in L2, 2.31 against 2.70 in L3). t0[j], t1[j], t2[j] = p[2j], p[2j + 1],
// p[2j + 2] for j < W, reading p[0, 2W] only. For W = 8 (AVX2) the lanes are in the order
// 0 1 4 5 2 3 6 7 (in-lane shuffles only, no cross-lane permute per tap): the sums stay in that
// order and unscramble() puts them back once per output vector.
template <int W, int PAD = 0>
__attribute__((always_inline)) inline void split3_s2(const float* p, typename RowVec<W>::type& t0,
                                                     typename RowVec<W>::type& t1,
                                                     typename RowVec<W>::type& t2) {
  // PAD > 0: p is the row's start, the window starts PAD floats before it (zeros).
  auto l0 = load_row_vec<W>(p), l1 = load_row_vec<W>(p + W - PAD);
  const auto l2 = load_row_vec<W>(p + 2 - PAD), l3 = load_row_vec<W>(p + W + 1 - PAD);
  if constexpr (PAD > 0) {
    static_assert(PAD <= 2, "left padding");
    const typename RowVec<W>::type z{};
    if constexpr (W == 4) {
      l0 = PAD == 1 ? __builtin_shufflevector(z, l0, 0, 4, 5, 6)
                    : __builtin_shufflevector(z, l0, 0, 1, 4, 5);
    } else if constexpr (W == 8) {
      l0 = PAD == 1 ? __builtin_shufflevector(z, l0, 0, 8, 9, 10, 11, 12, 13, 14)
                    : __builtin_shufflevector(z, l0, 0, 1, 8, 9, 10, 11, 12, 13);
    } else {
      l0 = PAD == 1 ? __builtin_shufflevector(z, l0, 0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                                              27, 28, 29, 30)
                    : __builtin_shufflevector(z, l0, 0, 1, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                              26, 27, 28, 29);
    }
  }
  if constexpr (W == 8) {
    t0 = __builtin_shufflevector(l0, l1, 0, 2, 8, 10, 4, 6, 12, 14);
    t1 = __builtin_shufflevector(l0, l1, 1, 3, 9, 11, 5, 7, 13, 15);
    t2 = __builtin_shufflevector(l2, l3, 0, 2, 9, 11, 4, 6, 13, 15);
  } else if constexpr (W == 4) {
    t0 = __builtin_shufflevector(l0, l1, 0, 2, 4, 6);
    t1 = __builtin_shufflevector(l0, l1, 1, 3, 5, 7);
    t2 = __builtin_shufflevector(l2, l3, 0, 2, 5, 7);
  } else {
    static_assert(W == 16, "vector width");
    t0 = __builtin_shufflevector(l0, l1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    t1 = __builtin_shufflevector(l0, l1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    t2 = __builtin_shufflevector(l2, l3, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31);
  }
}

template <int W>
inline typename RowVec<W>::type unscramble(typename RowVec<W>::type v) {
  if constexpr (W == 8) return __builtin_shufflevector(v, v, 0, 1, 4, 5, 2, 3, 6, 7);
  return v;
}

// Floats of one edge strip: a padded window P[b, b + 2W] of one input row, in whole vectors.
template <int W>
constexpr int64_t kStripFloats = 3 * W;

// Output vectors (RowVectors) whose window P[2 ox - pad, 2 ox - pad + 2W] (P: the padded row)
// leaves the input row read through edge strips (except a first one that only starts 1 or 2
// floats early); the others read the row in place.
inline bool s2_vector_inside(int64_t ox, int64_t w, int64_t iw, int64_t pad) {
  const int64_t b = 2 * ox - pad;
  return b >= 0 && b + 2 * w <= iw - 1;
}

// ROWS output rows (1 or 2) of one output vector, from input rows r0 + off, ..., r4 + off (rows
// 0..2 for the first output row, 2..4 for the second; with PAD, the rows' starts), its first n
// lanes stored at y0 + ox (and y0 + ow + ox). One sum per output row: few registers, so that the
// taps stay in registers next to the split rows. bounds: bias, min, max.
template <int W, int ROWS, int PAD = 0>
__attribute__((always_inline)) inline void s2k3_vector(
    const float* __restrict r0, const float* __restrict r1, const float* __restrict r2,
    const float* __restrict r3, const float* __restrict r4, int64_t off,
    const typename RowVec<W>::type (&wv)[9], const float* bounds, float* __restrict y0, int64_t ow,
    int64_t ox, int64_t n) {
  using V = typename RowVec<W>::type;
  V a0 = V{} + bounds[0], a1 = a0;
  V t0, t1, t2;
  auto taps = [&](V& acc, int ky) {
    acc += wv[3 * ky] * t0;
    acc += wv[3 * ky + 1] * t1;
    acc += wv[3 * ky + 2] * t2;
  };
  split3_s2<W, PAD>(r0 + off, t0, t1, t2);
  taps(a0, 0);
  split3_s2<W, PAD>(r1 + off, t0, t1, t2);
  taps(a0, 1);
  split3_s2<W, PAD>(r2 + off, t0, t1, t2);
  taps(a0, 2);
  if (ROWS == 2) {
    taps(a1, 0);
    split3_s2<W, PAD>(r3 + off, t0, t1, t2);
    taps(a1, 1);
    split3_s2<W, PAD>(r4 + off, t0, t1, t2);
    taps(a1, 2);
  }
  auto finish = [&](V acc) {
    const V lov = V{} + bounds[1], hiv = V{} + bounds[2];
    acc = acc < lov ? lov : acc;
    return unscramble<W>(acc > hiv ? hiv : acc);
  };
  store_row_vec<W>(y0 + ox, finish(a0), n);
  if (ROWS == 2) store_row_vec<W>(y0 + ow + ox, finish(a1), n);
}

// ROWS output rows: rows[i] is the start of input row i (or the zero row), strips[i] its edge
// strips (or the zero row). The inside vectors first, then the first one (`left`: its window
// starts 1 or 2 floats before the row), then the edge ones, whose strips were stored just before
// this call (their stores have retired by the time they are read).
template <int W, int ROWS>
__attribute__((noinline)) void s2k3_rows(const float* const* rows, const float* const* strips,
                                         const int64_t* edge_ox, int64_t edges, int64_t in_lo,
                                         int64_t in_hi, int64_t left, int64_t pad,
                                         const float* __restrict wc, float bias, float lo, float hi,
                                         float* __restrict y0, int64_t ow) {
  using V = typename RowVec<W>::type;
  V wv[9];
#pragma GCC unroll 9
  for (int j = 0; j < 9; j++) wv[j] = V{} + wc[j];
  const float bounds[3] = {bias, lo, hi};
  constexpr int R = 2 * ROWS + 1;
  auto row = [&](const float* const* v, int i) { return v[i < R ? i : R - 1]; };
  if (in_lo <= in_hi) {
    const int64_t at = 2 * in_lo - pad;
    const float* __restrict r0 = row(rows, 0) + at;
    const float* __restrict r1 = row(rows, 1) + at;
    const float* __restrict r2 = row(rows, 2) + at;
    const float* __restrict r3 = row(rows, 3) + at;
    const float* __restrict r4 = row(rows, 4) + at;
    float* __restrict y = y0 + in_lo;
    const int64_t n = in_hi - in_lo;
    for (int64_t ox = 0; ox < n; ox += W) {
      s2k3_vector<W, ROWS>(r0, r1, r2, r3, r4, 2 * ox, wv, bounds, y, ow, ox, W);
    }
    s2k3_vector<W, ROWS>(r0, r1, r2, r3, r4, 2 * n, wv, bounds, y, ow, n, W);
  }
  // The first vector, its window starting `left` (1 or 2) floats before the rows.
  if (left == 1) {
    s2k3_vector<W, ROWS, 1>(row(rows, 0), row(rows, 1), row(rows, 2), row(rows, 3), row(rows, 4), 0,
                            wv, bounds, y0, ow, 0, W);
  } else if (left == 2) {
    s2k3_vector<W, ROWS, 2>(row(rows, 0), row(rows, 1), row(rows, 2), row(rows, 3), row(rows, 4), 0,
                            wv, bounds, y0, ow, 0, W);
  }
  for (int64_t e = 0; e < edges; e++) {
    const int64_t off = e * kStripFloats<W>;
    s2k3_vector<W, ROWS>(row(strips, 0), row(strips, 1), row(strips, 2), row(strips, 3),
                         row(strips, 4), off, wv, bounds, y0, ow, edge_ox[e], ow - edge_ox[e]);
  }
}

// The vectors of a stride-2 3x3 row: those inside the row (ox = in_lo, in_lo + W, ... and a last
// one at in_hi; none when in_lo > in_hi) and the edge ones (edge_ox[0, edges)).
struct S2Vectors {
  int64_t in_lo = 1, in_hi = 0, edges = 0, left = 0;
  int64_t edge_ox[64];
  S2Vectors(const ConvGeometry& g, int64_t w) {
    const int64_t ow = g.out[2], iw = g.in[2], pad = g.pad[2];
    const RowVectors rv(ow, w);
    // The first vector of a row with 1 or 2 floats of left padding reads the row in place, its
    // first lanes shifted in (the usual 3x3 "same" padding).
    if (ow >= w && pad >= 1 && pad <= 2 && 2 * w - pad <= iw - 1) left = pad;
    int64_t first = -1, last = -1;
    for (int64_t v = left ? 1 : 0; v < rv.count; v++) {
      const int64_t ox = rv.at(v);
      if (ow >= w && s2_vector_inside(ox, w, iw, pad)) {
        if (first < 0) first = ox;
        last = ox;
      }
    }
    // Inside vectors form one run (the window moves right with ox); its last one may overlap.
    if (first >= 0) {
      in_lo = first;
      in_hi = last;
    }
    for (int64_t v = left ? 1 : 0; v < rv.count; v++) {
      const int64_t ox = rv.at(v);
      if (first >= 0 && ox >= first && ox <= last) continue;
      edge_ox[edges++] = ox;
    }
  }
};

// Whether s2k3_channel takes this geometry at vector width w (S2Vectors holds at most 64 edge
// vectors).
inline bool s2k3_supported(const ConvGeometry& g, int64_t w) {
  return w >= 4 && (g.out[2] + w - 1) / w <= 64;
}

// Floats of scratch s2k3_channel needs for vector width w: a zero row (as long as every vector's
// strips, and as any inside window: 2 ow + 1), then kS2Slots slots of the edge strips of one
// input row.
constexpr int kS2Slots = 9;
inline int64_t s2k3_zero_floats(const ConvGeometry& g, int64_t w) {
  return (g.out[2] + w - 1) / w * 3 * w + 2 * w;
}
inline int64_t s2k3_buffer_floats(const ConvGeometry& g, int64_t w) {
  const int64_t vectors = (g.out[2] + w - 1) / w;
  return s2k3_zero_floats(g, w) + kS2Slots * vectors * 3 * w;
}

// One channel of a stride-2 3x3 depthwise conv, two output rows per pass. Inside vectors read the
// input rows in place; each input row's edge strips (when the row has edge vectors) are built
// once, in the first pass that reads the row.
template <int W>
void s2k3_channel(const float* __restrict xc, const float* __restrict wc, float bias,
                  float* __restrict yc, const ConvGeometry& g, float lo, float hi,
                  const S2Vectors& sv, const float* zero, float* ring) {
  const int64_t ih = g.in[1], iw = g.in[2], oh = g.out[1], ow = g.out[2], pad_t = g.pad[1];
  const int64_t pad = g.pad[2], slot = sv.edges * kStripFloats<W>;
  int64_t tag[kS2Slots];
  for (int i = 0; i < kS2Slots; i++) tag[i] = -1;
  auto prepare = [&](int64_t iy0, int n) {
    if (sv.edges == 0) return;
    for (int64_t iy = std::max<int64_t>(iy0, 0); iy < std::min(iy0 + n, ih); iy++) {
      if (tag[iy % kS2Slots] == iy) continue;
      float* strip = ring + (iy % kS2Slots) * slot;
      const float* src = xc + iy * iw;
      for (int64_t e = 0; e < sv.edges; e++, strip += kStripFloats<W>) {
        // strip[j] = P[2 ox + j] = src[b + j] inside the row, 0 outside, for j <= 2W.
        const int64_t b = 2 * sv.edge_ox[e] - pad;
        const int64_t j0 = std::max<int64_t>(0, -b), j1 = std::min<int64_t>(2 * W + 1, iw - b);
        for (int v = 0; v < 3; v++) store_vec<W>(strip + v * W, typename RowVec<W>::type{});
        if (j1 - j0 >= W) {
          for (int64_t j = j0; j < j1; j += W) {
            const int64_t at = std::min(j, j1 - W);
            store_vec<W>(strip + at, load_row_vec<W>(src + b + at));
          }
        } else {
          for (int64_t j = j0; j < j1; j++) strip[j] = src[b + j];
        }
      }
      tag[iy % kS2Slots] = iy;
    }
  };
  const float* rows[5];
  const float* strips[5];
  auto select = [&](int64_t iy0, int n) {
    for (int i = 0; i < n; i++) {
      const int64_t iy = iy0 + i;
      const bool in = iy >= 0 && iy < ih;
      rows[i] = in ? xc + iy * iw : zero;
      strips[i] = in ? ring + (iy % kS2Slots) * slot : zero;
    }
  };
  int64_t oy = 0;
  for (; oy + 2 <= oh; oy += 2) {
    prepare(2 * oy - pad_t, 5);
    select(2 * oy - pad_t, 5);
    s2k3_rows<W, 2>(rows, strips, sv.edge_ox, sv.edges, sv.in_lo, sv.in_hi, sv.left, pad, wc, bias,
                    lo, hi, yc + oy * ow, ow);
  }
  for (; oy < oh; oy++) {
    prepare(2 * oy - pad_t, 3);
    select(2 * oy - pad_t, 3);
    s2k3_rows<W, 1>(rows, strips, sv.edge_ox, sv.edges, sv.in_lo, sv.in_hi, sv.left, pad, wc, bias,
                    lo, hi, yc + oy * ow, ow);
  }
}

}  // namespace
}  // namespace kiln::kernels
