// Separable resize of the last two axes of f32 planes (Resize's nearest and linear modes): each
// output row / column reads one input row / column (nearest) or blends two (linear) with
// precomputed indices and weights, so any ONNX coordinate transformation and rounding mode is
// expressed by its tables (ops/image/resize_f32.cpp builds them from Resize::axis_taps).
//
// Linear blends in the reference's order (the rows first, then the columns):
//   y[oy][ox] = wx0 (wy0 x[y0][x0] + wy1 x[y1][x0]) + wx1 (wy0 x[y0][x1] + wy1 x[y1][x1])
// in float. Planes are independent and rows of a plane too: the work is split over the pool by
// output rows, results do not depend on the thread count.
#pragma once

#include <cstdint>

namespace kiln::kernels {

// One axis' table: output position o reads input i0[o] (and i1[o]) with weights w0[o] (and
// w1[o]); nearest tables have i1 = w0 = w1 = nullptr.
struct ResizeAxis {
  int64_t in = 0, out = 0;
  const int32_t* i0 = nullptr;
  const int32_t* i1 = nullptr;
  const float* w0 = nullptr;
  const float* w1 = nullptr;
};

// x: `planes` planes of [rows.in, cols.in]; y: planes of [rows.out, cols.out]. `scratch` holds
// cols.in floats per thread of the pool (linear only; nearest may pass nullptr).
void resize_nearest_2d(const float* x, int64_t planes, const ResizeAxis& rows,
                       const ResizeAxis& cols, float* y);
void resize_linear_2d(const float* x, int64_t planes, const ResizeAxis& rows,
                      const ResizeAxis& cols, float* y, float* scratch);

}  // namespace kiln::kernels
