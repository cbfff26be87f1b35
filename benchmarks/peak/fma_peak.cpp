#include "benchmarks/peak/fma_peak.h"

namespace kiln::kernels {

float fma_peak(Isa isa, int64_t iterations) {
#if defined(__x86_64__) && defined(KILN_HAVE_X86_TILES)
  if (isa == Isa::Avx512) return fma_peak_avx512(iterations);
  if (isa == Isa::Avx2) return fma_peak_avx2(iterations);
#endif
#if defined(KILN_HAVE_NEON_TILES)
  if (isa == Isa::Neon) return fma_peak_neon(iterations);
#endif
  // Generic: a scalar chain set, only meaningful as a baseline.
  float acc[12] = {};
  for (int64_t i = 0; i < iterations; i++) {
    for (int j = 0; j < 12; j++) acc[j] = acc[j] * 0.999f + 0.001f;
  }
  float s = 0;
  for (float v : acc) s += v;
  return s;
}

double fma_peak_flops(Isa isa, int64_t iterations) {
  double lanes = isa == Isa::Avx512 ? 16 : (isa == Isa::Avx2 ? 8 : (isa == Isa::Neon ? 4 : 1));
  return 2.0 * lanes * 12 * static_cast<double>(iterations);
}

}  // namespace kiln::kernels
