// Matrix multiply with B read in place (mmm_in_place, conv_in_place) vs a double-precision
// reference, for every ISA this machine has that has an in-place tile (generic everywhere).
//
// Tolerance (as in mmm_test.cpp): each output is a k-term float32 dot product summed in another
// order than the reference; rounding errors grow like sqrt(k) * eps * sum |a * b|. We allow
// 16 * eps * sum_k |a_ik * b_kj| plus eps-level slack for the epilogue: far above the rounding
// (k <= 4096) but far below a missing or wrong term (about sum / k, >= 60x the tolerance at k =
// 4096).
//
// B (and a convolution's input and padding scratch) ends flush against an inaccessible page, so a
// tile that reads one column past its own (the masked last vector of a row) crashes the test; C has
// guard columns and rows that must keep their values.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <random>

#include "base/error.h"
#include "kernels/conv/conv_in_place.h"
#include "kernels/conv/im2col.h"
#include "kernels/mmm/mmm_in_place.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;
using kernels::Epilogue;
using kernels::Isa;
using kernels::MicroKernel;
using test::EpilogueData;
using test::expect_matches;
using test::GuardedFloats;
using test::kEps;
using test::make_epilogue;
using test::random_vector;

// C = epilogue(A * B) with B (k x n, row stride ldb) read in place.
void check_matrix(const MicroKernel& kernel, int64_t m, int64_t n, int64_t k, int64_t ldb, int mask,
                  int threads, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message()
               << kernel.name << " m=" << m << " n=" << n << " k=" << k << " ldb=" << ldb
               << " epilogue=" << mask << " threads=" << threads);
  auto a = random_vector(rng, m * k);
  // B's last row ends at the guard page: its last column is the last readable float.
  const int64_t b_floats = k == 0 ? 0 : (k - 1) * ldb + n;
  GuardedFloats b(static_cast<size_t>(b_floats));
  auto b_values = random_vector(rng, static_cast<size_t>(b_floats));
  std::copy(b_values.begin(), b_values.end(), b.data());
  EpilogueData e = make_epilogue(rng, mask, m, n);
  const int64_t ldc = n + 2;
  auto out = random_vector(rng, (m + 2) * ldc);
  auto before = out;
  kernels::PackedMatrix pa(a.data(), m, k, k, 1, kernel.mr);
  kernels::mmm_in_place(kernel, m, n, k, pa, b.data(), ldb, e.ep, out.data(), ldc, threads);
  expect_matches(m, n, e, out, before, ldc, [&](int64_t i, int64_t j) {
    double acc = 0, mag = 0;
    for (int64_t kk = 0; kk < k; kk++) {
      double t = double(a[i * k + kk]) * b_values[kk * ldb + j];
      acc += t;
      mag += std::fabs(t);
    }
    return std::pair{acc, mag};
  });
}

std::vector<const MicroKernel*> in_place_kernels() {
  std::vector<const MicroKernel*> out;
  for (Isa isa : kernels::supported_isas()) {
    const MicroKernel& k = kernels::micro_kernel(isa);
    if (k.in_place) out.push_back(&k);
  }
  return out;
}

TEST(KernelsMmmInPlace, GenericAndX86KernelsHaveAnInPlaceTile) {
  auto kernels_here = in_place_kernels();
  ASSERT_FALSE(kernels_here.empty());
  EXPECT_EQ(kernels_here.front()->isa, Isa::Generic);
  for (Isa isa : kernels::supported_isas()) {
    if (isa == Isa::Avx2 || isa == Isa::Avx512) {
      EXPECT_NE(kernels::micro_kernel(isa).in_place, nullptr);
    }
  }
}

TEST(KernelsMmmInPlace, RandomShapes) {
  std::mt19937 rng(23);
  struct Case {
    int64_t m, n, k;
  };
  std::vector<Case> cases = {{1, 1, 1},     {1, 1, 0},      {1, 37, 5},   {3, 1, 17}, {16, 49, 960},
                             {7, 31, 13},   {9, 33, 1},     {6, 16, 100}, {5, 15, 3}, {13, 47, 29},
                             {24, 196, 96}, {17, 100, 257}, {100, 3, 40}, {2, 200, 9}};
  std::uniform_int_distribution<int64_t> dim(1, 300);
  for (int i = 0; i < 8; i++) cases.push_back({dim(rng), dim(rng), dim(rng)});
  const std::vector<int> masks = {0,
                                  4 | 128,
                                  1 | 2 | 4 | 8,
                                  16,
                                  4 | 16,
                                  32,
                                  64 | 128,
                                  128 | 256,
                                  2 | 8 | 16 | 32 | 64,
                                  1 | 2 | 4 | 8 | 16 | 32 | 64 | 256 | 512,
                                  4 | 16 | 128 | 1024,
                                  2 | 8 | 16 | 32 | 64 | 128 | 256 | 1024};
  for (const MicroKernel* k : in_place_kernels()) {
    for (size_t ci = 0; ci < cases.size(); ci++) {
      const Case& c = cases[ci];
      // B rows n apart (a 1x1 convolution's planes) or further (a view into a wider matrix).
      const int64_t ldb = c.n + (ci % 3 == 2 ? 5 : 0);
      check_matrix(*k, c.m, c.n, c.k, ldb, masks[ci % masks.size()], 1 + ci % 2, rng);
    }
  }
}

// Every remainder of m by mr and of n by nr (1 .. 2 tiles + 1 each way): every partial tile,
// including the column tiles of the last few columns, with the epilogue features rotating.
TEST(KernelsMmmInPlace, EveryPartialTileShape) {
  std::mt19937 rng(29);
  const std::vector<int> masks = {0,
                                  1 | 2 | 4 | 8,
                                  16,
                                  32,
                                  64 | 128,
                                  128 | 256,
                                  512 | 256,
                                  2 | 8 | 16 | 32 | 64,
                                  1 | 2 | 4 | 8 | 16 | 32 | 64 | 256 | 512,
                                  4 | 16 | 128 | 1024,
                                  2 | 8 | 16 | 32 | 64 | 128 | 256 | 1024};
  for (const MicroKernel* k : in_place_kernels()) {
    int i = 0;
    for (int64_t m = 1; m <= 2 * k->mr + 1; m++) {
      for (int64_t n = 1; n <= 2 * k->nr + 1; n++, i++) {
        const int64_t depth = (i % 3 == 0) ? 1 : (i % 3 == 1 ? 7 : 40);
        check_matrix(*k, m, n, depth, n, masks[i % masks.size()], 1 + i % 2, rng);
      }
    }
  }
}

TEST(KernelsMmmInPlace, LongK) {
  std::mt19937 rng(31);
  for (const MicroKernel* k : in_place_kernels()) {
    check_matrix(*k, 9, 35, 4096, 35, 4 | 128, 1, rng);
    check_matrix(*k, k->mr, k->nr, 4095, k->nr + 1, 16, 2, rng);
  }
}

TEST(KernelsMmmInPlace, ThreadCountDoesNotChangeResults) {
  for (const MicroKernel* k : in_place_kernels()) {
    // Many column tiles (split by columns) and few (split by A panels).
    for (auto [m, n, kd] : {std::tuple<int64_t, int64_t, int64_t>{70, 333, 129}, {300, 20, 77}}) {
      std::mt19937 same(99);
      auto a = random_vector(same, m * kd);
      auto b = random_vector(same, kd * n);
      auto bias = random_vector(same, m);
      Epilogue ep;
      ep.row_bias = bias.data();
      ep.min = 0;
      kernels::PackedMatrix pa(a.data(), m, kd, kd, 1, k->mr);
      std::vector<float> results[3];
      for (int t = 1; t <= 3; t++) {
        results[t - 1].assign(m * n, 0.0f);
        kernels::mmm_in_place(*k, m, n, kd, pa, b.data(), n, ep, results[t - 1].data(), n, t);
      }
      EXPECT_EQ(results[0], results[1]) << k->name;
      EXPECT_EQ(results[0], results[2]) << k->name;
    }
  }
}

TEST(KernelsMmmInPlace, BadUseIsAnError) {
  const MicroKernel& generic = kernels::micro_kernel(Isa::Generic);
  MicroKernel none = generic;
  none.in_place = nullptr;
  std::vector<float> a(4 * 3, 1.0f), b(3 * 5, 1.0f), c(4 * 5);
  kernels::PackedMatrix pa(a.data(), 4, 3, 3, 1, generic.mr);
  EXPECT_THROW(kernels::mmm_in_place(none, 4, 5, 3, pa, b.data(), 5, {}, c.data(), 5, 1), Error);
  EXPECT_FALSE(kernels::mmm_in_place_pays(none, 4, 3));
  // A not prepacked.
  kernels::StridedSource sa(a.data(), 4, 3, 3, 1, generic.mr);
  EXPECT_THROW(kernels::mmm_in_place(generic, 4, 5, 3, sa, b.data(), 5, {}, c.data(), 5, 1), Error);
  // Columns that are not whole segments.
  std::vector<int64_t> off = {0, 5, 10};
  kernels::InPlaceB ib;
  ib.b = b.data();
  ib.off = off.data();
  ib.segment = 2;
  EXPECT_THROW(kernels::mmm_in_place(generic, 4, 5, 3, pa, ib, {}, c.data(), 5, 1), Error);
}

// The rule ConvPacked follows: few rows and a short k read B in place, the rest packs it.
TEST(KernelsMmmInPlace, PaysForFewRowsAndShortK) {
  for (const MicroKernel* k : in_place_kernels()) {
    EXPECT_TRUE(kernels::mmm_in_place_pays(*k, 16, 32)) << k->name;
    EXPECT_TRUE(kernels::mmm_in_place_pays(*k, 4 * k->mr, 144)) << k->name;
    EXPECT_FALSE(kernels::mmm_in_place_pays(*k, 16, 960)) << k->name;
    EXPECT_FALSE(kernels::mmm_in_place_pays(*k, 20 * k->mr, 96)) << k->name;
  }
}

ConvGeometry make_geo(int64_t ih, int64_t iw, int64_t kh, int64_t kw, int64_t sy, int64_t dy,
                      int64_t dx, int64_t pad) {
  ConvGeometry g;
  g.in[1] = ih;
  g.in[2] = iw;
  g.kernel[1] = kh;
  g.kernel[2] = kw;
  g.stride[1] = sy;
  g.dilation[1] = dy;
  g.dilation[2] = dx;
  g.pad[1] = g.pad[2] = pad;
  g.out[1] = (ih + 2 * pad - (dy * (kh - 1) + 1)) / sy + 1;
  g.out[2] = (iw + 2 * pad - (dx * (kw - 1) + 1)) + 1;
  return g;
}

// conv_in_place on random 2-D geometries (stride 1 along x; along y 1..2; kernels 1..5 per axis,
// dilations 1..2, padding 0..2 so that both the padded copy and the direct read run; 1..8
// channels, 1..3 mr of output channels) against a naive convolution, with bias, residual and a
// clamp. The input and the padding scratch end at a guard page.
TEST(KernelsConvInPlace, RandomGeometriesMatchNaiveConvolution) {
  std::mt19937 rng(37);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (const MicroKernel* k : in_place_kernels()) {
    int checked = 0;
    for (int iter = 0; iter < 60; iter++) {
      const int64_t kh = pick(1, 5), kw = pick(1, 5), dy = pick(1, 2), dx = pick(1, 2);
      const int64_t pad = pick(0, 2), sy = pick(1, 2);
      const int64_t ih = pick(std::max<int64_t>(1, dy * (kh - 1) + 1 - 2 * pad), 40);
      const int64_t iw = pick(std::max<int64_t>(1, dx * (kw - 1) + 1 - 2 * pad), 70);
      ConvGeometry g = make_geo(ih, iw, kh, kw, sy, dy, dx, pad);
      if (g.out[1] <= 0 || g.out[2] <= 0) continue;
      const int64_t channels = pick(1, 8), m = pick(1, 3 * k->mr);
      const int64_t kin = channels * kh * kw, os = g.out_size();
      SCOPED_TRACE(::testing::Message()
                   << k->name << " in " << ih << "x" << iw << " kernel " << kh << "x" << kw
                   << " stride_y " << sy << " dilation " << dy << "," << dx << " pad " << pad
                   << " channels " << channels << " m " << m);
      ASSERT_TRUE(kernels::conv_in_place_supported(*k, g));
      GuardedFloats x(static_cast<size_t>(channels * g.in_size()));
      auto xv = random_vector(rng, static_cast<size_t>(channels * g.in_size()));
      std::copy(xv.begin(), xv.end(), x.data());
      GuardedFloats padded(static_cast<size_t>(kernels::Im2colSource::padded_floats(channels, g)));
      auto w = random_vector(rng, m * kin);
      kernels::PackedMatrix pw(w.data(), m, kin, kin, 1, k->mr);
      const int mask = (iter % 2 ? 4 | 16 | 128 : 4 | 128 | 256);
      EpilogueData e = make_epilogue(rng, mask, m, os);
      e.ep.residual_ld = os;  // a conv's residual has the output's layout
      auto out = random_vector(rng, (m + 2) * os);
      auto before = out;
      kernels::conv_in_place(*k, m, channels, g, pw, x.data(), padded.data(), e.ep, out.data(),
                             1 + iter % 2);
      expect_matches(m, os, e, out, before, os, [&](int64_t i, int64_t j) {
        const int64_t oy = j / g.out[2], ox = j % g.out[2];
        double acc = 0, mag = 0;
        for (int64_t c = 0; c < channels; c++) {
          for (int64_t ky = 0; ky < kh; ky++) {
            for (int64_t kx = 0; kx < kw; kx++) {
              const int64_t iy = oy * sy - pad + ky * dy, ix = ox - pad + kx * dx;
              if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) continue;
              double t = double(w[i * kin + (c * kh + ky) * kw + kx]) * xv[(c * ih + iy) * iw + ix];
              acc += t;
              mag += std::fabs(t);
            }
          }
        }
        return std::pair{acc, mag};
      });
      checked++;
    }
    EXPECT_GT(checked, 40) << k->name;
  }
}

TEST(KernelsConvInPlace, PaysOnlyForRowsThatFillTiles) {
  for (const MicroKernel* k : in_place_kernels()) {
    ConvGeometry g = make_geo(16 * k->nr, 16 * k->nr, 3, 3, 1, 1, 1, 1);
    EXPECT_TRUE(kernels::conv_in_place_pays(*k, g, 64)) << k->name;
    EXPECT_TRUE(kernels::conv_in_place_pays(*k, g, 1)) << k->name;
    // One column more: every row ends with a one-column tile (efficiency (nr + 1) / (nr + 8)).
    g = make_geo(16 * k->nr, k->nr + 1, 3, 3, 1, 1, 1, 1);
    EXPECT_FALSE(kernels::conv_in_place_pays(*k, g, 64)) << k->name;
    // With two output channels the im2col copy costs more than the idle lanes.
    EXPECT_TRUE(kernels::conv_in_place_pays(*k, g, 2)) << k->name;
    if (k->nr == 16) {
      EXPECT_FALSE(kernels::conv_in_place_pays(*k, g, 16)) << k->name;  // 0.71 < 0.80
      // conv2d_stream's 20-wide rows (0.83 of their tiles): in place for its 16 output channels,
      // im2col panels for 64 (0.94).
      g = make_geo(200, 20, 3, 3, 1, 2, 1, 1);
      EXPECT_TRUE(kernels::conv_in_place_pays(*k, g, 16)) << k->name;
      EXPECT_FALSE(kernels::conv_in_place_pays(*k, g, 64)) << k->name;
    }
    // Stride 2 along x: columns are not contiguous.
    g = make_geo(20, 20, 3, 3, 1, 1, 1, 1);
    g.stride[2] = 2;
    g.out[2] = 10;
    EXPECT_FALSE(kernels::conv_in_place_supported(*k, g)) << k->name;
  }
}

}  // namespace
}  // namespace kiln
