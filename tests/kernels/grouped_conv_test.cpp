// The direct grouped convolution (kernels/conv/grouped_conv.h, ConvPath::Grouped of ConvKernel)
// against a double-precision reference, on every ISA this machine has (KILN_ISA=generic runs the
// generic one only): random 2-D and 1-D geometries with odd sizes, 1..33 input and output
// channels per group, kernels 1..5 per axis, strides 1..3, dilations 1..2, every padding, and
// every feature of the epilogue's register stage (row / column scale and bias, residual,
// accumulate, LeakyRelu, clamps) plus a post step. The input ends at a guard page and the
// scratch (NaN-filled) starts after one or ends at one, so a read or write outside them crashes
// the test or shows up as NaN.
// Tolerance: expect_matches' 16 eps * sum |w * x| (+ eps-level slack for the epilogue): float32
// sums of at most 33 * 25 = 825 products rounded in another order than the double reference stay
// far below it, and one wrong or missing tap is far above it. The post step (Sigmoid) is applied
// to the reference by the same vectorized function, so it adds nothing to compare.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "base/threading.h"
#include "kernels/conv/conv_plan.h"
#include "tests/kernels/kernel_test_util.h"

namespace kiln {
namespace {

using kernels::ConvGeometry;

struct Case {
  int64_t group, cg, mg, ih, iw, kh, kw, sy, sx, dy, dx, pt, pb, pl, pr;
  int mask;
  bool post;
};

std::string describe(const Case& c, kernels::Isa isa) {
  std::ostringstream o;
  o << kernels::isa_name(isa) << " group " << c.group << " " << c.cg << "->" << c.mg << " in "
    << c.ih << "x" << c.iw << " k " << c.kh << "x" << c.kw << " s " << c.sy << "," << c.sx << " d "
    << c.dy << "," << c.dx << " pads " << c.pt << "," << c.pb << "," << c.pl << "," << c.pr
    << " epilogue " << c.mask << (c.post ? " +sigmoid" : "");
  return o.str();
}

// Runs one case under `isa` on 1 and 3 threads; false when the geometry has no output.
bool run_case(const Case& c, kernels::Isa isa, std::mt19937& rng) {
  ConvGeometry g;
  g.in[1] = c.ih;
  g.in[2] = c.iw;
  g.kernel[1] = c.kh;
  g.kernel[2] = c.kw;
  g.stride[1] = c.sy;
  g.stride[2] = c.sx;
  g.dilation[1] = c.dy;
  g.dilation[2] = c.dx;
  g.pad[1] = c.pt;
  g.pad[2] = c.pl;
  const int64_t ey = (c.kh - 1) * c.dy + 1, ex = (c.kw - 1) * c.dx + 1;
  if (c.ih + c.pt + c.pb < ey || c.iw + c.pl + c.pr < ex) return false;
  g.out[1] = (c.ih + c.pt + c.pb - ey) / c.sy + 1;
  g.out[2] = (c.iw + c.pl + c.pr - ex) / c.sx + 1;
  const int64_t channels = c.group * c.cg, m = c.group * c.mg, is = g.in_size(), os = g.out_size(),
                taps = c.kh * c.kw;
  const std::vector<float> w = test::random_vector(rng, static_cast<size_t>(m * c.cg * taps));
  test::GuardedFloats x(static_cast<size_t>(channels * is));
  const std::vector<float> xv = test::random_vector(rng, static_cast<size_t>(channels * is));
  std::copy(xv.begin(), xv.end(), x.data());
  test::EpilogueData e = test::make_epilogue(rng, c.mask, m, os);
  if (c.post) {
    e.ep.post[0].kind = kernels::PostStep::Kind::Unary;
    e.ep.post[0].unary = kernels::UnaryFn::Sigmoid;
    e.ep.post_count = 1;
  }
  const std::vector<float> before = test::random_vector(rng, static_cast<size_t>((m + 2) * os));

  std::vector<std::vector<float>> outs;
  for (bool known : {true, false}) {
    kernels::ConvKernel kernel(w.data(), {m, c.cg, c.kh, c.kw}, c.group, isa, known ? &g : nullptr);
    for (int threads : {1, 3}) {
      const kernels::ConvPlan plan = kernel.plan(g, threads);
      EXPECT_EQ(plan.path, kernels::ConvPath::Grouped) << describe(c, isa);
      // The scratch starts after a guard page on 1 thread and ends at one on 3 threads: the
      // whole vectors read past a row's outputs must stay inside the planes' slack.
      test::GuardedFloats scratch(std::max<size_t>(plan.scratch_floats, 1), threads == 3);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(scratch.data()) % 64, 0u);
      std::fill(scratch.data(), scratch.data() + plan.scratch_floats,
                std::numeric_limits<float>::quiet_NaN());
      std::vector<float> y = before;
      kernel.run(plan, x.data(), e.ep, y.data(), scratch.data());
      outs.push_back(std::move(y));
    }
  }
  // The reference: the sums in double, then the register stage (expect_matches), then the
  // post step applied to the reference's floats by the same function.
  SCOPED_TRACE(describe(c, isa));
  auto dot = [&](int64_t o, int64_t j) {
    const int64_t grp = o / c.mg, oy = j / g.out[2], ox = j % g.out[2];
    double sum = 0, mag = 0;
    for (int64_t ci = 0; ci < c.cg; ci++) {
      const float* xc = x.data() + (grp * c.cg + ci) * is;
      for (int64_t ky = 0; ky < c.kh; ky++) {
        const int64_t iy = oy * c.sy - c.pt + ky * c.dy;
        if (iy < 0 || iy >= c.ih) continue;
        for (int64_t kx = 0; kx < c.kw; kx++) {
          const int64_t ix = ox * c.sx - c.pl + kx * c.dx;
          if (ix < 0 || ix >= c.iw) continue;
          const double p = static_cast<double>(w[((o * c.cg + ci) * c.kh + ky) * c.kw + kx]) *
                           xc[iy * c.iw + ix];
          sum += p;
          mag += std::fabs(p);
        }
      }
    }
    return std::make_pair(sum, mag);
  };
  if (!c.post) {
    test::expect_matches(m, os, e, outs[0], before, os, dot);
  } else {
    // Without the post step, then the post step on those outputs.
    kernels::Epilogue plain = e.ep;
    plain.post_count = 0;
    kernels::ConvKernel kernel(w.data(), {m, c.cg, c.kh, c.kw}, c.group, isa, &g);
    const kernels::ConvPlan plan = kernel.plan(g, 1);
    std::vector<float> scratch(plan.scratch_floats + 16);
    std::vector<float> y = before;
    float* aligned =
        reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) / 64 * 64);
    kernel.run(plan, x.data(), plain, y.data(), aligned);
    test::expect_matches(m, os, e, y, before, os, dot);
    kernels::apply_post_steps(e.ep, y.data(), os, m, os, 0, 0);
    for (size_t i = 0; i < y.size(); i++) {
      if (!(std::fabs(outs[0][i] - y[i]) <= 1e-6f)) {
        ADD_FAILURE() << "post step at " << i << ": " << outs[0][i] << " vs " << y[i];
        break;
      }
    }
  }
  // Threads and the kept weight forms change nothing: bitwise identical.
  for (size_t i = 1; i < outs.size(); i++) {
    EXPECT_TRUE(std::equal(outs[i].begin(), outs[i].end(), outs[0].begin(),
                           [](float a, float b) { return std::memcmp(&a, &b, 4) == 0; }))
        << "run " << i;
  }
  return true;
}

TEST(KernelsGroupedConv, RandomGeometriesEveryIsa) {
  set_num_threads(3);
  for (kernels::Isa isa : kernels::supported_isas()) {
    std::mt19937 rng(19);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    int ran = 0;
    for (int i = 0; i < 160; i++) {
      Case c;
      c.group = pick(2, 5);
      c.cg = i < 33 ? i + 1 : pick(1, 33);
      c.mg = i < 33 ? 33 - i : pick(1, 33);
      if (c.cg == 1 && c.mg == 1) c.mg = 2;  // depthwise takes its own path
      const bool one_d = i % 7 == 3;
      c.ih = one_d ? 1 : pick(1, 20);
      c.iw = pick(1, 24);
      c.kh = one_d ? 1 : pick(1, 5);
      c.kw = pick(1, 5);
      c.sy = one_d ? 1 : pick(1, 3);
      c.sx = pick(1, 3);
      c.dy = one_d ? 1 : pick(1, 2);
      c.dx = pick(1, 2);
      c.pt = one_d ? 0 : pick(0, c.kh);
      c.pb = one_d ? 0 : pick(0, c.kh);
      c.pl = pick(0, c.kw);
      c.pr = pick(0, c.kw);
      c.mask = static_cast<int>(pick(0, 1023));
      if ((c.mask & 256) && !(c.mask & 128) && !(c.mask & 512)) c.mask |= 128;
      c.post = i % 5 == 1;
      if (run_case(c, isa, rng)) ran++;
      if (::testing::Test::HasFailure()) break;
    }
    EXPECT_GT(ran, 100) << kernels::isa_name(isa);
  }
  set_num_threads(0);
}

// RegNet's shapes (16 channels per group, 3x3, stride 1 and 2, 56..7 planes), the sizes
// around a tile's width, and 80x80 outputs (rows past 64 floats: the planes are padded row by
// row, not zeroed first).
TEST(KernelsGroupedConv, RegNetShapesEveryIsa) {
  set_num_threads(2);
  for (kernels::Isa isa : kernels::supported_isas()) {
    std::mt19937 rng(400);
    for (int64_t size : {7, 14, 15, 16, 17, 28, 48, 56, 80}) {
      for (int64_t s : {1, 2}) {
        Case c{3, 16, 16, size * s, size * s, 3, 3, s, s, 1, 1, 1, 1, 1, 1, 4 | 128, false};
        ASSERT_TRUE(run_case(c, isa, rng));
        Case r{2, 24, 8, size, size, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4 | 16, false};
        ASSERT_TRUE(run_case(r, isa, rng));
      }
    }
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace kiln
