// quant-ops: QuantizeLinear(MaxPool(y)) becomes MaxPool(QuantizeLinear(y)) on 8-bit values (the
// MaxPool then a u8 / i8 MaxPoolValues), with a DequantizeLinear of the same parameters below it
// removed and a Concat of DequantizeLinears below it made an 8-bit Concat. Quantization is
// monotonic, so every result is bitwise the float chain's.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/pool.h"
#include "ops/quant/dequantize_linear.h"
#include "ops/quant/quantize_linear.h"
#include "ops/shape/concat.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace kiln {
namespace {

using testing::compute_ops;
using testing::random_tensor;

Tensor random_bytes(const Shape& shape, unsigned seed, bool is_signed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Tensor t(is_signed ? DatumType::I8 : DatumType::U8, shape);
  auto* p = static_cast<uint8_t*>(t.raw_data());
  for (int64_t i = 0; i < t.numel(); i++) p[i] = static_cast<uint8_t>(byte(rng));
  p[0] = 0;  // the extremes of the range
  p[1] = 255;
  return t;
}

Outlet zp_const(Graph& g, const std::string& name, int z, bool is_signed) {
  return g.add_const(name, is_signed ? Tensor::scalar<int8_t>(static_cast<int8_t>(z))
                                     : Tensor::scalar<uint8_t>(static_cast<uint8_t>(z)));
}

Outlet dq(Graph& g, const std::string& name, Outlet x, float s, int z, bool is_signed) {
  Outlet sc = g.add_const(name + ".s", Tensor::scalar<float>(s));
  return {g.add_node(name, std::make_shared<ops::DequantizeLinear>(),
                     {x, sc, zp_const(g, name + ".z", z, is_signed)}),
          0};
}

int q_after_pool(Graph& g, Outlet y, float s, int z, bool is_signed, bool ceil_mode) {
  ops::WindowGeometry geo;
  geo.kernel = {3, 3};
  geo.strides = {2, 2};
  geo.pads = ceil_mode ? std::vector<int64_t>{0, 0, 0, 0} : std::vector<int64_t>{1, 1, 1, 1};
  geo.ceil_mode = ceil_mode;
  int pool = g.add_node(
      "pool", std::make_shared<ops::Pool>(ops::PoolKind::Max, geo, ops::Pool::Options{}), {y}, 2);
  Outlet sc = g.add_const("q.s", Tensor::scalar<float>(s));
  return g.add_node(
      "q", std::make_shared<ops::QuantizeLinear>(1, is_signed ? DatumType::I8 : DatumType::U8),
      {{pool, 0}, sc, zp_const(g, "q.z", z, is_signed)});
}

void expect_bitwise(const Graph& before, const Graph& after, const std::vector<Tensor>& in) {
  auto a = testing::run(before, in);
  auto b = testing::run(after, in);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(a[0].dtype(), b[0].dtype());
  ASSERT_EQ(a[0].shape(), b[0].shape());
  const auto* pa = static_cast<const uint8_t*>(a[0].raw_data());
  const auto* pb = static_cast<const uint8_t*>(b[0].raw_data());
  for (int64_t i = 0; i < a[0].numel(); i++) ASSERT_EQ(pa[i], pb[i]) << "at " << i;
}

TEST(QuantMaxPool, DequantizePoolQuantizeRunsOnBytes) {
  for (bool is_signed : {false, true}) {
    for (bool ceil_mode : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "signed " << is_signed << " ceil " << ceil_mode);
      Graph g;
      const DatumType dt = is_signed ? DatumType::I8 : DatumType::U8;
      Outlet x = g.add_source("x", Fact(dt, Shape{1, 3, 10, 11}));
      Outlet y = dq(g, "dq", x, 0.05f, is_signed ? -3 : 7, is_signed);
      int q = q_after_pool(g, y, 0.05f, is_signed ? -3 : 7, is_signed, ceil_mode);
      g.set_outputs({{q, 0}}, {"y"});
      g.analyse();
      Graph before = g;
      passes::optimize_passes().run(g);
      EXPECT_EQ(compute_ops(g), "MaxPoolValues");
      expect_bitwise(before, g, {random_bytes({1, 3, 10, 11}, 3, is_signed)});
    }
  }
}

TEST(QuantMaxPool, ConcatOfDequantizedTensorsBecomesAnEightBitConcat) {
  Graph g;
  Outlet a = g.add_source("a", Fact(DatumType::U8, Shape{1, 2, 9, 9}));
  Outlet b = g.add_source("b", Fact(DatumType::U8, Shape{1, 3, 9, 9}));
  Outlet da = dq(g, "dqa", a, 0.031f, 0, false);
  Outlet db = dq(g, "dqb", b, 0.04f, 0, false);
  int cat = g.add_node("cat", std::make_shared<ops::Concat>(1), {da, db});
  int q = q_after_pool(g, {cat, 0}, 0.04f, 0, false, true);
  g.set_outputs({{q, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "QRequant Concat MaxPoolValues");
  expect_bitwise(before, g,
                 {random_bytes({1, 2, 9, 9}, 5, false), random_bytes({1, 3, 9, 9}, 6, false)});
}

TEST(QuantMaxPool, FloatInputIsQuantizedFirst) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,4,7,8,f32"));
  int q = q_after_pool(g, x, 0.02f, 128, false, false);
  g.set_outputs({{q, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  passes::optimize_passes().run(g);
  EXPECT_EQ(compute_ops(g), "QuantizeLinear MaxPoolValues");
  // Values beyond the quantized range on both sides: saturation commutes with max too.
  expect_bitwise(before, g, {random_tensor({1, 4, 7, 8}, 9, -4, 4)});
}

// Q(Relu(DQ(a) + DQ(b))) (a residual block's Add and Relu) becomes one QAdd clamped at the
// output zero point; the Add alone (no Relu) a plain QAdd; a Relu whose Add has another reader
// stays float. Bitwise the chain either way.
TEST(QuantMaxPool, ResidualAddAndReluRunOnBytes) {
  for (int variant = 0; variant < 3; variant++) {
    SCOPED_TRACE(::testing::Message() << "variant " << variant);
    Graph g;
    Outlet a = g.add_source("a", Fact(DatumType::U8, Shape{1, 4, 9, 9}));
    Outlet b = g.add_source("b", Fact(DatumType::U8, Shape{1, 4, 9, 9}));
    Outlet da = dq(g, "dqa", a, 0.031f, 3, false);
    Outlet db = dq(g, "dqb", b, 0.04f, 200, false);
    Outlet sum = {g.add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {da, db}),
                  0};
    Outlet y = sum;
    if (variant != 1)
      y = {g.add_node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {sum}), 0};
    Outlet sc = g.add_const("q.s", Tensor::scalar<float>(0.05f));
    int q = g.add_node("q", std::make_shared<ops::QuantizeLinear>(1, DatumType::U8),
                       {y, sc, zp_const(g, "q.z", 90, false)});
    if (variant == 2) {
      g.set_outputs({{q, 0}, sum}, {"y", "sum"});
    } else {
      g.set_outputs({{q, 0}}, {"y"});
    }
    g.analyse();
    Graph before = g;
    passes::optimize_passes().run(g);
    if (variant == 2) {
      EXPECT_NE(compute_ops(g).find("Relu"), std::string::npos) << compute_ops(g);
      continue;
    }
    EXPECT_EQ(compute_ops(g), "QAdd");
    bool relu = false;
    for (const Node& n : g.nodes()) {
      for (const auto& [k, v] : n.op->attributes()) relu |= k == "relu";
    }
    EXPECT_EQ(relu, variant == 0);
    expect_bitwise(before, g,
                   {random_bytes({1, 4, 9, 9}, 7, false), random_bytes({1, 4, 9, 9}, 8, false)});
  }
}

}  // namespace
}  // namespace kiln
