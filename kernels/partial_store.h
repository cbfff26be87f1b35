// Partial vectors: the first n floats at p loaded (zeros in the other lanes) or stored, with
// nothing read or written past p + n, and neither a libc call nor a masked store on AVX2.
//   - On AMD Zen, vmaskmovps stores are microcoded: on Zen 3 one `_mm256_maskstore_ps` of 3 or 7
//     lanes took ~8 ns in a loop where a spill to the stack plus up to three plain moves (16, 8,
//     4 bytes) took ~3 ns; it was 18% of the grouped convolution's store stage (perf).
//   - A memcpy of n floats into a stack array read back as one vector (the vec_math tails) costs
//     a call and a store-forwarding stall: 18% of PP-LCNet's HardSwish post steps (perf, Zen 3).
// Anonymous namespace: each per-ISA translation unit gets its own copy (see simd_width.h).
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/simd_width.h"

namespace kiln::kernels {
namespace {

// The ISA's float vector in GCC vector extensions (the type of vec_math's Vf and the grouped
// conv's GcVec).
typedef float SimdFloats __attribute__((vector_size(kSimdFloats * 4)));

#if defined(__AVX__)
// The first n (0 <= n <= 8) lanes of v at p.
[[gnu::always_inline]] inline void store_first_n(float* p, __m256 v, int n) {
  if (n >= 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  alignas(32) float spill[8];
  _mm256_store_ps(spill, v);
  char* d = reinterpret_cast<char*>(p);
  const char* s = reinterpret_cast<const char*>(spill);
  if (n & 4) {
    __builtin_memcpy(d, s, 16);
    d += 16;
    s += 16;
  }
  if (n & 2) {
    __builtin_memcpy(d, s, 8);
    d += 8;
    s += 8;
  }
  if (n & 1) __builtin_memcpy(d, s, 4);
}
#endif

// 0 <= n < kSimdFloats.
[[gnu::always_inline]] inline SimdFloats load_lanes(const float* p, int64_t n) {
#if defined(__AVX512F__)
  return reinterpret_cast<SimdFloats>(
      _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p));
#elif defined(__AVX2__)
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return reinterpret_cast<SimdFloats>(_mm256_maskload_ps(p, mask));
#else
  SimdFloats v{};
  for (int64_t i = 0; i < n; i++) v[i] = p[i];
  return v;
#endif
}
[[gnu::always_inline]] inline void store_lanes(float* p, SimdFloats v, int64_t n) {
#if defined(__AVX512F__)
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), reinterpret_cast<__m512>(v));
#elif defined(__AVX2__)
  store_first_n(p, reinterpret_cast<__m256>(v), static_cast<int>(n));
#else
  for (int64_t i = 0; i < n; i++) p[i] = v[i];
#endif
}

}  // namespace
}  // namespace kiln::kernels
