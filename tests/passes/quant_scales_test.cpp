// quant-ops on a QLinearConv whose requantization multiplier x_scale * w_scale / y_scale is not
// finite (a zero, infinite or NaN scale: a broken or hostile model): the conv stays the reference
// QLinearConv, which defines its result in double, instead of becoming a QConvPacked whose
// kernels assume finite products. With finite scales the same graph does become a QConvPacked.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "ops/quant/qlinear_conv.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace kiln {
namespace {

Graph qlinear_conv_graph(float x_scale, float w_scale, float y_scale) {
  Graph g;
  Outlet x = g.add_source("x", Fact(DatumType::U8, Shape{1, 4, 6, 6}));
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> wd(-127, 127);
  std::vector<int8_t> w(5 * 4 * 3 * 3);
  for (auto& v : w) v = static_cast<int8_t>(wd(rng));
  ops::quant::ConvGeometry geo;
  geo.pads = {1, 1, 1, 1};
  const int conv =
      g.add_node("conv", std::make_shared<ops::QLinearConv>(geo),
                 {x, g.add_const("xs", Tensor::scalar<float>(x_scale)),
                  g.add_const("xz", Tensor::scalar<uint8_t>(7)),
                  g.add_const("w", Tensor::from_vector<int8_t>({5, 4, 3, 3}, w)),
                  g.add_const("ws", Tensor::scalar<float>(w_scale)),
                  g.add_const("wz", Tensor::scalar<int8_t>(0)),
                  g.add_const("ys", Tensor::scalar<float>(y_scale)),
                  g.add_const("yz", Tensor::scalar<uint8_t>(128)),
                  g.add_const("b", Tensor::from_vector<int32_t>({5}, {100, -200, 0, 3000, -7}))});
  g.set_outputs({{conv, 0}}, {"y"});
  g.analyse();
  return g;
}

Tensor input_bytes() {
  Tensor t(DatumType::U8, Shape{1, 4, 6, 6});
  auto* p = static_cast<uint8_t*>(t.raw_data());
  for (int64_t i = 0; i < t.numel(); i++) p[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  return t;
}

TEST(QuantScales, NonFiniteMultiplierKeepsTheReferenceConv) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    float xs, ws, ys;
  };
  for (Case c : {Case{0.05f, 0.01f, 0.0f}, Case{0.05f, inf, 0.1f}, Case{nan, 0.01f, 0.1f},
                 Case{1e30f, 1e30f, 1e-30f}}) {
    SCOPED_TRACE(::testing::Message() << c.xs << " " << c.ws << " " << c.ys);
    Graph g = qlinear_conv_graph(c.xs, c.ws, c.ys);
    Graph before = g;
    passes::optimize_passes().run(g);
    EXPECT_EQ(testing::compute_ops(g), "QLinearConv");
    auto a = testing::run(before, {input_bytes()});
    auto b = testing::run(g, {input_bytes()});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(std::memcmp(a[0].raw_data(), b[0].raw_data(), static_cast<size_t>(a[0].numel())), 0);
  }
}

TEST(QuantScales, FiniteMultiplierBecomesAPackedConv) {
  Graph g = qlinear_conv_graph(0.05f, 0.01f, 0.1f);
  passes::optimize_passes().run(g);
  EXPECT_EQ(testing::compute_ops(g), "QConvPacked");
}

}  // namespace
}  // namespace kiln
