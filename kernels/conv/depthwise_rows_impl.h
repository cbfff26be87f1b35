// Depthwise row kernel: square 3x3 / 5x5 kernels, stride 1 or 2, no dilation, 2-D. Computes whole
// output rows with the K*K taps held in registers (GCC vector extensions, W floats per vector, so
// the same source serves every ISA). Each input row is first copied once into a small ring of
// zero-padded rows, split by stride phase (x-polyphase: phase f holds padded columns f, f+s, ...),
// so every tap is one unaligned unit-stride vector load; rows above/below the image read a zero
// row. Stride 1 computes two output rows per pass, sharing the loads of their common input rows.
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
};

template <int W>
inline typename RowVec<W>::type load_row_vec(const float* p) {
  typename RowVec<W>::type v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

// The layout of one transformed (padded, phase-split) input row.
struct RowLayout {
  int64_t stride;     // 1 or 2
  int64_t pad;        // leading columns of zeros
  int64_t phase_len;  // floats per phase
  int64_t row_len;    // stride * phase_len
};

// dst (row_len floats) = padded input row `src` (iw floats), split into stride phases:
// dst[f * phase_len + t] = src[t * stride + f - pad], 0 outside the row.
inline void transform_row(const float* __restrict src, int64_t iw, const RowLayout& l,
                          float* __restrict dst) {
  for (int64_t f = 0; f < l.stride; f++) {
    float* d = dst + f * l.phase_len;
    // Valid t: 0 <= t * stride + f - pad < iw.
    int64_t first = l.pad - f;  // t * stride >= first
    int64_t lo = first <= 0 ? 0 : (first + l.stride - 1) / l.stride;
    int64_t end = iw + l.pad - f;  // t * stride < end
    int64_t hi = end <= 0 ? 0 : (end + l.stride - 1) / l.stride;
    lo = std::min(lo, l.phase_len);
    hi = std::clamp(hi, lo, l.phase_len);
    for (int64_t t = 0; t < lo; t++) d[t] = 0.0f;
    const float* s = src + (f - l.pad);
    if (l.stride == 1) {
      std::memcpy(d + lo, s + lo, static_cast<size_t>(hi - lo) * sizeof(float));
    } else {
      for (int64_t t = lo; t < hi; t++) d[t] = s[2 * t];
    }
    for (int64_t t = hi; t < l.phase_len; t++) d[t] = 0.0f;
  }
}

// Stores v's first min(W, n) lanes at dst.
template <int W>
inline void store_row_vec(float* dst, typename RowVec<W>::type v, int64_t n) {
  if (n >= W) {
    __builtin_memcpy(dst, &v, sizeof(v));
  } else {
    float tmp[W];
    __builtin_memcpy(tmp, &v, sizeof(v));
    for (int64_t i = 0; i < n; i++) dst[i] = tmp[i];
  }
}

// One channel. `ring`: (K + 1) * row_len floats; `zero`: row_len zeros.
template <int W, int K, int S>
void depthwise_rows_channel(const float* __restrict xc, const float* __restrict wc, float bias,
                            float* __restrict yc, const ConvGeometry& g, float lo, float hi,
                            const RowLayout& l, float* ring, const float* zero) {
  using V = typename RowVec<W>::type;
  constexpr int R = K + 1;  // ring slots: the K + 1 rows two stride-1 output rows need
  const int64_t ih = g.in[1], iw = g.in[2], oh = g.out[1], ow = g.out[2], pad_t = g.pad[1];
  int64_t tag[R];
  for (int i = 0; i < R; i++) tag[i] = -1;
  auto row = [&](int64_t iy) -> const float* {
    if (iy < 0 || iy >= ih) return zero;
    int64_t slot = iy % R;
    float* dst = ring + slot * l.row_len;
    if (tag[slot] != iy) {
      transform_row(xc + iy * iw, iw, l, dst);
      tag[slot] = iy;
    }
    return dst;
  };
  V wv[K][K];
#pragma GCC unroll 5
  for (int ky = 0; ky < K; ky++) {
#pragma GCC unroll 5
    for (int kx = 0; kx < K; kx++) wv[ky][kx] = V{} + wc[ky * K + kx];
  }
  const V bv = V{} + bias, lov = V{} + lo, hiv = V{} + hi;
  auto finish = [&](V acc) {
    acc = acc < lov ? lov : acc;  // NaN stays NaN, like the reference
    return acc > hiv ? hiv : acc;
  };
  const int64_t pl = l.phase_len;
  int64_t oy = 0;
  if constexpr (S == 1) {
    for (; oy + 2 <= oh; oy += 2) {
      const float* r[K + 1];
      for (int i = 0; i <= K; i++) r[i] = row(oy - pad_t + i);
      float* y0 = yc + oy * ow;
      float* y1 = y0 + ow;
      for (int64_t ox = 0; ox < ow; ox += W) {
        V a0 = bv, a1 = bv;
#pragma GCC unroll 6
        for (int i = 0; i <= K; i++) {
#pragma GCC unroll 5
          for (int kx = 0; kx < K; kx++) {
            V x = load_row_vec<W>(r[i] + ox + kx);
            if (i < K) a0 += wv[i][kx] * x;
            if (i > 0) a1 += wv[i - 1][kx] * x;
          }
        }
        store_row_vec<W>(y0 + ox, finish(a0), ow - ox);
        store_row_vec<W>(y1 + ox, finish(a1), ow - ox);
      }
    }
  }
  for (; oy < oh; oy++) {
    const float* r[K];
    for (int i = 0; i < K; i++) r[i] = row(oy * S - pad_t + i);
    float* y0 = yc + oy * ow;
    for (int64_t ox = 0; ox < ow; ox += W) {
      V a0 = bv;
#pragma GCC unroll 5
      for (int ky = 0; ky < K; ky++) {
#pragma GCC unroll 5
        for (int kx = 0; kx < K; kx++) {
          a0 += wv[ky][kx] * load_row_vec<W>(r[ky] + (kx % S) * pl + ox + kx / S);
        }
      }
      store_row_vec<W>(y0 + ox, finish(a0), ow - ox);
    }
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
// channels in vector lanes. The block's planes are transposed into a zero-padded [y][x][W] buffer,
// each output pixel is K*K vector FMAs with per-channel tap vectors, and the [oy][ox][W] results
// are transposed back. `buffer`: depthwise_cblock_floats() floats.
inline int64_t cblock_rows(const ConvGeometry& g) {
  return (g.out[1] - 1) * g.stride[1] + g.kernel[1];
}
inline int64_t cblock_cols(const ConvGeometry& g) {
  return (g.out[2] - 1) * g.stride[2] + g.kernel[2];
}
inline int64_t depthwise_cblock_floats(const ConvGeometry& g, int64_t w) {
  return (cblock_rows(g) * cblock_cols(g) + g.out_size()) * w;
}

template <int W, int K, int S>
void depthwise_cblock(const DepthwiseArgs& a, int64_t c0, float* buffer) {
  using V = typename RowVec<W>::type;
  const ConvGeometry& g = a.geo;
  const int64_t ih = g.in[1], iw = g.in[2], oh = g.out[1], ow = g.out[2];
  const int64_t ph = cblock_rows(g), pw = cblock_cols(g);
  float* t = buffer;                // [ph][pw][W]
  float* o = buffer + ph * pw * W;  // [oh][ow][W]
  for (int64_t i = 0; i < ph * pw * W; i++) t[i] = 0.0f;
  for (int64_t c = 0; c < W; c++) {
    const float* xc = a.x + (c0 + c) * g.in_size();
    for (int64_t py = 0; py < ph; py++) {
      const int64_t iy = py - g.pad[1];
      if (iy < 0 || iy >= ih) continue;
      const int64_t px0 = std::max<int64_t>(0, g.pad[2]);
      const int64_t px1 = std::min<int64_t>(pw, iw + g.pad[2]);
      const float* src = xc + iy * iw - g.pad[2];
      float* dst = t + py * pw * W + c;
      for (int64_t px = px0; px < px1; px++) dst[px * W] = src[px];
    }
  }
  V wv[K * K];
  for (int j = 0; j < K * K; j++) {
    float lanes[W];
    for (int c = 0; c < W; c++) lanes[c] = a.w[(c0 + c) * K * K + j];
    __builtin_memcpy(&wv[j], lanes, sizeof(V));
  }
  V bv, lov = V{} + a.min, hiv = V{} + a.max;
  {
    float lanes[W];
    for (int c = 0; c < W; c++) lanes[c] = a.bias ? a.bias[c0 + c] : 0.0f;
    __builtin_memcpy(&bv, lanes, sizeof(V));
  }
  for (int64_t oy = 0; oy < oh; oy++) {
    for (int64_t ox = 0; ox < ow; ox++) {
      const float* base = t + (oy * S * pw + ox * S) * W;
      V acc = bv;
#pragma GCC unroll 5
      for (int ky = 0; ky < K; ky++) {
#pragma GCC unroll 5
        for (int kx = 0; kx < K; kx++) {
          acc += wv[ky * K + kx] * load_row_vec<W>(base + (ky * pw + kx) * W);
        }
      }
      acc = acc < lov ? lov : acc;
      acc = acc > hiv ? hiv : acc;
      __builtin_memcpy(o + (oy * ow + ox) * W, &acc, sizeof(V));
    }
  }
  const int64_t os = g.out_size();
  for (int64_t c = 0; c < W; c++) {
    float* yc = a.y + (c0 + c) * os;
    const float* src = o + c;
    for (int64_t i = 0; i < os; i++) yc[i] = src[i * W];
  }
}

// Output rows at most this wide go through depthwise_cblock (whole blocks of channels).
constexpr int64_t kCblockMaxWidth = 16;

template <int W, int K, int S>
void depthwise_rows_run(const DepthwiseArgs& a, int64_t c0, int64_t c1, float* buffer) {
  const ConvGeometry& g = a.geo;
  if (g.out[2] <= kCblockMaxWidth) {
    constexpr int CW = W < 4 ? 4 : W;
    for (; c0 + CW <= c1; c0 += CW) depthwise_cblock<CW, K, S>(a, c0, buffer);
    if (c0 == c1) return;
  }
  RowLayout l;
  l.stride = S;
  l.pad = g.pad[2];
  const int64_t ow_vec = (g.out[2] + W - 1) / W * W;
  l.phase_len = ow_vec + (K - 1) / S;
  l.row_len = S * l.phase_len;
  float* zero = buffer;
  float* ring = buffer + l.row_len;
  for (int64_t i = 0; i < l.row_len; i++) zero[i] = 0.0f;
  for (int64_t c = c0; c < c1; c++) {
    depthwise_rows_channel<W, K, S>(a.x + c * g.in_size(), a.w + c * K * K,
                                    a.bias ? a.bias[c] : 0.0f, a.y + c * g.out_size(), g, a.min,
                                    a.max, l, ring, zero);
  }
}

// Floats of scratch depthwise_rows_run needs (an upper bound over W <= 16).
inline int64_t depthwise_rows_buffer_size(const ConvGeometry& g) {
  const int64_t k = g.kernel[1], s = g.stride[1];
  const int64_t row_len = s * ((g.out[2] + 15) / 16 * 16 + (k - 1) / s);
  const int64_t cblock = g.out[2] <= kCblockMaxWidth ? depthwise_cblock_floats(g, 16) : 0;
  return std::max((k + 2) * row_len, cblock);
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
