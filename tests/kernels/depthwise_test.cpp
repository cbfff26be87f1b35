// The depthwise row and channel-block kernels (kernels/conv/depthwise_rows_impl.h) against a
// double-precision reference, on every ISA this machine has (KILN_ISA=generic runs the generic one
// only), covering each path's edges: row widths 1..40 (whole vectors, overlapping last vectors,
// rows narrower than a vector), every left/right/top/bottom padding 0..k-1 (input rows read in
// place or through the zero-padded ring, stride-2 deinterleave ends), odd and even heights (the
// two-rows-per-pass loop and its one-row tail), and channel blocks whose count is not a multiple
// of the vector width (register transposes, tails through the row path).
// Tolerance: at most 5 * 5 = 25 float products of size <= 1 plus a bias per output, summed in
// another order than the double reference: 26 * 2^-24 * 4 < 1e-5; 2e-5 absolute is used, while a
// wrong tap, phase or boundary changes an output by ~0.1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "kernels/conv/depthwise.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;

struct Case {
  int64_t channels, c0, c1, ih, iw, k, s, pad_t, pad_b, pad_l, pad_r;
  bool bias, clamp;
  bool lend = false;  // pass caller scratch (NaN-filled, guarded) instead of the thread's own
};

std::string describe(const Case& p, kernels::Isa isa) {
  std::ostringstream o;
  o << kernels::isa_name(isa) << " " << p.ih << "x" << p.iw << " k" << p.k << " s" << p.s
    << " pads t" << p.pad_t << " b" << p.pad_b << " l" << p.pad_l << " r" << p.pad_r << " channels "
    << p.c0 << ".." << p.c1 << "/" << p.channels << (p.bias ? " bias" : "")
    << (p.clamp ? " clamp" : "");
  return o.str();
}

// Runs one case; returns false (after reporting) on a mismatch or when the geometry is empty.
bool check(const Case& p, kernels::Isa isa, std::mt19937& rng) {
  ConvGeometry g;
  g.in[1] = p.ih;
  g.in[2] = p.iw;
  g.kernel[1] = g.kernel[2] = p.k;
  g.stride[1] = g.stride[2] = p.s;
  g.pad[1] = p.pad_t;
  g.pad[2] = p.pad_l;
  g.out[1] = (p.ih + p.pad_t + p.pad_b - p.k) / p.s + 1;
  g.out[2] = (p.iw + p.pad_l + p.pad_r - p.k) / p.s + 1;
  if (p.ih + p.pad_t + p.pad_b < p.k || p.iw + p.pad_l + p.pad_r < p.k) return true;
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> x(static_cast<size_t>(p.channels * g.in_size()));
  std::vector<float> w(static_cast<size_t>(p.channels * p.k * p.k));
  std::vector<float> b(static_cast<size_t>(p.channels));
  for (auto* v : {&x, &w, &b}) {
    for (auto& e : *v) e = d(rng);
  }
  // y, then a guard the kernel must not touch.
  const int64_t y_floats = p.channels * g.out_size();
  std::vector<float> y(static_cast<size_t>(y_floats + 64), 42.0f);
  kernels::DepthwiseArgs a;
  a.x = x.data();
  a.w = w.data();
  a.bias = p.bias ? b.data() : nullptr;
  a.y = y.data();
  a.channels = p.channels;
  a.geo = g;
  if (p.clamp) {
    a.min = -0.5f;
    a.max = 0.75f;
  }
  // Lent scratch: exactly depthwise_scratch_floats() floats of NaN (the kernel must not read
  // what it did not write), then a guard the kernel must not touch.
  const int64_t lent_floats = kernels::depthwise_scratch_floats(g, isa);
  std::vector<float> lent(static_cast<size_t>(lent_floats + 64),
                          std::numeric_limits<float>::quiet_NaN());
  for (int64_t i = lent_floats; i < lent_floats + 64; i++) lent[static_cast<size_t>(i)] = 7.0f;
  if (p.lend) a.scratch = lent.data();
  kernels::depthwise_conv_f32(a, p.c0, p.c1, isa);
  int bad = 0;
  for (int64_t i = lent_floats; i < lent_floats + 64; i++) {
    if (lent[static_cast<size_t>(i)] != 7.0f && bad++ < 3)
      ADD_FAILURE() << describe(p, isa) << ": wrote past its scratch at " << i;
  }
  for (int64_t i = y_floats; i < y_floats + 64; i++) {
    if (y[static_cast<size_t>(i)] != 42.0f && bad++ < 3)
      ADD_FAILURE() << describe(p, isa) << ": wrote past y at " << i;
  }
  for (int64_t c = 0; c < p.channels; c++) {
    for (int64_t oy = 0; oy < g.out[1]; oy++) {
      for (int64_t ox = 0; ox < g.out[2]; ox++) {
        double want = 42.0;
        if (c >= p.c0 && c < p.c1) {
          want = p.bias ? b[c] : 0.0;
          for (int64_t ky = 0; ky < p.k; ky++) {
            for (int64_t kx = 0; kx < p.k; kx++) {
              const int64_t iy = oy * p.s - p.pad_t + ky, ix = ox * p.s - p.pad_l + kx;
              if (iy < 0 || iy >= p.ih || ix < 0 || ix >= p.iw) continue;
              want += static_cast<double>(w[(c * p.k + ky) * p.k + kx]) *
                      x[(c * p.ih + iy) * p.iw + ix];
            }
          }
          if (p.clamp) want = std::min(std::max(want, -0.5), 0.75);
        }
        const float got = y[(c * g.out[1] + oy) * g.out[2] + ox];
        if (!(std::fabs(got - want) <= 2e-5) && bad++ < 3) {
          ADD_FAILURE() << describe(p, isa) << ": c" << c << " (" << oy << "," << ox << "): " << got
                        << " vs " << want;
        }
      }
    }
  }
  return bad == 0;
}

// Few channels (below every vector width: the row path only): every width 1..40 with every
// left/right padding 0..k-1, for 3x3 and 5x5, strides 1 and 2.
TEST(KernelsDepthwiseRows, EveryWidthAndPaddingEveryIsa) {
  std::mt19937 rng(11);
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (int64_t k : {3, 5}) {
      for (int64_t s : {1, 2}) {
        for (int64_t iw = 1; iw <= 40; iw++) {
          for (int64_t pad_l = 0; pad_l < k; pad_l++) {
            for (int64_t pad_r = 0; pad_r < k; pad_r++) {
              const int64_t ih = 1 + (iw * 7 + pad_l + pad_r) % 9;  // 1..9: odd and even
              const int64_t pad_t = (iw + pad_r) % k, pad_b = (iw + pad_l + 1) % k;
              const int64_t channels = 1 + iw % 3;
              Case p{channels, 0,     channels,      ih,           iw, k, s, pad_t, pad_b,
                     pad_l,    pad_r, (iw % 4) != 0, (iw % 2) == 0};
              if (!check(p, isa, rng)) return;
            }
          }
        }
      }
    }
  }
}

// Wide stride-2 3x3 rows (the in-place row kernel: inside vectors, the first vector shifted in for
// 1 or 2 floats of left padding, edge strips at the right end or for wider padding): every width
// 41..150, odd and even, every left/right padding 0..2, lent scratch every other width.
TEST(KernelsDepthwiseRows, WideStride2RowsEveryIsa) {
  std::mt19937 rng(14);
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (int64_t iw = 41; iw <= 150; iw++) {
      for (int64_t pad_l = 0; pad_l < 3; pad_l++) {
        for (int64_t pad_r = 0; pad_r < 3; pad_r++) {
          const int64_t ih = 3 + (iw + pad_l) % 6, pad_t = (iw + pad_r) % 3, pad_b = pad_l;
          Case p{2, 0, 2, ih, iw, 3, 2, pad_t, pad_b, pad_l, pad_r, iw % 3 != 0, iw % 2 == 0};
          p.lend = iw % 2 == 1;
          if (!check(p, isa, rng)) return;
        }
      }
    }
  }
}

// Tall planes: the two-rows-per-pass loop over many passes, the ring reusing its slots, and the
// rows transformed one pass ahead, with every top/bottom padding.
TEST(KernelsDepthwiseRows, TallPlanesEveryIsa) {
  std::mt19937 rng(12);
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (int64_t k : {3, 5}) {
      for (int64_t s : {1, 2}) {
        for (int64_t ih : {20, 21, 33}) {
          for (int64_t pad_t = 0; pad_t < k; pad_t++) {
            for (int64_t pad_b = 0; pad_b < k; pad_b++) {
              Case p{3, 0, 3, ih, 17 + ih + pad_t, k, s, pad_t, pad_b, k / 2, k / 2, true, true};
              if (!check(p, isa, rng)) return;
            }
          }
        }
        // Narrow but so tall that the channel blocks' scratch would be too big: whole blocks of
        // channels through the row path.
        Case p{18, 0, 18, 700, 20, k, s, 1, 1, 1, 1, true, false};
        if (!check(p, isa, rng)) return;
      }
    }
  }
}

// Small planes (output rows <= 32 wide take the channel-block path for whole blocks of the
// vector width): channel counts 1..37 with random sub-ranges, so blocks, tails through the row
// path and untouched channels all occur; planes smaller than a vector too (scalar transposes).
TEST(KernelsDepthwiseBlocks, ChannelCountsAndSmallPlanesEveryIsa) {
  std::mt19937 rng(13);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (int iter = 0; iter < 400; iter++) {
      const int64_t k = pick(0, 1) ? 5 : 3, s = pick(1, 2);
      const int64_t channels = pick(1, 37), c0 = pick(0, channels / 3);
      const int64_t c1 = pick(0, 2) ? channels : pick(c0 + 1, channels);
      const int64_t iw = pick(1, 32 * s + 2), ih = pick(1, 18);
      Case p{channels,
             c0,
             c1,
             ih,
             iw,
             k,
             s,
             pick(0, k - 1),
             pick(0, k - 1),
             pick(0, k - 1),
             pick(0, k - 1),
             pick(0, 3) != 0,
             pick(0, 1) != 0};
      if (!check(p, isa, rng)) return;
    }
  }
}

// The clamp keeps NaN (like the reference's comparisons): a NaN input pixel makes exactly the
// outputs whose window holds it NaN, on every path: 12x12 planes (row path for 2 channels,
// channel blocks for 16), 150x150 planes (stride 2: the in-place rows, NaNs at the left edge, in
// the middle and at the right edge; stride 1: the ring).
TEST(KernelsDepthwise, ClampKeepsNanEveryIsa) {
  struct Plane {
    int64_t size, channels;
  };
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (Plane pl : {Plane{12, 2}, Plane{12, 16}, Plane{150, 2}}) {
      const int64_t n = pl.size, channels = pl.channels;
      for (int64_t s : {1, 2}) {
        ConvGeometry g;
        g.in[1] = g.in[2] = n;
        g.kernel[1] = g.kernel[2] = 3;
        g.stride[1] = g.stride[2] = s;
        g.pad[1] = g.pad[2] = 1;
        g.out[1] = g.out[2] = (n + 2 - 3) / s + 1;
        std::vector<float> x(static_cast<size_t>(channels * g.in_size()), 0.5f);
        std::vector<float> w(static_cast<size_t>(channels * 9), 1.0f);
        std::vector<float> y(static_cast<size_t>(channels * g.out_size()));
        const int64_t nans[][2] = {{5, 6}, {n / 2, 0}, {n - 1, n / 2 + 1}, {n / 3, n - 1}};
        for (int64_t c = 0; c < channels; c++) {
          for (const auto& q : nans) {
            x[(c * n + q[0]) * n + q[1]] = std::numeric_limits<float>::quiet_NaN();
          }
        }
        kernels::DepthwiseArgs a;
        a.x = x.data();
        a.w = w.data();
        a.y = y.data();
        a.channels = channels;
        a.geo = g;
        a.min = 0.0f;
        a.max = 6.0f;
        kernels::depthwise_conv_f32(a, 0, channels, isa);
        for (int64_t c = 0; c < channels; c++) {
          for (int64_t oy = 0; oy < g.out[1]; oy++) {
            for (int64_t ox = 0; ox < g.out[2]; ox++) {
              bool hit = false;
              for (const auto& q : nans) {
                const int64_t dy = q[0] - (oy * s - 1), dx = q[1] - (ox * s - 1);
                hit |= dy >= 0 && dy < 3 && dx >= 0 && dx < 3;
              }
              const float got = y[(c * g.out[1] + oy) * g.out[2] + ox];
              ASSERT_EQ(std::isnan(got), hit)
                  << kernels::isa_name(isa) << " " << n << "x" << n << " s" << s << " c" << c
                  << " (" << oy << "," << ox << "): " << got;
              if (!hit) {
                ASSERT_TRUE(got >= 0.0f && got <= 6.0f) << got;
              }
            }
          }
        }
      }
    }
  }
}

TEST(KernelsDepthwise, LentScratchEveryPathEveryIsa) {
  // Callers that split channels over threads lend each chunk scratch of their own: the rows path
  // (wide planes), channel blocks (small planes), the polyphase fallback (7x7, stride 3) must all
  // fit in depthwise_scratch_floats() and give what the thread-buffer path gives.
  std::mt19937 rng(21);
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (int trial = 0; trial < 60; trial++) {
      const int64_t shapes[][2] = {{3, 1}, {3, 2}, {5, 1}, {5, 2}, {7, 1}, {3, 3}};
      const auto& ks = shapes[trial % 6];
      Case p{};
      p.k = ks[0];
      p.s = ks[1];
      p.channels = 1 + static_cast<int64_t>(rng() % 20);
      p.c0 = 0;
      p.c1 = p.channels;
      p.ih = p.k + static_cast<int64_t>(rng() % 40);
      p.iw = p.k + static_cast<int64_t>(rng() % 70);
      p.pad_t = p.pad_b = p.pad_l = p.pad_r = p.k / 2;
      p.bias = trial % 2 == 0;
      p.clamp = trial % 3 == 0;
      p.lend = true;
      if (!check(p, isa, rng)) return;
    }
  }
}

// Issue 25: results are bitwise identical however the channels are split into calls (threads
// take any block of channels): the path that computes a channel must not depend on the call's
// range. Was broken on AVX-512, whose channel blocks are 16 wide while ConvPacked split on 8:
// a thread given 8 channels took the row path, whose taps sum in another order.
TEST(KernelsDepthwise, AnySplitOfChannelsGivesTheSameBitsEveryIsa) {
  std::mt19937 rng(25);
  std::uniform_real_distribution<float> d(-1, 1);
  struct Geo {
    int64_t channels, ih, iw, k, s;
  };
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (Geo geo : {Geo{32, 30, 30, 3, 1}, Geo{100, 17, 17, 3, 2}, Geo{37, 9, 7, 5, 1},
                    Geo{50, 14, 14, 5, 2}, Geo{24, 60, 60, 3, 1}}) {
      ConvGeometry g;
      g.in[1] = geo.ih;
      g.in[2] = geo.iw;
      g.kernel[1] = g.kernel[2] = geo.k;
      g.stride[1] = g.stride[2] = geo.s;
      g.pad[1] = g.pad[2] = geo.k / 2;
      g.out[1] = (geo.ih + 2 * (geo.k / 2) - geo.k) / geo.s + 1;
      g.out[2] = (geo.iw + 2 * (geo.k / 2) - geo.k) / geo.s + 1;
      std::vector<float> x(static_cast<size_t>(geo.channels * g.in_size()));
      std::vector<float> w(static_cast<size_t>(geo.channels * geo.k * geo.k));
      std::vector<float> b(static_cast<size_t>(geo.channels));
      for (auto* v : {&x, &w, &b})
        for (auto& e : *v) e = d(rng);
      kernels::DepthwiseArgs a;
      a.x = x.data();
      a.w = w.data();
      a.bias = b.data();
      a.channels = geo.channels;
      a.geo = g;
      const size_t n = static_cast<size_t>(geo.channels * g.out_size());
      std::vector<float> whole(n), split(n);
      a.y = whole.data();
      kernels::depthwise_conv_f32(a, 0, geo.channels, isa);
      a.y = split.data();
      for (int64_t step : {1, 3, 4, 8, 12, 16, 24}) {
        std::fill(split.begin(), split.end(), 42.0f);
        for (int64_t c0 = 0; c0 < geo.channels; c0 += step)
          kernels::depthwise_conv_f32(a, c0, std::min(c0 + step, geo.channels), isa);
        EXPECT_EQ(std::memcmp(whole.data(), split.data(), n * sizeof(float)), 0)
            << kernels::isa_name(isa) << " " << geo.channels << " channels " << geo.ih << "x"
            << geo.iw << " k" << geo.k << " s" << geo.s << ", calls of " << step << " channels";
      }
    }
  }
}

}  // namespace
}  // namespace kiln
