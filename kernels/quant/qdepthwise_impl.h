// The int8 depthwise channel plane (QDepthwiseFn, kernels/quant/qmmm.h), written once in GCC
// vector extensions over W i32 lanes and compiled by each ISA's file (anonymous namespace, see
// kernels/mmm/x86_64/tile_simd.h): W = 16 on AVX-512, 8 on AVX2, 4 for generic and NEON.
//
// The plane is first copied into the caller's scratch, padded with the zero point on every side
// (the border written once for the channels of one call: `reuse`) and split into `stride_w`
// column phases (phase q of padded row r holds its columns q, q + s,
// q + 2s, ...), each phase row long enough for whole vectors of outputs. Then every output is
// the same sum over the taps, with no edge cases and no scalar tails: a tap (ky, kx) of output
// column ox reads phase (kx * dil_w) % s at column ox + (kx * dil_w) / s, so the W outputs of a
// vector read W contiguous bytes per tap (widened to i32, multiplied by the tap's weight, added).
// 8-bit outputs are requantized as each vector is summed (QDwRequant).
// Taps in the padding read the zero point z, so sum (x - z) * w = sum x * w - z * sum w over
// all taps. A row's last vector computes lanes past the row: it stores them whole (the next
// row's sums overwrite them) unless the store would leave the plane, where it stores its lanes
// one by one. Integer sums: every ISA gives the same bits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/quant/qsplit.h"
#include "kernels/quant/qtile_impl.h"

#if defined(__AVX512F__)
// GCC 12 warns about the self-initialized placeholders (_mm512_undefined_epi32/_ps) that the
// widening and converting intrinsics use (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace kiln::kernels {
namespace {

template <class T, int W>
struct QDwVec {
  typedef int32_t vi __attribute__((vector_size(W * 4)));
};

// W bytes at p widened to i32 lanes (x86: one VPMOVZXBD / VPMOVSXBD from memory; GCC 12 lowers
// __builtin_convertvector of bytes through general registers, byte by byte).
template <class T, int W>
[[gnu::always_inline]] inline typename QDwVec<T, W>::vi q_dw_widen(const T* p) {
  using VI = typename QDwVec<T, W>::vi;
#if defined(__AVX512F__) || defined(__AVX2__)
  constexpr bool kSigned = static_cast<T>(-1) < T{0};
#endif
#if defined(__AVX512F__)
  if constexpr (W == 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return reinterpret_cast<VI>(kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
  }
#endif
#if defined(__AVX2__)
  if constexpr (W == 8) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return reinterpret_cast<VI>(kSigned ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
  }
#endif
  VI v;
#pragma GCC unroll 16
  for (int i = 0; i < W; i++) v[i] = p[i];
  return v;
}

// The padded, phase-split copy of a plane. Padded row r goes to row phase r % stride_h, row
// r / stride_h; its columns to column phase c % stride_w, column c / stride_w: phase plane
// (ry, qx) holds `hi` rows of `lp` bytes, at buf + ((ry * s + qx) * hi + i) * lp. Output (oy, ox)
// is computed at position p = oy * lp + ox of one flat run over all rows ("computation space"):
// tap (ky, kx) reads position p + off[tap] with off = ((dy % sh * s + dx % s) * hi + dy / sh) *
// lp + dx / s (dy = ky * dil_h, dx = kx * dil_w), so a vector of W positions is W contiguous
// bytes per tap whatever the row length (a 7-wide plane wastes 2 of every 9 lanes, not 9 of 16);
// positions with ox >= ow are computed and dropped when the rows are stored.
struct QDwLayout {
  int64_t s;    // column phases (stride along the row)
  int64_t sh;   // row phases (stride along the columns)
  int64_t lp;   // bytes per phase row = positions per output row
  int64_t hi;   // rows per phase plane
  int64_t n;    // positions computed: oh * lp rounded up to two vectors
  int64_t buf;  // bytes of the phase planes and the slack the last vectors read
};

template <int W>
inline QDwLayout q_dw_layout(const QDepthwisePlane& g) {
  QDwLayout l{};
  l.s = std::max<int64_t>(g.stride_w, 1);
  l.sh = std::max<int64_t>(g.stride_h, 1);
  l.lp = g.ow + ((g.kw - 1) * g.dil_w) / l.s;
  const int64_t hp = std::max<int64_t>((g.oh - 1) * g.stride_h + (g.kh - 1) * g.dil_h + 1, 1);
  l.hi = (hp + l.sh - 1) / l.sh;
  l.n = (g.oh * l.lp + 2 * W - 1) / (2 * W) * (2 * W);
  // A position p < n reads p + off + [0, 2W) with off < sh * s * hi * lp.
  l.buf = (l.sh * l.s * l.hi * l.lp + l.n + 2 * W + 7) / 8 * 8;
  return l;
}

// Scratch bytes: the taps' offsets, the phase planes, one whole padded row (the column split's
// source) and the sums or requantized bytes of the n positions (as i32: the larger).
template <int W>
inline size_t q_dw_scratch_bytes(const QDepthwisePlane& g) {
  const QDwLayout l = q_dw_layout<W>(g);
  return static_cast<size_t>(g.kh * g.kw * 8 + l.buf + (l.s * l.lp + 7) / 8 * 8 + l.n * 4 + 64);
}

// even[j] = src[2j], odd[j] = src[2j + 1] for j < n (bytes).
inline void q_dw_split2(const uint8_t* __restrict src, uint8_t* __restrict even,
                        uint8_t* __restrict odd, int64_t n) {
  int64_t j = 0;
#if defined(__AVX512BW__)
  for (; j + 32 <= n; j += 32) {
    const __m512i v = _mm512_loadu_si512(src + 2 * j);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(even + j), _mm512_cvtepi16_epi8(v));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(odd + j),
                        _mm512_cvtepi16_epi8(_mm512_srli_epi16(v, 8)));
  }
  if (j < n) {
    // The last n - j < 32 pairs by masked loads and stores (the phase rows of a small plane are
    // shorter than 32: 29 bytes for a 56-wide input, 8 for a 14-wide one).
    const int64_t r = n - j;
    const __m512i v = _mm512_maskz_loadu_epi8((1ull << (2 * r)) - 1, src + 2 * j);
    const __mmask32 k = (1u << r) - 1;
    _mm256_mask_storeu_epi8(even + j, k, _mm512_cvtepi16_epi8(v));
    _mm256_mask_storeu_epi8(odd + j, k, _mm512_cvtepi16_epi8(_mm512_srli_epi16(v, 8)));
    return;
  }
#elif defined(__AVX2__)
  const __m256i m = _mm256_set1_epi16(0xff);
  for (; j + 32 <= n; j += 32) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * j));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * j + 32));
    const __m256i e = _mm256_packus_epi16(_mm256_and_si256(a, m), _mm256_and_si256(b, m));
    const __m256i o = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(even + j), _mm256_permute4x64_epi64(e, 0xd8));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(odd + j), _mm256_permute4x64_epi64(o, 0xd8));
  }
  for (; j + 16 <= n; j += 16) q8_split2_16(src + 2 * j, even + j, odd + j);
  if (j < n && n >= 8) {
    // The last 8 to 15 pairs: 8 at a time, the last 8 overlapping the ones before (the same
    // bytes written again) -- phase rows of a 28- or 56-wide input, no byte loop.
    for (; j + 8 <= n; j += 8) q8_split2_8(src + 2 * j, even + j, odd + j);
    if (j < n) q8_split2_8(src + 2 * (n - 8), even + n - 8, odd + n - 8);
    return;
  }
#endif
  for (; j < n; j++) {
    even[j] = src[2 * j];
    odd[j] = src[2 * j + 1];
  }
}

// The padded copy of plane x into buf (l.buf bytes); tmp: one padded row (s * lp bytes).
// `reuse`: buf and tmp already hold the padded copy of a plane of the same geometry and zero
// point (the previous channel's), so only the input's own bytes are written: the zero-point
// border, the rows outside the input, the slack and the tap offsets stay.
template <class T>
void q_dw_pad(const QDepthwisePlane& g, const QDwLayout& l, const T* __restrict x, T z,
              T* __restrict buf, T* __restrict tmp, bool reuse) {
  const int64_t len = l.s * l.lp;  // a padded row
  if (!reuse) {
    std::fill(buf, buf + l.buf, z);
    std::fill(tmp, tmp + len, z);
  }
  const int64_t a = std::clamp<int64_t>(g.pad_left, 0, len);
  const int64_t n = std::clamp<int64_t>(len - a, 0, g.w);
  const int64_t r0 = std::max<int64_t>(g.pad_top, 0);
  const int64_t r1 = std::min<int64_t>(g.pad_top + g.h, l.sh * l.hi);
  const int64_t phase_plane = l.hi * l.lp;
  for (int64_t r = r0; r < r1; r++) {
    const int64_t iy = r - g.pad_top;
    T* row = buf + ((r % l.sh) * l.s * l.hi + r / l.sh) * l.lp;  // phase (r % sh, 0), row r / sh
    if (l.s == 1) {
      std::memcpy(row + a, x + iy * g.w, static_cast<size_t>(n) * sizeof(T));
      continue;
    }
    if (l.s == 2 && n >= 16) {
      // Straight from the input row, no padded copy in between: padded column c = a + i holds
      // x[i] and goes to phase c % 2 at c / 2, so x's even bytes go to phase a % 2 from a / 2 on
      // and its odd bytes to phase (a + 1) % 2 from (a + 1) / 2 on. The phase rows' other bytes
      // are padding, written once (`reuse`: by an earlier plane of the same geometry). Rows of
      // fewer than 8 pairs (a 14-wide input) stay on the padded copy below, whose whole phase rows
      // (8 pairs there) split in one vector step: measured faster than 7 pairs byte by byte.
      const uint8_t* xr = reinterpret_cast<const uint8_t*>(x + iy * g.w);
      uint8_t* ph[2] = {reinterpret_cast<uint8_t*>(row),
                        reinterpret_cast<uint8_t*>(row + phase_plane)};
      uint8_t* ev = ph[a % 2] + a / 2;
      q_dw_split2(xr, ev, ph[(a + 1) % 2] + (a + 1) / 2, n / 2);
      if (n % 2) ev[n / 2] = xr[n - 1];
      continue;
    }
    std::memcpy(tmp + a, x + iy * g.w, static_cast<size_t>(n) * sizeof(T));
    if (l.s == 2) {
      q_dw_split2(reinterpret_cast<const uint8_t*>(tmp), reinterpret_cast<uint8_t*>(row),
                  reinterpret_cast<uint8_t*>(row + phase_plane), l.lp);
      continue;
    }
    for (int64_t q = 0; q < l.s; q++) {
      T* ph = row + q * phase_plane;
      for (int64_t j = 0; j < l.lp; j++) ph[j] = tmp[j * l.s + q];
    }
  }
}

// The sums of every position: NT taps (0: nt at run time) at offsets off[], weights wt, constant
// c = -z * sum(wt); each vector of W positions goes to sink(p, sums).
template <class T, int W, int NT, class Sink>
void q_dw_rows(const QDwLayout& l, const T* __restrict buf, const int64_t* __restrict off,
               const int32_t* __restrict wt, int64_t nt_run, int32_t c, Sink&& sink) {
  using VI = typename QDwVec<T, W>::vi;
  constexpr int kMaxHeld = NT > 0 ? NT : 1;
  const int64_t nt = NT > 0 ? NT : nt_run;
  VI wv[kMaxHeld];
  int64_t o[kMaxHeld];
  if constexpr (NT > 0) {
#pragma GCC unroll 25
    for (int t = 0; t < NT; t++) {
      wv[t] = VI{} + wt[t];
      o[t] = off[t];
    }
  }
  for (int64_t p = 0; p < l.n; p += W) {
    const T* q = buf + p;
    VI a = VI{} + c;
    if constexpr (NT > 0) {
#pragma GCC unroll 25
      for (int t = 0; t < NT; t++) a += q_dw_widen<T, W>(q + o[t]) * wv[t];
    } else {
      for (int64_t t = 0; t < nt; t++) a += q_dw_widen<T, W>(q + off[t]) * (VI{} + wt[t]);
    }
    sink(p, a);
  }
}

#if defined(__AVX2__)
// x86 (W = 8 on AVX2, 16 on AVX-512BW): the sums of q_dw_rows for NT > 0 taps, two vectors of
// outputs (2W bytes) at a time and the taps in pairs through VPMADDWD: per pair of taps, 2W
// bytes of each widened to i16 (VPMOVZXBW / VPMOVSXBW from memory), interleaved (the pair's
// values of one output side by side) and multiplied by the pair's broadcast weights with the two
// products summed in i32 -- exact, |x| <= 255 and |w| <= 255 -- instead of one widening load and
// one VPMULLD per tap and W outputs. An odd last tap pairs with a zero weight. The interleave works
// within 128-bit lanes, so the two accumulators hold outputs in 4-lane blocks, put back in order
// by one cross-lane permute per result vector. NT = 0: nt taps at run time (at most
// 2 * kQDwMaxPairs).
template <int W>
struct QDwPairs;
template <>
struct QDwPairs<8> {
  using R = __m256i;
  template <class T>
  static R widen16(const T* p) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return std::is_signed_v<T> ? _mm256_cvtepi8_epi16(b) : _mm256_cvtepu8_epi16(b);
  }
  static R set1(int32_t v) { return _mm256_set1_epi32(v); }
  static R zero() { return _mm256_setzero_si256(); }
  static R lo(R a, R b) { return _mm256_unpacklo_epi16(a, b); }
  static R hi(R a, R b) { return _mm256_unpackhi_epi16(a, b); }
  static R madd_add(R acc, R x, R w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(x, w)); }
  static R add(R a, R b) { return _mm256_add_epi32(a, b); }
  static R first(R l, R h) { return _mm256_permute2x128_si256(l, h, 0x20); }
  static R second(R l, R h) { return _mm256_permute2x128_si256(l, h, 0x31); }
};
#if defined(__AVX512BW__)
template <>
struct QDwPairs<16> {
  using R = __m512i;
  template <class T>
  static R widen16(const T* p) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return std::is_signed_v<T> ? _mm512_cvtepi8_epi16(b) : _mm512_cvtepu8_epi16(b);
  }
  static R set1(int32_t v) { return _mm512_set1_epi32(v); }
  static R zero() { return _mm512_setzero_si512(); }
  static R lo(R a, R b) { return _mm512_unpacklo_epi16(a, b); }
  static R hi(R a, R b) { return _mm512_unpackhi_epi16(a, b); }
  static R madd_add(R acc, R x, R w) { return _mm512_add_epi32(acc, _mm512_madd_epi16(x, w)); }
  static R add(R a, R b) { return _mm512_add_epi32(a, b); }
  // l holds outputs 0-3, 8-11, 16-19, 24-27 (quad words 0-1, 2-3, 4-5, 6-7), h the others.
  static R first(R l, R h) {
    return _mm512_permutex2var_epi64(l, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), h);
  }
  static R second(R l, R h) {
    return _mm512_permutex2var_epi64(l, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), h);
  }
};
#endif

constexpr int kQDwMaxPairs = 32;

template <class T, int W, int NT, class Sink>
void q_dw_rows_pairs(const QDwLayout& l, const T* __restrict buf, const int64_t* __restrict off,
                     const int32_t* __restrict wt, int64_t nt_run, int32_t c, Sink&& sink) {
  using P = QDwPairs<W>;
  using R = typename P::R;
  using VI = typename QDwVec<T, W>::vi;
  constexpr int kHeld = NT > 0 ? (NT + 1) / 2 : kQDwMaxPairs;
  const int64_t nt = NT > 0 ? NT : nt_run;
  const int64_t np = (nt + 1) / 2;
  R wp[kHeld];
  int64_t o0[kHeld], o1[kHeld];
#pragma GCC unroll 13
  for (int q = 0; q < np; q++) {
    const bool two = 2 * q + 1 < nt;
    const uint32_t w0 = static_cast<uint16_t>(static_cast<int16_t>(wt[2 * q]));
    const uint32_t w1 = two ? static_cast<uint16_t>(static_cast<int16_t>(wt[2 * q + 1])) : 0u;
    wp[q] = P::set1(static_cast<int32_t>(w0 | (w1 << 16)));
    o0[q] = off[2 * q];
    o1[q] = two ? off[2 * q + 1] : off[2 * q];
  }
  const R cv = P::set1(c);
  for (int64_t p = 0; p < l.n; p += 2 * W) {
    const T* x = buf + p;
    R lo = P::zero(), hi = P::zero();
    if constexpr (NT > 0) {
#pragma GCC unroll 13
      for (int q = 0; q < (NT + 1) / 2; q++) {
        const R x0 = P::template widen16<T>(x + o0[q]);
        const R x1 = P::template widen16<T>(x + o1[q]);
        lo = P::madd_add(lo, P::lo(x0, x1), wp[q]);
        hi = P::madd_add(hi, P::hi(x0, x1), wp[q]);
      }
    } else {
      for (int64_t q = 0; q < np; q++) {
        const R x0 = P::template widen16<T>(x + o0[q]);
        const R x1 = P::template widen16<T>(x + o1[q]);
        lo = P::madd_add(lo, P::lo(x0, x1), wp[q]);
        hi = P::madd_add(hi, P::hi(x0, x1), wp[q]);
      }
    }
    sink(p, reinterpret_cast<VI>(P::add(P::first(lo, hi), cv)));
    sink(p + W, reinterpret_cast<VI>(P::add(P::second(lo, hi), cv)));
  }
}
#endif

// The plane's sums through `sink` (see q_dw_rows); scratch as q_dw_scratch_bytes lays it out.
#if defined(__AVX512BW__)
constexpr bool kQDwPairs16 = true;
#else
constexpr bool kQDwPairs16 = false;
#endif

template <class T, int W, class Sink>
void q_dw_plane_t(const QDepthwisePlane& g, const QDwLayout& l, const T* x, int32_t zx,
                  const int32_t* wt, void* scratch, bool reuse, Sink&& sink) {
  const int64_t nt = g.kh * g.kw;
  int64_t* off = static_cast<int64_t*>(scratch);
  T* buf = reinterpret_cast<T*>(off + nt);
  q_dw_pad<T>(g, l, x, static_cast<T>(zx), buf, buf + l.buf, reuse);
  if (!reuse) {
    for (int64_t ky = 0; ky < g.kh; ky++)
      for (int64_t kx = 0; kx < g.kw; kx++) {
        const int64_t dy = ky * g.dil_h, dx = kx * g.dil_w;
        off[ky * g.kw + kx] = ((dy % l.sh * l.s + dx % l.s) * l.hi + dy / l.sh) * l.lp + dx / l.s;
      }
  }
  int64_t wsum = 0;
  for (int64_t t = 0; t < nt; t++) wsum += wt[t];
  const int32_t c = static_cast<int32_t>(-zx * wsum);
#if defined(__AVX2__)
  // Weights with their zero point subtracted fit i16 (|w| <= 255).
  if constexpr (W == 8 || (W == 16 && kQDwPairs16)) {
    if (nt == 9) return q_dw_rows_pairs<T, W, 9>(l, buf, off, wt, nt, c, sink);
    if (nt == 25) return q_dw_rows_pairs<T, W, 25>(l, buf, off, wt, nt, c, sink);
    if (nt > 1 && nt <= 2 * kQDwMaxPairs)
      return q_dw_rows_pairs<T, W, 0>(l, buf, off, wt, nt, c, sink);
  }
#endif
  if (nt == 9)
    q_dw_rows<T, W, 9>(l, buf, off, wt, nt, c, sink);
  else if (nt == 25)
    q_dw_rows<T, W, 25>(l, buf, off, wt, nt, c, sink);
  else
    q_dw_rows<T, W, 0>(l, buf, off, wt, nt, c, sink);
}

// Rows [0, oh) of ow elements from src (row stride lp) to dst (row stride ow). Bytes go 16 at a
// time: a short row's copy runs into the next rows' places (rewritten after it) but never past
// the plane's end; src has 16 bytes of slack past its last row.
template <class E>
inline void q_dw_store_rows(const E* __restrict src, int64_t lp, E* __restrict dst, int64_t ow,
                            int64_t oh) {
  if constexpr (sizeof(E) == 1) {
    if (ow >= 16) {
      for (int64_t oy = 0; oy < oh; oy++) {
        const E* s = src + oy * lp;
        E* d = dst + oy * ow;
        int64_t k = 0;
        for (; k + 16 <= ow; k += 16) std::memcpy(d + k, s + k, 16);
        if (k < ow) std::memcpy(d + ow - 16, s + ow - 16, 16);
      }
      return;
    }
    for (int64_t oy = 0; oy < oh; oy++) {
      if ((oh - oy) * ow >= 16)
        std::memcpy(dst + oy * ow, src + oy * lp, 16);
      else
        std::memcpy(dst + oy * ow, src + oy * lp, static_cast<size_t>(ow));
    }
  } else {
    for (int64_t oy = 0; oy < oh; oy++)
      std::memcpy(dst + oy * ow, src + oy * lp, static_cast<size_t>(ow) * sizeof(E));
  }
}

// The requantizing epilogue of a depthwise plane, its parameters read once: the channel's i32
// offset (stage 0) and float multiplier, the clamp, the output range. The same operations in the
// same order as q_epilogue's with one row (offset, convert, multiply, clamp, requantizing store)
// for the epilogues a depthwise conv has (no bias, residual, accumulate or LeakyRelu: see
// q_dw_fast_epilogue).
template <class S, bool Signed>
struct QDwRequant {
  typename S::VI off;
  typename S::V scale, min, max;
  bool has_scale, clamp;
  float lo, hi;
  int32_t zp;
  // One channel's parameters (row 0 of t) in every lane: a plane.
  explicit QDwRequant(const QTileArgs& t)
      : QDwRequant(t, S::set1i(t.row_offset ? t.row_offset[0] : 0),
                   S::set1(t.row_scale ? t.row_scale[0] : 1.0f)) {}
  // One channel per lane (the channel blocks of qdepthwise_channels_impl.h): the lanes' offsets
  // and multipliers (unused when t has no row_scale).
  QDwRequant(const QTileArgs& t, typename S::VI offsets, typename S::V scales)
      : off(offsets),
        scale(scales),
        min(S::set1(t.min)),
        max(S::set1(t.max)),
        has_scale(t.row_scale != nullptr),
        clamp(t.clamp),
        lo(static_cast<float>((Signed ? -128 : 0) - t.zero_point)),
        hi(static_cast<float>((Signed ? 127 : 255) - t.zero_point)),
        zp(t.zero_point) {}
  // Stores the W requantized sums at dst.
  template <class VI>
  [[gnu::always_inline]] void store(VI a, void* dst) const {
    using Out = std::conditional_t<Signed, int8_t, uint8_t>;
    typename S::V v = S::cvt(S::addi(reinterpret_cast<typename S::VI>(a), off));
    if (has_scale) v = S::mul(v, scale);
    if (clamp) v = S::min_keep(S::max_keep(v, min), max);
    S::template store_q<Signed>(static_cast<Out*>(dst), v, lo, hi, zp);
  }
};

// Whether the epilogue is one QDwRequant computes: 8-bit output, stage 0 by row offset, row
// scale and clamp only.
inline bool q_dw_fast_epilogue(const QTileArgs& t) {
  return (t.output == OutputType::U8 || t.output == OutputType::I8) && !t.col_scale &&
         !t.row_bias && !t.col_bias && !t.col_offset;
}

// A depthwise plane (QDepthwiseFn) over W-lane vectors. S: the ISA's int8 lane traits; when
// they are W lanes wide, 8-bit outputs are requantized as each vector is summed; otherwise (and
// for f32 / i32 outputs) the sums go to `acc` and the row epilogue q_row<S> stores them.
template <int W, class S>
void q_depthwise_vec(const QDepthwisePlane& g, const void* x, bool x_signed, int32_t zx,
                     const int32_t* wt, const QTileArgs& t, int32_t* acc, void* scratch,
                     bool reuse) {
  if (g.oh <= 0 || g.ow <= 0) return;
  const QDwLayout l = q_dw_layout<W>(g);
  // The positions' sums or bytes after the offsets, the phase planes and the split's row.
  char* out_tmp = static_cast<char*>(scratch) + g.kh * g.kw * 8 + l.buf + (l.s * l.lp + 7) / 8 * 8;
  auto run = [&](auto&& sink) {
    if (x_signed)
      q_dw_plane_t<int8_t, W>(g, l, static_cast<const int8_t*>(x), zx, wt, scratch, reuse, sink);
    else
      q_dw_plane_t<uint8_t, W>(g, l, static_cast<const uint8_t*>(x), zx, wt, scratch, reuse, sink);
  };
  if constexpr (S::W == W) {
    if (q_dw_fast_epilogue(t)) {
      if (t.output == OutputType::U8) {
        const QDwRequant<S, false> rq(t);
        run([&](int64_t p, auto a) { rq.store(a, out_tmp + p); });
      } else {
        const QDwRequant<S, true> rq(t);
        run([&](int64_t p, auto a) { rq.store(a, out_tmp + p); });
      }
      q_dw_store_rows(reinterpret_cast<const uint8_t*>(out_tmp), l.lp, static_cast<uint8_t*>(t.c),
                      g.ow, g.oh);
      return;
    }
  }
  int32_t* sums = reinterpret_cast<int32_t*>(out_tmp);
  run([&](int64_t p, auto a) { std::memcpy(sums + p, &a, sizeof(a)); });
  q_dw_store_rows(sums, l.lp, acc, g.ow, g.oh);
  q_row<S>(acc, g.oh * g.ow, t);
}

}  // namespace
}  // namespace kiln::kernels
