// The per-tile epilogue arguments the matrix-multiply drivers (mmm, mmm_in_place) hand to the
// micro-kernels: an Epilogue resolved once per call, then moved to each tile's first output.
#pragma once

#include <cmath>

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
  t.accumulate = ep.accumulate;
  t.leaky = ep.leaky;
  t.leaky_alpha = ep.leaky_alpha;
  t.clamp = !(std::isinf(ep.min) && ep.min < 0 && std::isinf(ep.max) && ep.max > 0);
  t.min = ep.min;
  t.max = ep.max;
  return t;
}

}  // namespace kiln::kernels
