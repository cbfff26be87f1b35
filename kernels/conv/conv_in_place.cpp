#include "kernels/conv/conv_in_place.h"

#include <algorithm>
#include <vector>

#include "base/error.h"
#include "kernels/conv/im2col.h"
#include "kernels/mmm/mmm_in_place.h"

namespace kiln::kernels {

bool conv_in_place_supported(const MicroKernel& kernel, const ConvGeometry& geo) {
  return kernel.in_place != nullptr && is_planar(geo) && geo.stride[2] == 1 && geo.out_size() > 0;
}

bool conv_in_place_pays(const MicroKernel& kernel, const ConvGeometry& geo, int64_t m) {
  if (!conv_in_place_supported(kernel, geo)) return false;
  // A row's last, partial tile costs about its vectors (of 8 lanes): the row's useful share of
  // what its tiles cost.
  const int64_t nr = kernel.nr, ow = geo.out[2];
  const int64_t full = ow / nr, rest = ow % nr;
  const double cost = static_cast<double>(full) + static_cast<double>((rest + 7) / 8 * 8) / nr;
  const double in_place = static_cast<double>(ow) / nr / cost;
  // The im2col path's share: its panel copy costs about as much as kCopyRows more rows of the
  // product. Measured on conv2d_stream's 16-channel dilated 3x3 conv (AMD EPYC Zen 3, AVX2, 1
  // thread; 200 x 20 plane, in place at 0.83): the model ran in 0.42 ms in place against 0.50 ms
  // through im2col panels; 4 is the conservative end (16 channels: 0.80).
  constexpr double kCopyRows = 4;
  const double im2col = static_cast<double>(m) / (static_cast<double>(m) + kCopyRows);
  return in_place >= 0.95 || in_place >= im2col;
}

void conv_in_place(const MicroKernel& kernel, int64_t m, int64_t channels, const ConvGeometry& geo,
                   const PanelSource& w, const float* x, float* padded, const Epilogue& ep,
                   float* y, int threads, int64_t* off) {
  KILN_ENSURE(conv_in_place_supported(kernel, geo),
              "conv_in_place: kernel {} cannot run this convolution in place", kernel.name);
  const PaddedPlanes planes = pad_planes(x, channels, geo, padded);
  const int64_t kh = geo.kernel[1], kw = geo.kernel[2], k = channels * kh * kw;
  // One offset per (channel, tap).
  size_t kk = 0;
  for (int64_t c = 0; c < channels; c++) {
    for (int64_t ky = 0; ky < kh; ky++) {
      for (int64_t kx = 0; kx < kw; kx++) {
        off[kk++] = c * planes.plane_stride + ky * geo.dilation[1] * planes.row_stride +
                    kx * geo.dilation[2];
      }
    }
  }
  InPlaceB b;
  b.b = planes.data;
  b.off = off;
  b.segment = geo.out[2];
  b.segment_stride = geo.stride[1] * planes.row_stride;
  mmm_in_place(kernel, m, geo.out_size(), k, w, b, ep, y, geo.out_size(), threads);
}

void conv_in_place(const MicroKernel& kernel, int64_t m, int64_t channels, const ConvGeometry& geo,
                   const PanelSource& w, const float* x, float* padded, const Epilogue& ep,
                   float* y, int threads) {
  std::vector<int64_t> off(
      static_cast<size_t>(std::max<int64_t>(channels * geo.kernel[1] * geo.kernel[2], 1)));
  conv_in_place(kernel, m, channels, geo, w, x, padded, ep, y, threads, off.data());
}

}  // namespace kiln::kernels
