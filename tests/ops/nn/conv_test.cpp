#include <gtest/gtest.h>

#include "ops/nn/conv.h"
#include "ops/nn/conv_transpose.h"
#include "ops/nn/pool_geometry.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::expect_close;
using kiln::testing::fact_refs;
using kiln::testing::run_op;
using ops::AutoPad;
using ops::WindowGeometry;

std::vector<float> modpattern(int64_t n, int mod, float sub, float div) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; i++) v.push_back((static_cast<float>(i % mod) - sub) / div);
  return v;
}

TEST(NnConv, Grouped2dStridedAsymmetricPads) {
  // Expected values from an independent numpy loop (x % 7, w % 5 patterns).
  WindowGeometry g;
  g.strides = {2, 2};
  g.pads = {1, 0, 0, 1};
  ops::Conv conv(g, 2);
  Tensor x = Tensor::from_vector<float>({1, 4, 5, 5}, modpattern(100, 7, 3, 4));
  Tensor w = Tensor::from_vector<float>({4, 2, 3, 3}, modpattern(72, 5, 2, 3));
  Tensor b = Tensor::from_vector<float>({4}, {0.5f, -1, 0.25f, 2});
  auto y = run_op(conv, {x, w, b});
  EXPECT_EQ(y[0].shape(), Shape({1, 4, 2, 2}));
  expect_close(y[0],
               {0.5f, -0.5f, -1.25f, 2.916667f, -1.333333f, -1.25f, 2.166667f, -1.75f, 0.8333333f,
                -1.0f, -1.25f, 1.666667f, 0.9166667f, 3.083333f, 5.166667f, 2.083333f});
}

TEST(NnConv, Dilated1dSameUpperNoBias) {
  WindowGeometry g;
  g.dilations = {3};
  g.auto_pad = AutoPad::SameUpper;
  ops::Conv conv(g, 1);
  std::vector<float> xv;
  for (int i = 0; i < 14; i++) xv.push_back(static_cast<float>(i * 3 % 5) / 5 - 0.5f);
  Tensor x = Tensor::from_vector<float>({1, 2, 7}, xv);
  Tensor w = Tensor::from_vector<float>({3, 2, 2}, modpattern(12, 5, 1.5f, 1));
  auto y = run_op(conv, {x, w});
  EXPECT_EQ(y[0].shape(), Shape({1, 3, 7}));
  expect_close(y[0], {0,    -0.3f, 0.2f,  0.2f,  -0.3f, 0.2f,  0.6f,  0.4f, -1.8f, 0.3f, -0.1f,
                      1.0f, -0.3f, -1.1f, -0.7f, 0.7f,  -0.6f, -1.4f, 1.3f, -0.3f, -0.3f},
               1e-5f);
}

// A 1x1 kernel with padding at the end only (fuzz finding 30): the output is longer than the
// input, so the input plane is not the matmul operand (the pointwise shortcut read past it).
TEST(NnConv, PointwiseKernelWithEndPadding) {
  WindowGeometry g;
  g.pads = {0, 3};
  ops::Conv conv(g, 1);
  Tensor x = Tensor::from_vector<float>({1, 2, 2}, {1, 2, 3, 4});
  Tensor w = Tensor::from_vector<float>({2, 2, 1}, {1, 10, -1, 0.5f});
  Tensor b = Tensor::from_vector<float>({2}, {0.25f, -2});
  auto y = run_op(conv, {x, w, b});
  EXPECT_EQ(y[0].shape(), Shape({1, 2, 5}));
  expect_close(y[0], {31.25f, 42.25f, 0.25f, 0.25f, 0.25f, -1.5f, -2, -2, -2, -2});
}

TEST(NnConv, F64AndF16Pointwise) {
  ops::Conv conv(WindowGeometry{}, 1);
  // 1x1 conv: y[m] = sum_c w[m,c] x[c].
  Tensor x = Tensor::from_vector<double>({1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor w = Tensor::from_vector<double>({1, 2, 1, 1}, {10, 100});
  auto y = run_op(conv, {x, w});
  expect_close(y[0], {310, 420});
  Tensor xh = Tensor::from_vector<f16>({1, 2, 1, 2}, {f16(1), f16(2), f16(3), f16(4)});
  Tensor wh = Tensor::from_vector<f16>({1, 2, 1, 1}, {f16(10), f16(100)});
  auto yh = run_op(conv, {xh, wh});
  EXPECT_EQ(yh[0].dtype(), DatumType::F16);
  expect_close(yh[0], {310, 420});
}

TEST(NnConv, SymbolicShapeAndCost) {
  WindowGeometry g;
  g.strides = {2};
  g.pads = {1, 1};
  ops::Conv conv(g, 1);
  Tensor wv(DatumType::F32, {8, 4, 3});
  std::vector<Fact> in = {Fact::parse("N,4,S,f32"), Fact::constant(wv)};
  auto out = conv.output_facts(fact_refs(in));
  // (S + 2 - 3) / 2 + 1
  EXPECT_EQ(dims_to_string(out[0].shape),
            dims_to_string({Dim::parse("N"), 8, Dim::parse("(S-1)/2+1")}));
  Cost c = conv.cost(fact_refs(in));
  EXPECT_EQ(c.fma, Dim::parse("N") * Dim(8 * 12) * Dim::parse("(S-1)/2+1"));
  EXPECT_EQ(c.params_bytes, Dim(8 * 4 * 3 * 4));
}

TEST(NnConv, BadInputsThrow) {
  ops::Conv conv(WindowGeometry{}, 1);
  std::vector<Fact> wrong_channels = {Fact::parse("1,3,8,8"), Fact::parse("4,2,3,3")};
  EXPECT_THROW(conv.output_facts(fact_refs(wrong_channels)), Error);
  std::vector<Fact> wrong_rank = {Fact::parse("1,3,8"), Fact::parse("4,3,3,3")};
  EXPECT_THROW(conv.output_facts(fact_refs(wrong_rank)), Error);
  std::vector<Fact> too_small = {Fact::parse("1,3,2,2"), Fact::parse("4,3,3,3")};
  EXPECT_THROW(conv.output_facts(fact_refs(too_small)), Error);
  std::vector<Fact> ints = {Fact::parse("1,3,4,4,i32"), Fact::parse("4,3,3,3,i32")};
  EXPECT_THROW(conv.output_facts(fact_refs(ints)), Error);
  WindowGeometry g;
  g.kernel = {2, 2};
  ops::Conv mismatch(g, 1);
  std::vector<Fact> ok = {Fact::parse("1,3,8,8"), Fact::parse("4,3,3,3")};
  EXPECT_THROW(mismatch.output_facts(fact_refs(ok)), Error);
}

TEST(NnConvTranspose, Strided1dByHand) {
  WindowGeometry g;
  g.strides = {2};
  ops::ConvTranspose op(g, 1, {}, {});
  Tensor x = Tensor::from_vector<float>({1, 1, 3}, {1, 2, 3});
  Tensor w = Tensor::from_vector<float>({1, 1, 3}, {1, 1, 1});
  Tensor b = Tensor::from_vector<float>({1}, {0.5f});
  auto y = run_op(op, {x, w, b});
  // Each input spreads over 3 outputs starting at 2*i.
  EXPECT_EQ(y[0].shape(), Shape({1, 1, 7}));
  expect_close(y[0], {1.5f, 1.5f, 3.5f, 2.5f, 5.5f, 3.5f, 3.5f});
}

TEST(NnConvTranspose, PadsOutputPaddingAndGroups) {
  WindowGeometry g;
  g.strides = {2};
  g.pads = {1, 0};
  // Two groups, one channel each, two outputs per group.
  ops::ConvTranspose op(g, 2, {1}, {});
  Tensor x = Tensor::from_vector<float>({1, 2, 2}, {1, 2, 10, 20});
  Tensor w = Tensor::from_vector<float>({2, 2, 2}, {1, 2, 3, 4, 1, -1, 0, 1});
  auto y = run_op(op, {x, w});
  // Full length (2-1)*2 + 1 + 2 = 5, minus pads 1 -> 4; group 0 full: ch0 = [1,2,2,4,0],
  // ch1 = [3,4,6,8,0]; group 1: ch2 = [10,-10,20,-20,0], ch3 = [0,10,0,20,0].
  EXPECT_EQ(y[0].shape(), Shape({1, 4, 4}));
  expect_close(y[0], {2, 2, 4, 0, 4, 6, 8, 0, -10, 20, -20, 0, 10, 0, 20, 0});
  std::vector<Fact> facts = {Fact::parse("1,2,S"), Fact::constant(w)};
  EXPECT_EQ(op.output_facts(fact_refs(facts))[0].shape[2], Dim::parse("2*S"));
  EXPECT_EQ(op.cost(fact_refs(facts)).fma, Dim::parse("8*S"));
}

TEST(NnConvTranspose, OutputShapeAndSame) {
  WindowGeometry g;
  g.strides = {2};
  g.auto_pad = AutoPad::SameUpper;
  ops::ConvTranspose same(g, 1, {}, {});
  std::vector<Fact> facts = {Fact::parse("1,1,S"), Fact::parse("1,3,3")};
  EXPECT_EQ(same.output_facts(fact_refs(facts))[0].shape[2], Dim::parse("2*S"));
  ops::ConvTranspose shaped(WindowGeometry{}, 1, {}, {9});
  std::vector<Fact> f2 = {Fact::parse("1,1,5"), Fact::parse("1,2,3")};
  EXPECT_EQ(shaped.output_facts(fact_refs(f2))[0].shape, std::vector<Dim>({1, 2, 9}));
}

}  // namespace
}  // namespace kiln
