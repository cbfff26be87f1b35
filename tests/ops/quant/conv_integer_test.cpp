#include "ops/quant/conv_integer.h"

#include <gtest/gtest.h>

#include "ops/quant/qlinear_conv.h"
#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

namespace {
Tensor x33() {
  return Tensor::from_vector<uint8_t>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
}
Tensor ones22() {
  return Tensor::from_vector<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1});
}
}  // namespace

TEST(ConvInteger, ZeroPointNoPadding) {
  ops::ConvInteger op({});
  auto y = run(op, {x33(), ones22(), Tensor::scalar<uint8_t>(1)});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{8, 12, 20, 24}));
}

TEST(ConvInteger, PaddingContributesNothing) {
  ops::quant::ConvGeometry g;
  g.pads = {1, 1, 1, 1};
  ops::ConvInteger op(g);
  auto y = run(op, {x33(), ones22(), Tensor::scalar<uint8_t>(1)});
  ASSERT_EQ(y[0].shape(), (Shape{1, 1, 4, 4}));
  auto v = values<int32_t>(y[0]);
  EXPECT_EQ(v[0], 0);   // only x[0][0] - 1
  EXPECT_EQ(v[1], 1);   // x00 + x01 - 2
  EXPECT_EQ(v[5], 8);   // same as the unpadded first window
  EXPECT_EQ(v[15], 8);  // only x[2][2] - 1
  g.strides = {2, 2};
  ops::ConvInteger strided(g);
  auto s = run(strided, {x33(), ones22(), Tensor::scalar<uint8_t>(1)});
  EXPECT_EQ(values<int32_t>(s[0]), (std::vector<int32_t>{0, 3, 9, 24}));
}

TEST(ConvInteger, GroupsAndPerChannelWeightZeroPoint) {
  ops::quant::ConvGeometry g;
  g.group = 2;
  ops::ConvInteger op(g);
  Tensor x = Tensor::from_vector<int8_t>({1, 2, 1, 1}, {2, 3});
  Tensor w = Tensor::from_vector<int8_t>({2, 1, 1, 1}, {5, 7});
  EXPECT_EQ(values<int32_t>(run(op, {x, w})[0]), (std::vector<int32_t>{10, 21}));
  auto y = run(op, {x, w, Tensor(), Tensor::from_vector<int8_t>({2}, {1, 2})});
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{8, 15}));
}

TEST(ConvInteger, SymbolicFactsAndErrors) {
  ops::quant::ConvGeometry g;
  g.pads = {1, 1, 1, 1};
  ops::ConvInteger op(g);
  Fact x(DatumType::U8, std::vector<Dim>{Dim::symbol("N"), 1, Dim::symbol("H"), 5});
  Fact w(DatumType::U8, std::vector<Dim>{4, 1, 2, 2});
  auto f = op.output_facts({&x, &w});
  EXPECT_EQ(f[0].dt, DatumType::I32);
  EXPECT_EQ(dims_to_string(f[0].shape), "N,4,H+1,6");
  ops::quant::ConvGeometry same;
  same.auto_pad = "SAME_UPPER";
  same.strides = {2, 2};
  auto s = ops::ConvInteger(same).output_facts({&x, &w});
  EXPECT_EQ(s[0].shape[2], Dim::symbol("H").div_ceil(2));
  EXPECT_EQ(s[0].shape[3], Dim(3));
  Fact w2(DatumType::U8, std::vector<Dim>{4, 2, 2, 2});
  EXPECT_THROW(op.output_facts({&x, &w2}), Error);
  Fact xf(DatumType::F32, std::vector<Dim>{1, 1, 3, 3});
  EXPECT_THROW(op.output_facts({&xf, &w}), Error);
}

TEST(QLinearConv, BiasAndPerChannelScales) {
  ops::QLinearConv op({});
  Tensor x = Tensor::from_vector<uint8_t>({1, 1, 2, 2}, {10, 20, 30, 40});
  Tensor w = Tensor::from_vector<int8_t>({2, 1, 1, 1}, {2, -1});
  auto y = run(op, {x, Tensor::scalar<float>(0.1f), Tensor::scalar<uint8_t>(10), w,
                    Tensor::from_vector<float>({2}, {0.5f, 1.f}),
                    Tensor::from_vector<int8_t>({2}, {0, 0}), Tensor::scalar<float>(0.1f),
                    Tensor::scalar<uint8_t>(128), Tensor::from_vector<int32_t>({2}, {4, 0})});
  ASSERT_EQ(y[0].shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{130, 140, 150, 160, 128, 118, 108, 98}));
}
