// What the NEON micro-kernels share: the fused epilogue on NV q-registers per row, and one store
// per output. Included by the aarch64 and the armv7 tile; lives in an anonymous namespace like
// kernels/mmm/x86_64/tile_simd.h, so no inline function compiled with NEON flags (armv7:
// -mfpu=neon) can be picked by the linker for portable code.
#pragma once

#include <arm_neon.h>

#include "kernels/epilogue_impl.h"
#include "kernels/mmm/mmm.h"

namespace kiln::kernels {
namespace {

// The NEON lanes of the register stage (kernels/epilogue_impl.h). vmaxq/vminq return NaN when an
// operand is NaN: NaNs pass the clamp, as in the portable kernel.
struct NeonLanes {
  using V = float32x4_t;
  static constexpr int W = 4;
  static V zero() { return vdupq_n_f32(0.0f); }
  static V set1(float x) { return vdupq_n_f32(x); }
  static V add(V a, V b) { return vaddq_f32(a, b); }
  static V mul(V a, V b) { return vmulq_f32(a, b); }
  static V max_keep(V v, V bound) { return vmaxq_f32(v, bound); }
  static V min_keep(V v, V bound) { return vminq_f32(v, bound); }
};

// Applies the epilogue of `t` to the MR x (4 * NV) accumulators and stores them.
template <int MR, int NV>
inline void neon_store_tile(float32x4_t (&acc)[MR][NV], const TileArgs& t) {
  epilogue_regs<NeonLanes, MR, NV>(
      acc, t, [](const float* p, int) { return vld1q_f32(p); },
      [&](int i, int j, float32x4_t v) { vst1q_f32(t.c + i * t.ldc + 4 * j, v); });
}

}  // namespace
}  // namespace kiln::kernels
