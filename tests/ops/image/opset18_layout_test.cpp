// Col2Im, CenterCropPad, TensorScatter, MaxRoiPool, AffineGrid and DeformConv on small cases
// computed by hand (DeformConv: zero offsets and a full mask are a plain convolution).
#include <cmath>

#include "ops/image/affine_grid.h"
#include "ops/image/col2im.h"
#include "ops/image/max_roi_pool.h"
#include "ops/nn/conv.h"
#include "ops/nn/deform_conv.h"
#include "ops/shape/center_crop_pad.h"
#include "ops/shape/tensor_scatter.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::expect_close;
using testing::run_op;

Tensor i64s(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}

TEST(Col2Im, SumsOverlappingBlocks) {
  // A 1x3 image, blocks of 1x2 with stride 1: columns [a b] at 0 and [c d] at 1.
  Tensor cols = Tensor::from_vector<float>({1, 2, 2}, {1, 2, 10, 20});  // rows: kernel taps
  auto y = run_op(ops::Col2Im({}, {}, {}), {cols, i64s({1, 3}), i64s({1, 2})})[0];
  EXPECT_EQ(y.shape(), (Shape{1, 1, 1, 3}));
  expect_close(y, {1, 2 + 10, 20});
  // Padding drops what falls outside: pads (0, 1, 0, 1) on a 1x2 image, 1x2 blocks.
  Tensor padded = Tensor::from_vector<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto p = run_op(ops::Col2Im({}, {0, 1, 0, 1}, {}), {padded, i64s({1, 2}), i64s({1, 2})})[0];
  expect_close(p, {2 + 4, 3 + 5});
  EXPECT_THROW(run_op(ops::Col2Im({}, {}, {}), {cols, i64s({1, 4}), i64s({1, 2})}), Error);
}

TEST(CenterCropPad, CropsLeftOfCentreAndPadsRightOfCentre) {
  Tensor x = Tensor::from_vector<float>({5}, {1, 2, 3, 4, 5});
  expect_close(run_op(ops::CenterCropPad(std::nullopt), {x, i64s({2})})[0], {2, 3});
  expect_close(run_op(ops::CenterCropPad(std::nullopt), {x, i64s({8})})[0],
               {0, 1, 2, 3, 4, 5, 0, 0});
  Tensor m = Tensor::from_vector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto y = run_op(ops::CenterCropPad(std::vector<int64_t>{-1}), {m, i64s({1})})[0];
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  EXPECT_EQ(y.values<int32_t>()[1], 5);
}

TEST(TensorScatter, WritesAtEachBatchIndexLinearlyOrCircularly) {
  Tensor past = Tensor::from_vector<float>({2, 4, 1}, {0, 0, 0, 0, 0, 0, 0, 0});
  Tensor update = Tensor::from_vector<float>({2, 2, 1}, {1, 2, 3, 4});
  expect_close(run_op(ops::TensorScatter(-2, false), {past, update, i64s({1, 2})})[0],
               {0, 1, 2, 0, 0, 0, 3, 4});
  expect_close(run_op(ops::TensorScatter(1, true), {past, update, i64s({3, 0})})[0],
               {2, 0, 0, 1, 3, 4, 0, 0});
  EXPECT_THROW(run_op(ops::TensorScatter(1, false), {past, update, i64s({3, 0})}), Error);
}

TEST(MaxRoiPool, MaximumOfEachBin) {
  Tensor x = Tensor::from_vector<float>({1, 1, 2, 4}, {1, 5, 2, 8, 3, 4, 9, 0});
  // Region x 0..3, y 0..1 in 1x2 bins: left half {1, 5, 3, 4}, right half {2, 8, 9, 0}.
  Tensor rois = Tensor::from_vector<float>({1, 5}, {0, 0, 0, 3, 1});
  expect_close(run_op(ops::MaxRoiPool(1, 2, 1.0f), {x, rois})[0], {5, 9});
  Tensor bad = Tensor::from_vector<float>({1, 5}, {3, 0, 0, 3, 1});  // batch index 3
  EXPECT_THROW(run_op(ops::MaxRoiPool(1, 2, 1.0f), {x, bad}), Error);
}

TEST(AffineGrid, IdentityGivesTheNormalizedBaseGrid) {
  Tensor theta = Tensor::from_vector<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  auto edges = run_op(ops::AffineGrid(false), {theta, i64s({1, 1, 1, 2})})[0];
  EXPECT_EQ(edges.shape(), (Shape{1, 1, 2, 2}));
  expect_close(edges, {-0.5f, 0, 0.5f, 0});  // (x, y) of two pixel centres
  auto corners = run_op(ops::AffineGrid(true), {theta, i64s({1, 1, 2, 2})})[0];
  expect_close(corners, {-1, -1, 1, -1, -1, 1, 1, 1});
  Tensor shift = Tensor::from_vector<float>({1, 2, 3}, {2, 0, 0.5f, 0, 1, -1});
  expect_close(run_op(ops::AffineGrid(true), {shift, i64s({1, 1, 1, 2})})[0],
               {-1.5f, -1, 2.5f, -1});
}

TEST(DeformConv, ZeroOffsetsAreAConvolutionAndOffsetsShiftTheSamples) {
  Tensor x(DatumType::F32, {1, 2, 4, 5});
  Tensor w(DatumType::F32, {3, 2, 2, 2});
  for (int64_t i = 0; i < x.numel(); i++) x.data<float>()[i] = std::sin(0.7f * i);
  for (int64_t i = 0; i < w.numel(); i++) w.data<float>()[i] = std::cos(0.3f * i);
  ops::DeformConvOptions o;
  o.pads = {1, 0, 0, 1};
  o.strides = {1, 2};
  Tensor offsets(DatumType::F32, {1, 8, 4, 3});  // zeros
  auto y = run_op(ops::DeformConv(o), {x, w, offsets})[0];
  ops::WindowGeometry g;
  g.kernel = {2, 2};
  g.pads = o.pads;
  g.strides = o.strides;
  auto want = run_op(ops::Conv(g, 1), {x, w})[0];
  ASSERT_EQ(y.shape(), want.shape());
  for (int64_t i = 0; i < y.numel(); i++)
    EXPECT_NEAR(y.values<float>()[i], want.values<float>()[i], 1e-5);
  // A 1x1 kernel, offset (0.5, 0.25): bilinear between four pixels; mask 0.5 halves it.
  Tensor img = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor one = Tensor::from_vector<float>({1, 1, 1, 1}, {1});
  Tensor off = Tensor::from_vector<float>({1, 2, 1, 1}, {0.5f, 0.25f});
  ops::DeformConvOptions o1;
  o1.kernel_shape = {1, 1};
  o1.strides = {2, 2};
  Tensor mask = Tensor::from_vector<float>({1, 1, 1, 1}, {0.5f});
  auto s = run_op(ops::DeformConv(o1), {img, one, off, Tensor(), mask}, 1,
                  {false, false, false, true, false})[0];
  const float sample = 0.5f * (0.75f * 1 + 0.25f * 2) + 0.5f * (0.75f * 3 + 0.25f * 4);
  expect_close(s, {0.5f * sample});
}

}  // namespace
}  // namespace kiln
