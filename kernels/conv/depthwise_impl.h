// The depthwise convolution body, written for the compiler to vectorize along output rows and
// included by one .cpp per ISA. Anonymous namespace: see kernels/mmm/x86_64/tile_simd.h.
#pragma once

#include <algorithm>
#include <atomic>

#include "kernels/conv/depthwise.h"
#include "kernels/conv/depthwise_rows_impl.h"
#include "kernels/simd_width.h"

namespace kiln::kernels {
namespace {

inline int64_t ceil_div_nonneg(int64_t a, int64_t b) {
  return a <= 0 ? 0 : (a + b - 1) / b;
}

// Output row `out` (ow values) += taps of one input row, for a kernel row of kw taps.
// Stride-1 rows use a tight loop the compiler vectorizes; other strides gather.
inline void accumulate_row(const float* __restrict row, int64_t iw, const float* __restrict taps,
                           int64_t kw, int64_t stride, int64_t dilation, int64_t pad, int64_t ow,
                           float* __restrict out) {
  for (int64_t kx = 0; kx < kw; kx++) {
    const float wv = taps[kx];
    const int64_t off = kx * dilation - pad;  // ix = ox * stride + off
    // Valid ox: 0 <= ox*stride + off < iw.
    int64_t lo = ceil_div_nonneg(-off, stride);
    int64_t hi = iw - off <= 0 ? 0 : (iw - off + stride - 1) / stride;
    if (hi > ow) hi = ow;
    if (lo >= hi) continue;
    if (stride == 1) {
      const float* src = row + off;
      for (int64_t ox = lo; ox < hi; ox++) out[ox] += wv * src[ox];
    } else if (stride == 2) {
      const float* src = row + off;
      for (int64_t ox = lo; ox < hi; ox++) out[ox] += wv * src[2 * ox];
    } else {
      for (int64_t ox = lo; ox < hi; ox++) out[ox] += wv * row[ox * stride + off];
    }
  }
}

// Vector width of the ISA this file is compiled for (GCC/Clang vector extensions, so the same
// source serves every ISA).
constexpr int64_t kVec = kSimdFloats;
typedef float VecF __attribute__((vector_size(kVec * 4)));
typedef float VecFU __attribute__((vector_size(kVec * 4), aligned(4)));  // unaligned access

// Polyphase layout of one zero-padded channel plane for strides (sy, sx): sy * sx planes of ph x
// pw, plane (py % sy, px % sx) holding padded pixel (py, px) at [(py / sy) * pw + px / sx]. Tap
// (ky, kx) then reads one plane at a fixed offset from the flat output index q = oy * pw + ox, so
// every tap is one unit-stride loop over the whole output, whatever the stride and dilation.
struct Polyphase {
  int64_t sy, sx, ph, pw, plane, nq, nq_padded, total;
  explicit Polyphase(const ConvGeometry& g) {
    sy = g.stride[1];
    sx = g.stride[2];
    const int64_t reach_y = (g.kernel[1] - 1) * g.dilation[1] / sy;
    const int64_t reach_x = (g.kernel[2] - 1) * g.dilation[2] / sx;
    pw = g.out[2] + reach_x + 1;
    ph = g.out[1] + reach_y + 1;
    nq = g.out[1] * pw;
    nq_padded = (nq + 4 * kVec - 1) / (4 * kVec) * (4 * kVec);
    // Slack so whole vectors past nq stay inside the buffer.
    plane = ph * pw + 4 * kVec;
    total = sy * sx * plane + (reach_y + 1) * pw + reach_x + 4 * kVec;
  }
};

inline void depthwise_polyphase(const DepthwiseArgs& a, int64_t c0, int64_t c1, float* planes,
                                float* acc) {
  const ConvGeometry& g = a.geo;
  const Polyphase pp(g);
  const int64_t ih = g.in[1], iw = g.in[2], oh = g.out[1], ow = g.out[2];
  const int64_t kh = g.kernel[1], kw = g.kernel[2], taps = kh * kw;
  int64_t offsets[64];
  const bool small = taps <= 64;
  (void)small;
  for (int64_t ky = 0; ky < kh; ky++) {
    for (int64_t kx = 0; kx < kw; kx++) {
      int64_t ry = ky * g.dilation[1], rx = kx * g.dilation[2];
      offsets[ky * kw + kx] =
          ((ry % pp.sy) * pp.sx + rx % pp.sx) * pp.plane + (ry / pp.sy) * pp.pw + rx / pp.sx;
    }
  }
  const bool clamp = a.min > -__builtin_inff() || a.max < __builtin_inff();
  for (int64_t c = c0; c < c1; c++) {
    const float* xc = a.x + c * ih * iw;
    const float* wc = a.w + c * taps;
    for (int64_t i = 0; i < pp.total; i++) planes[i] = 0.0f;
    for (int64_t y = 0; y < ih; y++) {
      const int64_t py = y + g.pad[1];
      const int64_t row = py / pp.sy;
      if (row >= pp.ph) break;
      float* prow = planes + (py % pp.sy) * pp.sx * pp.plane + row * pp.pw;
      const float* src = xc + y * iw;
      // One x phase at a time: no division per pixel.
      for (int64_t fx = 0; fx < pp.sx; fx++) {
        const int64_t x0 = ((fx - g.pad[2]) % pp.sx + pp.sx) % pp.sx;
        const int64_t col0 = (x0 + g.pad[2]) / pp.sx;
        float* dst = prow + fx * pp.plane + col0;
        const int64_t count = std::min((iw - x0 + pp.sx - 1) / pp.sx, pp.pw - col0);
        if (pp.sx == 1) {
          for (int64_t j = 0; j < count; j++) dst[j] = src[x0 + j];
        } else if (pp.sx == 2) {
          for (int64_t j = 0; j < count; j++) dst[j] = src[x0 + 2 * j];
        } else {
          for (int64_t j = 0; j < count; j++) dst[j] = src[x0 + j * pp.sx];
        }
      }
    }
    const VecF bias = VecF{} + (a.bias ? a.bias[c] : 0.0f);
    for (int64_t q = 0; q < pp.nq_padded; q += 4 * kVec) {
      VecF s0 = bias, s1 = bias, s2 = bias, s3 = bias;
      for (int64_t t = 0; t < taps; t++) {
        const VecF w = VecF{} + wc[t];
        const float* p = planes + offsets[t] + q;
        s0 += w * *reinterpret_cast<const VecFU*>(p);
        s1 += w * *reinterpret_cast<const VecFU*>(p + kVec);
        s2 += w * *reinterpret_cast<const VecFU*>(p + 2 * kVec);
        s3 += w * *reinterpret_cast<const VecFU*>(p + 3 * kVec);
      }
      *reinterpret_cast<VecFU*>(acc + q) = s0;
      *reinterpret_cast<VecFU*>(acc + q + kVec) = s1;
      *reinterpret_cast<VecFU*>(acc + q + 2 * kVec) = s2;
      *reinterpret_cast<VecFU*>(acc + q + 3 * kVec) = s3;
    }
    float* yc = a.y + c * oh * ow;
    for (int64_t oy = 0; oy < oh; oy++) {
      const float* src = acc + oy * pp.pw;
      float* dst = yc + oy * ow;
      if (clamp) {
        const float lo = a.min, hi = a.max;
        for (int64_t ox = 0; ox < ow; ox++) {
          float v = src[ox];
          v = v < lo ? lo : v;
          dst[ox] = v > hi ? hi : v;
        }
      } else {
        for (int64_t ox = 0; ox < ow; ox++) dst[ox] = src[ox];
      }
    }
  }
}

inline bool polyphase_supported(const ConvGeometry& g) {
  // Small strides and dilations only: the s^2 padded planes must stay near the input's size.
  return g.in[0] == 1 && g.kernel[0] == 1 && g.out[0] == 1 && g.kernel_size() <= 64 &&
         g.stride[1] <= 16 && g.stride[2] <= 16 && g.dilation[1] <= 64 && g.dilation[2] <= 64;
}

// Floats of scratch depthwise_body needs (its buffers 0 and 1 back to back).
inline int64_t depthwise_scratch_size(const ConvGeometry& g) {
  if (depthwise_rows_supported(g)) return depthwise_rows_buffer_size(g);
  if (polyphase_supported(g)) {
    const Polyphase pp(g);
    return pp.total + pp.nq_padded;
  }
  return 0;
}

inline void depthwise_body(const DepthwiseArgs& a, int64_t c0, int64_t c1) {
  const ConvGeometry& g = a.geo;
  if (depthwise_rows_supported(g)) {
    depthwise_rows<kVec>(a, c0, c1, a.scratch);
    return;
  }
  if (polyphase_supported(g)) {
    const Polyphase pp(g);
    depthwise_polyphase(a, c0, c1, a.scratch, a.scratch + pp.total);
    return;
  }
  const int64_t ks = g.kernel_size(), plane_in = g.in_size(), plane_out = g.out_size();
  const bool clamp = a.min > -__builtin_inff() || a.max < __builtin_inff();
  for (int64_t c = c0; c < c1; c++) {
    const float* xc = a.x + c * plane_in;
    const float* wc = a.w + c * ks;
    float* yc = a.y + c * plane_out;
    const float b = a.bias ? a.bias[c] : 0.0f;
    for (int64_t oz = 0; oz < g.out[0]; oz++) {
      for (int64_t oy = 0; oy < g.out[1]; oy++) {
        float* out = yc + (oz * g.out[1] + oy) * g.out[2];
        for (int64_t ox = 0; ox < g.out[2]; ox++) out[ox] = b;
        for (int64_t kz = 0; kz < g.kernel[0]; kz++) {
          int64_t iz = oz * g.stride[0] - g.pad[0] + kz * g.dilation[0];
          if (iz < 0 || iz >= g.in[0]) continue;
          for (int64_t ky = 0; ky < g.kernel[1]; ky++) {
            int64_t iy = oy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
            if (iy < 0 || iy >= g.in[1]) continue;
            accumulate_row(xc + (iz * g.in[1] + iy) * g.in[2], g.in[2],
                           wc + (kz * g.kernel[1] + ky) * g.kernel[2], g.kernel[2], g.stride[2],
                           g.dilation[2], g.pad[2], g.out[2], out);
          }
        }
        if (clamp) {
          const float lo = a.min, hi = a.max;
          for (int64_t ox = 0; ox < g.out[2]; ox++) {
            float v = out[ox];
            v = v < lo ? lo : v;
            out[ox] = v > hi ? hi : v;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::kernels
