// Depthwise row kernels: square 3x3 / 5x5 kernels, stride 1 or 2, no dilation, 2-D. GCC vector
// extensions, W floats per vector, so the same source serves every ISA.
// - Row path: each input row is transformed once into a small ring so that every tap is one
//   unaligned unit-stride vector load: stride 1 copies it zero-padded (whole vectors), stride 2
//   splits it into its even and odd padded columns (vector deinterleave, scalar only at the row
//   ends). Rows above/below the image read a zero row. A pass computes two output rows, sharing
//   the loads of their common input rows, in a noinline function that holds the K*K tap vectors,
//   the bias and the clamp bounds in registers (K = 3 on AVX2: 12 of the 16 ymm registers). A row
//   of ow outputs is covered by vectors at ox = 0, W, 2W, ... and a last one at ow - W that
//   overlaps its neighbour, so every store is a whole vector (when ow >= W). The next pass's
//   rows are transformed before the current pass runs.
// - Small planes (ow <= kCblockMaxWidth) go through depthwise_cblock: W channels in the lanes, the
//   planes transposed in and out with W x W register transposes.
// Included by kernels/conv/depthwise_impl.h (anonymous namespace, compiled once per ISA).
#pragma once

#include <algorithm>
#include <cstring>

#include "kernels/conv/depthwise.h"

namespace kiln::kernels {
namespace {

template <int W>
struct RowVec {
  typedef float type __attribute__((vector_size(W * 4)));
  typedef int index __attribute__((vector_size(W * 4)));
};

template <int W>
inline typename RowVec<W>::type load_row_vec(const float* p) {
  typename RowVec<W>::type v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

template <int W>
inline void store_vec(float* p, typename RowVec<W>::type v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

// Stores v's first min(W, n) lanes at dst.
template <int W>
inline void store_row_vec(float* dst, typename RowVec<W>::type v, int64_t n) {
  if (n >= W) {
    store_vec<W>(dst, v);
  } else {
    for (int64_t i = 0; i < n; i++) dst[i] = v[i];
  }
}

// The even and odd floats of the 2W at s.
template <int W>
inline void deinterleave(const float* s, typename RowVec<W>::type& even,
                         typename RowVec<W>::type& odd) {
  using I = typename RowVec<W>::index;
  if constexpr (W == 8) {
    // Gather 128-bit halves as lo = s[0..4) s[8..12), hi = s[4..8) s[12..16) (a load and an
    // insert each), then one in-lane shuffle per result: no cross-lane permute.
    typedef float Half __attribute__((vector_size(16)));
    auto half = [](const float* p) {
      Half h;
      __builtin_memcpy(&h, p, sizeof(h));
      return h;
    };
    const auto lo = __builtin_shufflevector(half(s), half(s + 8), 0, 1, 2, 3, 4, 5, 6, 7);
    const auto hi = __builtin_shufflevector(half(s + 4), half(s + 12), 0, 1, 2, 3, 4, 5, 6, 7);
    even = __builtin_shuffle(lo, hi, I{0, 2, 8, 10, 4, 6, 12, 14});
    odd = __builtin_shuffle(lo, hi, I{1, 3, 9, 11, 5, 7, 13, 15});
  } else {
    const auto a = load_row_vec<W>(s), b = load_row_vec<W>(s + W);
    if constexpr (W == 2) {
      even = __builtin_shuffle(a, b, I{0, 2});
      odd = __builtin_shuffle(a, b, I{1, 3});
    } else if constexpr (W == 4) {
      even = __builtin_shuffle(a, b, I{0, 2, 4, 6});
      odd = __builtin_shuffle(a, b, I{1, 3, 5, 7});
    } else {
      static_assert(W == 16, "vector width");
      even = __builtin_shuffle(a, b, I{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
      odd = __builtin_shuffle(a, b, I{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31});
    }
  }
}

// In-place transpose of the W x W matrix whose rows are r[0..W).
template <int W>
inline void transpose(typename RowVec<W>::type (&r)[W]) {
  using V = typename RowVec<W>::type;
  using I = typename RowVec<W>::index;
  if constexpr (W == 8) {
    // unpack lo/hi, 64-bit pair shuffles, 128-bit halves: 24 in-lane or lane-swap shuffles.
    V t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = __builtin_shuffle(r[i], r[i + 1], I{0, 8, 1, 9, 4, 12, 5, 13});
      t[i + 1] = __builtin_shuffle(r[i], r[i + 1], I{2, 10, 3, 11, 6, 14, 7, 15});
    }
    for (int i = 0; i < 8; i += 4) {
      for (int j = 0; j < 2; j++) {
        u[i + 2 * j] = __builtin_shuffle(t[i + j], t[i + j + 2], I{0, 1, 8, 9, 4, 5, 12, 13});
        u[i + 2 * j + 1] = __builtin_shuffle(t[i + j], t[i + j + 2], I{2, 3, 10, 11, 6, 7, 14, 15});
      }
    }
    // u[0..3]: columns (0,4), (1,5), (2,6), (3,7) of rows 0-3 (low half / high half); u[4..7]
    // the same for rows 4-7.
    for (int j = 0; j < 4; j++) {
      r[j] = __builtin_shuffle(u[j], u[j + 4], I{0, 1, 2, 3, 8, 9, 10, 11});
      r[j + 4] = __builtin_shuffle(u[j], u[j + 4], I{4, 5, 6, 7, 12, 13, 14, 15});
    }
  } else {
    // log2(W) rounds of zips: out[2i] = zip_lo(in[i], in[i + W/2]), out[2i+1] = zip_hi(...).
    static_assert(W == 4 || W == 16, "vector width");
    I lo, hi;
    for (int i = 0; i < W / 2; i++) {
      lo[2 * i] = i;
      lo[2 * i + 1] = W + i;
      hi[2 * i] = W / 2 + i;
      hi[2 * i + 1] = W + W / 2 + i;
    }
    constexpr int rounds = W == 4 ? 2 : 4;
    for (int round = 0; round < rounds; round++) {
      V t[W];
      for (int i = 0; i < W / 2; i++) {
        t[2 * i] = __builtin_shuffle(r[i], r[i + W / 2], lo);
        t[2 * i + 1] = __builtin_shuffle(r[i], r[i + W / 2], hi);
      }
      for (int i = 0; i < W; i++) r[i] = t[i];
    }
  }
}

// r[j] = {s[j], s[ld + j], ..., s[(W - 1) ld + j]} for j < W: W rows of W floats (row stride ld)
// loaded and transposed. On AVX2 the rows' 128-bit halves are loaded straight into the halves of
// the registers (a load and an insert each) and only in-lane shuffles follow: 16 shuffles instead
// of transpose()'s 24.
template <int W>
__attribute__((always_inline)) inline void load_transposed(const float* s, int64_t ld,
                                                           typename RowVec<W>::type (&r)[W]) {
  if constexpr (W == 8) {
    using V = typename RowVec<W>::type;
    using I = typename RowVec<W>::index;
    typedef float Half __attribute__((vector_size(16)));
    auto half = [](const float* p) {
      Half h;
      __builtin_memcpy(&h, p, sizeof(h));
      return h;
    };
    for (int h = 0; h < 2; h++) {
      // t[i] = row i's floats 4h .. 4h + 4, then row i + 4's.
      V t[4];
      for (int i = 0; i < 4; i++) {
        t[i] = __builtin_shufflevector(half(s + i * ld + 4 * h), half(s + (i + 4) * ld + 4 * h), 0,
                                       1, 2, 3, 4, 5, 6, 7);
      }
      const V u0 = __builtin_shuffle(t[0], t[1], I{0, 8, 1, 9, 4, 12, 5, 13});
      const V u1 = __builtin_shuffle(t[0], t[1], I{2, 10, 3, 11, 6, 14, 7, 15});
      const V u2 = __builtin_shuffle(t[2], t[3], I{0, 8, 1, 9, 4, 12, 5, 13});
      const V u3 = __builtin_shuffle(t[2], t[3], I{2, 10, 3, 11, 6, 14, 7, 15});
      r[4 * h] = __builtin_shuffle(u0, u2, I{0, 1, 8, 9, 4, 5, 12, 13});
      r[4 * h + 1] = __builtin_shuffle(u0, u2, I{2, 3, 10, 11, 6, 7, 14, 15});
      r[4 * h + 2] = __builtin_shuffle(u1, u3, I{0, 1, 8, 9, 4, 5, 12, 13});
      r[4 * h + 3] = __builtin_shuffle(u1, u3, I{2, 3, 10, 11, 6, 7, 14, 15});
    }
  } else {
    for (int c = 0; c < W; c++) r[c] = load_row_vec<W>(s + c * ld);
    transpose<W>(r);
  }
}

// Where the output vectors of one row start: v * W for v < count - 1, the last at ow - W (or 0
// when ow < W: then it is stored partially).
struct RowVectors {
  int64_t w, count, last;
  RowVectors(int64_t ow, int64_t width)
      : w(width), count((ow + width - 1) / width), last(std::max<int64_t>(0, ow - width)) {}
  int64_t at(int64_t v) const { return v == count - 1 ? last : v * w; }
};

// Each ring slot holds one input row transformed for unit-stride taps: for stride 1 the padded row
// P[0, phase_len); for stride 2 its even padded columns P[0], P[2], ... (phase_len floats) then
// its odd ones. Tap (i, kx) of the output vector at ox reads slot i at
// (kx % S) * phase_len + ox + kx / S.
inline int64_t rows_phase_len(int64_t ow, int64_t w, int64_t k, int64_t s) {
  return std::max(ow, w) + (k - 1) / s;
}

// Floats of scratch the row path needs, for any W <= 16: a zero row and the ring (kRingSlots).
inline int64_t rows_buffer_bound(const ConvGeometry& g) {
  const int64_t k = g.kernel[1], s = g.stride[1];
  return (1 + k + 3 * s) * s * rows_phase_len(g.out[2], 16, k, s);
}

// dst[0, len) = the padded row: src[j - pad] for pad <= j < pad + iw, zero elsewhere.
template <int W>
inline void pad_row(const float* __restrict src, int64_t iw, int64_t pad, int64_t len,
                    float* __restrict dst) {
  const int64_t lead = std::min(pad, len), n = std::max<int64_t>(0, std::min(iw, len - pad));
  for (int64_t j = 0; j < lead; j++) dst[j] = 0.0f;
  float* d = dst + lead;
  if (n >= W) {
    // Whole vectors, the last one overlapping its neighbour.
    for (int64_t i = 0; i < n; i += W) {
      const int64_t at = std::min(i, n - W);
      store_vec<W>(d + at, load_row_vec<W>(src + at));
    }
  } else {
    for (int64_t i = 0; i < n; i++) d[i] = src[i];
  }
  for (int64_t j = lead + n; j < len; j++) dst[j] = 0.0f;
}

// dst = the even then the odd padded columns of src: even[t] = P[2t], odd[t] = P[2t + 1] for t in
// [0, phase_len), P[j] = src[j - pad] inside the row, 0 outside. Inlined into its one caller
// (~6% on 112-wide rows: no call per row).
template <int W>
__attribute__((always_inline)) inline void split_row_s2(const float* __restrict src, int64_t iw,
                                                        int64_t pad, int64_t phase_len,
                                                        float* __restrict dst) {
  using V = typename RowVec<W>::type;
  float* even = dst;
  float* odd = dst + phase_len;
  auto scalar = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; t++) {
      const int64_t x = 2 * t - pad;
      even[t] = x >= 0 && x < iw ? src[x] : 0.0f;
      odd[t] = x + 1 >= 0 && x + 1 < iw ? src[x + 1] : 0.0f;
    }
  };
  // Chunks of W columns at t read src[2t - pad, 2t - pad + 2W): inside the row for t in
  // [t_lo, t_hi]; the last chunk overlaps its neighbour.
  const int64_t t_lo = (pad + 1) / 2;
  const int64_t t_hi = std::min((iw + pad) / 2 - W, phase_len - W);
  if (t_hi < t_lo) {
    scalar(0, phase_len);
    return;
  }
  scalar(0, t_lo);
  for (int64_t t0 = t_lo; t0 < t_hi + W; t0 += W) {
    const int64_t t = std::min(t0, t_hi);
    const float* s = src + 2 * t - pad;
    V e, o;
    deinterleave<W>(s, e, o);
    store_vec<W>(even + t, e);
    store_vec<W>(odd + t, o);
  }
  scalar(t_hi + W, phase_len);
}

// ROWS (1 or 2) output rows from the ring rows r[0, K + S * (ROWS - 1)); the second output row
// reads r[S, S + K), sharing loads with the first. The taps, bias and bounds are loaded here, so
// that they live in registers for the loop only (not across the row transforms' calls). Two
// partial sums per output row (even / odd kernel rows) shorten the FMA chains.
template <int W, int K, int S, int ROWS>
__attribute__((noinline)) void conv_rows(const float* const* r, int64_t phase_len,
                                         const float* __restrict wc, float bias, float lo, float hi,
                                         float* __restrict y0, int64_t ow) {
  using V = typename RowVec<W>::type;
  V wv[K * K];
#pragma GCC unroll 25
  for (int j = 0; j < K * K; j++) wv[j] = V{} + wc[j];
  const V bv = V{} + bias, lov = V{} + lo, hiv = V{} + hi;
  auto finish = [&](V acc) {
    acc = acc < lov ? lov : acc;  // NaN stays NaN, like the reference
    return acc > hiv ? hiv : acc;
  };
  float* y1 = y0 + ow;
  auto step = [&](int64_t ox, bool full) {
    V a0 = bv, a1 = bv, b0 = V{}, b1 = V{};
#pragma GCC unroll 7
    for (int i = 0; i < K + S * (ROWS - 1); i++) {
#pragma GCC unroll 5
      for (int kx = 0; kx < K; kx++) {
        const V x = load_row_vec<W>(r[i] + (kx % S) * phase_len + ox + kx / S);
        if (i < K) (i % 2 ? b0 : a0) += wv[i * K + kx] * x;
        if (ROWS == 2 && i >= S) ((i - S) % 2 ? b1 : a1) += wv[(i - S) * K + kx] * x;
      }
    }
    if (full) {
      store_vec<W>(y0 + ox, finish(a0 + b0));
      if (ROWS == 2) store_vec<W>(y1 + ox, finish(a1 + b1));
    } else {
      store_row_vec<W>(y0 + ox, finish(a0 + b0), ow - ox);
      if (ROWS == 2) store_row_vec<W>(y1 + ox, finish(a1 + b1), ow - ox);
    }
  };
  const RowVectors rv(ow, W);
  for (int64_t v = 0; v + 1 < rv.count; v++) step(v * W, true);
  step(rv.last, ow >= W);
}

// Output rows per pass: two share the loads of their common input rows (K - 1 of K + 1 for
// stride 1, K - 2 of K + 2 for stride 2) and halve the per-pass overhead.
template <int S>
constexpr int kRowsPerPass = 2;
// Input rows of one pass, and ring slots: one pass's rows and the next pass's.
template <int K, int S>
constexpr int kPassRows = K + S*(kRowsPerPass<S> - 1);
template <int K, int S>
constexpr int kRingSlots = kPassRows<K, S> + S* kRowsPerPass<S>;

// One channel. `ring`: kRingSlots slots of S * phase_len floats; `zero`: as many zeros. The rows
// of the next pass are transformed before this pass computes: the stores of the transform have
// retired by the time the pass loads them (an unaligned load straddling two in-flight stores
// cannot be forwarded and waits).
template <int W, int K, int S>
void depthwise_rows_channel(const float* __restrict xc, const float* __restrict wc, float bias,
                            float* __restrict yc, const ConvGeometry& g, float lo, float hi,
                            int64_t phase_len, const float* zero, float* ring) {
  constexpr int ROWS = kRowsPerPass<S>, R = kPassRows<K, S>, N = kRingSlots<K, S>;
  const int64_t ih = g.in[1], iw = g.in[2], oh = g.out[1], ow = g.out[2], pad_t = g.pad[1];
  const int64_t pad = g.pad[2], slot_len = S * phase_len;
  int64_t tag[N];
  for (int i = 0; i < N; i++) tag[i] = -1;
  // Transforms input rows [iy0, iy0 + n) into the ring (those not there yet).
  auto prepare = [&](int64_t iy0, int n) {
    for (int64_t iy = std::max<int64_t>(iy0, 0); iy < std::min(iy0 + n, ih); iy++) {
      if (tag[iy % N] == iy) continue;
      float* slot = ring + (iy % N) * slot_len;
      if constexpr (S == 1) {
        pad_row<W>(xc + iy * iw, iw, pad, phase_len, slot);
      } else {
        split_row_s2<W>(xc + iy * iw, iw, pad, phase_len, slot);
      }
      tag[iy % N] = iy;
    }
  };
  const float* r[R];
  auto rows = [&](int64_t iy0, int n) {
    for (int i = 0; i < n; i++) {
      const int64_t iy = iy0 + i;
      r[i] = iy < 0 || iy >= ih ? zero : ring + (iy % N) * slot_len;
    }
  };
  int64_t oy = 0;
  prepare(-pad_t, R);
  if constexpr (ROWS == 2) {
    for (; oy + 2 <= oh; oy += 2) {
      prepare(S * (oy + 2) - pad_t, R);
      rows(S * oy - pad_t, R);
      conv_rows<W, K, S, 2>(r, phase_len, wc, bias, lo, hi, yc + oy * ow, ow);
    }
  }
  for (; oy < oh; oy++) {
    prepare(S * oy - pad_t, K);
    rows(S * oy - pad_t, K);
    conv_rows<W, K, S, 1>(r, phase_len, wc, bias, lo, hi, yc + oy * ow, ow);
  }
}

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
  using I = typename RowVec<W>::index;
  // PAD > 0: p is the row's start, the window starts PAD floats before it (zeros).
  auto l0 = load_row_vec<W>(p), l1 = load_row_vec<W>(p + W - PAD);
  const auto l2 = load_row_vec<W>(p + 2 - PAD), l3 = load_row_vec<W>(p + W + 1 - PAD);
  if constexpr (PAD > 0) {
    static_assert(PAD <= 2, "left padding");
    const typename RowVec<W>::type z{};
    if constexpr (W == 4) {
      l0 = PAD == 1 ? __builtin_shuffle(z, l0, I{0, 4, 5, 6})
                    : __builtin_shuffle(z, l0, I{0, 1, 4, 5});
    } else if constexpr (W == 8) {
      l0 = PAD == 1 ? __builtin_shuffle(z, l0, I{0, 8, 9, 10, 11, 12, 13, 14})
                    : __builtin_shuffle(z, l0, I{0, 1, 8, 9, 10, 11, 12, 13});
    } else {
      l0 = PAD == 1 ? __builtin_shuffle(
                          z, l0, I{0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30})
                    : __builtin_shuffle(
                          z, l0, I{0, 1, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29});
    }
  }
  if constexpr (W == 8) {
    t0 = __builtin_shuffle(l0, l1, I{0, 2, 8, 10, 4, 6, 12, 14});
    t1 = __builtin_shuffle(l0, l1, I{1, 3, 9, 11, 5, 7, 13, 15});
    t2 = __builtin_shuffle(l2, l3, I{0, 2, 9, 11, 4, 6, 13, 15});
  } else if constexpr (W == 4) {
    t0 = __builtin_shuffle(l0, l1, I{0, 2, 4, 6});
    t1 = __builtin_shuffle(l0, l1, I{1, 3, 5, 7});
    t2 = __builtin_shuffle(l2, l3, I{0, 2, 5, 7});
  } else {
    static_assert(W == 16, "vector width");
    t0 = __builtin_shuffle(l0, l1, I{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
    t1 = __builtin_shuffle(l0, l1, I{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31});
    t2 = __builtin_shuffle(l2, l3, I{0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31});
  }
}

template <int W>
inline typename RowVec<W>::type unscramble(typename RowVec<W>::type v) {
  using I = typename RowVec<W>::index;
  if constexpr (W == 8) return __builtin_shuffle(v, I{0, 1, 4, 5, 2, 3, 6, 7});
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

// Whether the row kernel handles this geometry.
inline bool depthwise_rows_supported(const ConvGeometry& g) {
  const int64_t k = g.kernel[1], s = g.stride[1];
  return g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.kernel[2] == k &&
         (k == 3 || k == 5) && g.stride[2] == s && (s == 1 || s == 2) && g.dilation[1] == 1 &&
         g.dilation[2] == 1 && g.pad[1] >= 0 && g.pad[2] >= 0 && g.out[1] >= 1 && g.out[2] >= 1;
}

// Small planes (narrow rows waste vector lanes and pay per-row overhead): W channels at a time,
// channels in vector lanes. The block's planes are transposed into a zero-padded [y][x][W] buffer
// (whose border stays zero from block to block), each output pixel is K*K vector FMAs with
// per-channel tap vectors, and the [oy][ox][W] results are transposed back.
inline int64_t cblock_rows(const ConvGeometry& g) {
  return (g.out[1] - 1) * g.stride[1] + g.kernel[1];
}
inline int64_t cblock_cols(const ConvGeometry& g) {
  return (g.out[2] - 1) * g.stride[2] + g.kernel[2];
}
inline int64_t depthwise_cblock_floats(const ConvGeometry& g, int64_t w) {
  return (cblock_rows(g) * cblock_cols(g) + g.out_size()) * w;
}

// t [ph][pw][W] = the padded planes of channels c0.. c0 + W (the border is left as it is).
// Input pixel (y, x) goes to padded (y + pad_t, x + pad_l) when that is inside the buffer (the
// output may not reach the last rows / columns).
template <int W>
void cblock_transpose_in(const DepthwiseArgs& a, int64_t c0, float* __restrict t) {
  using V = typename RowVec<W>::type;
  const ConvGeometry& g = a.geo;
  const int64_t ih = g.in[1], iw = g.in[2], n = ih * iw, pad_t = g.pad[1], pad_l = g.pad[2];
  const int64_t ph = cblock_rows(g), pw = cblock_cols(g);
  const int64_t rows = std::min(ih, ph - pad_t), cols = std::min(iw, pw - pad_l);
  const float* __restrict x0 = a.x + c0 * n;
  if (rows <= 0 || cols <= 0) return;
  if (iw >= W) {
    // Row by row, W pixels at a time (the last chunk of a row overlaps its neighbour).
    for (int64_t y = 0; y < rows; y++) {
      const float* src = x0 + y * iw;
      float* dst = t + ((y + pad_t) * pw + pad_l) * W;
      for (int64_t x0c = 0; x0c < iw; x0c += W) {
        const int64_t x = std::min(x0c, iw - W);
        V r[W];
        load_transposed<W>(src + x, n, r);
        if (x + W <= cols) {
          for (int j = 0; j < W; j++) store_vec<W>(dst + (x + j) * W, r[j]);
        } else {
          for (int j = 0; j < W && x + j < cols; j++) store_vec<W>(dst + (x + j) * W, r[j]);
        }
      }
    }
    return;
  }
  // Rows narrower than a vector: W pixels of the flat plane at a time.
  int64_t p0 = 0;
  for (; p0 + W <= n; p0 += W) {
    V r[W];
    load_transposed<W>(x0 + p0, n, r);
    int64_t y = p0 / iw, x = p0 % iw;
    for (int j = 0; j < W; j++) {
      if (y < rows && x < cols) store_vec<W>(t + ((y + pad_t) * pw + x + pad_l) * W, r[j]);
      if (++x == iw) {
        x = 0;
        y++;
      }
    }
  }
  for (int64_t p = p0; p < n; p++) {
    const int64_t y = p / iw, x = p % iw;
    if (y >= rows || x >= cols) continue;
    float* d = t + ((y + pad_t) * pw + x + pad_l) * W;
    for (int c = 0; c < W; c++) d[c] = x0[c * n + p];
  }
}

template <int W, int K, int S>
void depthwise_cblock(const DepthwiseArgs& a, int64_t c0, float* t, float* o) {
  using V = typename RowVec<W>::type;
  const ConvGeometry& g = a.geo;
  const int64_t oh = g.out[1], ow = g.out[2];
  const int64_t pw = cblock_cols(g);
  cblock_transpose_in<W>(a, c0, t);
  V wv[K * K];
  {
    V r[W];
    const float* w0 = a.w + c0 * K * K;
    if constexpr (K * K >= W) {
      // Taps j0 .. j0 + W of each channel, one vector load per channel (the last block of taps
      // overlaps the previous one, inside the channel's K*K taps): rows of a W x W block.
      for (int j = 0; j < K * K; j += W) {
        const int j0 = j + W <= K * K ? j : K * K - W;
        for (int c = 0; c < W; c++) r[c] = load_row_vec<W>(w0 + c * K * K + j0);
        transpose<W>(r);
        for (int i = 0; i < W; i++) wv[j0 + i] = r[i];
      }
    } else {
      // Fewer taps than lanes (3x3 on AVX-512): through a zero-padded row per channel.
      for (int c = 0; c < W; c++) {
        float lanes[W];
        for (int j = 0; j < W; j++) lanes[j] = j < K * K ? w0[c * K * K + j] : 0.0f;
        r[c] = load_row_vec<W>(lanes);
      }
      transpose<W>(r);
      for (int j = 0; j < K * K; j++) wv[j] = r[j];
    }
  }
  V bv = V{}, lov = V{} + a.min, hiv = V{} + a.max;
  if (a.bias) bv = load_row_vec<W>(a.bias + c0);
  for (int64_t oy = 0; oy < oh; oy++) {
    for (int64_t ox = 0; ox < ow; ox++) {
      const float* base = t + (oy * S * pw + ox * S) * W;
      // One sum per kernel row (K at most 3 of them): short FMA chains, so several output pixels
      // are in flight at once.
      V part[3] = {bv, V{}, V{}};
#pragma GCC unroll 5
      for (int ky = 0; ky < K; ky++) {
#pragma GCC unroll 5
        for (int kx = 0; kx < K; kx++) {
          part[ky % 3] += wv[ky * K + kx] * load_row_vec<W>(base + (ky * pw + kx) * W);
        }
      }
      V acc = part[0] + part[1] + part[2];
      acc = acc < lov ? lov : acc;
      acc = acc > hiv ? hiv : acc;
      store_vec<W>(o + (oy * ow + ox) * W, acc);
    }
  }
  const int64_t os = g.out_size();
  float* y0 = a.y + c0 * os;
  if (os < W) {
    for (int64_t c = 0; c < W; c++) {
      for (int64_t i = 0; i < os; i++) y0[c * os + i] = o[i * W + c];
    }
    return;
  }
  for (int64_t p0 = 0; p0 < os; p0 += W) {
    const int64_t p = std::min(p0, os - W);
    V r[W];
    load_transposed<W>(o + p * W, W, r);
    for (int c = 0; c < W; c++) store_vec<W>(y0 + c * os + p, r[c]);
  }
}

// Planes whose output rows are at most this wide go through depthwise_cblock (whole blocks of
// channels): measured on AVX2, the transposes cost less than the row path's per-row work and
// padded lanes up to 28-wide rows (mobilenet_v2's 28x28 layers: 1.3-1.6x faster), not at 56.
// Very tall planes stay on the row path, whose scratch does not grow with the height.
constexpr int64_t kCblockMaxWidth = 32;
constexpr int64_t kCblockMaxFloats = int64_t{1} << 18;
inline bool use_cblock(const ConvGeometry& g) {
  return g.out[2] <= kCblockMaxWidth && depthwise_cblock_floats(g, 16) <= kCblockMaxFloats;
}

template <int W, int K, int S>
void depthwise_rows_run(const DepthwiseArgs& a, int64_t c0, int64_t c1, float* buffer) {
  const ConvGeometry& g = a.geo;
  constexpr int CW = W < 4 ? 4 : W;
  if (use_cblock(g) && c1 - c0 >= CW) {
    float* t = buffer;
    float* o = buffer + cblock_rows(g) * cblock_cols(g) * CW;
    for (int64_t i = 0; i < cblock_rows(g) * cblock_cols(g) * CW; i++) t[i] = 0.0f;
    for (; c0 + CW <= c1; c0 += CW) depthwise_cblock<CW, K, S>(a, c0, t, o);
    if (c0 == c1) return;
  }
  if constexpr (K == 3 && S == 2 && W >= 4) {
    if (s2k3_supported(g, W)) {
      const S2Vectors sv(g, W);
      const int64_t zn = s2k3_zero_floats(g, W);
      for (int64_t i = 0; i < zn; i++) buffer[i] = 0.0f;
      for (int64_t c = c0; c < c1; c++) {
        s2k3_channel<W>(a.x + c * g.in_size(), a.w + c * 9, a.bias ? a.bias[c] : 0.0f,
                        a.y + c * g.out_size(), g, a.min, a.max, sv, buffer, buffer + zn);
      }
      return;
    }
  }
  const int64_t phase_len = rows_phase_len(g.out[2], W, K, S);
  float* zero = buffer;
  for (int64_t i = 0; i < S * phase_len; i++) zero[i] = 0.0f;
  for (int64_t c = c0; c < c1; c++) {
    depthwise_rows_channel<W, K, S>(a.x + c * g.in_size(), a.w + c * K * K,
                                    a.bias ? a.bias[c] : 0.0f, a.y + c * g.out_size(), g, a.min,
                                    a.max, phase_len, zero, buffer + S * phase_len);
  }
}

// Floats of scratch depthwise_rows_run needs (an upper bound over W <= 16).
inline int64_t depthwise_rows_buffer_size(const ConvGeometry& g) {
  int64_t rows = rows_buffer_bound(g);
  if (g.kernel[1] == 3 && g.stride[1] == 2) {
    for (int64_t w : {4, 8, 16}) rows = std::max(rows, s2k3_buffer_floats(g, w));
  }
  const int64_t cblock = use_cblock(g) ? depthwise_cblock_floats(g, 16) : 0;
  return std::max(rows, cblock);
}

template <int W>
void depthwise_rows_dispatch(const DepthwiseArgs& a, int64_t c0, int64_t c1, float* buffer) {
  const int64_t k = a.geo.kernel[1], s = a.geo.stride[1];
  if (k == 3 && s == 1) return depthwise_rows_run<W, 3, 1>(a, c0, c1, buffer);
  if (k == 3 && s == 2) return depthwise_rows_run<W, 3, 2>(a, c0, c1, buffer);
  if (k == 5 && s == 1) return depthwise_rows_run<W, 5, 1>(a, c0, c1, buffer);
  return depthwise_rows_run<W, 5, 2>(a, c0, c1, buffer);
}

// Rows of kVec floats, or of kVec / 2 when that pads a narrow row (e.g. 7 wide on AVX-512) much
// less.
template <int kVecWidth>
void depthwise_rows(const DepthwiseArgs& a, int64_t c0, int64_t c1, float* buffer) {
  constexpr int half = kVecWidth / 2;
  const int64_t ow = a.geo.out[2];
  const int64_t full_pad = (ow + kVecWidth - 1) / kVecWidth * kVecWidth;
  const int64_t half_pad = (ow + half - 1) / half * half;
  if (4 * half_pad < 3 * full_pad) return depthwise_rows_dispatch<half>(a, c0, c1, buffer);
  depthwise_rows_dispatch<kVecWidth>(a, c0, c1, buffer);
}

}  // namespace
}  // namespace kiln::kernels
