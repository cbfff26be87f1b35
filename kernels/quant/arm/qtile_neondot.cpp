// The AArch64 dot-product int8 kernels (ARMv8.2 SDOT: Cortex-A55/A76 and later, the Raspberry
// Pi 5's Cortex-A76): Dot4 panels read as s8 on both sides, 8 x 8 tiles, one SDOT by element per
// 4 k steps of 4 outputs. Compiled with -march=armv8.2-a+dotprod (AArch64 only) and chosen at
// run time when the CPU reports dot products (HWCAP_ASIMDDP, base/isa.cpp).
//
// SDOT multiplies s8 by s8, so the zero-point side (u8 activations) is flipped to s8 when packed
// (v ^ 0x80 = v - 128, zero point z - 128) and the other side is s8 with zero point 0 (symmetric
// weights); the -z' * sum_k w correction is folded into the offsets (qdot_zero_point,
// qadd_dot_correction). Products of s8 values summed four at a time into i32: exact.
#include <arm_neon.h>

#include "kernels/quant/qdepthwise_channels_impl.h"
#include "kernels/quant/qdepthwise_impl.h"
#include "kernels/quant/qtile_impl.h"
#include "kernels/quant/qtiles.h"

namespace kiln::kernels {

namespace {

// acc[r][0..1] (columns 0-3, 4-7 of row r) += the 4-byte group of row r (lane l of av) . b.
#define KILN_SDOT_ROW(r, av, l)                      \
  acc[r][0] = vdotq_laneq_s32(acc[r][0], b0, av, l); \
  acc[r][1] = vdotq_laneq_s32(acc[r][1], b1, av, l)

void tile(int64_t kg, const int32_t* a32, const int32_t* b32, const QTileArgs& t, int rows,
          int cols) {
  const int8_t* a = reinterpret_cast<const int8_t*>(a32);
  const int8_t* b = reinterpret_cast<const int8_t*>(b32);
  int32x4_t acc[8][2];
  for (auto& r : acc) r[0] = r[1] = vdupq_n_s32(0);
  for (int64_t g = 0; g < kg; g++) {
    // A: rows 0-3 then 4-7, 4 bytes each; B: columns 0-3 then 4-7.
    const int8x16_t a0 = vld1q_s8(a), a1 = vld1q_s8(a + 16);
    const int8x16_t b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16);
    KILN_SDOT_ROW(0, a0, 0);
    KILN_SDOT_ROW(1, a0, 1);
    KILN_SDOT_ROW(2, a0, 2);
    KILN_SDOT_ROW(3, a0, 3);
    KILN_SDOT_ROW(4, a1, 0);
    KILN_SDOT_ROW(5, a1, 1);
    KILN_SDOT_ROW(6, a1, 2);
    KILN_SDOT_ROW(7, a1, 3);
    a += 32;
    b += 32;
  }
  int32_t sums[64];
  for (int i = 0; i < 8; i++) {
    vst1q_s32(sums + i * 8, acc[i][0]);
    vst1q_s32(sums + i * 8 + 4, acc[i][1]);
  }
  if (rows == 8 && cols == 8) {
    int32_t v[8][8];
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) v[i][j] = sums[i * 8 + j];
    q_epilogue<QScalarLanes, 8, 8>(v, t);
  } else {
    q_store_edge<8, 8>(sums, t, rows, cols);
  }
}
#undef KILN_SDOT_ROW

void row(const int32_t* acc, int64_t n, const QTileArgs& t) {
  q_row<QScalarLanes>(acc, n, t);
}

// The kernel with A (MatMul: A activations, B s8 weights) or B (convolutions: A s8 weights, B
// activations) the zero-point side; the tile is the same (both sides are s8).
constexpr QMicroKernel sdot_kernel(const char* name, bool a_unsigned) {
  return {name,
          Isa::Neon,
          QFormat::Dot4,
          a_unsigned,
          8,
          8,
          &tile,
          &row,
          &q_depthwise_vec<4, QScalarLanes>,
          &q_depthwise_channels<4, QScalarLanes>,
          4,
          nullptr,
          true};
}

}  // namespace

const QMicroKernel kQNeonDotSignedA = sdot_kernel("qmmm_i8_8x8_neondot", false);
const QMicroKernel kQNeonDotUnsignedA = sdot_kernel("qmmm_u8_8x8_neondot", true);

}  // namespace kiln::kernels
