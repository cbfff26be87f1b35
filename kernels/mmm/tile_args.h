// What the matrix-multiply drivers (mmm, mmm_in_place) share: the per-tile epilogue arguments
// they hand to the micro-kernels (an Epilogue resolved once per call, then moved to each tile's
// first output) and how they split a product over threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/threading.h"

#include "kernels/mmm/mmm.h"

namespace kiln::kernels {

// The epilogue of the tile whose first output is (i0, j0): `base` (offsets 0, 0) moved there.
inline TileArgs tile_args(const TileArgs& base, int64_t i0, int64_t j0) {
  TileArgs t = base;
  t.c = base.c + i0 * base.ldc + j0;
  if (t.row_scale) t.row_scale += i0;
  if (t.col_scale) t.col_scale += j0;
  if (t.row_bias) t.row_bias += i0;
  if (t.col_bias) t.col_bias += j0;
  if (t.residual) t.residual += i0 * base.residual_ld + j0;
  return t;
}

// `ep` writing into c (row stride ldc), at offsets 0, 0.
inline TileArgs base_args(const Epilogue& ep, float* c, int64_t ldc) {
  TileArgs t;
  t.c = c;
  t.ldc = ldc;
  t.row_scale = ep.row_scale;
  t.col_scale = ep.col_scale;
  t.row_bias = ep.row_bias;
  t.col_bias = ep.col_bias;
  t.residual = ep.residual;
  t.residual_ld = ep.residual_ld;
  t.residual_last = ep.residual_last;
  t.accumulate = ep.accumulate;
  t.leaky = ep.leaky;
  t.leaky_alpha = ep.leaky_alpha;
  t.clamp = !(std::isinf(ep.min) && ep.min < 0 && std::isinf(ep.max) && ep.max > 0);
  t.min = ep.min;
  t.max = ep.max;
  return t;
}

// Threads for an m x n x k product (threads <= 0: num_threads()): work below ~64k FMAs per
// thread is not worth waking a thread for.
inline int product_threads(int64_t m, int64_t n, int64_t k, int threads) {
  if (threads <= 0) threads = num_threads();
  // In double: a plan made from a hostile model's declared shapes may have m * n * k past 2^63.
  const double useful = static_cast<double>(m) * static_cast<double>(n) *
                        static_cast<double>(std::max<int64_t>(k, 1)) / 65536.0;
  return useful >= threads ? threads : std::max(1, static_cast<int>(useful));
}

// The grain of a parallel_for over items of `fma_per_item` multiply-adds each (tiles, panels):
// pieces of at least ~32k multiply-adds (about a microsecond), as claiming one costs a
// compare-and-swap on a line the other threads touch too.
inline int64_t product_grain(int64_t fma_per_item) {
  constexpr int64_t kMinPieceFma = 32768;
  return (kMinPieceFma + fma_per_item - 1) / std::max<int64_t>(fma_per_item, 1);
}

}  // namespace kiln::kernels
