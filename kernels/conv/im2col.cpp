#include "kernels/conv/im2col.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "base/threading.h"

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

typedef float V4 __attribute__((vector_size(16)));

inline V4 load4(const float* p) {
  V4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void store4(float* p, V4 v) {
  std::memcpy(p, &v, sizeof(v));
}

// Floats copy_line<N> reads from s at this stride: s[0 .. extent).
constexpr int64_t line_extent(int64_t n, int64_t stride) {
  return stride == 2 ? 2 * n : (n - 1) * stride + 1;
}

// d[j] = s[j * stride] for j < N (N a multiple of 4). Stride 2 loads pairs of vectors and keeps
// their even lanes (so it reads s[2N - 1], one float past the last one it keeps).
template <int N>
inline void copy_line(const float* __restrict s, int64_t stride, float* __restrict d) {
  if (stride == 1) {
    std::memcpy(d, s, N * sizeof(float));
  } else if (stride == 2) {
    for (int j = 0; j < N; j += 4) {
      store4(d + j, __builtin_shufflevector(load4(s + 2 * j), load4(s + 2 * j + 4), 0, 2, 4, 6));
    }
  } else {
    for (int j = 0; j < N; j++) d[j] = s[j * stride];
  }
}

typedef int32_t V4i __attribute__((vector_size(16)));

// {s[0], s[stride], s[2 stride], s[3 stride]} (stride 2: reads s[7]).
inline V4 load4_strided(const float* s, int64_t stride) {
  if (stride == 1) return load4(s);
  if (stride == 2) return __builtin_shufflevector(load4(s), load4(s + 4), 0, 2, 4, 6);
  return V4{s[0], s[stride], s[2 * stride], s[3 * stride]};
}

// A panel whose lanes cross output rows (each at least 4 long), per group of 4 lanes: the lanes
// before mask read tap[a[g] + i * stride], the others tap[b[g] + i * stride] (i < 4; b = a when
// the group lies in one output row). Branch-free: two loads and a blend per group.
template <int N>
void copy_groups(const float* tap, int64_t stride, const int64_t* a, const int64_t* b,
                 const V4i* mask, float* __restrict d) {
  for (int g = 0; g < N / 4; g++) {
    V4 u = load4_strided(tap + a[g], stride), v = load4_strided(tap + b[g], stride);
    store4(d + 4 * g, mask[g] ? v : u);
  }
}

}  // namespace

bool is_planar(const ConvGeometry& g) {
  return g.in[0] == 1 && g.out[0] == 1 && g.kernel[0] == 1 && g.pad[1] >= 0 && g.pad[2] >= 0;
}

PaddedPlanes pad_planes(const float* x, int64_t channels, const ConvGeometry& g, float* padded) {
  PaddedPlanes out;
  if (reads_input_directly(g)) {
    out.data = x;
    out.row_stride = g.in[2];
    out.plane_stride = g.in_size();
    return out;
  }
  KILN_ENSURE(padded != nullptr, "pad_planes: padded scratch missing");
  const int64_t ph = padded_rows(g), pw = padded_cols(g);
  out.row_stride = pw;
  out.plane_stride = ph * pw;
  // Channels split over the pool in pieces of at least kMinPieceWork floats (so a copy under two
  // pieces runs inline; a spinning worker joins within a microsecond): a serial copy here would be
  // as long as a small conv's share of the product.
  const int64_t plane = out.plane_stride;
  parallel_for(
      channels,
      [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; c++) {
          const float* xc = x + c * g.in_size();
          for (int64_t py = 0; py < ph; py++) {
            float* d = padded + c * plane + py * pw;
            const int64_t iy = py - g.pad[1];
            if (iy < 0 || iy >= g.in[1]) {
              std::memset(d, 0, static_cast<size_t>(pw) * sizeof(float));
            } else {
              gather_row(xc + iy * g.in[2], g.in[2], -g.pad[2], 1, pw, d);
            }
          }
        }
      },
      0, (kMinPieceWork + plane - 1) / plane);
  out.data = padded;
  return out;
}

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
  const PaddedPlanes planes = pad_planes(x, channels, g, padded);
  src_ = planes.data;
  row_stride_ = planes.row_stride;
  plane_stride_ = planes.plane_stride;
  source_floats_ = channels * plane_stride_;
  last_tap_ = (channels - 1) * plane_stride_ + (g.kernel[1] - 1) * g.dilation[1] * row_stride_ +
              (g.kernel[2] - 1) * g.dilation[2];
}

const float* Im2colSource::panel(int64_t p, float* dst) const {
  if (!planar_) return generic_panel(p, dst);
  switch (width_) {
    case 4:
      return planar_panel<4>(p, dst);
    case 8:
      return planar_panel<8>(p, dst);
    case 16:
      return planar_panel<16>(p, dst);
    case 32:
      return planar_panel<32>(p, dst);
    default:
      return planar_panel<0>(p, dst);
  }
}

template <int N>
const float* Im2colSource::planar_panel(int64_t p, float* dst) const {
  const ConvGeometry& g = geo_;
  const int64_t os = g.out_size(), ow = g.out[2];
  const int64_t j0 = p * width_;
  const int64_t w = std::min<int64_t>(width_, os - j0);
  const int64_t oy0 = j0 / ow, ox0 = j0 % ow;
  const int64_t sx = g.stride[2];
  // Tap (ky, kx) reads at ky * ty + kx * tx from a position's top-left corner (computed here, not
  // kept in a table: the source is built per run and must not allocate).
  const int64_t kh = g.kernel[1], kw = g.kernel[2];
  const int64_t ty = g.dilation[1] * row_stride_, tx = g.dilation[2];
  auto each_tap = [&](auto&& copy) {
    float* d = dst;
    for (int64_t c = 0; c < channels_; c++) {
      const float* bc = src_ + c * plane_stride_;
      for (int64_t ky = 0; ky < kh; ky++) {
        for (int64_t kx = 0; kx < kw; kx++, d += width_) copy(bc + ky * ty + kx * tx, d);
      }
    }
  };
  // Whether lines starting at src_ + [lo, hi] from every tap stay inside the source (the vector
  // copies read whole lines, past the lanes they keep).
  auto lines_inside = [&](int64_t lo, int64_t hi, int64_t extent) {
    return lo >= 0 && hi + last_tap_ + extent <= source_floats_;
  };
  if (N > 0 && w == width_) {
    if (ox0 + w <= ow) {
      // The whole panel lies in one output row: per tap, one (strided) copy.
      const int64_t base = oy0 * g.stride[1] * row_stride_ + ox0 * sx;
      if (lines_inside(base, base, line_extent(N, sx))) {
        each_tap([&](const float* tap, float* d) { copy_line<N>(tap + base, sx, d); });
        return dst;
      }
    } else if (ow >= 4) {
      // Across output rows: per group of 4 lanes, at most two output rows.
      int64_t a[N / 4 > 0 ? N / 4 : 1], b[N / 4 > 0 ? N / 4 : 1];
      V4i mask[N / 4 > 0 ? N / 4 : 1];
      const V4i lane = {0, 1, 2, 3};
      const int64_t ry = g.stride[1] * row_stride_;
      int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
      for (int gi = 0; gi < N / 4; gi++) {
        const int64_t q = j0 + 4 * gi, oy = q / ow, ox = q % ow;
        a[gi] = oy * ry + ox * sx;
        // Lanes from ow - ox on continue at the start of the next output row.
        const int64_t split = ow - ox;
        b[gi] = split < 4 ? (oy + 1) * ry - split * sx : a[gi];
        mask[gi] = lane >= static_cast<int32_t>(split);
        lo = std::min({lo, a[gi], b[gi]});
        hi = std::max({hi, a[gi], b[gi]});
      }
      if (lines_inside(lo, hi, line_extent(4, sx))) {
        each_tap([&](const float* tap, float* d) { copy_groups<N>(tap, sx, a, b, mask, d); });
        return dst;
      }
    }
  }
  // Otherwise (a partial last panel, output rows under 4 wide, lines past the source): one offset
  // per lane; lanes past w are zeros.
  int64_t lane[64];
  for (int64_t j = 0; j < w; j++) {
    const int64_t q = j0 + j, oy = q / ow, ox = q % ow;
    lane[j] = oy * g.stride[1] * row_stride_ + ox * sx;
  }
  each_tap([&](const float* s, float* d) {
    for (int64_t j = 0; j < w; j++) d[j] = s[lane[j]];
    for (int64_t j = w; j < width_; j++) d[j] = 0.0f;
  });
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
