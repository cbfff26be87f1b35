// ConvPacked and MatMulPacked (the codegen of Conv, MatMul, Gemm) against the reference ops.
//
// Tolerance: both sides sum the same float32 products in different orders; each output has at
// most 3 * 3 * 64 = 576 terms of size <= 1, so rounding differences stay below ~576 * 2^-24 * 4
// ~ 1.4e-4 in the worst case and ~1e-6 typically; 2e-4 absolute + 1e-4 relative is used, while
// any wrong tap or channel changes an output by ~0.1 or more. Convs ConvPacked runs through
// Winograd F(4x4, 3x3) round more: its transforms scale terms by up to 8 (Aᵀ) and 5 (Bᵀ) before
// they cancel, so its error is relative to a magnitude sum ~100x the direct one's (see
// tests/kernels/winograd_test.cpp, which bounds it exactly); seen up to 2.4e-4 here (generic ISA,
// 64 channels); 1e-3 absolute is used for them, still 100x below a wrong tap.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "base/threading.h"
#include "kernels/conv/conv_in_place.h"
#include "kernels/mmm/mmm_in_place.h"
#include "ops/nn/conv.h"
#include "ops/nn/conv_packed.h"
#include "ops/nn/gemm.h"
#include "ops/nn/matmul.h"
#include "ops/nn/matmul_packed.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::fact_refs;
using kiln::testing::run_op;
using ops::AutoPad;
using ops::WindowGeometry;

// The packed op with a fused residual (a Full Add operand, of the output's fact, as its next
// node input) or clamp.
OpPtr with_residual(const Op& op, const std::vector<Fact>& facts) {
  ops::OutputStep add;
  add.kind = ops::OutputStep::Kind::Binary;
  Fact r = op.output_facts(fact_refs(facts)).at(0);
  OpPtr fused =
      dynamic_cast<const ops::FusableProducer&>(op).with_output_step(add, fact_refs(facts), &r);
  EXPECT_NE(fused, nullptr);
  return fused;
}
OpPtr with_clamp(const Op& op, const std::vector<Fact>& facts, float min, float max) {
  ops::OutputStep clamp;
  clamp.kind = ops::OutputStep::Kind::Clamp;
  clamp.min = min;
  clamp.max = max;
  OpPtr fused = dynamic_cast<const ops::FusableProducer&>(op).with_output_step(
      clamp, fact_refs(facts), nullptr);
  EXPECT_NE(fused, nullptr);
  return fused;
}

Tensor random_tensor(std::mt19937& rng, Shape shape) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  return Tensor::from_vector<float>(shape, v);
}

void expect_tensors_close(const Tensor& got, const Tensor& want, double atol = 2e-4) {
  ASSERT_EQ(got.shape(), want.shape());
  const float* g = got.data<float>();
  const float* w = want.data<float>();
  int bad = 0;
  for (int64_t i = 0; i < got.numel(); i++) {
    if (!(std::fabs(g[i] - w[i]) <= atol + 1e-4 * std::fabs(w[i])) && bad++ < 5) {
      ADD_FAILURE() << "at " << i << ": " << g[i] << " vs " << w[i];
    }
  }
}

// Codegen for facts where weights (and bias) are constants, then compares on `x`.
void check_conv(const ops::Conv& conv, const Tensor& x, const Tensor& w, const Tensor* b,
                bool expect_depthwise = false) {
  std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(w)};
  if (b) facts.push_back(Fact::constant(*b));
  OpPtr fast = conv.codegen(fact_refs(facts));
  ASSERT_NE(fast, nullptr);
  ASSERT_EQ(fast->name(), "ConvPacked");
  EXPECT_EQ(static_cast<const ops::ConvPacked&>(*fast).depthwise(), expect_depthwise);
  EXPECT_EQ(fast->output_facts(fact_refs(facts))[0].to_string(),
            conv.output_facts(fact_refs(facts))[0].to_string());
  std::vector<Tensor> in = {x, w};
  if (b) in.push_back(*b);
  auto want = run_op(conv, in);
  const double atol = static_cast<const ops::ConvPacked&>(*fast).winograd() ? 1e-3 : 2e-4;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    auto got = run_op(*fast, in);
    expect_tensors_close(got[0], want[0], atol);
  }
  set_num_threads(0);
}

WindowGeometry geometry(std::vector<int64_t> strides, std::vector<int64_t> pads,
                        std::vector<int64_t> dilations = {}, AutoPad pad = AutoPad::NotSet) {
  WindowGeometry g;
  g.strides = std::move(strides);
  g.pads = std::move(pads);
  g.dilations = std::move(dilations);
  g.auto_pad = pad;
  return g;
}

TEST(OpsConvPacked, Pointwise) {
  std::mt19937 rng(1);
  ops::Conv conv(geometry({1, 1}, {0, 0, 0, 0}), 1);
  Tensor x = random_tensor(rng, {2, 19, 7, 9});
  Tensor w = random_tensor(rng, {37, 19, 1, 1});
  Tensor b = random_tensor(rng, {37});
  check_conv(conv, x, w, &b);
  check_conv(conv, x, w, nullptr);
}

TEST(OpsConvPacked, Im2colStridesPadsDilations) {
  std::mt19937 rng(2);
  Tensor x = random_tensor(rng, {1, 5, 13, 11});
  Tensor w = random_tensor(rng, {9, 5, 3, 3});
  Tensor b = random_tensor(rng, {9});
  check_conv(ops::Conv(geometry({1, 1}, {1, 1, 1, 1}), 1), x, w, &b);
  check_conv(ops::Conv(geometry({2, 2}, {1, 1, 1, 1}), 1), x, w, &b);
  check_conv(ops::Conv(geometry({2, 1}, {0, 2, 1, 0}), 1), x, w, nullptr);
  check_conv(ops::Conv(geometry({1, 3}, {2, 2, 2, 2}, {2, 2}), 1), x, w, &b);
  check_conv(ops::Conv(geometry({2, 2}, {}, {}, AutoPad::SameUpper), 1), x, w, &b);
  // A strided 1x1 (ResNet downsample) goes through im2col.
  Tensor w1 = random_tensor(rng, {64, 5, 1, 1});
  check_conv(ops::Conv(geometry({2, 2}, {0, 0, 0, 0}), 1), x, w1, nullptr);
  // Larger than one panel in every direction.
  Tensor xl = random_tensor(rng, {1, 64, 20, 21});
  Tensor wl = random_tensor(rng, {70, 64, 3, 3});
  check_conv(ops::Conv(geometry({1, 1}, {1, 1, 1, 1}), 1), xl, wl, nullptr);
}

// The shapes that read B in place (kernels/mmm/mmm_in_place.h): 1x1 convs with few output
// channels and a short k (also grouped, per group), and 3x3 stride-1 convs whose output rows fill
// whole tiles (padded or not, stride 2 along y), plus a fused residual on each; the neighbouring
// shapes that keep packing run too.
TEST(OpsConvPacked, InPlacePaths) {
  std::mt19937 rng(21);
  const kernels::MicroKernel& kernel = kernels::default_micro_kernel();
  const int64_t wide = 4 * kernel.nr;  // output rows of whole tiles
  Tensor x = random_tensor(rng, {2, 24, 5, wide});
  Tensor w1 = random_tensor(rng, {16, 24, 1, 1});
  Tensor b1 = random_tensor(rng, {16});
  if (kernel.in_place) {
    EXPECT_TRUE(kernels::mmm_in_place_pays(kernel, 16, 24));
  }
  check_conv(ops::Conv(geometry({1, 1}, {0, 0, 0, 0}), 1), x, w1, &b1);
  // Grouped: two groups of 8 channels from 12.
  Tensor wg = random_tensor(rng, {16, 12, 1, 1});
  check_conv(ops::Conv(geometry({1, 1}, {0, 0, 0, 0}), 2), x, wg, &b1);
  // A deep k packs B again.
  Tensor xd = random_tensor(rng, {1, 200, 3, 7});
  Tensor wdp = random_tensor(rng, {16, 200, 1, 1});
  check_conv(ops::Conv(geometry({1, 1}, {0, 0, 0, 0}), 1), xd, wdp, nullptr);

  Tensor w3 = random_tensor(rng, {10, 24, 3, 3});
  Tensor b3 = random_tensor(rng, {10});
  for (const auto& g : {geometry({1, 1}, {1, 1, 1, 1}), geometry({2, 1}, {1, 1, 1, 1}),
                        geometry({1, 1}, {0, 0, 0, 0}, {1, 2})}) {
    check_conv(ops::Conv(g, 1), x, w3, &b3);
  }
  if (kernel.in_place) {
    kernels::ConvGeometry geo;
    geo.in[1] = 5;
    geo.in[2] = geo.out[2] = wide;
    geo.out[1] = 5;
    geo.kernel[1] = geo.kernel[2] = 3;
    geo.pad[1] = geo.pad[2] = 1;
    EXPECT_TRUE(kernels::conv_in_place_pays(kernel, geo, 64));
  }

  // A fused residual: y = conv(x) + r.
  for (const Tensor* wt : {&w1, &w3}) {
    const bool pointwise = wt == &w1;
    ops::Conv conv(pointwise ? geometry({1, 1}, {0, 0, 0, 0}) : geometry({1, 1}, {1, 1, 1, 1}), 1);
    const Tensor& bt = pointwise ? b1 : b3;
    std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(*wt),
                               Fact::constant(bt)};
    auto fast = std::dynamic_pointer_cast<const ops::ConvPacked>(conv.codegen(fact_refs(facts)));
    ASSERT_NE(fast, nullptr);
    auto want = run_op(conv, {x, *wt, bt});
    Tensor r = random_tensor(rng, want[0].shape());
    auto fused = with_residual(*fast, facts);
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      auto got = run_op(*fused, {x, *wt, bt, r});
      ASSERT_EQ(got[0].shape(), want[0].shape());
      for (int64_t i = 0; i < want[0].numel(); i++) {
        const float expect = want[0].data<float>()[i] + r.data<float>()[i];
        ASSERT_NEAR(got[0].data<float>()[i], expect, 2e-4 + 1e-4 * std::fabs(expect)) << i;
      }
    }
    set_num_threads(0);
  }
}

// 3x3 stride-1 convs with enough channels go through Winograd F(4x4, 3x3) (the kernel itself is
// tested in tests/kernels/winograd_test.cpp): the routing, its attribute, symmetric and
// asymmetric pads, a batch of two, a fused residual then Relu; the same weights at stride 2 or
// with fewer channels keep the matmul paths.
TEST(OpsConvPacked, WinogradPath) {
  std::mt19937 rng(31);
  Tensor x = random_tensor(rng, {2, 16, 13, 11});
  Tensor w = random_tensor(rng, {33, 16, 3, 3});
  Tensor b = random_tensor(rng, {33});
  for (const auto& g : {geometry({1, 1}, {1, 1, 1, 1}), geometry({1, 1}, {0, 2, 1, 0}),
                        geometry({2, 2}, {1, 1, 1, 1})}) {
    ops::Conv conv(g, 1);
    check_conv(conv, x, w, &b);
    // The plane is not known at optimize time (symbolic height and width): both forms of the
    // weights, Winograd chosen per run.
    std::vector<Fact> facts = {
        Fact(DatumType::F32, std::vector<Dim>{2, 16, Dim::symbol("H"), Dim::symbol("W")}),
        Fact::constant(w), Fact::constant(b)};
    auto fast = std::dynamic_pointer_cast<const ops::ConvPacked>(conv.codegen(fact_refs(facts)));
    ASSERT_NE(fast, nullptr);
    EXPECT_TRUE(fast->winograd());
    EXPECT_TRUE(fast->matmul_weights());
    std::string kernel;
    for (const auto& [k, v] : fast->attributes())
      if (k == "kernel") kernel = v;
    EXPECT_EQ(kernel.rfind("winograd_f43/", 0), 0u) << kernel;
    // conv(x) + r, then Relu, in Winograd's epilogue.
    auto want = run_op(conv, {x, w, b});
    Tensor r = random_tensor(rng, want[0].shape());
    auto with_r = with_residual(*fast, facts);
    facts.push_back(fast->output_facts(fact_refs(facts)).at(0));
    auto fused = with_clamp(*with_r, facts, 0, std::numeric_limits<float>::infinity());
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      auto got = run_op(*fused, {x, w, b, r});
      ASSERT_EQ(got[0].shape(), want[0].shape());
      for (int64_t i = 0; i < want[0].numel(); i++) {
        const float expect = std::max(0.f, want[0].data<float>()[i] + r.data<float>()[i]);
        ASSERT_NEAR(got[0].data<float>()[i], expect, 1e-3 + 1e-4 * std::fabs(expect)) << i;
      }
    }
    set_num_threads(0);
  }
  // A plane under winograd_pays' minimum (4x5 outputs) takes the matmul path at run time.
  Tensor xs = random_tensor(rng, {1, 16, 4, 5});
  check_conv(ops::Conv(geometry({1, 1}, {1, 1, 1, 1}), 1), xs, w, &b);
  {
    ops::Conv conv(geometry({1, 1}, {1, 1, 1, 1}), 1);
    std::vector<Fact> facts = {
        Fact(DatumType::F32, std::vector<Dim>{1, 16, Dim::symbol("H"), Dim::symbol("W")}),
        Fact::constant(w), Fact::constant(b)};
    auto fast = conv.codegen(fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    expect_tensors_close(run_op(*fast, {xs, w, b})[0], run_op(conv, {xs, w, b})[0], 2e-4);
  }
  // A plane known at optimize time decides once, and only that form of the weights is kept.
  for (const auto& [g, winograd] : std::vector<std::pair<WindowGeometry, bool>>{
           {geometry({1, 1}, {1, 1, 1, 1}), true}, {geometry({2, 2}, {1, 1, 1, 1}), false}}) {
    ops::Conv conv(g, 1);
    std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(w),
                               Fact::constant(b)};
    auto fast = std::dynamic_pointer_cast<const ops::ConvPacked>(conv.codegen(fact_refs(facts)));
    ASSERT_NE(fast, nullptr);
    EXPECT_EQ(fast->winograd(), winograd);
    EXPECT_EQ(fast->matmul_weights(), !winograd);
  }
  {
    // Winograd only, then run on a plane too small for it: a clear error, not a wrong answer.
    ops::Conv conv(geometry({1, 1}, {1, 1, 1, 1}), 1);
    std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(w),
                               Fact::constant(b)};
    auto fast = conv.codegen(fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    EXPECT_THROW(run_op(*fast, {xs, w, b}), Error);
  }
  // Too few input channels: no Winograd weights at all.
  Tensor x4 = random_tensor(rng, {1, 4, 13, 11});
  Tensor w4 = random_tensor(rng, {33, 4, 3, 3});
  ops::Conv conv(geometry({1, 1}, {1, 1, 1, 1}), 1);
  std::vector<Fact> facts = {Fact(DatumType::F32, x4.shape()), Fact::constant(w4)};
  auto fast = std::dynamic_pointer_cast<const ops::ConvPacked>(conv.codegen(fact_refs(facts)));
  ASSERT_NE(fast, nullptr);
  EXPECT_FALSE(fast->winograd());
  check_conv(conv, x4, w4, nullptr);
}

TEST(OpsConvPacked, DepthwiseAndGrouped) {
  std::mt19937 rng(3);
  Tensor x = random_tensor(rng, {2, 12, 15, 14});
  Tensor wd = random_tensor(rng, {12, 1, 3, 3});
  Tensor b = random_tensor(rng, {12});
  check_conv(ops::Conv(geometry({1, 1}, {1, 1, 1, 1}), 12), x, wd, &b, true);
  check_conv(ops::Conv(geometry({2, 2}, {1, 1, 1, 1}), 12), x, wd, &b, true);
  check_conv(ops::Conv(geometry({2, 2}, {0, 1, 2, 0}, {2, 1}), 12), x, wd, nullptr, true);
  Tensor w5 = random_tensor(rng, {12, 1, 5, 5});
  check_conv(ops::Conv(geometry({3, 3}, {2, 2, 2, 2}), 12), x, w5, &b, true);
  // Grouped (not depthwise): 3 groups of 4 -> 6 channels each.
  Tensor wg = random_tensor(rng, {18, 4, 3, 3});
  Tensor bg = random_tensor(rng, {18});
  check_conv(ops::Conv(geometry({1, 1}, {1, 1, 1, 1}), 3), x, wg, &bg);
  // Channel multiplier 2 is grouped, not depthwise.
  Tensor wm = random_tensor(rng, {24, 1, 3, 3});
  check_conv(ops::Conv(geometry({1, 1}, {0, 0, 0, 0}), 12), x, wm, nullptr);
}

// Grouped convs with few channels per group take the direct grouped kernel (RegNet: 16 per
// group; ShuffleNet-v1: grouped 1x1; ResNeXt: 4..32 per group), with any stride, dilation and
// padding, alone and with a fused residual and Relu.
TEST(OpsConvPacked, GroupedDirect) {
  std::mt19937 rng(19);
  Tensor x = random_tensor(rng, {2, 48, 15, 13});
  Tensor b = random_tensor(rng, {48});
  struct G {
    int64_t group, k;
    std::vector<int64_t> strides, pads, dilations;
  };
  for (const G& c : {G{3, 3, {1, 1}, {1, 1, 1, 1}, {}}, G{3, 3, {2, 2}, {1, 1, 1, 1}, {}},
                     G{2, 3, {1, 2}, {0, 2, 1, 0}, {2, 1}}, G{4, 1, {1, 1}, {0, 0, 0, 0}, {}},
                     G{16, 5, {2, 1}, {2, 2, 2, 2}, {}}, G{6, 2, {3, 3}, {1, 0, 0, 1}, {1, 2}}}) {
    Tensor w = random_tensor(rng, {48, 48 / c.group, c.k, c.k});
    ops::Conv conv(geometry(c.strides, c.pads, c.dilations), c.group);
    check_conv(conv, x, w, &b);
    std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(w),
                               Fact::constant(b)};
    OpPtr fast = conv.codegen(fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    bool grouped = false;
    for (const auto& [name, value] : fast->attributes()) {
      if (name == "path") grouped = value == "grouped";
    }
    EXPECT_TRUE(grouped) << "group " << c.group;
    // Conv + residual, then Relu: both in the kernel's epilogue.
    OpPtr fused =
        with_clamp(*with_residual(*fast, facts), facts, 0, std::numeric_limits<float>::infinity());
    auto want = run_op(conv, {x, w, b});
    Tensor r = random_tensor(rng, want[0].shape());
    auto got = run_op(*fused, {x, w, b, r});
    const float* pw = want[0].data<float>();
    const float* pr = r.data<float>();
    const float* pg = got[0].data<float>();
    for (int64_t i = 0; i < want[0].numel(); i++) {
      ASSERT_NEAR(pg[i], std::max(pw[i] + pr[i], 0.0f), 2e-4) << i;
    }
  }
  Tensor x1 = random_tensor(rng, {1, 20, 37});
  Tensor w1 = random_tensor(rng, {30, 4, 3});
  check_conv(ops::Conv(geometry({2}, {1, 1}, {2}), 5), x1, w1, nullptr);
}

TEST(OpsConvPacked, OneDimensionalDilatedAndThreeD) {
  std::mt19937 rng(4);
  Tensor x = random_tensor(rng, {1, 40, 100});
  Tensor w = random_tensor(rng, {64, 40, 3});
  Tensor b = random_tensor(rng, {64});
  for (int64_t d : {1, 2, 4, 8}) {
    check_conv(ops::Conv(geometry({1}, {d, d}, {d}), 1), x, w, &b);
    check_conv(ops::Conv(geometry({1}, {0, 0}, {d}), 1), x, w, &b);
  }
  Tensor x3 = random_tensor(rng, {1, 3, 5, 6, 7});
  Tensor w3 = random_tensor(rng, {4, 3, 2, 3, 3});
  check_conv(ops::Conv(geometry({1, 2, 1}, {1, 0, 1, 0, 1, 1}), 1), x3, w3, nullptr);
}

// Each output is computed by one thread in a fixed order: results are bitwise identical whatever
// the thread count.
TEST(OpsConvPacked, BitwiseIdenticalForAnyThreadCount) {
  std::mt19937 rng(9);
  Tensor x = random_tensor(rng, {1, 32, 30, 30});
  Tensor w = random_tensor(rng, {48, 32, 3, 3});
  Tensor wd = random_tensor(rng, {32, 1, 3, 3});
  Tensor b = random_tensor(rng, {48});
  ops::Conv conv(geometry({1, 1}, {1, 1, 1, 1}), 1);
  ops::Conv dw(geometry({1, 1}, {1, 1, 1, 1}), 32);
  std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(w), Fact::constant(b)};
  std::vector<Fact> dfacts = {Fact(DatumType::F32, x.shape()), Fact::constant(wd)};
  OpPtr fast = conv.codegen(fact_refs(facts));
  OpPtr fast_dw = dw.codegen(fact_refs(dfacts));
  ASSERT_NE(fast, nullptr);
  ASSERT_NE(fast_dw, nullptr);
  // Depthwise on many channels (a ragged last block of 8, stride 2): more chunks than threads.
  Tensor xm = random_tensor(rng, {1, 100, 17, 17});
  Tensor wm = random_tensor(rng, {100, 1, 3, 3});
  ops::Conv dwm(geometry({2, 2}, {1, 1, 1, 1}), 100);
  std::vector<Fact> mfacts = {Fact(DatumType::F32, xm.shape()), Fact::constant(wm)};
  OpPtr fast_dwm = dwm.codegen(fact_refs(mfacts));
  ASSERT_NE(fast_dwm, nullptr);
  // Grouped (the direct grouped kernel): 8 groups of 4 -> 16.
  Tensor wg = random_tensor(rng, {128, 4, 3, 3});
  ops::Conv grouped(geometry({1, 1}, {1, 1, 1, 1}), 8);
  std::vector<Fact> gfacts = {Fact(DatumType::F32, x.shape()), Fact::constant(wg)};
  OpPtr fast_g = grouped.codegen(fact_refs(gfacts));
  ASSERT_NE(fast_g, nullptr);
  std::vector<Tensor> first;
  for (int threads : {1, 2, 3, 4, 8}) {
    set_num_threads(threads);
    auto y = run_op(*fast, {x, w, b});
    auto yd = run_op(*fast_dw, {x, wd});
    auto ydm = run_op(*fast_dwm, {xm, wm});
    auto yg = run_op(*fast_g, {x, wg});
    if (first.empty()) {
      first = {y[0], yd[0], ydm[0], yg[0]};
      continue;
    }
    EXPECT_TRUE(yg[0].equals(first[3])) << threads << " threads";
    EXPECT_TRUE(y[0].equals(first[0])) << threads << " threads";
    EXPECT_TRUE(yd[0].equals(first[1])) << threads << " threads";
    EXPECT_TRUE(ydm[0].equals(first[2])) << threads << " threads";
  }
  set_num_threads(0);
}

TEST(OpsConvPacked, ClampFusion) {
  std::mt19937 rng(5);
  ops::Conv conv(geometry({1, 1}, {1, 1, 1, 1}), 1);
  Tensor x = random_tensor(rng, {1, 8, 9, 9});
  Tensor w = random_tensor(rng, {16, 8, 3, 3});
  std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(w)};
  auto fast = std::dynamic_pointer_cast<const ops::ConvPacked>(conv.codegen(fact_refs(facts)));
  ASSERT_NE(fast, nullptr);
  auto relu6 = with_clamp(*fast, facts, 0, 6);
  auto want = run_op(conv, {x, w});
  auto got = run_op(*relu6, {x, w});
  for (int64_t i = 0; i < want[0].numel(); i++) {
    float r = std::min(std::max(want[0].data<float>()[i], 0.0f), 6.0f);
    EXPECT_NEAR(got[0].data<float>()[i], r, 2e-4);
  }
}

TEST(OpsConvPacked, NoCodegenWithoutConstantWeights) {
  ops::Conv conv(geometry({1, 1}, {0, 0, 0, 0}), 1);
  std::vector<Fact> facts = {Fact(DatumType::F32, Shape{1, 3, 4, 4}),
                             Fact(DatumType::F32, Shape{2, 3, 1, 1})};
  EXPECT_EQ(conv.codegen(fact_refs(facts)), nullptr);
  std::vector<Fact> f64 = {Fact(DatumType::F64, Shape{1, 3, 4, 4}),
                           Fact::constant(Tensor(DatumType::F64, {2, 3, 1, 1}))};
  EXPECT_EQ(conv.codegen(fact_refs(f64)), nullptr);
}

void check_matmul(const Op& op, const std::vector<Tensor>& in, size_t constant_from) {
  std::vector<Fact> facts;
  for (size_t i = 0; i < in.size(); i++) {
    facts.push_back(i >= constant_from ? Fact::constant(in[i])
                                       : Fact(DatumType::F32, in[i].shape()));
  }
  OpPtr fast = op.codegen(fact_refs(facts));
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->name(), "MatMulPacked");
  auto want = run_op(op, in);
  auto got = run_op(*fast, in);
  expect_tensors_close(got[0], want[0]);
}

TEST(OpsMatMulPacked, MatMulShapes) {
  std::mt19937 rng(6);
  ops::MatMul mm;
  check_matmul(mm, {random_tensor(rng, {64, 256}), random_tensor(rng, {256, 100})}, 1);
  check_matmul(mm, {random_tensor(rng, {2, 3, 7, 33}), random_tensor(rng, {33, 5})}, 1);
  check_matmul(mm, {random_tensor(rng, {33}), random_tensor(rng, {33, 70})}, 1);
  check_matmul(mm, {random_tensor(rng, {1, 1}), random_tensor(rng, {1, 1})}, 1);
  // A constant B batched: no codegen.
  std::vector<Fact> batched = {Fact(DatumType::F32, Shape{2, 3}),
                               Fact::constant(Tensor(DatumType::F32, {2, 3, 4}))};
  EXPECT_EQ(mm.codegen(fact_refs(batched)), nullptr);
  // A constant B of leading dims 1 (as NNEF archives store a weight: one rank for both operands)
  // packs as its matrix when A has at least its rank; a lower-rank A would change the output's
  // rank: no codegen.
  Tensor w3 = random_tensor(rng, {1, 33, 20}), x3 = random_tensor(rng, {2, 7, 33});
  std::vector<Fact> nnef_style = {Fact(DatumType::F32, x3.shape()), Fact::constant(w3)};
  OpPtr packed = mm.codegen(fact_refs(nnef_style));
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->name(), "MatMulPacked");
  expect_tensors_close(run_op(*packed, {x3, w3})[0], run_op(mm, {x3, w3})[0]);
  std::vector<Fact> lower_a = {Fact(DatumType::F32, Shape{7, 33}), Fact::constant(w3)};
  EXPECT_EQ(mm.codegen(fact_refs(lower_a)), nullptr);
}

TEST(OpsMatMulPacked, DynamicOperands) {
  std::mt19937 rng(8);
  ops::MatMul mm;
  for (auto [sa, sb] : std::vector<std::pair<Shape, Shape>>{
           {{2, 3, 7, 5}, {2, 3, 5, 9}},
           {{64, 33}, {33, 70}},
           {{2, 7, 5}, {1, 5, 9}},
           // Broadcast batches, ranks that differ (the einsum "nct,dc->ndt" form: [d, c] by
           // [n, c, t]), dims of 1 on either side, edges of the tiles.
           {{6, 3}, {2, 3, 9}},
           {{1, 7, 5}, {2, 5, 9}},
           {{4, 1, 7, 5}, {3, 5, 17}},
           {{2, 3, 13, 5}, {5, 9}},
           {{2, 1, 7, 33}, {1, 4, 33, 1}}}) {
    Tensor a = random_tensor(rng, sa), b = random_tensor(rng, sb);
    std::vector<Fact> facts = {Fact(DatumType::F32, sa), Fact(DatumType::F32, sb)};
    OpPtr fast = mm.codegen(fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    EXPECT_EQ(fast->name(), "MatMulDynamic");
    auto want = run_op(mm, {a, b});
    auto got = run_op(*fast, {a, b});
    expect_tensors_close(got[0], want[0]);
  }
  // A constant left operand with a computed right one, and a bias: MatMulDynamic too.
  Tensor w = random_tensor(rng, {16, 3}), x = random_tensor(rng, {2, 3, 50});
  Tensor bias = random_tensor(rng, {50});
  std::vector<Fact> facts = {Fact::constant(w), Fact(DatumType::F32, x.shape()),
                             Fact::constant(bias)};
  OpPtr fast = mm.codegen(fact_refs(facts));
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->name(), "MatMulDynamic");
  expect_tensors_close(run_op(*fast, {w, x, bias})[0], run_op(mm, {w, x, bias})[0]);
  // Shapes that do not fit are the reference's error.
  EXPECT_THROW(run_op(*fast, {w, random_tensor(rng, {2, 4, 50}), bias}), Error);
}

TEST(OpsMatMulPacked, GemmVariants) {
  std::mt19937 rng(7);
  Tensor a = random_tensor(rng, {13, 40});
  Tensor at = random_tensor(rng, {40, 13});
  Tensor b = random_tensor(rng, {40, 21});
  Tensor bt = random_tensor(rng, {21, 40});
  Tensor c = random_tensor(rng, {21});
  Tensor c2 = random_tensor(rng, {1, 21});
  check_matmul(ops::Gemm(1, 1, false, false), {a, b}, 1);
  check_matmul(ops::Gemm(1, 1, false, true), {a, bt, c}, 1);
  check_matmul(ops::Gemm(0.5f, 2, true, false), {at, b, c2}, 1);
  check_matmul(ops::Gemm(1.5f, 0.25f, true, true), {at, bt, Tensor::scalar<float>(3)}, 1);
  // A C that differs per row is not fused: no codegen.
  std::vector<Fact> f = {Fact(DatumType::F32, Shape{13, 40}), Fact::constant(b),
                         Fact::constant(random_tensor(rng, {13, 21}))};
  EXPECT_EQ(ops::Gemm(1, 1, false, false).codegen(fact_refs(f)), nullptr);
}

}  // namespace
}  // namespace kiln
