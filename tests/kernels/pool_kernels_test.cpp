// kernels/pool on every ISA this machine has (generic included):
// - max_pool_2d against the reference MaxPool op on random 2-D and 1-D geometries (kernels 1..7,
//   strides 1..3, pads, floor and ceil mode, rows from 1 to 70 wide so vector bodies, overlapping
//   last vectors and scalar tails all run): exact, max is exact.
// - max_pool_2d with NaNs against a scalar model of the documented order (column max from the
//   window's first row down, then along the row from -inf): exact, NaN positions included.
// - average_planes against a sequential double sum: |error| <= 2^-24 |mean| (the final rounding
//   to float) + n 2^-52 mean |x| (double sums in another order); a dropped or doubled element is
//   off by ~|x| / n, thousands of times more.
#include <gtest/gtest.h>

#include "base/threading.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "base/threading.h"
#include "kernels/pool/max_pool_q8.h"
#include "kernels/pool/pool.h"
#include "ops/nn/pool.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::run_op;

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A random geometry and the reference op's output for it; false when the window does not fit.
struct Case {
  Shape x_shape;
  ops::WindowGeometry g;
  kernels::MaxPool2dGeometry k;
};

bool random_case(std::mt19937& rng, bool one_d, Case& c) {
  const int64_t ih = one_d ? 1 : pick(rng, 1, 20), iw = pick(rng, 1, 70);
  const int64_t kh = one_d ? 1 : pick(rng, 1, 5), kw = pick(rng, 1, 7);
  const int64_t sy = one_d ? 1 : pick(rng, 1, 3);
  int64_t sx = pick(rng, 1, 3);
  if (pick(rng, 0, 1)) sx = 2;
  const int64_t pt = one_d ? 0 : pick(rng, 0, kh - 1), pb = one_d ? 0 : pick(rng, 0, kh - 1);
  const int64_t pl = pick(rng, 0, kw - 1), pr = pick(rng, 0, kw - 1);
  if (ih + pt + pb < kh || iw + pl + pr < kw) return false;
  c.x_shape = one_d ? Shape{pick(rng, 1, 2), pick(rng, 1, 3), iw}
                    : Shape{pick(rng, 1, 2), pick(rng, 1, 3), ih, iw};
  if (one_d) {
    c.g.kernel = {kw};
    c.g.strides = {sx};
    c.g.pads = {pl, pr};
  } else {
    c.g.kernel = {kh, kw};
    c.g.strides = {sy, sx};
    c.g.pads = {pt, pl, pb, pr};
  }
  c.g.ceil_mode = pick(rng, 0, 1);
  Shape spatial(c.x_shape.begin() + 2, c.x_shape.end());
  auto r = c.g.complete(spatial.size(), "MaxPool").resolve(spatial, "MaxPool");
  c.k.in_h = ih;
  c.k.in_w = iw;
  c.k.out_h = one_d ? 1 : r.output[0];
  c.k.out_w = r.output.back();
  c.k.kernel_h = kh;
  c.k.kernel_w = kw;
  c.k.stride_h = sy;
  c.k.stride_w = sx;
  c.k.pad_h = one_d ? 0 : r.pad_begin[0];
  c.k.pad_w = r.pad_begin.back();
  c.k.pad_end_h = one_d ? 0 : pb;
  c.k.pad_end_w = pr;
  return c.k.out_h > 0 && c.k.out_w > 0;
}

std::vector<float> run_kernel(const kernels::PoolKernels& kern, const Case& c,
                              const std::vector<float>& x) {
  const int64_t planes = c.x_shape[0] * c.x_shape[1];
  std::vector<float> y(static_cast<size_t>(planes * c.k.out_h * c.k.out_w), 7.0f);
  std::vector<float> row(static_cast<size_t>(c.k.in_w + 1), 3.0f);
  kern.max_pool_2d(x.data(), y.data(), planes, c.k, row.data());
  return y;
}

TEST(KernelsPool, MaxPoolMatchesReferenceEveryIsa) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-1, 1);
  int checked = 0;
  for (int iter = 0; iter < 400; iter++) {
    Case c;
    if (!random_case(rng, iter % 4 == 3, c)) continue;
    std::vector<float> v(static_cast<size_t>(shape_numel(c.x_shape)));
    for (auto& e : v) e = d(rng);
    ops::Pool pool(ops::PoolKind::Max, c.g, ops::Pool::Options{});
    Tensor want = run_op(pool, {Tensor::from_vector<float>(c.x_shape, v)}, 2)[0];
    ASSERT_EQ(want.numel(), c.x_shape[0] * c.x_shape[1] * c.k.out_h * c.k.out_w);
    for (kernels::Isa isa : kernels::supported_isas()) {
      std::vector<float> got = run_kernel(kernels::pool_kernels(isa), c, v);
      for (int64_t i = 0; i < want.numel(); i++) {
        ASSERT_EQ(got[i], want.data<float>()[i])
            << kernels::isa_name(isa) << " at " << i << " in " << shape_to_string(c.x_shape)
            << " k " << c.k.kernel_h << "x" << c.k.kernel_w << " s " << c.k.stride_h << ","
            << c.k.stride_w << " pad " << c.k.pad_h << "," << c.k.pad_w;
      }
    }
    checked++;
  }
  EXPECT_GT(checked, 300);
}

// average_pool_2d against the reference AveragePool op on the same random geometries (floor and
// ceil mode, whose last windows may reach past the end padding, which count_include_pad does not
// count), count_include_pad on and off, every ISA; the sums run in another order (column sums,
// then along the row): within (kh + kw + 2) 2^-24 sum |x| / count of the reference, which a
// dropped, doubled or miscounted element exceeds by orders of magnitude. Then Pool::codegen's
// AvgPoolF32 against the reference op at 1 and 2 threads.
TEST(KernelsPool, AveragePoolMatchesReferenceEveryIsa) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> d(-1, 1);
  int checked = 0;
  for (int iter = 0; iter < 400; iter++) {
    Case c;
    if (!random_case(rng, iter % 4 == 3, c)) continue;
    std::vector<float> v(static_cast<size_t>(shape_numel(c.x_shape)));
    for (auto& e : v) e = d(rng);
    const bool include = iter % 2 == 0;
    ops::Pool::Options opt;
    opt.count_include_pad = include;
    ops::Pool pool(ops::PoolKind::Average, c.g, opt);
    const Tensor x = Tensor::from_vector<float>(c.x_shape, v);
    Tensor want = run_op(pool, {x})[0];
    const int64_t planes = c.x_shape[0] * c.x_shape[1];
    ASSERT_EQ(want.numel(), planes * c.k.out_h * c.k.out_w);
    const double tol = (c.k.kernel_h + c.k.kernel_w + 2) / double(1 << 24);
    for (kernels::Isa isa : kernels::supported_isas()) {
      std::vector<float> got(static_cast<size_t>(want.numel()), 7.0f);
      std::vector<float> row(static_cast<size_t>(c.k.in_w + 1), 3.0f);
      kernels::pool_kernels(isa).average_pool_2d(v.data(), got.data(), planes, c.k, include,
                                                 row.data());
      for (int64_t i = 0; i < want.numel(); i++) {
        const float w = want.data<float>()[i];
        if (std::isnan(w)) {
          ASSERT_TRUE(std::isnan(got[i])) << i;
          continue;
        }
        ASSERT_NEAR(got[i], w, tol)
            << kernels::isa_name(isa) << " at " << i << " in " << shape_to_string(c.x_shape)
            << " k " << c.k.kernel_h << "x" << c.k.kernel_w << " s " << c.k.stride_h << ","
            << c.k.stride_w << " pad " << c.k.pad_h << "," << c.k.pad_w << " include " << include
            << " ceil " << c.g.ceil_mode;
      }
    }
    std::vector<Fact> facts = {Fact(DatumType::F32, c.x_shape)};
    OpPtr fast = pool.codegen(kiln::testing::fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      Tensor got = run_op(*fast, {x})[0];
      set_num_threads(0);
      ASSERT_EQ(got.shape(), want.shape());
      for (int64_t i = 0; i < want.numel(); i++) {
        const float w = want.data<float>()[i];
        if (!std::isnan(w)) {
          ASSERT_NEAR(got.data<float>()[i], w, tol) << i;
        }
      }
    }
    checked++;
  }
  EXPECT_GT(checked, 300);
}

// The documented order, scalar: per output row, column maxima from the window's first row down,
// then the max along the row from -inf. Counts the windows that hold a NaN in `nan_windows`.
std::vector<float> model_max_pool(const Case& c, const std::vector<float>& x, int& nan_windows) {
  const auto& g = c.k;
  const int64_t planes = c.x_shape[0] * c.x_shape[1];
  const float lowest = -std::numeric_limits<float>::infinity();
  std::vector<float> y;
  for (int64_t p = 0; p < planes; p++) {
    for (int64_t oy = 0; oy < g.out_h; oy++) {
      for (int64_t ox = 0; ox < g.out_w; ox++) {
        float best = lowest;
        bool nan = false;
        for (int64_t ix = ox * g.stride_w - g.pad_w; ix < ox * g.stride_w - g.pad_w + g.kernel_w;
             ix++) {
          if (ix < 0 || ix >= g.in_w) continue;
          bool first = true;
          float col = lowest;
          for (int64_t iy = oy * g.stride_h - g.pad_h; iy < oy * g.stride_h - g.pad_h + g.kernel_h;
               iy++) {
            if (iy < 0 || iy >= g.in_h) continue;
            float v = x[static_cast<size_t>((p * g.in_h + iy) * g.in_w + ix)];
            nan |= std::isnan(v);
            col = first ? v : (v > col ? v : col);
            first = false;
          }
          best = col > best ? col : best;
        }
        nan_windows += nan;
        y.push_back(best);
      }
    }
  }
  return y;
}

TEST(KernelsPool, MaxPoolNaNsFollowTheDocumentedOrderEveryIsa) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> d(-1, 1);
  int nan_windows = 0;
  for (int iter = 0; iter < 300; iter++) {
    Case c;
    if (!random_case(rng, iter % 4 == 3, c)) continue;
    std::vector<float> v(static_cast<size_t>(shape_numel(c.x_shape)));
    for (auto& e : v) e = pick(rng, 0, 9) == 0 ? std::nanf("") : d(rng);
    std::vector<float> want = model_max_pool(c, v, nan_windows);
    for (kernels::Isa isa : kernels::supported_isas()) {
      std::vector<float> got = run_kernel(kernels::pool_kernels(isa), c, v);
      for (size_t i = 0; i < want.size(); i++) {
        ASSERT_TRUE(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))
            << kernels::isa_name(isa) << " at " << i << ": " << got[i] << " vs " << want[i];
      }
    }
  }
  EXPECT_GT(nan_windows, 1000);
}

// max_pool_2d of every ISA on c's planes of v and of nan_in, into y between guard floats:
// exactly `want` (the reference op's output) and `nan_want` (the documented order, NaN positions
// included), and nothing written outside y. `what` names the case in failures.
void expect_guarded_every_isa(const Case& c, const std::vector<float>& v, const Tensor& want,
                              const std::vector<float>& nan_in, const std::vector<float>& nan_want,
                              const std::string& what) {
  const int64_t planes = c.x_shape[0] * c.x_shape[1];
  const int64_t n = planes * c.k.out_h * c.k.out_w, guard = 40;
  ASSERT_EQ(want.numel(), n) << what;
  for (kernels::Isa isa : kernels::supported_isas()) {
    for (bool nans : {false, true}) {
      std::vector<float> y(static_cast<size_t>(n + 2 * guard), 7.0f);
      std::vector<float> row(static_cast<size_t>(c.k.in_w + 1), 3.0f);
      kernels::pool_kernels(isa).max_pool_2d(nans ? nan_in.data() : v.data(), y.data() + guard,
                                             planes, c.k, row.data());
      for (int64_t i = 0; i < guard; i++) {
        ASSERT_EQ(y[i], 7.0f) << kernels::isa_name(isa) << " wrote before y, " << what;
        ASSERT_EQ(y[guard + n + i], 7.0f) << kernels::isa_name(isa) << " wrote past y, " << what;
      }
      for (int64_t i = 0; i < n; i++) {
        const float got = y[guard + i];
        const float expect = nans ? nan_want[i] : want.data<float>()[i];
        ASSERT_TRUE(got == expect || (std::isnan(got) && std::isnan(expect)))
            << kernels::isa_name(isa) << (nans ? " with NaNs" : "") << " at " << i << " in " << what
            << ": " << got << " vs " << expect;
      }
    }
  }
}

// The 3x3 stride-2 windows read straight from whole kernel rows (two output rows at once when the
// vertical stride is 2 too): every row width 3..80 (output rows shorter than one vector of every
// ISA, whole vectors, an overlapping last vector), heights 3..12 (pairs and a single last row),
// pads 0..2 each side, floor and ceil mode, vertical strides 1..3, several planes; exact against
// the reference op, then with NaNs (one value in 5) against the documented order, and nothing
// written outside y (guards on both sides).
TEST(KernelsPool, MaxPool3x3Stride2EveryWidthEveryIsa) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> d(-1, 1);
  int checked = 0, nan_windows = 0;
  for (int64_t iw = 3; iw <= 80; iw++) {
    Case c;
    const int64_t ih = 3 + (iw * 5) % 10, sy = 1 + iw % 3;
    const int64_t pt = iw % 3, pb = (iw / 3) % 3, pl = (iw / 2) % 3, pr = (iw / 5) % 3;
    c.x_shape = Shape{1, 1 + iw % 3, ih, iw};
    c.g.kernel = {3, 3};
    c.g.strides = {sy, 2};
    c.g.pads = {pt, pl, pb, pr};
    c.g.ceil_mode = iw % 2 == 0;
    Shape spatial(c.x_shape.begin() + 2, c.x_shape.end());
    auto r = c.g.complete(2, "MaxPool").resolve(spatial, "MaxPool");
    c.k = kernels::MaxPool2dGeometry{ih, iw, r.output[0], r.output[1],    3,
                                     3,  sy, 2,           r.pad_begin[0], r.pad_begin[1]};
    std::vector<float> v(static_cast<size_t>(shape_numel(c.x_shape)));
    for (auto& e : v) e = d(rng);
    ops::Pool pool(ops::PoolKind::Max, c.g, ops::Pool::Options{});
    Tensor want = run_op(pool, {Tensor::from_vector<float>(c.x_shape, v)}, 2)[0];
    std::vector<float> nan_in = v;
    for (auto& e : nan_in) {
      if (pick(rng, 0, 4) == 0) e = std::nanf("");
    }
    const std::vector<float> nan_want = model_max_pool(c, nan_in, nan_windows);
    expect_guarded_every_isa(
        c, v, want, nan_in, nan_want,
        (::testing::Message() << ih << "x" << iw << " stride " << sy << ",2 pads " << pt << pl << pb
                              << pr << (c.g.ceil_mode ? " ceil" : ""))
            .GetString());
    if (HasFatalFailure()) return;
    checked++;
  }
  EXPECT_EQ(checked, 78);
  EXPECT_GT(nan_windows, 1000);
}

// 1 x 2 windows of stride 2 that tile the rows (the frequency pool of audio feature maps: one run
// of pairs over every plane): output widths 1..40 (shorter than a vector of every ISA, whole
// vectors, scalar tails), heights 1..4, 1..3 planes; exact against the reference op, then with
// NaNs against the documented order, nothing written outside y.
TEST(KernelsPool, MaxPool1x2Stride2PairsEveryIsa) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> d(-1, 1);
  int nan_windows = 0;
  for (int64_t ow = 1; ow <= 40; ow++) {
    Case c;
    const int64_t ih = 1 + ow % 4, iw = 2 * ow, planes = 1 + ow % 3;
    c.x_shape = Shape{1, planes, ih, iw};
    c.g.kernel = {1, 2};
    c.g.strides = {1, 2};
    c.g.pads = {0, 0, 0, 0};
    c.k = kernels::MaxPool2dGeometry{ih, iw, ih, ow, 1, 2, 1, 2, 0, 0};
    std::vector<float> v(static_cast<size_t>(shape_numel(c.x_shape)));
    for (auto& e : v) e = d(rng);
    ops::Pool pool(ops::PoolKind::Max, c.g, ops::Pool::Options{});
    Tensor want = run_op(pool, {Tensor::from_vector<float>(c.x_shape, v)}, 1)[0];
    std::vector<float> nan_in = v;
    for (auto& e : nan_in) {
      if (pick(rng, 0, 3) == 0) e = std::nanf("");
    }
    const std::vector<float> nan_want = model_max_pool(c, nan_in, nan_windows);
    expect_guarded_every_isa(
        c, v, want, nan_in, nan_want,
        (::testing::Message() << planes << " planes of " << ih << "x" << iw).GetString());
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(nan_windows, 100);
}

TEST(KernelsPool, AveragePlanesWithinStatedErrorEveryIsa) {
  std::mt19937 rng(7);
  const std::vector<int64_t> sizes = {1,  2,  3,  4,  5,  7,  8,   9,   15,
                                      16, 17, 31, 33, 49, 64, 169, 1000};
  for (kernels::Isa isa : kernels::supported_isas()) {
    SCOPED_TRACE(kernels::isa_name(isa));
    const auto& k = kernels::pool_kernels(isa);
    for (int64_t n : sizes) {
      for (float offset : {0.0f, 100.0f}) {
        const int64_t planes = 5;
        std::uniform_real_distribution<float> d(offset - 1, offset + 1);
        std::vector<float> x(static_cast<size_t>(planes * n));
        for (auto& e : x) e = d(rng);
        std::vector<float> y(static_cast<size_t>(planes), -1.0f);
        k.average_planes(x.data(), y.data(), planes, n);
        for (int64_t p = 0; p < planes; p++) {
          double sum = 0, abs_sum = 0;
          for (int64_t i = 0; i < n; i++) {
            sum += x[static_cast<size_t>(p * n + i)];
            abs_sum += std::abs(x[static_cast<size_t>(p * n + i)]);
          }
          const double want = sum / static_cast<double>(n);
          const double tol = std::ldexp(std::abs(want), -24) +
                             static_cast<double>(n) * std::ldexp(abs_sum / n, -52);
          EXPECT_NEAR(y[p], want, tol) << "n " << n << " plane " << p;
        }
      }
    }
  }
}

// The 8-bit max pool (u8 and i8) against direct loops: rows from shorter than one vector to many
// vectors (the u8 3x3 stride-2 path takes 16 outputs at a time), strides 1 to 3, kernels 1 to 4,
// padding and ceil-mode partial windows at the ends, full-range values.
TEST(KernelsPool, MaxPool8BitMatchesDirectLoops) {
  std::mt19937 rng(8);
  std::uniform_int_distribution<int> byte(0, 255), wide(1, 130), small(1, 9), k(1, 4), s(1, 3),
      pad(0, 1);
  for (int round = 0; round < 200; round++) {
    kernels::MaxPool2dGeometry g;
    g.kernel_h = k(rng);
    g.kernel_w = round % 2 ? 3 : k(rng);
    g.stride_h = s(rng);
    g.stride_w = round % 2 ? 2 : s(rng);
    g.pad_h = std::min<int64_t>(pad(rng), g.kernel_h - 1);
    g.pad_w = std::min<int64_t>(pad(rng), g.kernel_w - 1);
    g.in_h = small(rng) + g.kernel_h;
    g.in_w = wide(rng) + g.kernel_w;
    // Ceil mode: one more output whose window passes the end, when some input remains for it.
    const bool ceil = round % 3 == 0;
    auto outs = [&](int64_t in, int64_t kk, int64_t st, int64_t pd) {
      const int64_t n = (in + pd - kk) / st + 1;
      return ceil && (n * st - pd) < in ? n + 1 : n;
    };
    g.out_h = outs(g.in_h, g.kernel_h, g.stride_h, g.pad_h);
    g.out_w = outs(g.in_w, g.kernel_w, g.stride_w, g.pad_w);
    const int64_t planes = 2, in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
    std::vector<uint8_t> x(static_cast<size_t>(planes * in_plane));
    for (auto& v : x) v = static_cast<uint8_t>(byte(rng));
    x[0] = 255;
    x[1] = 0;
    for (bool is_signed : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "round " << round << " signed " << is_signed << " in " << g.in_h << "x"
                   << g.in_w << " k " << g.kernel_h << "x" << g.kernel_w << " s " << g.stride_h
                   << "," << g.stride_w << " pad " << g.pad_h << "," << g.pad_w);
      std::vector<uint8_t> y(static_cast<size_t>(planes * out_plane) + 1, 0xA5);
      std::vector<uint8_t> row(static_cast<size_t>(g.in_w + kernels::kQ8RowPad));
      if (is_signed)
        kernels::max_pool_2d_i8(reinterpret_cast<const int8_t*>(x.data()),
                                reinterpret_cast<int8_t*>(y.data()), planes, g,
                                reinterpret_cast<int8_t*>(row.data()));
      else
        kernels::max_pool_2d_u8(x.data(), y.data(), planes, g, row.data());
      ASSERT_EQ(y.back(), 0xA5) << "wrote past the output";
      for (int64_t p = 0; p < planes; p++)
        for (int64_t oy = 0; oy < g.out_h; oy++)
          for (int64_t ox = 0; ox < g.out_w; ox++) {
            int best = is_signed ? -128 : 0;
            for (int64_t ky = 0; ky < g.kernel_h; ky++)
              for (int64_t kx = 0; kx < g.kernel_w; kx++) {
                const int64_t iy = oy * g.stride_h - g.pad_h + ky;
                const int64_t ix = ox * g.stride_w - g.pad_w + kx;
                if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
                const uint8_t b = x[static_cast<size_t>(p * in_plane + iy * g.in_w + ix)];
                best = std::max(best, is_signed ? static_cast<int>(static_cast<int8_t>(b)) : b);
              }
            const uint8_t got = y[static_cast<size_t>(p * out_plane + oy * g.out_w + ox)];
            ASSERT_EQ(is_signed ? static_cast<int>(static_cast<int8_t>(got)) : got, best)
                << p << ": " << oy << "," << ox;
          }
    }
  }
}

}  // namespace
}  // namespace kiln
