#include "kernels/image/resize.h"

#include <algorithm>

#include "base/threading.h"

namespace kiln::kernels {

namespace {

// An output row of a nearest resize: a copy when the columns are not resized, otherwise a
// gather (runs of equal indices, as in an integer upsampling, repeat one value).
void nearest_row(const float* src, const ResizeAxis& cols, float* dst) {
  if (cols.in == cols.out) {
    bool identity = true;
    for (int64_t o = 0; o < cols.out && identity; o++) identity = cols.i0[o] == o;
    if (identity) {
      std::copy_n(src, cols.out, dst);
      return;
    }
  }
  for (int64_t o = 0; o < cols.out; o++) dst[o] = src[cols.i0[o]];
}

}  // namespace

void resize_nearest_2d(const float* x, int64_t planes, const ResizeAxis& rows,
                       const ResizeAxis& cols, float* y) {
  const int64_t in_plane = rows.in * cols.in, out_plane = rows.out * cols.out;
  parallel_for_work(planes * rows.out, cols.out, [&](int64_t first, int64_t last) {
    for (int64_t t = first; t < last; t++) {
      const int64_t p = t / rows.out, o = t % rows.out;
      const float* src = x + p * in_plane + rows.i0[o] * cols.in;
      float* dst = y + p * out_plane + o * cols.out;
      // Consecutive output rows reading the same input row: copy the row already written.
      if (o > 0 && t > first && rows.i0[o - 1] == rows.i0[o]) {
        std::copy_n(dst - cols.out, cols.out, dst);
      } else {
        nearest_row(src, cols, dst);
      }
    }
  });
}

void resize_linear_2d(const float* x, int64_t planes, const ResizeAxis& rows,
                      const ResizeAxis& cols, float* y, float* scratch) {
  const int64_t in_plane = rows.in * cols.in, out_plane = rows.out * cols.out;
  parallel_for_work(planes * rows.out, cols.out * 4, [&](int64_t first, int64_t last) {
    float* blend = scratch + current_thread_slot() * cols.in;
    for (int64_t t = first; t < last; t++) {
      const int64_t p = t / rows.out, o = t % rows.out;
      const float* r0 = x + p * in_plane + rows.i0[o] * cols.in;
      const float* r1 = x + p * in_plane + rows.i1[o] * cols.in;
      const float wy0 = rows.w0[o], wy1 = rows.w1[o];
      // The rows first (vectorizable), then the columns. A tap of weight 0 is skipped, as in
      // the reference: an infinite or NaN neighbour of an exact sample point does not leak in.
      if (wy1 == 0) {
        for (int64_t i = 0; i < cols.in; i++) blend[i] = wy0 * r0[i];
      } else if (wy0 == 0) {
        for (int64_t i = 0; i < cols.in; i++) blend[i] = wy1 * r1[i];
      } else {
        for (int64_t i = 0; i < cols.in; i++) blend[i] = wy0 * r0[i] + wy1 * r1[i];
      }
      float* dst = y + p * out_plane + o * cols.out;
      for (int64_t c = 0; c < cols.out; c++) {
        const float w0 = cols.w0[c], w1 = cols.w1[c];
        const float a = w0 != 0 ? w0 * blend[cols.i0[c]] : 0.0f;
        const float b = w1 != 0 ? w1 * blend[cols.i1[c]] : 0.0f;
        dst[c] = a + b;
      }
    }
  });
}

}  // namespace kiln::kernels
