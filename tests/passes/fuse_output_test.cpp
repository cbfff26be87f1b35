// fuse-output: element-wise work after ConvPacked / MatMulPacked (a residual Add, clamps,
// activations, binary ops with per-channel, per-column or scalar operands) joins the packed op's
// kernel epilogue; results equal the unfused graph's.
#include <gtest/gtest.h>

#include "base/threading.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/clip.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/conv.h"
#include "ops/nn/conv_packed.h"
#include "ops/nn/matmul.h"
#include "ops/nn/matmul_packed.h"
#include "pass_test_util.h"
#include "passes/codegen.h"
#include "passes/fuse_output.h"
#include "passes/pipeline.h"

namespace kiln {
namespace {

using testing::compute_ops;
using testing::expect_same_outputs;
using testing::random_tensor;

ops::WindowGeometry geometry(std::vector<int64_t> strides, std::vector<int64_t> pads) {
  ops::WindowGeometry g;
  g.strides = std::move(strides);
  g.pads = std::move(pads);
  return g;
}

std::string fact_of(const Shape& s) {
  std::string out;
  for (int64_t d : s) out += std::to_string(d) + ",";
  return out + "f32";
}

struct ConvCase {
  Shape x;  // N, C, H, W
  int64_t out_channels, k, group;
  std::vector<int64_t> strides, pads;
  bool relu_before = false;  // Conv -> Relu -> Add: the clamp comes first, no fusion
  bool relu_after = false;   // Conv -> Add -> Relu: fused, then the clamp joins
  bool residual_first = false;
};

// Builds Conv(x) [+ Relu] + r [+ Relu], optimizes, returns the compute ops and checks outputs.
std::string check_conv(const ConvCase& c, unsigned seed) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse(fact_of(c.x)));
  Outlet w = g.add_const("w", random_tensor({c.out_channels, c.x[1] / c.group, c.k, c.k}, seed));
  Outlet b = g.add_const("b", random_tensor({c.out_channels}, seed + 1));
  Outlet y = {g.add_node("conv", std::make_shared<ops::Conv>(geometry(c.strides, c.pads), c.group),
                         {x, w, b}),
              0};
  if (c.relu_before)
    y = {g.add_node("relu0", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {y}), 0};
  g.analyse();
  Shape out = g.fact(y).try_concrete_shape().value();
  Outlet r = g.add_source("r", Fact::parse(fact_of(out)));
  std::vector<Outlet> add_in =
      c.residual_first ? std::vector<Outlet>{r, y} : std::vector<Outlet>{y, r};
  y = {g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), add_in), 0};
  if (c.relu_after)
    y = {g.add_node("relu1", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {y}), 0};
  g.set_outputs({y}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  // Packed sums run in another order than the reference: float rounding of dot products of
  // up to 27 terms in [-1, 1).
  expect_same_outputs(before, g, {random_tensor(c.x, seed + 2), random_tensor(out, seed + 3)}, 1e-5,
                      1e-5);
  return compute_ops(g);
}

// The "epilogue" attributes of the graph's nodes, ";"-separated.
std::string epilogues(const Graph& g) {
  std::string out;
  for (const auto& n : g.nodes())
    for (const auto& [k, v] : n.op->attributes())
      if (k == "epilogue") out += (out.empty() ? "" : ";") + v;
  return out;
}

TEST(FuseOutput, ConvAddBecomesOneConv) {
  // Pointwise, 3x3 with padding and stride, grouped, batch 2, residual on either side.
  EXPECT_EQ(check_conv({{1, 8, 7, 9}, 13, 1, 1, {1, 1}, {0, 0, 0, 0}}, 1), "ConvPacked");
  EXPECT_EQ(check_conv({{2, 5, 9, 6}, 7, 3, 1, {2, 1}, {1, 1, 1, 1}, false, false, true}, 2),
            "ConvPacked");
  EXPECT_EQ(check_conv({{2, 6, 5, 5}, 10, 3, 2, {1, 1}, {1, 1, 1, 1}}, 3), "ConvPacked");
  // Conv -> Add -> Relu: the clamp joins after the residual.
  EXPECT_EQ(check_conv({{1, 4, 6, 6}, 9, 3, 1, {1, 1}, {1, 1, 1, 1}, false, true}, 4),
            "ConvPacked");
}

TEST(FuseOutput, ClampBeforeTheAddIsOneConv) {
  // Conv -> Relu -> Add: the kernel adds the residual in registers after the clamp.
  EXPECT_EQ(check_conv({{1, 4, 6, 6}, 9, 3, 1, {1, 1}, {1, 1, 1, 1}, true}, 5), "ConvPacked");
  // Strided (never Winograd) and pointwise, batch 2, residual on either side.
  EXPECT_EQ(check_conv({{2, 5, 9, 6}, 7, 3, 1, {2, 1}, {1, 1, 1, 1}, true, false, true}, 6),
            "ConvPacked");
  EXPECT_EQ(check_conv({{1, 8, 7, 9}, 13, 1, 1, {1, 1}, {0, 0, 0, 0}, true, true}, 7),
            "ConvPacked");
}

// Where OutputSteps puts each step: a residual Add before or after the activation takes the one
// residual slot of the register stage; a second residual, or one the producer cannot add in
// registers, is a post step.
TEST(FuseOutput, ResidualSlotFollowsTheStepOrder) {
  using ops::OutputStep;
  OutputStep relu;
  relu.kind = OutputStep::Kind::Clamp;
  relu.min = 0;
  OutputStep add;
  add.kind = OutputStep::Kind::Binary;
  add.binary = kernels::BinaryFn::Add;
  add.operand = kernels::PostStep::Operand::Full;
  Tensor r = random_tensor({1, 2, 3}, 1);
  struct Expect {
    std::vector<OutputStep> steps;
    ops::RegisterStage stage;
    bool residual, last;
    int posts;
  };
  ops::RegisterStage depthwise;
  depthwise.residual = depthwise.residual_last = false;
  ops::RegisterStage first_only;
  first_only.residual_last = false;
  const std::vector<Expect> cases = {
      {{add, relu}, {}, true, false, 0},          {{relu, add}, {}, true, true, 0},
      {{add, relu, add}, {}, true, false, 1},     {{relu, add}, depthwise, false, false, 1},
      {{relu, add}, first_only, false, false, 1}, {{add}, depthwise, false, false, 1}};
  for (size_t c = 0; c < cases.size(); c++) {
    SCOPED_TRACE(c);
    ops::OutputSteps steps;
    TensorRefs inputs;
    for (OutputStep s : cases[c].steps) {
      if (s.kind == OutputStep::Kind::Binary) {
        s.input = inputs.size();
        inputs.push_back(&r);
      }
      ASSERT_TRUE(steps.add(s, cases[c].stage));
    }
    kernels::Epilogue ep;
    steps.lower(inputs, r.shape(), 1, 0, ep);
    EXPECT_EQ(ep.residual != nullptr, cases[c].residual);
    EXPECT_EQ(ep.residual_last, cases[c].last);
    EXPECT_EQ(ep.post_count, cases[c].posts);
  }
}

TEST(FuseOutput, DepthwiseAndBroadcastAdds) {
  // Depthwise convs add no residual in registers: a post step.
  EXPECT_EQ(check_conv({{1, 6, 8, 8}, 6, 3, 6, {1, 1}, {1, 1, 1, 1}}, 6), "ConvPacked");
  // An Add of one value per channel is a row operand; of one value per position (the plane) a
  // column operand; a scalar a scalar. One that broadcasts otherwise stays.
  for (const char* shape : {"1,5,1,1", "5,1,1", "1,1,4,4", "1", "1,5,4,1"}) {
    SCOPED_TRACE(shape);
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("2,3,4,4,f32"));
    Outlet s = g.add_source("s", Fact::parse(std::string(shape) + ",f32"));
    int conv = g.add_node("conv", std::make_shared<ops::Conv>(geometry({1, 1}, {0, 0, 0, 0}), 1),
                          {x, g.add_const("w", random_tensor({5, 3, 1, 1}, 1))});
    int add =
        g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {{conv, 0}, s});
    g.set_outputs({{add, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    const bool fuses = std::string(shape) != "1,5,4,1";
    EXPECT_EQ(compute_ops(g), fuses ? "ConvPacked" : "ConvPacked AddF32");
    const Shape s_shape = before.fact(s).concrete_shape();
    expect_same_outputs(before, g, {random_tensor({2, 3, 4, 4}, 2), random_tensor(s_shape, 3)},
                        1e-5, 1e-5);
  }
}

TEST(FuseOutput, ClipAndReluJoinThePackedOps) {
  Graph g;
  Outlet x = g.add_source("x", Fact(DatumType::F32, Shape{1, 4, 6, 6}));
  Outlet w = g.add_const("w", random_tensor({8, 4, 3, 3}, 1));
  int conv =
      g.add_node("conv", std::make_shared<ops::Conv>(geometry({1, 1}, {1, 1, 1, 1}), 1), {x, w});
  Outlet lo = g.add_const("lo", Tensor::scalar<float>(0.0f));
  Outlet hi = g.add_const("hi", Tensor::scalar<float>(0.5f));
  int clip = g.add_node("clip", std::make_shared<ops::Clip>(), {{conv, 0}, lo, hi});
  Outlet m = g.add_source("m", Fact(DatumType::F32, Shape{3, 5}));
  Outlet b = g.add_const("b", random_tensor({5, 7}, 2));
  int mm = g.add_node("mm", std::make_shared<ops::MatMul>(), {m, b});
  int relu = g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {{mm, 0}});
  g.set_outputs({{clip, 0}, {relu, 0}}, {"y", "z"});
  g.analyse();
  Graph before = g;
  EXPECT_GT(passes::Codegen().run(g), 0u);
  EXPECT_EQ(compute_ops(g), "ConvPacked Clip MatMulPacked ReluF32");
  EXPECT_GT(passes::FuseOutput().run(g), 0u);
  EXPECT_EQ(compute_ops(g), "ConvPacked MatMulPacked");
  EXPECT_EQ(epilogues(g), "Clip(0,0.5);Relu");
  expect_same_outputs(before, g, {random_tensor({1, 4, 6, 6}, 3), random_tensor({3, 5}, 4)}, 1e-5,
                      1e-5);
}

TEST(FuseOutput, SharedOutputOrDynamicBoundsStay) {
  Graph g;
  Outlet x = g.add_source("x", Fact(DatumType::F32, Shape{1, 4, 6, 6}));
  Outlet w = g.add_const("w", random_tensor({8, 4, 3, 3}, 1));
  const ops::WindowGeometry same = geometry({1, 1}, {1, 1, 1, 1});
  int conv = g.add_node("conv", std::make_shared<ops::Conv>(same, 1), {x, w});
  int relu = g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {{conv, 0}});
  Outlet hi = g.add_source("hi", Fact(DatumType::F32, Shape{}));
  int conv2 = g.add_node("conv2", std::make_shared<ops::Conv>(same, 1), {x, w});
  Outlet lo = g.add_const("lo", Tensor::scalar<float>(0.0f));
  int clip = g.add_node("clip", std::make_shared<ops::Clip>(), {{conv2, 0}, lo, hi});
  // conv's output is also a model output: fusing would change it.
  g.set_outputs({{relu, 0}, {conv, 0}, {clip, 0}}, {"a", "b", "c"});
  g.analyse();
  passes::Codegen().run(g);
  EXPECT_EQ(passes::FuseOutput().run(g), 0u);
  EXPECT_EQ(compute_ops(g), "ConvPacked ReluF32 ConvPacked Clip");
}

TEST(FuseOutput, ActivationChainsAndOperandOrder) {
  // MatMul -> Gelu -> Mul(per column) -> Sub(r - value) and Conv -> HardSwish -> Mul(per
  // channel) -> Sigmoid -> Max(scalar): every step joins, in order.
  Graph g;
  Outlet a = g.add_source("a", Fact::parse("3,10,f32"));
  Outlet r = g.add_source("r", Fact::parse("3,6,f32"));
  int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                      {a, g.add_const("w", random_tensor({10, 6}, 1))});
  int gelu = g.add_node("gelu", std::make_shared<ops::Unary>(ops::UnaryKind::Gelu), {{mm, 0}});
  int mul = g.add_node("mul", std::make_shared<ops::Binary>(ops::BinaryKind::Mul),
                       {{gelu, 0}, g.add_const("cols", random_tensor({6}, 2))});
  int sub = g.add_node("sub", std::make_shared<ops::Binary>(ops::BinaryKind::Sub), {r, {mul, 0}});
  Outlet x = g.add_source("x", Fact::parse("1,4,5,5,f32"));
  int conv = g.add_node("conv", std::make_shared<ops::Conv>(geometry({1, 1}, {1, 1, 1, 1}), 1),
                        {x, g.add_const("cw", random_tensor({6, 4, 3, 3}, 3))});
  int hs = g.add_node("hs", std::make_shared<ops::Unary>(ops::UnaryKind::HardSwish), {{conv, 0}});
  int scale = g.add_node("scale", std::make_shared<ops::Binary>(ops::BinaryKind::Mul),
                         {g.add_const("ch", random_tensor({1, 6, 1, 1}, 4)), {hs, 0}});
  int sig = g.add_node("sig", std::make_shared<ops::Unary>(ops::UnaryKind::Sigmoid), {{scale, 0}});
  int div = g.add_node("div", std::make_shared<ops::Binary>(ops::BinaryKind::Div),
                       {{sig, 0}, g.add_const("d", Tensor::scalar<float>(0.75f))});
  g.set_outputs({{sub, 0}, {div, 0}}, {"y", "z"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "MatMulPacked ConvPacked");
  EXPECT_EQ(epilogues(g),
            "Gelu,Mul(col),Sub(full,first);HardSwish,Mul(row,first),Sigmoid,Div(scalar)");
  expect_same_outputs(
      before, g,
      {random_tensor({3, 10}, 5), random_tensor({3, 6}, 6), random_tensor({1, 4, 5, 5}, 7)}, 1e-5,
      1e-5);
}

TEST(FuseOutput, EveryConvPathTakesPostSteps) {
  // Pointwise, im2col (stride 2), depthwise and Winograd (3x3, 16 -> 32 channels): Sigmoid, a
  // per-channel Mul, a residual Add and a Relu after each, batch 2, at 1 and 2 threads.
  struct Path {
    Shape x;
    int64_t out, k, group;
    std::vector<int64_t> strides, pads;
  };
  for (const Path& p : {Path{{2, 8, 9, 7}, 12, 1, 1, {1, 1}, {0, 0, 0, 0}},
                        Path{{2, 5, 11, 9}, 7, 3, 1, {2, 2}, {1, 1, 1, 1}},
                        Path{{2, 24, 10, 12}, 24, 3, 24, {1, 1}, {1, 1, 1, 1}},
                        Path{{2, 16, 12, 12}, 32, 3, 1, {1, 1}, {1, 1, 1, 1}}}) {
    SCOPED_TRACE(::testing::Message() << "conv " << p.x[1] << "->" << p.out << " k" << p.k);
    Graph g;
    Outlet x = g.add_source("x", Fact::parse(fact_of(p.x)));
    int conv =
        g.add_node("conv", std::make_shared<ops::Conv>(geometry(p.strides, p.pads), p.group),
                   {x, g.add_const("w", random_tensor({p.out, p.x[1] / p.group, p.k, p.k}, 1)),
                    g.add_const("b", random_tensor({p.out}, 2))});
    g.analyse();
    Shape out = g.fact({conv, 0}).concrete_shape();
    Outlet r = g.add_source("r", Fact::parse(fact_of(out)));
    Outlet y = {
        g.add_node("sig", std::make_shared<ops::Unary>(ops::UnaryKind::Sigmoid), {{conv, 0}}), 0};
    y = {g.add_node("mul", std::make_shared<ops::Binary>(ops::BinaryKind::Mul),
                    {y, g.add_const("s", random_tensor({1, p.out, 1, 1}, 3))}),
         0};
    y = {g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {y, r}), 0};
    y = {g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {y}), 0};
    g.set_outputs({y}, {"y"});
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    EXPECT_EQ(compute_ops(g), "ConvPacked");
    EXPECT_EQ(epilogues(g), "Sigmoid,Mul(row),Add(full),Relu");
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      // Winograd F(4x4) rounds more than a direct sum (kernels/conv/winograd.h).
      expect_same_outputs(before, g, {random_tensor(p.x, 4), random_tensor(out, 5)}, 1e-4, 1e-4);
    }
    set_num_threads(0);
  }
}

TEST(FuseOutput, MoreActivationsJoinTheConv) {
  // Elu, Selu, Celu (their alpha / gamma), Softplus, Mish, Softsign, ThresholdedRelu, Abs, Neg,
  // Abs -> Sqrt / Log and Softplus -> Reciprocal (no zero divisor) after a conv: each joins its
  // epilogue as a post step (no node left running the reference op) and the outputs equal the
  // unfused graph's.
  struct Act {
    std::vector<ops::UnaryKind> kinds;
    ops::UnaryParams params;
    std::string epilogue;
  };
  using K = ops::UnaryKind;
  ops::UnaryParams alpha;
  alpha.alpha = 0.7f;
  ops::UnaryParams selu;
  selu.alpha = 1.6732632f;
  selu.gamma = 1.0507009f;
  const std::vector<Act> acts = {
      {{K::Elu}, alpha, "Elu"},
      {{K::Selu}, selu, "Selu"},
      {{K::Celu}, alpha, "Celu"},
      {{K::Softplus}, {}, "Softplus"},
      {{K::Mish}, {}, "Mish"},
      {{K::Softsign}, {}, "Softsign"},
      {{K::ThresholdedRelu}, alpha, "ThresholdedRelu"},
      {{K::Neg}, {}, "Neg"},
      {{K::Abs, K::Sqrt}, {}, "Abs,Sqrt"},
      {{K::Abs, K::Log}, {}, "Abs,Log"},
      {{K::Softplus, K::Reciprocal}, {}, "Softplus,Reciprocal"},
  };
  for (const Act& act : acts) {
    SCOPED_TRACE(act.epilogue);
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("1,6,7,9,f32"));
    Outlet y = {g.add_node("conv", std::make_shared<ops::Conv>(geometry({1, 1}, {1, 1, 1, 1}), 1),
                           {x, g.add_const("w", random_tensor({10, 6, 3, 3}, 1)),
                            g.add_const("b", random_tensor({10}, 2))}),
                0};
    for (size_t i = 0; i < act.kinds.size(); i++)
      y = {g.add_node("act" + std::to_string(i),
                      std::make_shared<ops::Unary>(act.kinds[i], act.params), {y}),
           0};
    g.set_outputs({y}, {"y"});
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    EXPECT_EQ(compute_ops(g), "ConvPacked");
    EXPECT_EQ(epilogues(g), act.epilogue);
    // The conv's sums in another order (and in Winograd's or im2col's rounding), then functions
    // within 1e-6 of the reference's (kernels/elementwise/vec_math.h).
    expect_same_outputs(before, g, {random_tensor({1, 6, 7, 9}, 3)}, 1e-4, 1e-4);
  }
}

TEST(FuseOutput, PReluJoinsTheConvOrRunsVectorized) {
  // Conv -> PRelu(per-channel slope): a PRelu(row) post step; a PRelu on a graph input: the
  // vectorized PReluF32 (per channel, and with a full slope); a PRelu whose slope is the conv's
  // output stays out of the epilogue. Bitwise the reference where no conv rounds differently.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,5,6,7,f32"));
  Outlet slope = g.add_const("slope", random_tensor({5, 1, 1}, 1));
  int conv = g.add_node("conv", std::make_shared<ops::Conv>(geometry({1, 1}, {0, 0, 0, 0}), 1),
                        {x, g.add_const("w", random_tensor({5, 5, 1, 1}, 2))});
  int fused =
      g.add_node("p0", std::make_shared<ops::Binary>(ops::BinaryKind::PRelu), {{conv, 0}, slope});
  int alone = g.add_node("p1", std::make_shared<ops::Binary>(ops::BinaryKind::PRelu), {x, slope});
  int full = g.add_node("p2", std::make_shared<ops::Binary>(ops::BinaryKind::PRelu),
                        {x, g.add_const("sfull", random_tensor({2, 5, 6, 7}, 3))});
  int conv2 = g.add_node("conv2", std::make_shared<ops::Conv>(geometry({1, 1}, {0, 0, 0, 0}), 1),
                         {x, g.add_const("w2", random_tensor({5, 5, 1, 1}, 4))});
  int as_slope =
      g.add_node("p3", std::make_shared<ops::Binary>(ops::BinaryKind::PRelu), {x, {conv2, 0}});
  g.set_outputs({{fused, 0}, {alone, 0}, {full, 0}, {as_slope, 0}}, {"a", "b", "c", "d"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "ConvPacked PReluF32 PReluF32 ConvPacked PReluF32");
  EXPECT_EQ(epilogues(g), "PRelu(row)");
  expect_same_outputs(before, g, {random_tensor({2, 5, 6, 7}, 5)}, 1e-5, 1e-5);
}

TEST(FuseOutput, AtMostTheEpiloguesPostSteps) {
  // Relu goes to the register stage; then six post steps fit and the seventh stays a node.
  Graph g;
  Outlet a = g.add_source("a", Fact::parse("4,8,f32"));
  Outlet y = {g.add_node("mm", std::make_shared<ops::MatMul>(),
                         {a, g.add_const("w", random_tensor({8, 8}, 1))}),
              0};
  y = {g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {y}), 0};
  for (int i = 0; i < 7; i++) {
    y = {g.add_node("t" + std::to_string(i), std::make_shared<ops::Unary>(ops::UnaryKind::Tanh),
                    {y}),
         0};
  }
  g.set_outputs({y}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "MatMulPacked TanhF32");
  expect_same_outputs(before, g, {random_tensor({4, 8}, 2)}, 1e-5, 1e-5);
}

TEST(FuseOutput, MatMulAddBecomesOneMatMul) {
  for (bool relu : {false, true}) {
    Graph g;
    Outlet a = g.add_source("a", Fact::parse("2,11,7,f32"));
    Outlet r = g.add_source("r", Fact::parse("2,11,19,f32"));
    int mm = g.add_node("mm", std::make_shared<ops::MatMul>(),
                        {a, g.add_const("w", random_tensor({7, 19}, 1)),
                         g.add_const("bias", random_tensor({19}, 2))});
    Outlet y = {
        g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {r, {mm, 0}}), 0};
    if (relu) y = {g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {y}), 0};
    g.set_outputs({y}, {"y"});
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    EXPECT_EQ(compute_ops(g), "MatMulPacked");
    EXPECT_EQ(epilogues(g), relu ? "Add(full,first),Relu" : "Add(full,first)");
    expect_same_outputs(before, g, {random_tensor({2, 11, 7}, 3), random_tensor({2, 11, 19}, 4)},
                        1e-5, 1e-5);
  }
}

TEST(FuseOutput, PackedOpsCheckTheOperands) {
  Tensor w = random_tensor({4, 3}, 1);
  auto ref = std::make_shared<ops::MatMul>();
  auto mm = std::make_shared<ops::MatMulPacked>(ref, w, false, ops::MatMulPacked::Config{});
  Fact a = Fact::parse("5,4,f32"), b = Fact::parse("4,3,f32"), bad = Fact::parse("5,2,f32");
  Fact full = Fact::parse("5,3,f32");
  ops::OutputStep add;
  add.kind = ops::OutputStep::Kind::Binary;
  // An operand that does not broadcast to the output as one of the kinds is refused.
  EXPECT_EQ(mm->with_output_step(add, {&a, &b}, &bad), nullptr);
  OpPtr fused = mm->with_output_step(add, {&a, &b}, &full);
  ASSERT_NE(fused, nullptr);
  EXPECT_NO_THROW(fused->output_facts({&a, &b, &full}));
  // At run time, an operand of another shape is an error naming the step.
  std::vector<Tensor> out(1);
  EvalContext ctx(out);
  Tensor x = random_tensor({5, 4}, 2), wrong = random_tensor({5, 2}, 3);
  try {
    fused->eval(ctx, {&x, &w, &wrong});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("Add(full)"), std::string::npos) << e.chain();
  }
}

}  // namespace
}  // namespace kiln
