// fuse-residual: Add(ConvPacked / MatMulPacked, residual) becomes the packed op with the residual
// in its kernel epilogue; results equal the unfused graph's.
#include <gtest/gtest.h>

#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/conv.h"
#include "ops/nn/conv_packed.h"
#include "ops/nn/matmul.h"
#include "ops/nn/matmul_packed.h"
#include "pass_test_util.h"
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

bool has_fused_residual(const Graph& g) {
  for (const auto& n : g.nodes())
    for (const auto& [k, v] : n.op->attributes())
      if (k == "residual") return true;
  return false;
}

TEST(FuseResidual, ConvAddBecomesOneConv) {
  // Pointwise, 3x3 with padding and stride, grouped, batch 2, residual on either side.
  EXPECT_EQ(check_conv({{1, 8, 7, 9}, 13, 1, 1, {1, 1}, {0, 0, 0, 0}}, 1), "ConvPacked");
  EXPECT_EQ(check_conv({{2, 5, 9, 6}, 7, 3, 1, {2, 1}, {1, 1, 1, 1}, false, false, true}, 2),
            "ConvPacked");
  EXPECT_EQ(check_conv({{2, 6, 5, 5}, 10, 3, 2, {1, 1}, {1, 1, 1, 1}}, 3), "ConvPacked");
  // Conv -> Add -> Relu: the clamp joins after the residual.
  EXPECT_EQ(check_conv({{1, 4, 6, 6}, 9, 3, 1, {1, 1}, {1, 1, 1, 1}, false, true}, 4),
            "ConvPacked");
}

TEST(FuseResidual, ClampBeforeTheAddStaysAStep) {
  // Conv -> Relu -> Add: the kernel clamps after adding, so the add runs as a step.
  EXPECT_EQ(check_conv({{1, 4, 6, 6}, 9, 3, 1, {1, 1}, {1, 1, 1, 1}, true}, 5),
            "ConvPacked+AddF32");
}

TEST(FuseResidual, DepthwiseAndBroadcastAddsAreLeft) {
  // Depthwise convs have their own kernel, without a residual.
  EXPECT_EQ(check_conv({{1, 6, 8, 8}, 6, 3, 6, {1, 1}, {1, 1, 1, 1}}, 6), "ConvPacked+AddF32");
  // An Add that broadcasts (one value per channel) is no residual.
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,3,4,4,f32"));
  Outlet s = g.add_source("s", Fact::parse("1,5,1,1,f32"));
  int conv = g.add_node("conv", std::make_shared<ops::Conv>(geometry({1, 1}, {0, 0, 0, 0}), 1),
                        {x, g.add_const("w", random_tensor({5, 3, 1, 1}, 1))});
  int add = g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {{conv, 0}, s});
  g.set_outputs({{add, 0}}, {"y"});
  g.analyse();
  passes::optimize_passes().run(g);
  EXPECT_FALSE(has_fused_residual(g));
}

TEST(FuseResidual, MatMulAddBecomesOneMatMul) {
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
    EXPECT_TRUE(has_fused_residual(g));
    expect_same_outputs(before, g, {random_tensor({2, 11, 7}, 3), random_tensor({2, 11, 19}, 4)},
                        1e-5, 1e-5);
  }
}

TEST(FuseResidual, PackedOpsCheckTheResidual) {
  Tensor w = random_tensor({4, 3}, 1);
  auto ref = std::make_shared<ops::MatMul>();
  auto mm = std::make_shared<ops::MatMulPacked>(ref, w, false, ops::MatMulPacked::Config{});
  auto fused = mm->with_residual(2);
  Fact a = Fact::parse("5,4,f32"), b = Fact::parse("4,3,f32"), bad = Fact::parse("5,2,f32");
  EXPECT_THROW(fused->output_facts({&a, &b, &bad}), Error);
  EXPECT_THROW(fused->with_residual(3), Error);                 // one residual only
  EXPECT_THROW(mm->with_clamp(0, 6)->with_residual(2), Error);  // a clamp would come first
}

}  // namespace
}  // namespace kiln
