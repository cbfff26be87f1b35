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
// - Stride-2 3x3 rows outside the small-plane path (vectors of 4+ floats) go through s2k3_channel
//   (kernels/conv/depthwise_s2k3_impl.h: taps split in registers, no ring).
// Vector helpers: kernels/conv/depthwise_vec_impl.h.
// Included by kernels/conv/depthwise_impl.h (anonymous namespace, compiled once per ISA).
#pragma once

#include <algorithm>
#include <cstring>

#include "kernels/conv/depthwise.h"
#include "kernels/conv/depthwise_s2k3_impl.h"
#include "kernels/conv/depthwise_vec_impl.h"

namespace kiln::kernels {
namespace {

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

// Computes channels [c0, c0 + W) in the lanes and stores lanes [lane_lo, lane_hi) of them.
template <int W, int K, int S>
void depthwise_cblock(const DepthwiseArgs& a, int64_t c0, float* t, float* o, int lane_lo = 0,
                      int lane_hi = W) {
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
  if (lane_lo > 0 || lane_hi < W) {
    // Only lanes [lane_lo, lane_hi) are this call's channels (see depthwise_rows_run).
    for (int64_t c = lane_lo; c < lane_hi; c++) {
      for (int64_t i = 0; i < os; i++) y0[c * os + i] = o[i * W + c];
    }
    return;
  }
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
  // Which path computes a channel depends only on the channel and the geometry, never on the
  // range [c0, c1) of this call, so results are bitwise identical however callers split the
  // channels (over threads): the blocks of CW channels counted from channel 0 that lie inside
  // a.channels go through depthwise_cblock (a block only partly in [c0, c1) is computed whole
  // and stores only its channels here), the last a.channels % CW channels through the row path.
  // (The two paths sum the taps in different orders.)
  const int64_t cblock_end = a.channels / CW * CW;
  if (use_cblock(g) && c0 < cblock_end) {
    float* t = buffer;
    float* o = buffer + cblock_rows(g) * cblock_cols(g) * CW;
    for (int64_t i = 0; i < cblock_rows(g) * cblock_cols(g) * CW; i++) t[i] = 0.0f;
    const int64_t end = std::min(c1, cblock_end);
    while (c0 < end) {
      const int64_t b = c0 / CW * CW;
      const int lo = static_cast<int>(c0 - b),
                hi = static_cast<int>(std::min<int64_t>(end - b, CW));
      depthwise_cblock<CW, K, S>(a, b, t, o, lo, hi);
      c0 = b + hi;
    }
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
