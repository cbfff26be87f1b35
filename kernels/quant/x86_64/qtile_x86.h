// The x86 int8 micro-kernel body, written once over traits (AVX2 / AVX-512 registers) and a dot
// step, instantiated by each ISA's file with its own -m flags (anonymous namespace, see
// kernels/mmm/x86_64/tile_simd.h).
//   Wide16 step: acc += VPMADDWD(a pair, b pairs): i16 x i16 products summed in pairs into i32 --
//     exact for any int8 values and zero points (VPMADDUBSW's i16 saturation never arises).
//   Dot4 step (VNNI): acc = VPDPBUSD(acc, u8 x4, s8 x4).
// MR rows (one broadcast 32-bit word of the A panel each) x NV vectors of W i32 columns.
#pragma once

#include <immintrin.h>

#include "kernels/quant/qtile_impl.h"

namespace kiln::kernels {
namespace {

template <class S, int MR, int NV, class Dot>
inline void q_tile_x86(int64_t kg, const int32_t* __restrict a, const int32_t* __restrict b,
                       const QTileArgs& t, int rows, int cols) {
  using VI = typename S::VI;
  constexpr int W = S::W;
  VI acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) acc[i][j] = S::zeroi();
  }
  for (int64_t g = 0; g < kg; g++) {
    VI bv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) bv[j] = S::load_aligned(b + j * W);
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++) {
      const VI av = S::set1i(a[i]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; j++) acc[i][j] = Dot::step(acc[i][j], av, bv[j]);
    }
    a += MR;
    b += NV * W;
  }
  if (rows == MR && cols == NV * W) {
    q_epilogue<S, MR, NV>(acc, t);
    return;
  }
  alignas(64) int32_t buf[MR * NV * W];
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; j++) S::storei(buf + i * NV * W + j * W, acc[i][j]);
  }
  q_store_edge<MR, NV * W>(buf, t, rows, cols);
}

}  // namespace
}  // namespace kiln::kernels
