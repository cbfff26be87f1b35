// Winograd F(2x2, 3x3) (kernels/conv/winograd.h) against a double-precision direct convolution,
// on every ISA this machine has (its GEMM runs on that ISA's micro-kernel, its transforms on that
// ISA's build of winograd_impl.h): planes 1x1 .. 40x40 with odd and even widths and heights
// (partial tiles at the right and bottom), channels not multiples of mr or nr, pads 0..2 on each
// side independently, a batch of two images, and each epilogue (bias, residual, Relu / Clip).
//
// F(2x2, 3x3) and F(4x4, 3x3) both.
//
// Tolerance. Winograd does not sum the direct conv's 9 * c products: each output is a signed,
// scaled sum over the points ξ of U[ξ]·V[ξ] summed over the channels, with U = G g Gᵀ and
// V = Bᵀ d B. Float32 rounding of every step (the input transform's additions, the rounding of U,
// the c-term dot products, the output transform) is relative to the magnitudes of the terms
// summed, so it is bounded by a small multiple of eps times
//   mag = sum_ξ |Aᵀ[a][ξr]| |Aᵀ[b][ξs]| sum_c (|G| |g| |G|ᵀ)[ξ] (|B|ᵀ |d| |B|)[ξ],
// the same sum with every coefficient and operand replaced by its absolute value (computed here
// in double per tile). 16 eps * mag (the factor the matmul tests use for their dot products, here
// also covering the ~6 levels of transform additions) is far above that rounding, and far below
// the change of one wrong transform coefficient or misplaced tile (~0.1 on outputs of size ~1:
// mag / tol ~ 5e5). F(4x4, 3x3)'s larger coefficients (up to 5 in Bᵀ, 8 in Aᵀ) show in mag, which
// is why its error is larger. 8 eps (1 + |ref|) covers bias / residual / clamp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "base/threading.h"
#include "kernels/conv/im2col.h"
#include "kernels/conv/winograd.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;
using test::kEps;
using test::random_vector;

struct Case {
  int64_t h, w, c, m, pt, pb, pl, pr;
  bool bias, residual, relu, clip;
  int threads;
  int tile = 2;
};

// |Bᵀ|, |G|, |Aᵀ| of F(2x2, 3x3) (tile 2: n = 4) and F(4x4, 3x3) (tile 4: n = 6), for mag.
double abs_bt(int tile, int r, int i) {
  static constexpr double b2[4][4] = {{1, 0, 1, 0}, {0, 1, 1, 0}, {0, 1, 1, 0}, {0, 1, 0, 1}};
  static constexpr double b4[6][6] = {{4, 0, 5, 0, 1, 0}, {0, 4, 4, 1, 1, 0}, {0, 4, 4, 1, 1, 0},
                                      {0, 2, 1, 2, 1, 0}, {0, 2, 1, 2, 1, 0}, {0, 4, 0, 5, 0, 1}};
  return tile == 2 ? b2[r][i] : b4[r][i];
}
double abs_g(int tile, int r, int x) {
  static constexpr double g2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, {0, 0, 1}};
  static constexpr double g4[6][3] = {{0.25, 0, 0},
                                      {1.0 / 6, 1.0 / 6, 1.0 / 6},
                                      {1.0 / 6, 1.0 / 6, 1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  return tile == 2 ? g2[r][x] : g4[r][x];
}
double abs_at(int tile, int a, int r) {
  static constexpr double a2[2][4] = {{1, 1, 1, 0}, {0, 1, 1, 1}};
  static constexpr double a4[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, 1, 2, 2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, 1, 8, 8, 1}};
  return tile == 2 ? a2[a][r] : a4[a][r];
}

std::string describe(const Case& p, kernels::Isa isa) {
  std::ostringstream o;
  o << kernels::isa_name(isa) << " " << p.h << "x" << p.w << " c" << p.c << " m" << p.m << " pads t"
    << p.pt << " b" << p.pb << " l" << p.pl << " r" << p.pr << (p.bias ? " bias" : "")
    << (p.residual ? " residual" : "") << (p.relu ? " relu" : "") << (p.clip ? " clip" : "")
    << " threads " << p.threads << " F(" << p.tile << "x" << p.tile << ",3x3)";
  return o.str();
}

ConvGeometry geometry(const Case& p) {
  ConvGeometry g;
  g.in[1] = p.h;
  g.in[2] = p.w;
  g.kernel[1] = g.kernel[2] = 3;
  g.pad[1] = p.pt;
  g.pad[2] = p.pl;
  g.out[1] = p.h + p.pt + p.pb - 2;
  g.out[2] = p.w + p.pl + p.pr - 2;
  return g;
}

void run_case(const Case& p, kernels::Isa isa, std::mt19937& rng) {
  SCOPED_TRACE(describe(p, isa));
  const kernels::MicroKernel& mk = kernels::micro_kernel(isa);
  const ConvGeometry geo = geometry(p);
  ASSERT_TRUE(kernels::winograd_supported(geo));
  const int64_t oh = geo.out[1], ow = geo.out[2], os = oh * ow, is = p.h * p.w;
  constexpr int64_t kBatch = 2;
  auto w = random_vector(rng, static_cast<size_t>(p.m * p.c * 9));
  auto bias = random_vector(rng, static_cast<size_t>(p.m));
  auto residual = random_vector(rng, static_cast<size_t>(kBatch * p.m * os));
  // Input and output against guard pages: a read or write past either end crashes the test.
  test::GuardedFloats xbuf(static_cast<size_t>(kBatch * p.c * is));
  auto xv = random_vector(rng, static_cast<size_t>(kBatch * p.c * is));
  std::copy(xv.begin(), xv.end(), xbuf.data());
  test::GuardedFloats ybuf(static_cast<size_t>(kBatch * p.m * os));
  std::fill(ybuf.data(), ybuf.data() + kBatch * p.m * os, std::nanf(""));

  kernels::WinogradWeights ww(w.data(), p.m, p.c, mk, p.tile);
  std::vector<float> padded(static_cast<size_t>(kernels::winograd_padded_floats(p.c, geo, p.tile)));
  std::vector<float> scratch(
      static_cast<size_t>(kernels::winograd_scratch_floats(ww, geo, p.threads)), std::nanf(""));
  for (int64_t n = 0; n < kBatch; n++) {
    kernels::Epilogue ep;
    if (p.bias) ep.row_bias = bias.data();
    if (p.residual) {
      ep.residual = residual.data() + n * p.m * os;
      ep.residual_ld = os;
    }
    if (p.relu) ep.min = 0;
    if (p.clip) {
      ep.min = -0.5f;
      ep.max = 0.75f;
    }
    kernels::winograd_conv(ww, xbuf.data() + n * p.c * is, geo, ep, ybuf.data() + n * p.m * os,
                           padded.data(), scratch.data(), p.threads);
  }

  // |U| per (output, input channel, point).
  const int nn = p.tile + 2, np = nn * nn;
  std::vector<double> uabs(static_cast<size_t>(p.m * p.c * np));
  for (int64_t o = 0; o < p.m; o++)
    for (int64_t ci = 0; ci < p.c; ci++)
      for (int r = 0; r < nn; r++)
        for (int q = 0; q < nn; q++) {
          double u = 0;
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++)
              u += abs_g(p.tile, r, ky) * abs_g(p.tile, q, kx) *
                   std::fabs(w[static_cast<size_t>((o * p.c + ci) * 9 + ky * 3 + kx)]);
          uabs[static_cast<size_t>((o * p.c + ci) * np + r * nn + q)] = u;
        }
  const int64_t tiles_y = (oh + p.tile - 1) / p.tile, tiles_x = (ow + p.tile - 1) / p.tile;
  int bad = 0;
  std::vector<double> vabs(static_cast<size_t>(p.c * np)), wsum(static_cast<size_t>(np));
  for (int64_t n = 0; n < kBatch; n++) {
    const float* x = xbuf.data() + n * p.c * is;
    for (int64_t ty = 0; ty < tiles_y; ty++) {
      for (int64_t tx = 0; tx < tiles_x; tx++) {
        // |V| of this tile's patch, per channel and point.
        for (int64_t ci = 0; ci < p.c; ci++) {
          for (int r = 0; r < nn; r++)
            for (int q = 0; q < nn; q++) {
              double v = 0;
              for (int i = 0; i < nn; i++)
                for (int j = 0; j < nn; j++) {
                  const int64_t iy = ty * p.tile - p.pt + i, ix = tx * p.tile - p.pl + j;
                  if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                  v += abs_bt(p.tile, r, i) * abs_bt(p.tile, q, j) *
                       std::fabs(x[ci * is + iy * p.w + ix]);
                }
              vabs[static_cast<size_t>(ci * np + r * nn + q)] = v;
            }
        }
        for (int64_t o = 0; o < p.m; o++) {
          std::fill(wsum.begin(), wsum.end(), 0.0);
          for (int64_t ci = 0; ci < p.c; ci++)
            for (int xi = 0; xi < np; xi++)
              wsum[static_cast<size_t>(xi)] += uabs[static_cast<size_t>((o * p.c + ci) * np + xi)] *
                                               vabs[static_cast<size_t>(ci * np + xi)];
          for (int a = 0; a < p.tile; a++) {
            for (int b = 0; b < p.tile; b++) {
              const int64_t oy = ty * p.tile + a, ox = tx * p.tile + b;
              if (oy >= oh || ox >= ow) continue;
              double mag = 0;
              for (int r = 0; r < nn; r++)
                for (int q = 0; q < nn; q++)
                  mag += abs_at(p.tile, a, r) * abs_at(p.tile, b, q) *
                         wsum[static_cast<size_t>(r * nn + q)];
              double acc = 0;
              for (int64_t ci = 0; ci < p.c; ci++) {
                const float* g = w.data() + (o * p.c + ci) * 9;
                for (int64_t ky = 0; ky < 3; ky++)
                  for (int64_t kx = 0; kx < 3; kx++) {
                    const int64_t iy = oy + ky - p.pt, ix = ox + kx - p.pl;
                    if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                    acc += double(g[ky * 3 + kx]) * x[ci * is + iy * p.w + ix];
                  }
              }
              double v = acc;
              if (p.bias) v += bias[static_cast<size_t>(o)];
              if (p.residual) v += residual[static_cast<size_t>((n * p.m + o) * os + oy * ow + ox)];
              if (p.relu) v = std::max(v, 0.0);
              if (p.clip) v = std::min(std::max(v, -0.5), 0.75);
              const double tol = 16 * kEps * mag + 8 * kEps * (1 + std::fabs(v));
              const double got = ybuf.data()[(n * p.m + o) * os + oy * ow + ox];
              if (!(std::fabs(got - v) <= tol) && bad++ < 5) {
                ADD_FAILURE() << "y[" << n << "," << o << "," << oy << "," << ox << "] = " << got
                              << ", expected " << v << " (tol " << tol << ")";
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(KernelsWinograd, MatchesDirectConvOnEveryIsa) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int64_t> plane(1, 40), chans(1, 70), pad(0, 2);
  for (kernels::Isa isa : kernels::supported_isas()) {
    // Fixed edge cases, then random shapes.
    std::vector<Case> cases = {
        {1, 1, 1, 1, 1, 1, 1, 1, false, false, false, false, 1},    // one output, all padding
        {3, 3, 1, 1, 0, 0, 0, 0, true, false, false, false, 1},     // one output, no padding
        {4, 5, 3, 7, 0, 0, 0, 0, true, true, false, false, 1},      // 2x3: one odd column
        {13, 13, 64, 70, 1, 1, 1, 1, true, false, true, false, 2},  // a fire module's plane
        {27, 27, 32, 128, 1, 1, 1, 1, true, true, false, true, 2},
        {55, 55, 16, 64, 1, 1, 1, 1, true, false, true, false, 2},
        {2, 40, 5, 17, 2, 0, 1, 2, false, true, true, false, 2},  // asymmetric pads
        {40, 1, 9, 33, 0, 2, 2, 0, true, false, false, true, 1},
    };
    for (int i = 0; i < 40; i++) {
      Case p;
      p.h = plane(rng);
      p.w = plane(rng);
      p.c = chans(rng);
      p.m = chans(rng);
      p.pt = pad(rng);
      p.pb = pad(rng);
      p.pl = pad(rng);
      p.pr = pad(rng);
      if (p.h + p.pt + p.pb < 3) p.pb = 3 - p.h - p.pt;
      if (p.w + p.pl + p.pr < 3) p.pr = 3 - p.w - p.pl;
      p.bias = i % 2 == 0;
      p.residual = i % 3 == 0;
      p.relu = i % 4 == 1;
      p.clip = i % 4 == 3;
      p.threads = 1 + i % 2;
      cases.push_back(p);
    }
    for (Case p : cases) {
      for (int tile : {2, 4}) {
        p.tile = tile;
        run_case(p, isa, rng);
      }
    }
  }
}

// Winograd (both tile sizes) and the im2col matrix product (the path it replaces) agree on the
// squeezenet fire modules' expand convs (with their bias and Relu), on the active ISA and two
// threads, within 64 eps * c * the largest output: a loose version of the per-output bound
// above (which MatchesDirectConvOnEveryIsa checks exactly), still ~100x below any misplaced tile
// or channel (an O(1) change). Seen: F(2x2, 3x3) <= 3e-5, F(4x4, 3x3) <= 1.7e-4 with outputs up
// to ~35 (c = 64).
TEST(KernelsWinograd, AgreesWithIm2colOnFireModules) {
  std::mt19937 rng(7);
  const kernels::MicroKernel& mk = kernels::default_micro_kernel();
  for (auto [m, c, size] : {std::array<int64_t, 3>{64, 16, 55}, {128, 32, 27}, {256, 64, 13}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << c << " " << size << "x" << size);
    ConvGeometry g;
    g.in[1] = g.in[2] = g.out[1] = g.out[2] = size;
    g.kernel[1] = g.kernel[2] = 3;
    g.pad[1] = g.pad[2] = 1;
    ASSERT_TRUE(kernels::winograd_pays(mk, m, c, g));
    auto x = random_vector(rng, static_cast<size_t>(c * size * size));
    auto w = random_vector(rng, static_cast<size_t>(m * c * 9));
    auto bias = random_vector(rng, static_cast<size_t>(m));
    kernels::Epilogue ep;
    ep.row_bias = bias.data();
    ep.min = 0;
    const int64_t os = size * size;
    std::vector<float> y_mmm(static_cast<size_t>(m * os)), y_wino(y_mmm.size());
    kernels::PackedMatrix a(w.data(), m, c * 9, c * 9, 1, mk.mr);
    std::vector<float> padded(static_cast<size_t>(kernels::Im2colSource::padded_floats(c, g)));
    kernels::Im2colSource b(x.data(), c, g, mk.nr, padded.data());
    kernels::mmm(mk, m, os, c * 9, a, b, ep, y_mmm.data(), os, 2);
    for (int tile : {2, 4}) {
      kernels::WinogradWeights ww(w.data(), m, c, mk, tile);
      std::vector<float> wpadded(static_cast<size_t>(kernels::winograd_padded_floats(c, g, tile)));
      std::vector<float> scratch(static_cast<size_t>(kernels::winograd_scratch_floats(ww, g, 2)));
      kernels::winograd_conv(ww, x.data(), g, ep, y_wino.data(), wpadded.data(), scratch.data(), 2);
      double worst = 0, largest = 0;
      for (size_t i = 0; i < y_mmm.size(); i++) {
        worst = std::max(worst, std::fabs(double(y_mmm[i]) - y_wino[i]));
        largest = std::max(largest, std::fabs(double(y_mmm[i])));
      }
      RecordProperty("max_abs_difference_f" + std::to_string(tile) + "_c" + std::to_string(c),
                     std::to_string(worst) + " (largest output " + std::to_string(largest) + ")");
      EXPECT_LE(worst, 64 * kEps * static_cast<double>(c) * largest)
          << "F(" << tile << "x" << tile << ", 3x3)";
    }
  }
}

TEST(KernelsWinograd, RoutesOnlyWhatItComputes) {
  ConvGeometry g;
  g.in[1] = g.in[2] = 13;
  g.out[1] = g.out[2] = 13;
  g.kernel[1] = g.kernel[2] = 3;
  g.pad[1] = g.pad[2] = 1;
  EXPECT_TRUE(kernels::winograd_supported(g));
  const kernels::MicroKernel& mk = kernels::default_micro_kernel();
  EXPECT_TRUE(kernels::winograd_pays(mk, 64, 16, g));
  // Small planes with many channels: the transformed weights (36 per filter) would stream from
  // memory for a few tiles each (ResNet's 7x7 x 512 stage); with few channels they stay cached.
  ConvGeometry p7 = g;
  p7.in[1] = p7.in[2] = p7.out[1] = p7.out[2] = 7;
  EXPECT_FALSE(kernels::winograd_pays(mk, 512, 512, p7));
  EXPECT_TRUE(kernels::winograd_pays(mk, 64, 64, p7));
  ConvGeometry p14 = g;
  p14.in[1] = p14.in[2] = p14.out[1] = p14.out[2] = 14;
  EXPECT_TRUE(kernels::winograd_pays(mk, 256, 256, p14));
  ConvGeometry s2 = g;
  s2.stride[2] = 2;
  EXPECT_FALSE(kernels::winograd_supported(s2));
  ConvGeometry d2 = g;
  d2.dilation[1] = 2;
  EXPECT_FALSE(kernels::winograd_supported(d2));
  ConvGeometry k5 = g;
  k5.kernel[1] = k5.kernel[2] = 5;
  EXPECT_FALSE(kernels::winograd_supported(k5));
  // An epilogue Winograd does not apply is refused, not ignored.
  std::vector<float> w(9 * 4 * 4, 0.5f), x(4 * 13 * 13, 1.0f), y(4 * 13 * 13);
  kernels::WinogradWeights ww(w.data(), 4, 4, mk);
  std::vector<float> padded(static_cast<size_t>(kernels::winograd_padded_floats(4, g)));
  std::vector<float> scratch(static_cast<size_t>(kernels::winograd_scratch_floats(ww, g, 1)));
  kernels::Epilogue ep;
  ep.leaky = true;
  EXPECT_ANY_THROW(
      kernels::winograd_conv(ww, x.data(), g, ep, y.data(), padded.data(), scratch.data(), 1));
}

}  // namespace
}  // namespace kiln
