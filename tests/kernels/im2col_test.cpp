// Im2colSource panels on random 2-D geometries against the window values read one by one: inputs
// 1..40 per axis, kernels 1..7 per axis, strides 1..3, dilations 1..2, leading and trailing
// padding 0..3 or none (so both the padded copy and the direct read of the input run), 1..20
// channels, at the panel widths of every micro-kernel (4: ARMv7 NEON, 8: generic and AArch64 NEON,
// 16: AVX2, 32: AVX-512) and odd widths (per-lane path). Exact: a panel holds copies, no
// arithmetic.
//
// The input and the padding scratch sit flush against inaccessible pages (once at the end of
// their mapping, once at its start): the vector copies read whole lines past the lanes they keep,
// and must never read outside either buffer.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "base/threading.h"
#include "kernels/conv/im2col.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;
using test::GuardedFloats;

TEST(KernelsIm2col, GuardedRandomGeometriesEveryPanelWidth) {
  std::mt19937 rng(17);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::uniform_real_distribution<float> value(-1, 1);
  int checked = 0;
  for (int iter = 0; iter < 200; iter++) {
    ConvGeometry g;
    const bool pad = pick(0, 1);
    int64_t end[3] = {0, 0, 0};
    for (int a = 1; a < 3; a++) {
      g.in[a] = pick(1, 40);
      g.kernel[a] = pick(1, 7);
      g.stride[a] = pick(1, 3);
      g.dilation[a] = pick(0, 3) == 0 ? 2 : 1;
      g.pad[a] = pad ? pick(0, 3) : 0;
      end[a] = pad ? pick(0, 3) : 0;
      g.out[a] =
          (g.in[a] + g.pad[a] + end[a] - (g.dilation[a] * (g.kernel[a] - 1) + 1)) / g.stride[a] + 1;
    }
    if (g.out[1] < 1 || g.out[2] < 1) continue;
    const int64_t channels = pick(0, 3) == 0 ? pick(1, 20) : pick(1, 4);
    const int64_t n = channels * g.in_size();
    const int64_t kk_count = channels * g.kernel[1] * g.kernel[2];
    const int64_t padded_count = kernels::Im2colSource::padded_floats(channels, g);
    for (bool at_end : {true, false}) {
      GuardedFloats x(static_cast<size_t>(n), at_end);
      GuardedFloats padded(static_cast<size_t>(padded_count), at_end);
      for (int64_t i = 0; i < n; i++) x.data()[i] = value(rng);
      for (int width : {4, 8, 16, 32, 5, 1}) {
        kernels::Im2colSource src(x.data(), channels, g, width,
                                  padded_count ? padded.data() : nullptr);
        ASSERT_EQ(src.k(), kk_count);
        std::vector<float> panel(static_cast<size_t>(kk_count * width));
        const int64_t panels = (g.out_size() + width - 1) / width;
        for (int64_t p = 0; p < panels; p++) {
          std::fill(panel.begin(), panel.end(), 7.0f);
          const float* got = src.panel(p, panel.data());
          for (int64_t c = 0; c < channels; c++) {
            for (int64_t ky = 0; ky < g.kernel[1]; ky++) {
              for (int64_t kx = 0; kx < g.kernel[2]; kx++) {
                const int64_t kk = (c * g.kernel[1] + ky) * g.kernel[2] + kx;
                for (int64_t j = 0; j < width; j++) {
                  const int64_t pos = p * width + j;
                  float want = 0.0f;
                  if (pos < g.out_size()) {
                    const int64_t oy = pos / g.out[2], ox = pos % g.out[2];
                    const int64_t iy = oy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
                    const int64_t ix = ox * g.stride[2] - g.pad[2] + kx * g.dilation[2];
                    if (iy >= 0 && iy < g.in[1] && ix >= 0 && ix < g.in[2]) {
                      want = x.data()[(c * g.in[1] + iy) * g.in[2] + ix];
                    }
                  }
                  ASSERT_EQ(got[kk * width + j], want)
                      << "in " << g.in[1] << "x" << g.in[2] << " c " << channels << " k "
                      << g.kernel[1] << "x" << g.kernel[2] << " s " << g.stride[1] << ","
                      << g.stride[2] << " d " << g.dilation[1] << "," << g.dilation[2] << " pad "
                      << g.pad[1] << "," << g.pad[2] << " width " << width << " panel " << p
                      << " kk " << kk << " j " << j;
                }
              }
            }
          }
        }
      }
    }
    checked++;
  }
  EXPECT_GT(checked, 100);
}

// The padded copy is split over the pool by channels: at any thread count every padded float is
// written (the scratch starts as NaN) and the panels are the same bits.
TEST(KernelsIm2col, PaddedCopySplitOverThreads) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> value(-1, 1);
  ConvGeometry g;
  g.in[1] = 31;
  g.in[2] = 29;
  g.kernel[1] = g.kernel[2] = 3;
  g.pad[1] = 2;
  g.pad[2] = 1;
  g.out[1] = 31 + 2 * 2 - 2;
  g.out[2] = 29 + 2 * 1 - 2;
  const int64_t channels = 37;
  std::vector<float> x(static_cast<size_t>(channels * g.in_size()));
  for (float& v : x) v = value(rng);
  const int64_t padded_count = kernels::Im2colSource::padded_floats(channels, g);
  ASSERT_GT(padded_count, 2 * kMinPieceWork);
  std::vector<float> first;
  for (int threads : {1, 2, 3, 5}) {
    set_num_threads(threads);
    std::vector<float> padded(static_cast<size_t>(padded_count),
                              std::numeric_limits<float>::quiet_NaN());
    kernels::Im2colSource src(x.data(), channels, g, 16, padded.data());
    for (float v : padded) ASSERT_FALSE(std::isnan(v)) << threads << " threads";
    std::vector<float> panels;
    std::vector<float> panel(static_cast<size_t>(src.k() * 16));
    for (int64_t p = 0; p < (g.out_size() + 15) / 16; p++) {
      const float* got = src.panel(p, panel.data());
      panels.insert(panels.end(), got, got + src.k() * 16);
    }
    if (first.empty()) {
      first = panels;
    } else {
      EXPECT_EQ(panels, first) << threads << " threads";
    }
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace kiln
