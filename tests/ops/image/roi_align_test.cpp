#include "ops/image/roi_align.h"

#include <gtest/gtest.h>

#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::expect_near;
using kiln::image_test::run;

namespace {
// X [1, 1, 4, 4] with X[y][x] = x.
Tensor ramp_x() {
  std::vector<float> v;
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++) v.push_back(static_cast<float>(x));
  return Tensor::from_vector<float>({1, 1, 4, 4}, v);
}
Tensor roi(std::vector<float> v) {
  return Tensor::from_vector<float>({1, 4}, v);
}
Tensor batch0() {
  return Tensor::from_vector<int64_t>({1}, {0});
}
}  // namespace

TEST(RoiAlign, AverageHalfPixel) {
  ops::RoiAlign::Options o;
  o.output_height = o.output_width = 2;
  o.sampling_ratio = 2;
  // Roi [0, 4] shifted by -0.5: bin 0 samples x = 0, 1; bin 1 samples x = 2, 3.
  auto y = run(ops::RoiAlign(o), {ramp_x(), roi({0, 0, 4, 4}), batch0()});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 2, 2}));
  expect_near(y[0], {0.5, 2.5, 0.5, 2.5});
}

TEST(RoiAlign, OutputHalfPixelMinimumSize) {
  ops::RoiAlign::Options o;
  o.half_pixel = false;
  o.sampling_ratio = 2;
  o.spatial_scale = 0.5f;
  // Roi [2, 2, 2.5, 2.5] * 0.5 = [1, 1.25]: stretched to size 1, samples x = 1.25, 1.75.
  auto y = run(ops::RoiAlign(o), {ramp_x(), roi({2, 2, 2.5f, 2.5f}), batch0()});
  expect_near(y[0], {1.5});
}

TEST(RoiAlign, MaxMode) {
  ops::RoiAlign::Options o;
  o.max_mode = true;
  o.sampling_ratio = 1;
  // One sample at exactly pixel (1, 1) (after the -0.5 shift): weight 1 on value 1.
  auto y = run(ops::RoiAlign(o), {ramp_x(), roi({1, 1, 2, 2}), batch0()});
  expect_near(y[0], {1});
}

TEST(RoiAlign, FactsAndErrors) {
  ops::RoiAlign::Options o;
  o.output_height = 3;
  o.output_width = 5;
  ops::RoiAlign op(o);
  Fact x(DatumType::F32, std::vector<Dim>{2, 8, 16, 16});
  Fact r(DatumType::F32, std::vector<Dim>{Dim::symbol("R"), 4});
  Fact b(DatumType::I64, std::vector<Dim>{Dim::symbol("R")});
  EXPECT_EQ(dims_to_string(op.output_facts({&x, &r, &b})[0].shape), "R,8,3,5");
  Fact r5(DatumType::F32, std::vector<Dim>{2, 5});
  EXPECT_THROW(op.output_facts({&x, &r5, &b}), Error);
  EXPECT_THROW(run(op, {ramp_x(), roi({0, 0, 1, 1}), Tensor::from_vector<int64_t>({1}, {1})}),
               Error);
}
