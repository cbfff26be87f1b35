// concat-convs: a channel Concat of ConvPacked outputs becomes one ConcatConvs node writing each
// conv's channels in place; results equal the unfused graph's.
#include <gtest/gtest.h>

#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/concat_convs.h"
#include "ops/nn/conv.h"
#include "ops/shape/concat.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace kiln {
namespace {

using testing::compute_ops;
using testing::expect_same_outputs;
using testing::random_tensor;

ops::WindowGeometry geometry(int64_t pad) {
  ops::WindowGeometry g;
  g.strides = {1, 1};
  g.pads = {pad, pad, pad, pad};
  return g;
}

// conv(x) with out channels, square kernel k (pad k / 2), group; optional Relu after.
Outlet conv(Graph& g, Outlet x, int64_t in_channels, int64_t out, int64_t k, int64_t group,
            bool relu, unsigned seed) {
  Outlet w = g.add_const("w" + std::to_string(seed),
                         random_tensor({out, in_channels / group, k, k}, seed));
  Outlet b = g.add_const("b" + std::to_string(seed), random_tensor({out}, seed + 1));
  Outlet y = {g.add_node("conv" + std::to_string(seed),
                         std::make_shared<ops::Conv>(geometry(k / 2), group), {x, w, b}),
              0};
  if (relu)
    y = {g.add_node("relu" + std::to_string(seed),
                    std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {y}),
         0};
  return y;
}

TEST(ConcatConvs, FireModuleWritesInPlace) {
  for (int64_t axis : {1, -3}) {
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("2,6,7,5,f32"));  // batch 2: strided images
    Outlet a = conv(g, x, 6, 5, 1, 1, true, 10);               // expand 1x1
    Outlet b = conv(g, x, 6, 7, 3, 1, true, 20);               // expand 3x3
    Outlet c = conv(g, x, 6, 6, 3, 6, false, 30);              // depthwise
    Outlet d = conv(g, x, 6, 4, 3, 2, false, 40);              // grouped
    int cat = g.add_node("cat", std::make_shared<ops::Concat>(axis), {a, b, c, d});
    g.set_outputs({{cat, 0}}, {"y"});
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    EXPECT_EQ(compute_ops(g), "ConcatConvs");
    EXPECT_EQ(g.fact(g.outputs()[0]).to_string(), "2,22,7,5,f32");
    // Packed sums in another order than the reference: rounding of <= 54-term dot products.
    expect_same_outputs(before, g, {random_tensor({2, 6, 7, 5}, 1)}, 1e-5, 1e-5);
  }
}

TEST(ConcatConvs, WithAResidualPart) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,4,6,6,f32"));
  Outlet r = g.add_source("r", Fact::parse("1,3,6,6,f32"));
  Outlet a = conv(g, x, 4, 3, 3, 1, false, 10);
  Outlet sum = {g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {a, r}), 0};
  Outlet b = conv(g, x, 4, 2, 1, 1, true, 20);
  int cat = g.add_node("cat", std::make_shared<ops::Concat>(1), {sum, b});
  g.set_outputs({{cat, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "ConcatConvs");
  expect_same_outputs(before, g, {random_tensor({1, 4, 6, 6}, 1), random_tensor({1, 3, 6, 6}, 2)},
                      1e-5, 1e-5);
}

TEST(ConcatConvs, LeavesOtherConcats) {
  // Along another axis; with an input that is no conv; with a conv read elsewhere too.
  for (int variant = 0; variant < 3; variant++) {
    Graph g;
    Outlet x = g.add_source("x", Fact::parse("1,3,4,4,f32"));
    Outlet a = conv(g, x, 3, 2, 1, 1, false, 10);
    // (An element-wise op after a conv would join its epilogue: the input itself is no conv.)
    Outlet b = variant == 1 ? x : conv(g, x, 3, 2, 1, 1, false, 20);
    int cat = g.add_node("cat", std::make_shared<ops::Concat>(variant == 0 ? 2 : 1), {a, b});
    std::vector<Outlet> outs = {{cat, 0}};
    if (variant == 2) outs.push_back(a);
    g.set_outputs(
        outs, variant == 2 ? std::vector<std::string>{"y", "a"} : std::vector<std::string>{"y"});
    g.analyse();
    passes::optimize_passes().run(g);
    EXPECT_EQ(compute_ops(g).find("ConcatConvs"), std::string::npos) << variant;
  }
}

TEST(ConcatConvs, ChecksItsParts) {
  EXPECT_THROW(ops::ConcatConvs({}), Error);
}

}  // namespace
}  // namespace kiln
