// Depthwise and im2col kernels vs naive convolution loops, for every ISA this machine has.
// Tolerance: at most 5 * 5 = 25 float products of size <= 1 per output, summed in another order
// than the double reference: 25 * 2^-24 * 4 < 1e-5; 2e-5 absolute is used, while a wrong tap or
// boundary changes an output by ~0.1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/conv/depthwise.h"
#include "kernels/conv/im2col.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;

ConvGeometry make_geo(int64_t ih, int64_t iw, int64_t k, int64_t s, int64_t d, int64_t pad) {
  ConvGeometry g;
  g.in[1] = ih;
  g.in[2] = iw;
  g.kernel[1] = g.kernel[2] = k;
  g.stride[1] = g.stride[2] = s;
  g.dilation[1] = g.dilation[2] = d;
  g.pad[1] = g.pad[2] = pad;
  g.out[1] = (ih + 2 * pad - (d * (k - 1) + 1)) / s + 1;
  g.out[2] = (iw + 2 * pad - (d * (k - 1) + 1)) / s + 1;
  return g;
}

double input_at(const std::vector<float>& x, const ConvGeometry& g, int64_t c, int64_t oy,
                int64_t ox, int64_t ky, int64_t kx) {
  int64_t iy = oy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
  int64_t ix = ox * g.stride[2] - g.pad[2] + kx * g.dilation[2];
  if (iy < 0 || iy >= g.in[1] || ix < 0 || ix >= g.in[2]) return 0;
  return x[(c * g.in[1] + iy) * g.in[2] + ix];
}

std::vector<float> random_vector(std::mt19937& rng, int64_t n) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(KernelsDepthwise, MatchesNaiveEveryIsa) {
  std::mt19937 rng(1);
  struct P {
    int64_t ih, iw, k, s, d, pad;
  };
  std::vector<P> params = {{1, 1, 1, 1, 1, 0},   {7, 9, 3, 1, 1, 1},    {8, 8, 3, 2, 1, 1},
                           {17, 33, 3, 2, 1, 0}, {12, 13, 5, 1, 1, 2},  {10, 11, 3, 1, 2, 2},
                           {9, 40, 5, 3, 1, 2},  {112, 112, 3, 1, 1, 1}};
  const int64_t channels = 5;
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (const P& p : params) {
      ConvGeometry g = make_geo(p.ih, p.iw, p.k, p.s, p.d, p.pad);
      auto x = random_vector(rng, channels * g.in_size());
      auto w = random_vector(rng, channels * g.kernel_size());
      auto b = random_vector(rng, channels);
      std::vector<float> y(static_cast<size_t>(channels * g.out_size()));
      kernels::DepthwiseArgs a;
      a.x = x.data();
      a.w = w.data();
      a.bias = b.data();
      a.y = y.data();
      a.channels = channels;
      a.geo = g;
      a.min = 0;  // Relu6 fused
      a.max = 6;
      kernels::depthwise_conv_f32(a, 0, channels, isa);
      int bad = 0;
      for (int64_t c = 0; c < channels; c++) {
        for (int64_t oy = 0; oy < g.out[1]; oy++) {
          for (int64_t ox = 0; ox < g.out[2]; ox++) {
            double s = b[c];
            for (int64_t ky = 0; ky < p.k; ky++) {
              for (int64_t kx = 0; kx < p.k; kx++) {
                s += w[(c * p.k + ky) * p.k + kx] * input_at(x, g, c, oy, ox, ky, kx);
              }
            }
            s = std::min(std::max(s, 0.0), 6.0);
            float got = y[(c * g.out[1] + oy) * g.out[2] + ox];
            if (!(std::fabs(got - s) <= 2e-5) && bad++ < 3) {
              ADD_FAILURE() << kernels::isa_name(isa) << " " << p.ih << "x" << p.iw << " k" << p.k
                            << " s" << p.s << " d" << p.d << " c" << c << " (" << oy << "," << ox
                            << "): " << got << " vs " << s;
            }
          }
        }
      }
    }
  }
}

// The row and channel-block kernels (3x3 / 5x5, stride 1 / 2) on random geometries: 1..20
// channels of which a random sub-range is computed (whole blocks of vector-width channels and
// remainders), 1..19 rows, 1..40 columns (output rows up to 16 wide take the channel-block path,
// wider ones the row path), leading and trailing padding 0..k (so some outputs see only padding),
// with and without a clamp. Same tolerance as above (<= 25 products). Channels outside [c0, c1)
// must stay untouched.
TEST(KernelsDepthwise, RowKernelRandomGeometriesEveryIsa) {
  std::mt19937 rng(7);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (int iter = 0; iter < 300; iter++) {
      const int64_t k = pick(0, 1) ? 5 : 3, s = pick(1, 2);
      ConvGeometry g;
      g.in[1] = pick(1, 19);
      g.in[2] = pick(1, 40);
      g.kernel[1] = g.kernel[2] = k;
      g.stride[1] = g.stride[2] = s;
      g.pad[1] = pick(0, k);
      g.pad[2] = pick(0, k);
      const int64_t end_y = pick(0, k), end_x = pick(0, k);
      g.out[1] = (g.in[1] + g.pad[1] + end_y - k) / s + 1;
      g.out[2] = (g.in[2] + g.pad[2] + end_x - k) / s + 1;
      if (g.out[1] < 1 || g.out[2] < 1) continue;
      const int64_t channels = pick(1, 20), c0 = pick(0, channels - 1);
      const int64_t c1 = pick(c0 + 1, channels);
      const bool clamp = pick(0, 1);
      auto x = random_vector(rng, channels * g.in_size());
      auto w = random_vector(rng, channels * g.kernel_size());
      auto b = random_vector(rng, channels);
      std::vector<float> y(static_cast<size_t>(channels * g.out_size()), 42.0f);
      kernels::DepthwiseArgs a;
      a.x = x.data();
      a.w = w.data();
      a.bias = pick(0, 3) ? b.data() : nullptr;
      a.y = y.data();
      a.channels = channels;
      a.geo = g;
      if (clamp) {
        a.min = -0.5f;
        a.max = 0.75f;
      }
      kernels::depthwise_conv_f32(a, c0, c1, isa);
      int bad = 0;
      for (int64_t c = 0; c < channels; c++) {
        for (int64_t oy = 0; oy < g.out[1]; oy++) {
          for (int64_t ox = 0; ox < g.out[2]; ox++) {
            float got = y[(c * g.out[1] + oy) * g.out[2] + ox];
            double want = 42.0;
            if (c >= c0 && c < c1) {
              want = a.bias ? b[c] : 0.0;
              for (int64_t ky = 0; ky < k; ky++) {
                for (int64_t kx = 0; kx < k; kx++) {
                  want += w[(c * k + ky) * k + kx] * input_at(x, g, c, oy, ox, ky, kx);
                }
              }
              if (clamp) want = std::min(std::max(want, -0.5), 0.75);
            }
            if (!(std::fabs(got - want) <= 2e-5) && bad++ < 3) {
              ADD_FAILURE() << kernels::isa_name(isa) << " in " << g.in[1] << "x" << g.in[2]
                            << " out " << g.out[1] << "x" << g.out[2] << " k" << k << " s" << s
                            << " pad " << g.pad[1] << "," << g.pad[2] << " channels " << c0 << ".."
                            << c1 << "/" << channels << " c" << c << " (" << oy << "," << ox
                            << "): " << got << " vs " << want;
            }
          }
        }
      }
    }
  }
}

TEST(KernelsIm2col, PanelsHoldTheWindowValuesAndZeroPadding) {
  std::mt19937 rng(2);
  for (auto [k, s, d, pad] : std::vector<std::array<int64_t, 4>>{
           {3, 1, 1, 1}, {3, 2, 1, 1}, {1, 2, 1, 0}, {3, 1, 2, 2}, {2, 3, 1, 0}}) {
    ConvGeometry g = make_geo(9, 11, k, s, d, pad);
    const int64_t channels = 3, width = 16;
    auto x = random_vector(rng, channels * g.in_size());
    std::vector<float> padded(
        static_cast<size_t>(kernels::Im2colSource::padded_floats(channels, g)));
    kernels::Im2colSource src(x.data(), channels, g, width, padded.data());
    std::vector<float> panel(static_cast<size_t>(src.k() * width));
    int64_t panels = (g.out_size() + width - 1) / width;
    for (int64_t p = 0; p < panels; p++) {
      const float* got = src.panel(p, panel.data());
      for (int64_t c = 0; c < channels; c++) {
        for (int64_t ky = 0; ky < k; ky++) {
          for (int64_t kx = 0; kx < k; kx++) {
            int64_t kk = (c * k + ky) * k + kx;
            for (int64_t j = 0; j < width; j++) {
              int64_t pos = p * width + j;
              double want = pos < g.out_size()
                                ? input_at(x, g, c, pos / g.out[2], pos % g.out[2], ky, kx)
                                : 0.0;
              ASSERT_EQ(got[kk * width + j], static_cast<float>(want))
                  << "panel " << p << " kk " << kk << " j " << j;
            }
          }
        }
      }
    }
  }
}

// im2col panels on random 2-D geometries: rectangular kernels 1..4, strides 1..3, dilations 1..2,
// leading and trailing padding 0..3 (with and without, so both the padded copy and the direct read
// of the input are used), 1..4 channels, panel widths 8/16/32 (whole-row copies) and odd widths
// (per-lane offsets). Panels must hold the exact input values (no arithmetic), zeros elsewhere.
TEST(KernelsIm2col, RandomGeometriesExactValues) {
  std::mt19937 rng(3);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 400; iter++) {
    ConvGeometry g;
    g.in[1] = pick(1, 15);
    g.in[2] = pick(1, 15);
    const bool pad = pick(0, 1);
    int64_t end[3] = {0, 0, 0};
    for (int a = 1; a < 3; a++) {
      g.kernel[a] = pick(1, 4);
      g.stride[a] = pick(1, 3);
      g.dilation[a] = pick(1, 2);
      g.pad[a] = pad ? pick(0, 3) : 0;
      end[a] = pad ? pick(0, 3) : 0;
      g.out[a] =
          (g.in[a] + g.pad[a] + end[a] - (g.dilation[a] * (g.kernel[a] - 1) + 1)) / g.stride[a] + 1;
    }
    if (g.out[1] < 1 || g.out[2] < 1) continue;
    const int64_t channels = pick(1, 4);
    const int64_t widths[] = {8, 16, 32, 5, 1};
    const int64_t width = widths[pick(0, 4)];
    auto x = random_vector(rng, channels * g.in_size());
    std::vector<float> padded(
        static_cast<size_t>(kernels::Im2colSource::padded_floats(channels, g)), 0.0f);
    kernels::Im2colSource src(x.data(), channels, g, static_cast<int>(width), padded.data());
    std::vector<float> panel(static_cast<size_t>(src.k() * width), 7.0f);
    const int64_t kh = g.kernel[1], kw = g.kernel[2];
    int64_t panels = (g.out_size() + width - 1) / width;
    for (int64_t p = 0; p < panels; p++) {
      const float* got = src.panel(p, panel.data());
      for (int64_t c = 0; c < channels; c++) {
        for (int64_t ky = 0; ky < kh; ky++) {
          for (int64_t kx = 0; kx < kw; kx++) {
            int64_t kk = (c * kh + ky) * kw + kx;
            for (int64_t j = 0; j < width; j++) {
              int64_t pos = p * width + j;
              double want = pos < g.out_size()
                                ? input_at(x, g, c, pos / g.out[2], pos % g.out[2], ky, kx)
                                : 0.0;
              ASSERT_EQ(got[kk * width + j], static_cast<float>(want))
                  << "in " << g.in[1] << "x" << g.in[2] << " k " << kh << "x" << kw << " s "
                  << g.stride[1] << "," << g.stride[2] << " d " << g.dilation[1] << ","
                  << g.dilation[2] << " pad " << g.pad[1] << "," << g.pad[2] << " width " << width
                  << " panel " << p << " kk " << kk << " j " << j;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln
