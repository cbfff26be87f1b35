// 12 independent __m512 FMA chains: enough to cover FMA latency x throughput on current cores.
#include <immintrin.h>

#include "benchmarks/peak/fma_peak.h"

namespace kiln::kernels {

float fma_peak_avx512(int64_t iterations) {
  __m512 a[12];
  for (int j = 0; j < 12; j++) a[j] = _mm512_set1_ps(static_cast<float>(j));
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
  for (int64_t i = 0; i < iterations; i++) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; j++) a[j] = _mm512_fmadd_ps(a[j], m, c);
  }
  __m512 s = a[0];
  for (int j = 1; j < 12; j++) s = _mm512_add_ps(s, a[j]);
  alignas(64) float out[16];
  _mm512_store_ps(out, s);
  return out[0];
}

}  // namespace kiln::kernels
