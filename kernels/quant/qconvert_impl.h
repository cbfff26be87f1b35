// The body of the qconvert kernels in GCC/Clang vector extensions, included by one .cpp per ISA
// (each compiled with its ISA's flags), kSimdFloats lanes: 16 on AVX-512 (bytes widened by
// VPMOVZXBD / VPMOVSXBD, narrowed by VPMOVDB), 8 on AVX2, 4 generic. Anonymous namespace: see
// kernels/mmm/x86_64/tile_simd.h.
//
// Exactness: the same float operations as the scalar definitions in qconvert.h, lane by lane
// (IEEE division, not a reciprocal; rounding by adding and subtracting 1.5 * 2^23 after the
// clamp). Dequantized values pass an empty asm statement (q_rounded): with FMA flags the
// compiler would otherwise fuse add's product (a - za) * sa into the sum, rounding once where
// the reference rounds twice.
// The last n % kSimdFloats values go through the same vector code on padded copies (q_map).
#pragma once

#include <array>
#include <cstring>
#include <type_traits>

#if defined(__AVX512F__)
// GCC 12 warns about the self-initialized placeholders (_mm512_undefined_epi32) that the
// widening intrinsics use (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "kernels/quant/qconvert.h"
#include "kernels/simd_width.h"

namespace kiln::kernels {
namespace {

constexpr int64_t kQW = kSimdFloats;
typedef float QVf __attribute__((vector_size(kQW * 4)));
typedef int32_t QVi __attribute__((vector_size(kQW * 4)));
typedef uint8_t QVu8 __attribute__((vector_size(kQW)));
typedef int8_t QVs8 __attribute__((vector_size(kQW)));

template <class T>
struct QBytes;
template <>
struct QBytes<uint8_t> {
  using type = QVu8;
};
template <>
struct QBytes<int8_t> {
  using type = QVs8;
};

// kQW bytes widened to i32 lanes, and the low bytes of kQW i32 lanes stored: with intrinsics on
// x86 (GCC 12 lowers __builtin_convertvector between bytes and i32 lane by lane through general
// registers, except AVX-512's narrowing VPMOVDB).
template <class X>
inline QVi q_load(const X* p) {
  [[maybe_unused]] constexpr bool kSigned = std::is_signed_v<X>;
#if defined(__AVX512F__)
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return reinterpret_cast<QVi>(kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b));
#elif defined(__AVX2__)
  const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return reinterpret_cast<QVi>(kSigned ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
#elif defined(__SSE2__)
  int32_t w;
  std::memcpy(&w, p, 4);
  __m128i b = _mm_cvtsi32_si128(w);
  if constexpr (kSigned) {
    b = _mm_unpacklo_epi8(b, b);
    b = _mm_srai_epi32(_mm_unpacklo_epi16(b, b), 24);
  } else {
    b = _mm_unpacklo_epi16(_mm_unpacklo_epi8(b, _mm_setzero_si128()), _mm_setzero_si128());
  }
  return reinterpret_cast<QVi>(b);
#else
  QVi v;
  for (int64_t k = 0; k < kQW; k++) v[k] = p[k];
  return v;
#endif
}
template <class Y>
inline void q_store(Y* p, QVi v) {
#if defined(__AVX512F__)
  const auto b = __builtin_convertvector(v, typename QBytes<Y>::type);
  std::memcpy(p, &b, sizeof(b));
#elif defined(__AVX2__)
  // Byte 0 of each dword within each 128-bit half, then the two halves' 4 bytes side by side.
  const __m256i pick =
      _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i t = _mm256_shuffle_epi8(reinterpret_cast<__m256i>(v), pick);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p),
                   _mm_unpacklo_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1)));
#elif defined(__SSE2__)
  const __m128i w = _mm_packs_epi32(reinterpret_cast<__m128i>(v), reinterpret_cast<__m128i>(v));
  const int32_t b =
      _mm_cvtsi128_si32(std::is_signed_v<Y> ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w));
  std::memcpy(p, &b, 4);
#else
  const auto b = __builtin_convertvector(v, typename QBytes<Y>::type);
  std::memcpy(p, &b, sizeof(b));
#endif
}
inline QVf q_loadf(const float* p) {
  QVf v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void q_storef(float* p, QVf v) {
  std::memcpy(p, &v, sizeof(v));
}

// v, which the compiler must have computed (rounded to float) before this point.
inline QVf q_rounded(QVf v) {
#if defined(__AVX512F__)
  __asm__("" : "+v"(v));
#elif defined(__x86_64__)
  __asm__("" : "+x"(v));
#elif defined(__aarch64__) || defined(__ARM_NEON)
  __asm__("" : "+w"(v));
#else
  // (32-bit ARM without NEON -- Debian's armhf default, VFPv3-D16 -- has no register for a
  // vector: through memory)
  __asm__("" : "+m"(v));
#endif
  return v;
}

// Dequantization constants of one tensor.
struct QDeq {
  QVi z;
  QVf s;
  explicit QDeq(Q8 q) : z(QVi{} + q.zp), s(QVf{} + q.scale) {}
  QVf operator()(QVi v) const { return q_rounded(__builtin_convertvector(v - z, QVf) * s); }
};

// Quantization constants of one tensor.
struct QQuant {
  QVf s, lo, hi;
  QVi z;
  explicit QQuant(Q8 q)
      : s(QVf{} + q.scale),
        lo(QVf{} + static_cast<float>((q.is_signed ? -128 : 0) - q.zp)),
        hi(QVf{} + static_cast<float>((q.is_signed ? 127 : 255) - q.zp)),
        z(QVi{} + q.zp) {}
  QVi operator()(QVf x) const {
    QVf d = x / s;
    d = d > lo ? d : lo;  // NaN -> lo
    d = d < hi ? d : hi;
    const QVf m = QVf{} + 12582912.0f;
    const QVf r = (d + m) - m;
    return __builtin_convertvector(r, QVi) + z;
  }
};

// Loads and stores of kQW values: floats as they are, 8-bit values widened to / narrowed from
// i32 lanes.
inline QVf q_ld(const float* p) {
  return q_loadf(p);
}
template <class X>
inline QVi q_ld(const X* p) {
  return q_load(p);
}
inline void q_st(float* p, QVf v) {
  q_storef(p, v);
}
template <class Y>
inline void q_st(Y* p, QVi v) {
  q_store(p, v);
}

// y[i] = f(x[i]...) for i < n, kQW values at a time; the last n % kQW through the same code on
// zero-padded copies of the inputs.
template <class Y, class F, class... X>
void q_map(Y* y, int64_t n, F f, const X*... x) {
  int64_t i = 0;
  for (; i + kQW <= n; i += kQW) q_st(y + i, f(q_ld(x + i)...));
  if (i == n) return;
  const size_t r = static_cast<size_t>(n - i);
  auto padded = [&](const auto* p) {
    std::array<std::remove_const_t<std::remove_pointer_t<decltype(p)>>, kQW> b{};
    std::memcpy(b.data(), p + i, r * sizeof(b[0]));
    return b;
  };
  Y yb[kQW];
  q_st(yb, f(q_ld(padded(x).data())...));
  std::memcpy(y + i, yb, r * sizeof(Y));
}

template <class Y>
void q_quantize_t(const float* x, Y* y, int64_t n, Q8 q) {
  q_map(y, n, QQuant(q), x);
}

template <class X>
void q_dequantize_t(const X* x, float* y, int64_t n, Q8 q) {
  q_map(y, n, QDeq(q), x);
}

template <class X, class Y>
void q_requantize_t(const X* x, Y* y, int64_t n, Q8 xq, Q8 yq) {
  const QDeq dq(xq);
  const QQuant qz(yq);
  q_map(
      y, n, [&](QVi v) { return qz(dq(v)); }, x);
}

template <class A, class B, class Y>
void q_add_t(const A* a, const B* b, Y* y, int64_t n, Q8 aq, Q8 bq, Q8 yq) {
  const QDeq da(aq), db(bq);
  const QQuant qz(yq);
  q_map(
      y, n, [&](QVi va, QVi vb) { return qz(da(va) + db(vb)); }, a, b);
}

// Calls f with a typed pointer: int8_t* when is_signed, else uint8_t*.
template <class F>
void q_typed(const void* p, bool is_signed, F&& f) {
  if (is_signed)
    f(static_cast<const int8_t*>(p));
  else
    f(static_cast<const uint8_t*>(p));
}
template <class F>
void q_typed_out(void* p, bool is_signed, F&& f) {
  if (is_signed)
    f(static_cast<int8_t*>(p));
  else
    f(static_cast<uint8_t*>(p));
}

void q_quantize(const float* x, void* y, int64_t n, Q8 q) {
  q_typed_out(y, q.is_signed, [&](auto* py) { q_quantize_t(x, py, n, q); });
}
void q_dequantize(const void* x, float* y, int64_t n, Q8 q) {
  q_typed(x, q.is_signed, [&](const auto* px) { q_dequantize_t(px, y, n, q); });
}
void q_requantize(const void* x, void* y, int64_t n, Q8 xq, Q8 yq) {
  q_typed(x, xq.is_signed, [&](const auto* px) {
    q_typed_out(y, yq.is_signed, [&](auto* py) { q_requantize_t(px, py, n, xq, yq); });
  });
}
void q_add(const void* a, const void* b, void* y, int64_t n, Q8 aq, Q8 bq, Q8 yq) {
  q_typed(a, aq.is_signed, [&](const auto* pa) {
    q_typed(b, bq.is_signed, [&](const auto* pb) {
      q_typed_out(y, yq.is_signed, [&](auto* py) { q_add_t(pa, pb, py, n, aq, bq, yq); });
    });
  });
}

QConvert make_qconvert() {
  return QConvert{q_quantize, q_dequantize, q_requantize, q_add};
}

}  // namespace
}  // namespace kiln::kernels
