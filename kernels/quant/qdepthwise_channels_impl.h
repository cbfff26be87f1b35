// The int8 depthwise convolution of W channels at once (QDepthwiseChannelsFn,
// kernels/quant/qmmm.h), written once in GCC vector extensions over W i32 lanes and compiled by
// each ISA's file (anonymous namespace, see kernels/mmm/x86_64/tile_simd.h): W = 16 on AVX-512,
// 8 on AVX2, 4 for generic and NEON.
//
// For small planes (7x7, 14x14: the last stages of every mobile CNN), where the per-plane kernel
// (qdepthwise_impl.h) spends most of its time per channel -- a padded copy, tap offsets, a
// requantized run whose vectors straddle rows -- rather than per output. Here a lane is a channel:
// the W planes are copied once into a channels-last padded buffer (pixel-major, W bytes per
// pixel, the zero point in the padding), then every output pixel is one vector of W channels,
// summed over the taps with one widening load and one multiply by the tap's vector of W weights
// each, requantized with the W channels' own offsets and multipliers, and the W bytes of each
// pixel go back to the W output planes. No lane is wasted on row ends, whatever the plane's width.
// The arithmetic is the per-plane kernel's: integer sums (exact), then the same float operations
// per lane as q_epilogue (QDwRequant with per-lane parameters), so the outputs are bitwise those of
// the per-plane kernel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/quant/qdepthwise_impl.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kiln::kernels {
namespace {

// The channels-last buffer of a block: `hp` rows of `wp` pixels of W bytes, only the rows and
// columns the outputs read.
struct QDwChannelsLayout {
  int64_t hp, wp, nt, plane;
};

inline QDwChannelsLayout q_dwc_layout(const QDepthwisePlane& g) {
  QDwChannelsLayout l{};
  l.hp = std::max<int64_t>((g.oh - 1) * g.stride_h + (g.kh - 1) * g.dil_h + 1, 1);
  l.wp = std::max<int64_t>((g.ow - 1) * g.stride_w + (g.kw - 1) * g.dil_w + 1, 1);
  l.nt = g.kh * g.kw;
  l.plane = g.oh * g.ow;
  return l;
}

// Scratch of a block of up to W channels: the buffer, the taps' weight vectors, the parameters
// padded to W lanes, the sums (i32, pixel-major) and one channel's row of them.
template <int W>
inline size_t q_dwc_scratch_bytes(const QDepthwisePlane& g) {
  const QDwChannelsLayout l = q_dwc_layout(g);
  const int64_t buf = (l.hp * l.wp * W + 63) / 64 * 64;
  const int64_t weights = l.nt * W * 4;
  const int64_t params = 3 * W * 4;
  const int64_t sums = l.plane * W * 4 + l.plane * 4;
  const int64_t flat = g.h * g.w * W;  // narrow rows: the planes transposed whole first
  return static_cast<size_t>(buf + weights + params + sums + flat + 5 * 64);
}

#if defined(__SSE2__)
// 8 bytes of each of 8 planes (src + c * stride) to 8 pixels of 8 channels (64 bytes at dst,
// pixel-major): an 8 x 8 byte transpose in SSE2 unpacks.
template <class T>
[[gnu::always_inline]] inline void q_dwc_transpose8(const T* src, int64_t stride, T* dst) {
  __m128i r[8];
  for (int c = 0; c < 8; c++)
    r[c] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + c * stride));
  const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
  const __m128i b0 = _mm_unpacklo_epi16(a0, a1), b1 = _mm_unpackhi_epi16(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi16(a2, a3), b3 = _mm_unpackhi_epi16(a2, a3);
  __m128i* d = reinterpret_cast<__m128i*>(dst);
  _mm_storeu_si128(d, _mm_unpacklo_epi32(b0, b2));
  _mm_storeu_si128(d + 1, _mm_unpackhi_epi32(b0, b2));
  _mm_storeu_si128(d + 2, _mm_unpacklo_epi32(b1, b3));
  _mm_storeu_si128(d + 3, _mm_unpackhi_epi32(b1, b3));
}
#endif

// Channels c < n of the block, planes at x + c * in_plane (h x w), into the buffer.
template <class T, int W>
void q_dwc_fill(const QDepthwisePlane& g, const QDwChannelsLayout& l, const T* x, int64_t in_plane,
                int64_t n, T zp, T* __restrict buf, T* __restrict flat) {
  const int64_t y0 = std::max<int64_t>(0, -g.pad_top);
  const int64_t y1 = std::min(g.h, l.hp - g.pad_top);
  const int64_t x0 = std::max<int64_t>(0, -g.pad_left);
  const int64_t x1 = std::min(g.w, l.wp - g.pad_left);
  // The zero point everywhere the planes do not cover: with all W lanes present, the border only
  // (the interior is written below: 56x56 planes at stride 2 spent more in a whole-block memset
  // than in the transposes); with fewer, the whole block, so the unused lanes read defined bytes.
  const unsigned char z = static_cast<unsigned char>(zp);
  if (n == W && y1 > y0 && x1 > x0) {
    const int64_t r0 = y0 + g.pad_top, r1 = y1 + g.pad_top, c0 = x0 + g.pad_left,
                  c1 = x1 + g.pad_left;
    std::memset(buf, z, static_cast<size_t>(r0 * l.wp * W));
    for (int64_t r = r0; r < r1; r++) {
      std::memset(buf + r * l.wp * W, z, static_cast<size_t>(c0 * W));
      std::memset(buf + (r * l.wp + c1) * W, z, static_cast<size_t>((l.wp - c1) * W));
    }
    std::memset(buf + r1 * l.wp * W, z, static_cast<size_t>((l.hp - r1) * l.wp * W));
  } else {
    std::memset(buf, z, static_cast<size_t>(l.hp * l.wp * W));
  }
  int64_t c_done = 0;
#if defined(__SSE2__)
  if constexpr (W == 8) {
    if (n == 8 && x1 - x0 >= 8) {
      // 8 channels x 8 pixels per step: an 8 x 8 byte transpose (SSE2 unpacks) into 64
      // contiguous bytes of the buffer; the row's last step overlaps the one before it.
      for (int64_t iy = y0; iy < y1; iy++) {
        T* drow = buf + ((iy + g.pad_top) * l.wp + g.pad_left) * W;
        for (int64_t ix = x0;; ix += 8) {
          const int64_t at = std::min(ix, x1 - 8);
          q_dwc_transpose8(x + iy * g.w + at, in_plane, drow + at * W);
          if (at == x1 - 8) break;
        }
      }
      c_done = n;
    } else if (n == 8 && x1 > x0 && (y1 - y0) * g.w >= 8) {
      // Rows narrower than 8 pixels (7x7 planes): the rows [y0, y1) of the 8 planes transposed
      // whole, 8 pixels at a time (the last step overlapping), then each row's pixels copied.
      const int64_t f0 = y0 * g.w, f1 = y1 * g.w;
      for (int64_t f = f0;; f += 8) {
        const int64_t at = std::min(f, f1 - 8);
        q_dwc_transpose8(x + at, in_plane, flat + (at - f0) * W);
        if (at == f1 - 8) break;
      }
      for (int64_t iy = y0; iy < y1; iy++)
        std::memcpy(buf + ((iy + g.pad_top) * l.wp + g.pad_left + x0) * W,
                    flat + ((iy - y0) * g.w + x0) * W, static_cast<size_t>((x1 - x0) * W));
      c_done = n;
    }
  }
#endif
  for (int64_t c = c_done; c < n; c++) {
    const T* src = x + c * in_plane;
    for (int64_t iy = y0; iy < y1; iy++) {
      const T* s = src + iy * g.w;
      T* d = buf + ((iy + g.pad_top) * l.wp + g.pad_left) * W + c;
      for (int64_t ix = x0; ix < x1; ix++) d[ix * W] = s[ix];
    }
  }
}

// The sums of every output pixel (pixel-major, W lanes each) through sink(pixel, vector).
template <class T, int W, int NT, class Sink>
[[gnu::always_inline]] inline void q_dwc_sums(const QDepthwisePlane& g, const QDwChannelsLayout& l,
                                              const T* __restrict buf, const int32_t* __restrict wv,
                                              int64_t nt_run, const int32_t* __restrict cv,
                                              Sink&& sink) {
  using VI = typename QDwVec<T, W>::vi;
  const int64_t nt = NT > 0 ? NT : nt_run;
  constexpr int kHeld = NT > 0 ? NT : 1;
  VI w[kHeld];
  int64_t off[kHeld];
  if constexpr (NT > 0) {
#pragma GCC unroll 25
    for (int t = 0; t < NT; t++) {
      std::memcpy(&w[t], wv + t * W, sizeof(VI));
      off[t] = ((t / g.kw) * g.dil_h * l.wp + (t % g.kw) * g.dil_w) * W;
    }
  }
  VI c;
  std::memcpy(&c, cv, sizeof(VI));
  // The sink and the geometry copied to locals: the sink's 8-bit stores could otherwise alias
  // anything it reads (its parameters were reloaded from memory, pixel after pixel).
  std::remove_cvref_t<Sink> out = sink;
  const int64_t oh = g.oh, ow = g.ow, step = g.stride_w * W, row_step = g.stride_h * l.wp * W;
  int64_t pixel = 0;
  const T* row = buf;
  for (int64_t oy = 0; oy < oh; oy++, row += row_step) {
    const T* p = row;
    for (int64_t ox = 0; ox < ow; ox++, p += step, pixel++) {
      VI a = c;
      if constexpr (NT > 0) {
#pragma GCC unroll 25
        for (int t = 0; t < NT; t++) a += q_dw_widen<T, W>(p + off[t]) * w[t];
      } else {
        for (int64_t t = 0; t < nt; t++) {
          VI wt;
          std::memcpy(&wt, wv + t * W, sizeof(VI));
          const int64_t o = ((t / g.kw) * g.dil_h * l.wp + (t % g.kw) * g.dil_w) * W;
          a += q_dw_widen<T, W>(p + o) * wt;
        }
      }
      out(pixel, a);
    }
  }
}

template <class T, int W, class Sink>
void q_dwc_sums_any(const QDepthwisePlane& g, const QDwChannelsLayout& l, const T* buf,
                    const int32_t* wv, const int32_t* cv, Sink&& sink) {
  if (l.nt == 9) return q_dwc_sums<T, W, 9>(g, l, buf, wv, l.nt, cv, sink);
  if (l.nt == 25) return q_dwc_sums<T, W, 25>(g, l, buf, wv, l.nt, cv, sink);
  q_dwc_sums<T, W, 0>(g, l, buf, wv, l.nt, cv, sink);
}

// Channels [0, n) (n <= W) of a depthwise conv: channel c reads x + c * in_plane, has taps
// wt[c * nt ..] (zero point subtracted) and t's row parameters at index c, and writes the plane
// at t.c + c * oh * ow outputs.
template <int W, class S>
void q_depthwise_channels(const QDepthwisePlane& g, const void* x, int64_t in_plane, bool x_signed,
                          int32_t zx, const int32_t* wt, int64_t n, const QTileArgs& t,
                          void* scratch) {
  if (g.oh <= 0 || g.ow <= 0 || n <= 0) return;
  const QDwChannelsLayout l = q_dwc_layout(g);
  char* base = static_cast<char*>(scratch);
  char* buf = base;
  int32_t* wv = reinterpret_cast<int32_t*>(base + (l.hp * l.wp * W + 63) / 64 * 64);
  int32_t* cv = wv + l.nt * W;
  int32_t* offsets = cv + W;
  float* scales = reinterpret_cast<float*>(offsets + W);
  int32_t* sums = reinterpret_cast<int32_t*>(scales + W);
  int32_t* row = sums + l.plane * W;
  char* flat = reinterpret_cast<char*>(row + l.plane);
  // Weight vectors per tap, the constant -zx * sum w per lane, the parameters (lanes >= n: 0).
  for (int64_t tap = 0; tap < l.nt; tap++)
    for (int c = 0; c < W; c++) wv[tap * W + c] = c < n ? wt[c * l.nt + tap] : 0;
  for (int c = 0; c < W; c++) {
    int64_t wsum = 0;
    for (int64_t tap = 0; c < n && tap < l.nt; tap++) wsum += wt[c * l.nt + tap];
    cv[c] = static_cast<int32_t>(-zx * wsum);
    offsets[c] = c < n && t.row_offset ? t.row_offset[c] : 0;
    scales[c] = c < n && t.row_scale ? t.row_scale[c] : 1.0f;
  }
  auto run = [&](auto&& sink) {
    if (x_signed) {
      q_dwc_fill<int8_t, W>(g, l, static_cast<const int8_t*>(x), in_plane, n,
                            static_cast<int8_t>(zx), reinterpret_cast<int8_t*>(buf),
                            reinterpret_cast<int8_t*>(flat));
      q_dwc_sums_any<int8_t, W>(g, l, reinterpret_cast<const int8_t*>(buf), wv, cv, sink);
    } else {
      q_dwc_fill<uint8_t, W>(g, l, static_cast<const uint8_t*>(x), in_plane, n,
                             static_cast<uint8_t>(zx), reinterpret_cast<uint8_t*>(buf),
                             reinterpret_cast<uint8_t*>(flat));
      q_dwc_sums_any<uint8_t, W>(g, l, reinterpret_cast<const uint8_t*>(buf), wv, cv, sink);
    }
  };
  if constexpr (S::W == W) {
    if (q_dw_fast_epilogue(t)) {
      // Requantized pixel by pixel into `sums` (as bytes), then each lane to its plane.
      uint8_t* bytes = reinterpret_cast<uint8_t*>(sums);
      if (t.output == OutputType::U8) {
        const QDwRequant<S, false> rq(t, S::loadi(offsets), S::loadf(scales));
        run([rq, bytes](int64_t p, auto a) { rq.store(a, bytes + p * W); });
      } else {
        const QDwRequant<S, true> rq(t, S::loadi(offsets), S::loadf(scales));
        run([rq, bytes](int64_t p, auto a) { rq.store(a, bytes + p * W); });
      }
      int64_t p0 = 0;
#if defined(__SSE2__)
      if constexpr (W == 8) {
        if (n == 8) {
          // 8 pixels x 8 channels per step: the byte transpose back, 8 bytes to each plane.
          uint8_t* dst = static_cast<uint8_t*>(t.c);
          for (; p0 + 8 <= l.plane; p0 += 8) {
            const __m128i* s = reinterpret_cast<const __m128i*>(bytes + p0 * W);
            const __m128i r0 = _mm_loadu_si128(s), r1 = _mm_loadu_si128(s + 1);
            const __m128i r2 = _mm_loadu_si128(s + 2), r3 = _mm_loadu_si128(s + 3);
            // r0 = pixels 0,1 (8 channels each) ... r3 = pixels 6,7.
            const __m128i a0 = _mm_unpacklo_epi8(r0, r1), a1 = _mm_unpackhi_epi8(r0, r1);
            const __m128i a2 = _mm_unpacklo_epi8(r2, r3), a3 = _mm_unpackhi_epi8(r2, r3);
            // a0: c0..7 of pixels 0,2,1,3 interleaved as (p0 p2) per channel...
            const __m128i b0 = _mm_unpacklo_epi8(a0, a1), b1 = _mm_unpackhi_epi8(a0, a1);
            const __m128i b2 = _mm_unpacklo_epi8(a2, a3), b3 = _mm_unpackhi_epi8(a2, a3);
            // b0: channels 0-1 x pixels 0-3, b1: channels 2-3 ...; b2 / b3 for pixels 4-7.
            const __m128i c0 = _mm_unpacklo_epi32(b0, b2), c1 = _mm_unpackhi_epi32(b0, b2);
            const __m128i c2 = _mm_unpacklo_epi32(b1, b3), c3 = _mm_unpackhi_epi32(b1, b3);
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 0 * l.plane + p0), c0);
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 1 * l.plane + p0),
                             _mm_unpackhi_epi64(c0, c0));
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 2 * l.plane + p0), c1);
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 3 * l.plane + p0),
                             _mm_unpackhi_epi64(c1, c1));
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 4 * l.plane + p0), c2);
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 5 * l.plane + p0),
                             _mm_unpackhi_epi64(c2, c2));
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 6 * l.plane + p0), c3);
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 7 * l.plane + p0),
                             _mm_unpackhi_epi64(c3, c3));
          }
        }
      }
#endif
      for (int64_t c = 0; c < n; c++) {
        uint8_t* dst = static_cast<uint8_t*>(t.c) + c * l.plane;
        for (int64_t p = p0; p < l.plane; p++) dst[p] = bytes[p * W + c];
      }
      return;
    }
  }
  run([sums](int64_t p, auto a) { std::memcpy(sums + p * W, &a, sizeof(a)); });
  const size_t esize = t.output == OutputType::U8 || t.output == OutputType::I8 ? 1 : 4;
  for (int64_t c = 0; c < n; c++) {
    for (int64_t p = 0; p < l.plane; p++) row[p] = sums[p * W + c];
    QTileArgs tc = t;
    if (tc.row_scale) tc.row_scale += c;
    if (tc.row_bias) tc.row_bias += c;
    if (tc.row_offset) tc.row_offset += c;
    tc.c = static_cast<char*>(t.c) + static_cast<size_t>(c * l.plane) * esize;
    q_row<S>(row, l.plane, tc);
  }
}

}  // namespace
}  // namespace kiln::kernels
