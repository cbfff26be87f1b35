#include "ops/image/resize.h"

#include <gtest/gtest.h>

#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::expect_near;
using kiln::image_test::run;
using kiln::image_test::values;
using Options = ops::Resize::Options;

namespace {

Tensor scales(std::vector<float> v) {
  return Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v);
}
Tensor sizes(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v);
}
Tensor ramp(int64_t n) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; i++) v.push_back(static_cast<float>(i));
  return Tensor::from_vector<float>({1, n}, v);
}

}  // namespace

TEST(Resize, NearestModesAndCoordinates) {
  Options o;
  o.coord = ops::Resize::Coord::Asymmetric;
  o.nearest = ops::Resize::Nearest::Floor;
  auto y = run(ops::Resize(o), {ramp(2), Tensor(), scales({1, 3})});
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{0, 0, 0, 1, 1, 1}));
  // Half-pixel, 4 -> 3 by sizes: x = (o + 0.5) * 4/3 - 0.5 = 0.167, 1.5, 2.83.
  o.coord = ops::Resize::Coord::HalfPixel;
  o.nearest = ops::Resize::Nearest::RoundPreferFloor;
  EXPECT_EQ(values<float>(run(ops::Resize(o), {ramp(4), Tensor(), Tensor(), sizes({1, 3})})[0]),
            (std::vector<float>{0, 1, 3}));
  o.nearest = ops::Resize::Nearest::RoundPreferCeil;
  EXPECT_EQ(values<float>(run(ops::Resize(o), {ramp(4), Tensor(), Tensor(), sizes({1, 3})})[0]),
            (std::vector<float>{0, 2, 3}));
}

TEST(Resize, TfHalfPixelForNn) {
  Options o;
  o.coord = ops::Resize::Coord::TfHalfPixelForNn;
  std::vector<float> v;
  for (int i = 1; i <= 16; i++) v.push_back(static_cast<float>(i));
  Tensor x = Tensor::from_vector<float>({1, 1, 4, 4}, v);
  auto y = run(ops::Resize(o), {x, Tensor(), Tensor(), sizes({1, 1, 3, 2})});
  // rows: (o + 0.5) / 0.75 = 0.67, 2, 3.33 -> 1, 2, 3; cols: (o + 0.5) * 2 = 1, 3.
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{6, 8, 10, 12, 14, 16}));
}

TEST(Resize, LinearHalfPixelAndAlignCorners) {
  Options o;
  o.mode = ops::Resize::Mode::Linear;
  Tensor x = Tensor::from_vector<float>({1, 2}, {1, 2});
  // x = -0.25, 0.25, 0.75, 1.25 with edge clamping.
  expect_near(run(ops::Resize(o), {x, Tensor(), scales({1, 2})})[0], {1, 1.25, 1.75, 2});
  o.coord = ops::Resize::Coord::AlignCorners;
  expect_near(run(ops::Resize(o), {x, Tensor(), Tensor(), sizes({1, 3})})[0], {1, 1.5, 2});
  // 2-D: bilinear on a 2x2 grid, center of the 3x3 align-corners output is the mean.
  Tensor sq = Tensor::from_vector<float>({2, 2}, {0, 2, 4, 6});
  auto y = run(ops::Resize(o), {sq, Tensor(), Tensor(), sizes({3, 3})});
  expect_near(y[0], {0, 1, 2, 2, 3, 4, 4, 5, 6});
}

TEST(Resize, CubicKeysWeights) {
  Options o;
  o.mode = ops::Resize::Mode::Cubic;
  auto y = run(ops::Resize(o), {ramp(8), Tensor(), scales({1, 2})});
  // A = -0.75 weights for fraction 0.25 at offsets -1..2: -0.10546875, 0.87890625,
  // 0.26171875, -0.03515625 (A != -0.5 does not reproduce a ramp exactly).
  // Output 5: x = 5.5/2 - 0.5 = 2.25 -> 2 + 0.10546875 + 0.26171875 - 0.0703125.
  EXPECT_NEAR(y[0].value_as_double(5), 2.296875, 1e-9);
  // Output 8: x = 3.75, mirrored weights.
  EXPECT_NEAR(y[0].value_as_double(8), 3.703125, 1e-9);
  // Output 0: x = -0.25, left taps clamp to index 0 (value 0): only index 1 contributes.
  EXPECT_NEAR(y[0].value_as_double(0), -0.10546875, 1e-9);
}

TEST(Resize, CubicExcludeOutsideRenormalizes) {
  Options o;
  o.mode = ops::Resize::Mode::Cubic;
  o.exclude_outside = true;
  o.coord = ops::Resize::Coord::Asymmetric;
  Tensor x = Tensor::from_vector<float>({1, 2}, {4, 4});
  // With constant data any renormalized weighting gives the constant back.
  expect_near(run(ops::Resize(o), {x, Tensor(), scales({1, 2.5})})[0], {4, 4, 4, 4, 4});
}

TEST(Resize, LinearAntialiasDownsample) {
  Options o;
  o.mode = ops::Resize::Mode::Linear;
  o.antialias = true;
  // scale 1/2: triangle filter stretched to 4 taps, weights 1/8, 3/8, 3/8, 1/8.
  auto y = run(ops::Resize(o), {ramp(8), Tensor(), scales({1, 0.5})});
  expect_near(y[0], {0.625, 2.5, 4.5, 6.375});
}

TEST(Resize, TfCropAndResizeExtrapolates) {
  Options o;
  o.mode = ops::Resize::Mode::Linear;
  o.coord = ops::Resize::Coord::TfCropAndResize;
  o.extrapolation_value = -1;
  Tensor roi = Tensor::from_vector<float>({4}, {0, 0.5f, 1, 1.5f});
  // Axis 1 spans [0.5, 1.5] * 3: x = 1.5, 3 (ok: 3 == len-1), 4.5 (outside).
  auto y = run(ops::Resize(o), {ramp(4), roi, Tensor(), sizes({1, 3})});
  expect_near(y[0], {1.5, 3, -1});
}

TEST(Resize, AxesAndAspectPolicy) {
  Options o;
  o.axes = {-1};
  auto y = run(ops::Resize(o), {Tensor::from_vector<float>({2, 1}, {1, 2}), Tensor(), scales({2})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{1, 1, 2, 2}));
  Options p;
  p.aspect = ops::Resize::AspectPolicy::NotLarger;
  ops::Resize r(p);
  std::vector<int64_t> two = {2, 2};
  EXPECT_EQ(r.plan({4, 6}, nullptr, &two).out, (Shape{1, 2}));
  p.aspect = ops::Resize::AspectPolicy::NotSmaller;
  std::vector<int64_t> sz = {2, 2};
  EXPECT_EQ(ops::Resize(p).plan({4, 6}, nullptr, &sz).out, (Shape{2, 3}));
}

TEST(Resize, OutputFacts) {
  ops::Resize op(Options{});
  Dim s = Dim::symbol("S");
  Fact x(DatumType::F32, std::vector<Dim>{1, 3, s, 10});
  Fact sc = Fact::constant(scales({1, 1, 2, 0.5}));
  auto f = op.output_facts({&x, nullptr, &sc});
  EXPECT_EQ(dims_to_string(f[0].shape), "1,3,2*S,5");
  Fact dyn(DatumType::F32, std::vector<Dim>{4});
  f = op.output_facts({&x, nullptr, &dyn});
  EXPECT_FALSE(f[0].shape[2].is_int());
  EXPECT_NE(f[0].shape[2], s);
  Fact sz(DatumType::I64, std::vector<Dim>{4});
  sz.dims_value = std::vector<Dim>{1, 3, s * Dim(2), 7};
  Fact empty = Fact::constant(Tensor(DatumType::F32, {0}));
  f = op.output_facts({&x, nullptr, &empty, &sz});
  EXPECT_EQ(dims_to_string(f[0].shape), "1,3,2*S,7");
  EXPECT_THROW(op.output_facts({&x}), Error);
  Fact three = Fact::constant(scales({1, 2, 3}));
  EXPECT_THROW(op.output_facts({&x, nullptr, &three}), Error);
  EXPECT_THROW(ops::Resize::parse_mode("bogus"), Error);
}

// Interpolated integers are truncated toward zero, as ONNX's reference (astype) and ONNX Runtime
// do: 1.5 -> 1, -6.67 -> -6 (not rounded, not floored).
TEST(Resize, IntegerTypesTruncate) {
  Options o;
  o.mode = ops::Resize::Mode::Linear;
  o.coord = ops::Resize::Coord::AlignCorners;
  Tensor x = Tensor::from_vector<uint8_t>({1, 2}, {0, 3});
  auto y = run(ops::Resize(o), {x, Tensor(), Tensor(), sizes({1, 3})});
  EXPECT_EQ(values<uint8_t>(y[0]), (std::vector<uint8_t>{0, 1, 3}));
  Tensor n = Tensor::from_vector<int32_t>({1, 2}, {-10, 0});
  auto z = run(ops::Resize(o), {n, Tensor(), Tensor(), sizes({1, 4})});
  EXPECT_EQ(values<int32_t>(z[0]), (std::vector<int32_t>{-10, -6, -3, 0}));
}
