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

#include "core/error.h"
#include "kernels/conv/conv_in_place.h"
#include "kernels/conv/im2col.h"
#include "kernels/mmm/mmm_in_place.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;
using kernels::Epilogue;
using kernels::Isa;
using kernels::MicroKernel;

constexpr double kEps = 1.1920929e-7;

// `count` floats ending right before an inaccessible page.
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t count) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = std::max<size_t>(count * sizeof(float), 1);
    const size_t body = (bytes + page_ - 1) / page_ * page_;
    size_ = body + page_;
    base_ = static_cast<char*>(
        mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    mprotect(base_ + body, page_, PROT_NONE);
    data_ = reinterpret_cast<float*>(base_ + body - count * sizeof(float));
  }
  ~GuardedFloats() { munmap(base_, size_); }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  float* data() { return data_; }

 private:
  size_t page_ = 0, size_ = 0;
  char* base_ = nullptr;
  float* data_ = nullptr;
};

std::vector<float> random_vector(std::mt19937& rng, size_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The epilogue features of bit i of `mask`, as in mmm_test.cpp.
struct EpilogueData {
  std::vector<float> row_scale, col_scale, row_bias, col_bias, residual;
  Epilogue ep;
};

EpilogueData make_epilogue(std::mt19937& rng, int mask, int64_t m, int64_t n) {
  EpilogueData d;
  if (mask & 1) d.row_scale = random_vector(rng, m, 0.5f, 2);
  if (mask & 2) d.col_scale = random_vector(rng, n, 0.5f, 2);
  if (mask & 4) d.row_bias = random_vector(rng, m);
  if (mask & 8) d.col_bias = random_vector(rng, n);
  if (mask & 16) d.residual = random_vector(rng, m * (n + 3));
  d.ep.row_scale = d.row_scale.empty() ? nullptr : d.row_scale.data();
  d.ep.col_scale = d.col_scale.empty() ? nullptr : d.col_scale.data();
  d.ep.row_bias = d.row_bias.empty() ? nullptr : d.row_bias.data();
  d.ep.col_bias = d.col_bias.empty() ? nullptr : d.col_bias.data();
  d.ep.residual = d.residual.empty() ? nullptr : d.residual.data();
  d.ep.residual_ld = n + 3;
  d.ep.accumulate = (mask & 32) != 0;
  if (mask & 64) {
    d.ep.leaky = true;
    d.ep.leaky_alpha = 0.1f;
  }
  if (mask & 128) d.ep.min = 0;
  if (mask & 256) d.ep.max = 0.75f;
  if (mask & 512) d.ep.min = -0.25f;
  return d;
}

// Compares out (m x n, row stride ldc, two guard columns and rows) against epilogue(dot) where
// dot(i, j) returns {sum, sum of magnitudes}; `before` is out before the call.
template <class Dot>
void expect_matches(int64_t m, int64_t n, const EpilogueData& e, const std::vector<float>& out,
                    const std::vector<float>& before, int64_t ldc, Dot dot) {
  int bad = 0;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      auto [acc, mag] = dot(i, j);
      double scale = 1;
      if (e.ep.row_scale) scale *= e.row_scale[i];
      if (e.ep.col_scale) scale *= e.col_scale[j];
      double v = acc * scale;
      if (e.ep.row_bias) v += e.row_bias[i];
      if (e.ep.col_bias) v += e.col_bias[j];
      if (e.ep.residual) v += e.residual[i * e.ep.residual_ld + j];
      if (e.ep.accumulate) v += before[i * ldc + j];
      if (e.ep.leaky && v < 0) v *= e.ep.leaky_alpha;
      v = std::min<double>(std::max<double>(v, e.ep.min), e.ep.max);
      double tol = 16 * kEps * mag * scale + 8 * kEps * (1 + std::fabs(v));
      double got = out[i * ldc + j];
      if (!(std::fabs(got - v) <= tol) && bad++ < 5) {
        ADD_FAILURE() << "C[" << i << "," << j << "] = " << got << ", expected " << v << " (tol "
                      << tol << ")";
      }
    }
    for (int64_t j = n; j < ldc; j++) ASSERT_EQ(out[i * ldc + j], before[i * ldc + j]);
  }
  for (int64_t i = m * ldc; i < (m + 2) * ldc; i++) ASSERT_EQ(out[i], before[i]);
  EXPECT_EQ(bad, 0);
}

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
                                  1 | 2 | 4 | 8 | 16 | 32 | 64 | 256 | 512};
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
                                  1 | 2 | 4 | 8 | 16 | 32 | 64 | 256 | 512};
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
    EXPECT_TRUE(kernels::conv_in_place_pays(*k, g)) << k->name;
    // One column more: every row ends with a one-column tile.
    g = make_geo(16 * k->nr, k->nr + 1, 3, 3, 1, 1, 1, 1);
    EXPECT_FALSE(kernels::conv_in_place_pays(*k, g)) << k->name;
    // Stride 2 along x: columns are not contiguous.
    g = make_geo(20, 20, 3, 3, 1, 1, 1, 1);
    g.stride[2] = 2;
    g.out[2] = 10;
    EXPECT_FALSE(kernels::conv_in_place_supported(*k, g)) << k->name;
  }
}

}  // namespace
}  // namespace kiln
