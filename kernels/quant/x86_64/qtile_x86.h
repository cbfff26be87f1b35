// The x86 int8 micro-kernel body, written once over traits (AVX2 / AVX-512 registers) and a dot
// step, instantiated by each ISA's file with its own -m flags (anonymous namespace, see
// kernels/mmm/x86_64/tile_simd.h).
//   Wide16 step: acc += VPMADDWD(a pair, b pairs): i16 x i16 products summed in pairs into i32 --
//     exact for any int8 values and zero points (VPMADDUBSW's i16 saturation never arises).
//   Dot4 step (VNNI): acc = VPDPBUSD(acc, u8 x4, s8 x4).
// MR rows (one broadcast 32-bit word of the A panel each) x NV vectors of W i32 columns.
#pragma once

#include <immintrin.h>

#include <cstring>

#include "kernels/quant/qtile_impl.h"

namespace kiln::kernels {
namespace {

// A partial tile (rows x cols of MR x NV * W): the vector epilogue on the whole tile, with the
// row and column parameters copied into zero-padded arrays (so nothing past the real rows and
// columns is read), into a local tile, whose top-left rows x cols go to C.
template <class S, int MR, int NV>
[[gnu::noinline]] void q_edge_x86(typename S::VI (&acc)[MR][NV], const QTileArgs& t, int rows,
                                  int cols) {
  constexpr int NR = NV * S::W;
  alignas(64) float rs[MR], rb[MR], cs[NR], cb[NR];
  alignas(64) int32_t ro[MR], co[NR];
  QTileArgs q = t;
  auto pad = [](auto* dst, const auto* src, int n, int len) {
    for (int i = 0; i < len; i++) dst[i] = i < n ? src[i] : 0;
    return dst;
  };
  if (t.row_scale) q.row_scale = pad(rs, t.row_scale, rows, MR);
  if (t.row_bias) q.row_bias = pad(rb, t.row_bias, rows, MR);
  if (t.row_offset) q.row_offset = pad(ro, t.row_offset, rows, MR);
  if (t.col_scale) q.col_scale = pad(cs, t.col_scale, cols, NR);
  if (t.col_bias) q.col_bias = pad(cb, t.col_bias, cols, NR);
  if (t.col_offset) q.col_offset = pad(co, t.col_offset, cols, NR);
  const size_t size = t.output == OutputType::U8 || t.output == OutputType::I8 ? 1 : 4;
  alignas(64) unsigned char out[MR * NR * 4];
  q.c = out;
  q.ldc = NR;
  q_epilogue<S, MR, NV>(acc, q);
  for (int i = 0; i < rows; i++)
    std::memcpy(static_cast<char*>(t.c) + static_cast<size_t>(i * t.ldc) * size,
                out + static_cast<size_t>(i * NR) * size, static_cast<size_t>(cols) * size);
}

// The tile's sums to C: the full-tile epilogue, or the edge path for a partial tile.
template <class S, int MR, int NV>
inline void q_finish_x86(typename S::VI (&acc)[MR][NV], const QTileArgs& t, int rows, int cols) {
  if (rows == MR && cols == NV * S::W) {
    q_epilogue<S, MR, NV>(acc, t);
    return;
  }
  q_edge_x86<S, MR, NV>(acc, t, rows, cols);
}

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
  q_finish_x86<S, MR, NV>(acc, t, rows, cols);
}

}  // namespace
}  // namespace kiln::kernels
