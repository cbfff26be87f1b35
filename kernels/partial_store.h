// The first n floats of an AVX vector stored without vmaskmovps. On AMD Zen the masked store is
// microcoded: on Zen 3 one `_mm256_maskstore_ps` of 3 or 7 lanes took ~8 ns in a loop where a
// spill to the stack plus up to three plain moves (16, 8, 4 bytes) took ~3 ns, and it was 18% of
// the grouped convolution's store stage (perf). Stores nothing past p + n, like the mask did.
// Anonymous namespace: each per-ISA translation unit gets its own copy (see simd_width.h).
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::kernels {
namespace {

#if defined(__AVX__)
// 0 <= n <= 8.
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

}  // namespace
}  // namespace kiln::kernels
