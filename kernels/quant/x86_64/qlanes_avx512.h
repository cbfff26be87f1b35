// AVX-512 traits of the int8 kernels (16 lanes): float ones for the epilogue's register stage,
// i32 ones for the sums and the requantizing store. Included only by *_avx512*.cpp files.
#pragma once

// GCC 12 warns about the self-initialized placeholder in _mm512_undefined_ps() that several
// AVX-512 intrinsics use (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include <cstdint>

namespace kiln::kernels {
namespace {

struct QLanes512 {
  using V = __m512;
  using VI = __m512i;
  static constexpr int W = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V max_keep(V v, V bound) { return _mm512_max_ps(bound, v); }
  static V min_keep(V v, V bound) { return _mm512_min_ps(bound, v); }
  static VI zeroi() { return _mm512_setzero_si512(); }
  static VI set1i(int32_t x) { return _mm512_set1_epi32(x); }
  static VI addi(VI a, VI b) { return _mm512_add_epi32(a, b); }
  static VI loadi(const int32_t* p) { return _mm512_loadu_si512(p); }
  static VI load_aligned(const int32_t* p) { return _mm512_load_si512(p); }
  static void storei(int32_t* p, VI v) { _mm512_storeu_si512(p, v); }
  static V cvt(VI v) { return _mm512_cvtepi32_ps(v); }
  static V loadf(const float* p) { return _mm512_loadu_ps(p); }
  static void storef(float* p, V v) { _mm512_storeu_ps(p, v); }
  // v clamped to [lo, hi] (the output range minus the zero point), rounded half to even (the
  // default MXCSR mode), plus zp, narrowed (in range, so truncation is exact).
  template <bool Signed, class T>
  static void store_q(T* p, V v, float lo, float hi, int32_t zp) {
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    const VI q = _mm512_add_epi32(_mm512_cvtps_epi32(v), _mm512_set1_epi32(zp));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(q));
  }
};

}  // namespace
}  // namespace kiln::kernels
