// What the NEON micro-kernels share: the fused epilogue on NV q-registers per row, and one store
// per output. Included by the aarch64 and the armv7 tile; lives in an anonymous namespace like
// kernels/mmm/x86_64/tile_simd.h, so no inline function compiled with NEON flags (armv7:
// -mfpu=neon) can be picked by the linker for portable code.
#pragma once

#include <arm_neon.h>

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {
namespace {

// Applies the epilogue of `t` to the MR x (4 * NV) accumulators and stores them. One pass over
// the accumulators per feature, so each feature is tested once per tile rather than once per
// output vector (on x86 those tests cost as much as the products of a k = 16 tile).
template <int MR, int NV>
inline void neon_store_tile(float32x4_t (&acc)[MR][NV], const TileArgs& t) {
  const float32x4_t zero = vdupq_n_f32(0.0f);
  const float32x4_t lo = vdupq_n_f32(t.min), hi = vdupq_n_f32(t.max);
  const float32x4_t alpha = vdupq_n_f32(t.leaky_alpha);
  auto each = [&](auto&& f) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) f(acc[i][j], i, j);
    }
  };
  using V = float32x4_t;
  if (t.row_scale) each([&](V& v, int i, int) { v = vmulq_n_f32(v, t.row_scale[i]); });
  if (t.col_scale)
    each([&](V& v, int, int j) { v = vmulq_f32(v, vld1q_f32(t.col_scale + 4 * j)); });
  if (t.row_bias) each([&](V& v, int i, int) { v = vaddq_f32(v, vdupq_n_f32(t.row_bias[i])); });
  if (t.col_bias) each([&](V& v, int, int j) { v = vaddq_f32(v, vld1q_f32(t.col_bias + 4 * j)); });
  if (t.residual) {
    each([&](V& v, int i, int j) {
      v = vaddq_f32(v, vld1q_f32(t.residual + i * t.residual_ld + 4 * j));
    });
  }
  if (t.accumulate) {
    each([&](V& v, int i, int j) { v = vaddq_f32(v, vld1q_f32(t.c + i * t.ldc + 4 * j)); });
  }
  if (t.leaky) {
    each([&](V& v, int, int) {
      v = vaddq_f32(vmaxq_f32(v, zero), vmulq_f32(alpha, vminq_f32(v, zero)));
    });
  }
  // vmaxq/vminq return NaN when an operand is NaN: NaNs pass the clamp, as in the generic kernel.
  if (t.clamp) each([&](V& v, int, int) { v = vminq_f32(vmaxq_f32(v, lo), hi); });
  each([&](V& v, int i, int j) { vst1q_f32(t.c + i * t.ldc + 4 * j, v); });
}

}  // namespace
}  // namespace kiln::kernels
