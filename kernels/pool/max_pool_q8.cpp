#include "kernels/pool/max_pool_q8.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace kiln::kernels {

namespace {

template <class T>
void max_pool_2d_q8(const T* __restrict x, T* __restrict y, int64_t planes,
                    const MaxPool2dGeometry& g, T* __restrict row) {
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  const T lowest = std::numeric_limits<T>::lowest();
  for (int64_t p = 0; p < planes; p++) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    for (int64_t oy = 0; oy < g.out_h; oy++) {
      T* out = yp + oy * g.out_w;
      const int64_t y0 = std::max<int64_t>(oy * g.stride_h - g.pad_h, 0);
      const int64_t y1 = std::min<int64_t>(oy * g.stride_h - g.pad_h + g.kernel_h, g.in_h);
      if (y1 <= y0) {
        std::fill(out, out + g.out_w, lowest);
        continue;
      }
      // Column maxima of the window's rows (one row: read in place).
      const T* cm = xp + y0 * g.in_w;
      if (y1 - y0 > 1) {
        std::memcpy(row, cm, static_cast<size_t>(g.in_w) * sizeof(T));
        for (int64_t iy = y0 + 1; iy < y1; iy++) {
          const T* r = xp + iy * g.in_w;
          for (int64_t i = 0; i < g.in_w; i++) row[i] = std::max(row[i], r[i]);
        }
        cm = row;
      }
      for (int64_t ox = 0; ox < g.out_w; ox++) {
        const int64_t x0 = std::max<int64_t>(ox * g.stride_w - g.pad_w, 0);
        const int64_t x1 = std::min<int64_t>(ox * g.stride_w - g.pad_w + g.kernel_w, g.in_w);
        T best = lowest;
        for (int64_t i = x0; i < x1; i++) best = std::max(best, cm[i]);
        out[ox] = best;
      }
    }
  }
}

}  // namespace

void max_pool_2d_u8(const uint8_t* x, uint8_t* y, int64_t planes, const MaxPool2dGeometry& g,
                    uint8_t* row) {
  max_pool_2d_q8(x, y, planes, g, row);
}

void max_pool_2d_i8(const int8_t* x, int8_t* y, int64_t planes, const MaxPool2dGeometry& g,
                    int8_t* row) {
  max_pool_2d_q8(x, y, planes, g, row);
}

}  // namespace kiln::kernels
