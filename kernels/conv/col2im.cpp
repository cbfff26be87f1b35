#include "kernels/conv/col2im.h"

#include <algorithm>

#include "base/threading.h"

namespace kiln::kernels {

void col2im_f32(const float* cols, int64_t ld, int64_t channels, const ConvGeometry& g,
                const float* bias, float* y) {
  const int64_t out_size = g.out_size(), volume = g.kernel_size(), in_size = g.in_size();
  parallel_for_work(channels, in_size * volume + out_size, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; c++) {
      float* plane = y + c * out_size;
      std::fill_n(plane, out_size, bias ? bias[c] : 0.0f);
      for (int64_t kz = 0; kz < g.kernel[0]; kz++) {
        for (int64_t ky = 0; ky < g.kernel[1]; ky++) {
          for (int64_t kx = 0; kx < g.kernel[2]; kx++) {
            const int64_t r = ((c * g.kernel[0] + kz) * g.kernel[1] + ky) * g.kernel[2] + kx;
            // The input x range whose outputs fall inside the plane.
            const int64_t x0 = kx * g.dilation[2] - g.pad[2];
            int64_t ix_lo = 0, ix_hi = g.in[2];
            while (ix_lo < ix_hi && ix_lo * g.stride[2] + x0 < 0) ix_lo++;
            while (ix_hi > ix_lo && (ix_hi - 1) * g.stride[2] + x0 >= g.out[2]) ix_hi--;
            for (int64_t iz = 0; iz < g.in[0]; iz++) {
              const int64_t oz = iz * g.stride[0] - g.pad[0] + kz * g.dilation[0];
              if (oz < 0 || oz >= g.out[0]) continue;
              for (int64_t iy = 0; iy < g.in[1]; iy++) {
                const int64_t oy = iy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
                if (oy < 0 || oy >= g.out[1]) continue;
                const float* src = cols + r * ld + (iz * g.in[1] + iy) * g.in[2];
                float* dst = plane + (oz * g.out[1] + oy) * g.out[2];
                const int64_t s = g.stride[2];
                for (int64_t ix = ix_lo; ix < ix_hi; ix++) dst[ix * s + x0] += src[ix];
              }
            }
          }
        }
      }
    }
  });
}

}  // namespace kiln::kernels
