#include "kernels/conv/im2col.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace kiln::kernels {

namespace {

// dst[t] = row[ix0 + t * stride] for t < count, 0 where the index falls outside [0, width).
inline void gather_row(const float* row, int64_t width, int64_t ix0, int64_t stride, int64_t count,
                       float* dst) {
  // Valid t: 0 <= ix0 + t*stride < width.
  int64_t lo = ix0 >= 0 ? 0 : (-ix0 + stride - 1) / stride;
  int64_t hi = ix0 >= width ? 0 : (width - ix0 + stride - 1) / stride;
  lo = std::min(lo, count);
  hi = std::clamp(hi, lo, count);
  for (int64_t t = 0; t < lo; t++) dst[t] = 0.0f;
  if (stride == 1) {
    std::memcpy(dst + lo, row + ix0 + lo, static_cast<size_t>(hi - lo) * sizeof(float));
  } else {
    for (int64_t t = lo; t < hi; t++) dst[t] = row[ix0 + t * stride];
  }
  for (int64_t t = hi; t < count; t++) dst[t] = 0.0f;
}

bool is_planar(const ConvGeometry& g) {
  return g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.pad[1] >= 0 && g.pad[2] >= 0;
}

// Rows and columns of the padded plane the windows read: up to the last tap of the last output.
int64_t padded_rows(const ConvGeometry& g) {
  return (g.out[1] - 1) * g.stride[1] + (g.kernel[1] - 1) * g.dilation[1] + 1;
}
int64_t padded_cols(const ConvGeometry& g) {
  return (g.out[2] - 1) * g.stride[2] + (g.kernel[2] - 1) * g.dilation[2] + 1;
}

// True when every window stays inside the input: x itself is the padded plane.
bool reads_input_directly(const ConvGeometry& g) {
  return g.pad[1] == 0 && g.pad[2] == 0 && padded_rows(g) <= g.in[1] && padded_cols(g) <= g.in[2];
}

// d[j] = s[j * stride] for j < n (n a compile-time width: the copy unrolls and vectorizes).
template <int N>
inline void copy_strided(const float* __restrict s, int64_t stride, float* __restrict d) {
  if (stride == 1) {
    std::memcpy(d, s, N * sizeof(float));
  } else if (stride == 2) {
    for (int j = 0; j < N; j++) d[j] = s[2 * j];
  } else {
    for (int j = 0; j < N; j++) d[j] = s[j * stride];
  }
}

inline void copy_strided(const float* __restrict s, int64_t stride, int64_t n,
                         float* __restrict d) {
  switch (n) {
    case 8:
      return copy_strided<8>(s, stride, d);
    case 16:
      return copy_strided<16>(s, stride, d);
    case 32:
      return copy_strided<32>(s, stride, d);
    default:
      for (int64_t j = 0; j < n; j++) d[j] = s[j * stride];
  }
}

}  // namespace

int64_t Im2colSource::padded_floats(int64_t channels, const ConvGeometry& geo) {
  if (!is_planar(geo) || reads_input_directly(geo)) return 0;
  return channels * padded_rows(geo) * padded_cols(geo);
}

Im2colSource::Im2colSource(const float* x, int64_t channels, const ConvGeometry& geo,
                           int panel_width, float* padded)
    : x_(x), channels_(channels), geo_(geo), width_(panel_width) {
  KILN_ENSURE(panel_width > 0 && panel_width <= 64, "Im2colSource: panel width {} not in 1..64",
              panel_width);
  if (!is_planar(geo) || geo.out_size() <= 0) return;
  const ConvGeometry& g = geo;
  planar_ = true;
  if (reads_input_directly(g)) {
    src_ = x;
    row_stride_ = g.in[2];
    plane_stride_ = g.in_size();
  } else {
    KILN_ENSURE(padded != nullptr, "Im2colSource: padded scratch missing");
    const int64_t ph = padded_rows(g), pw = padded_cols(g);
    row_stride_ = pw;
    plane_stride_ = ph * pw;
    for (int64_t c = 0; c < channels; c++) {
      const float* xc = x + c * g.in_size();
      for (int64_t py = 0; py < ph; py++) {
        float* d = padded + c * plane_stride_ + py * pw;
        const int64_t iy = py - g.pad[1];
        if (iy < 0 || iy >= g.in[1]) {
          std::memset(d, 0, static_cast<size_t>(pw) * sizeof(float));
        } else {
          gather_row(xc + iy * g.in[2], g.in[2], -g.pad[2], 1, pw, d);
        }
      }
    }
    src_ = padded;
  }
  for (int64_t ky = 0; ky < g.kernel[1]; ky++) {
    for (int64_t kx = 0; kx < g.kernel[2]; kx++) {
      tap_offsets_.push_back(ky * g.dilation[1] * row_stride_ + kx * g.dilation[2]);
    }
  }
}

const float* Im2colSource::panel(int64_t p, float* dst) const {
  if (!planar_) return generic_panel(p, dst);
  const ConvGeometry& g = geo_;
  const int64_t os = g.out_size(), ow = g.out[2];
  const int64_t j0 = p * width_;
  const int64_t w = std::min<int64_t>(width_, os - j0);
  const int64_t oy0 = j0 / ow, ox0 = j0 % ow;
  const int64_t sx = g.stride[2];
  const int64_t taps = static_cast<int64_t>(tap_offsets_.size());
  if (w == width_ && ox0 + w <= ow) {
    // The whole panel lies in one output row: per tap, one (strided) copy.
    const float* base = src_ + oy0 * g.stride[1] * row_stride_ + ox0 * sx;
    float* d = dst;
    for (int64_t c = 0; c < channels_; c++) {
      const float* bc = base + c * plane_stride_;
      for (int64_t t = 0; t < taps; t++, d += width_) {
        copy_strided(bc + tap_offsets_[t], sx, width_, d);
      }
    }
    return dst;
  }
  // Across output rows or a partial last panel: one offset per lane; lanes past w are zeros.
  int64_t lane[64];
  for (int64_t j = 0; j < w; j++) {
    const int64_t q = j0 + j, oy = q / ow, ox = q % ow;
    lane[j] = oy * g.stride[1] * row_stride_ + ox * sx;
  }
  float* d = dst;
  for (int64_t c = 0; c < channels_; c++) {
    const float* bc = src_ + c * plane_stride_;
    for (int64_t t = 0; t < taps; t++, d += width_) {
      const float* s = bc + tap_offsets_[t];
      for (int64_t j = 0; j < w; j++) d[j] = s[lane[j]];
      for (int64_t j = w; j < width_; j++) d[j] = 0.0f;
    }
  }
  return dst;
}

const float* Im2colSource::generic_panel(int64_t p, float* dst) const {
  const ConvGeometry& g = geo_;
  const int64_t os = g.out_size(), plane = g.in_size();
  const int64_t j0 = p * width_;
  const int64_t w = std::min<int64_t>(width_, os - j0);
  // Output coordinates of the panel's first position.
  const int64_t oz0 = j0 / (g.out[1] * g.out[2]);
  const int64_t oy0 = (j0 / g.out[2]) % g.out[1];
  const int64_t ox0 = j0 % g.out[2];
  int64_t kk = 0;
  for (int64_t c = 0; c < channels_; c++) {
    const float* xc = x_ + c * plane;
    for (int64_t kz = 0; kz < g.kernel[0]; kz++) {
      for (int64_t ky = 0; ky < g.kernel[1]; ky++) {
        for (int64_t kx = 0; kx < g.kernel[2]; kx++, kk++) {
          float* d = dst + kk * width_;
          int64_t oz = oz0, oy = oy0, ox = ox0, j = 0;
          while (j < w) {
            int64_t seg = std::min(w - j, g.out[2] - ox);
            int64_t iz = oz * g.stride[0] - g.pad[0] + kz * g.dilation[0];
            int64_t iy = oy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
            if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1]) {
              std::memset(d + j, 0, static_cast<size_t>(seg) * sizeof(float));
            } else {
              const float* row = xc + (iz * g.in[1] + iy) * g.in[2];
              gather_row(row, g.in[2], ox * g.stride[2] - g.pad[2] + kx * g.dilation[2],
                         g.stride[2], seg, d + j);
            }
            j += seg;
            ox = 0;
            if (++oy == g.out[1]) {
              oy = 0;
              oz++;
            }
          }
          for (; j < width_; j++) d[j] = 0.0f;
        }
      }
    }
  }
  return dst;
}

}  // namespace kiln::kernels
