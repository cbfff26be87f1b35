// 12 independent float32x4 multiply-add chains (FMLA on AArch64, VMLA on ARMv7, which has no
// fused multiply-add by default): the NEON peak the matmul tiles are measured against on a board.
#if defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
#include <arm_neon.h>

#include "benchmarks/peak/fma_peak.h"

namespace kiln::kernels {

float fma_peak_neon(int64_t iterations) {
  float32x4_t a[12];
  for (int j = 0; j < 12; j++) a[j] = vdupq_n_f32(static_cast<float>(j));
  const float32x4_t m = vdupq_n_f32(0.999f), c = vdupq_n_f32(0.001f);
  for (int64_t i = 0; i < iterations; i++) {
#pragma GCC unroll 12
    for (int j = 0; j < 12; j++) {
#if defined(__aarch64__)
      a[j] = vfmaq_f32(c, a[j], m);
#else
      a[j] = vmlaq_f32(c, a[j], m);
#endif
    }
  }
  float32x4_t s = a[0];
  for (int j = 1; j < 12; j++) s = vaddq_f32(s, a[j]);
  return vgetq_lane_f32(s, 0);
}

}  // namespace kiln::kernels
#endif
