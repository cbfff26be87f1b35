#include "ops/image/grid_sample.h"

#include <gtest/gtest.h>

#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::expect_near;
using kiln::image_test::run;
using GS = ops::GridSample;

namespace {
// X [1, 1, 2, 3] = [[0, 1, 2], [3, 4, 5]].
Tensor x23() {
  return Tensor::from_vector<float>({1, 1, 2, 3}, {0, 1, 2, 3, 4, 5});
}
// A grid of n (x, y) points in one row.
Tensor points(std::vector<float> xy) {
  return Tensor::from_vector<float>({1, 1, static_cast<int64_t>(xy.size() / 2), 2}, xy);
}
}  // namespace

TEST(GridSample, IdentityGridWithAlignCorners) {
  Tensor grid = Tensor::from_vector<float>({1, 2, 3, 2}, {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1});
  auto y = run(GS(GS::Mode::Linear, GS::Padding::Zeros, true), {x23(), grid});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 2, 3}));
  expect_near(y[0], {0, 1, 2, 3, 4, 5});
  auto c = run(GS(GS::Mode::Cubic, GS::Padding::Border, true), {x23(), grid});
  expect_near(c[0], {0, 1, 2, 3, 4, 5});
}

TEST(GridSample, PaddingModes) {
  // (x, y) = (-3, 0): far left, vertically between the rows (align_corners: row 0.5).
  Tensor grid = points({-3, 0, 0.5f, 0});
  auto z = run(GS(GS::Mode::Linear, GS::Padding::Zeros, true), {x23(), grid});
  expect_near(z[0], {0, 3});  // outside -> 0; x = 1.5, y = 0.5 -> mean of 1, 2, 4, 5
  auto b = run(GS(GS::Mode::Linear, GS::Padding::Border, true), {x23(), grid});
  expect_near(b[0], {1.5, 3});  // clamped to column 0: mean of 0 and 3
  // Reflection: x = 1.5 normalized -> 2.5 pixels -> reflected to 1.5.
  auto r = run(GS(GS::Mode::Linear, GS::Padding::Reflection, true), {x23(), points({1.5f, -1})});
  expect_near(r[0], {1.5});
}

TEST(GridSample, NearestWithoutAlignCorners) {
  // W = 3, align_corners 0: x_pix = ((x + 1) * 3 - 1) / 2. x = -1/3 -> 0.5 -> ties to even 0;
  // x = 1/3 -> 1.5 -> 2. y = -0.5 -> row 0.
  auto y = run(GS(GS::Mode::Nearest, GS::Padding::Zeros, false),
               {x23(), points({-1.f / 3, -0.5f, 1.f / 3, -0.5f, 0, 0.5f})});
  expect_near(y[0], {0, 2, 4});
}

TEST(GridSample, FactsAndErrors) {
  GS op(GS::Mode::Linear, GS::Padding::Zeros, false);
  Dim n = Dim::symbol("N");
  Fact x(DatumType::F32, std::vector<Dim>{n, 3, 10, 10});
  Fact g(DatumType::F32, std::vector<Dim>{n, 5, 7, 2});
  EXPECT_EQ(dims_to_string(op.output_facts({&x, &g})[0].shape), "N,3,5,7");
  Fact g3(DatumType::F32, std::vector<Dim>{n, 5, 7, 3});
  EXPECT_THROW(op.output_facts({&x, &g3}), Error);
  Fact x5(DatumType::F32, std::vector<Dim>{n, 3, 2, 10, 10});
  EXPECT_THROW(op.output_facts({&x5, &g}), Error);
  EXPECT_THROW(GS::parse_mode("area"), Error);
  EXPECT_EQ(GS::parse_mode("bilinear"), GS::Mode::Linear);
}
