// 12 independent __m256 FMA chains: enough to cover FMA latency x throughput on current cores.
#include <immintrin.h>

#include "benchmarks/peak/fma_peak.h"

namespace kiln::kernels {

float fma_peak_avx2(int64_t iterations) {
  __m256 a[12];
  for (int j = 0; j < 12; j++) a[j] = _mm256_set1_ps(static_cast<float>(j));
  const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
  for (int64_t i = 0; i < iterations; i++) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; j++) a[j] = _mm256_fmadd_ps(a[j], m, c);
  }
  __m256 s = a[0];
  for (int j = 1; j < 12; j++) s = _mm256_add_ps(s, a[j]);
  alignas(64) float out[16];
  _mm256_store_ps(out, s);
  return out[0];
}

}  // namespace kiln::kernels
