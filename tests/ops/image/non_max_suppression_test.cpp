#include "ops/image/non_max_suppression.h"

#include <gtest/gtest.h>

#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

namespace {
// Box 1 overlaps box 0 with IoU 0.9 / 1.1 = 0.82; box 2 is apart.
Tensor boxes() {
  return Tensor::from_vector<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11});
}
Tensor scores() {
  return Tensor::from_vector<float>({1, 1, 3}, {0.9f, 0.8f, 0.7f});
}
Tensor i64(int64_t v) {
  return Tensor::from_vector<int64_t>({1}, {v});
}
Tensor f32(float v) {
  return Tensor::from_vector<float>({1}, {v});
}
}  // namespace

TEST(NonMaxSuppression, SuppressesOverlaps) {
  ops::NonMaxSuppression op(false);
  auto y = run(op, {boxes(), scores(), i64(3), f32(0.5f)});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values<int64_t>(y[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  auto loose = run(op, {boxes(), scores(), i64(3), f32(0.9f)});
  EXPECT_EQ(values<int64_t>(loose[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 2}));
  auto limited = run(op, {boxes(), scores(), i64(1), f32(0.5f)});
  EXPECT_EQ(values<int64_t>(limited[0]), (std::vector<int64_t>{0, 0, 0}));
  auto thresholded = run(op, {boxes(), scores(), i64(3), f32(0.5f), f32(0.75f)});
  EXPECT_EQ(values<int64_t>(thresholded[0]), (std::vector<int64_t>{0, 0, 0}));
  // No max_output_boxes_per_class: nothing selected.
  EXPECT_EQ(run(op, {boxes(), scores()})[0].shape(), (Shape{0, 3}));
}

TEST(NonMaxSuppression, CenterPointBoxesAndClasses) {
  ops::NonMaxSuppression op(true);
  Tensor b = Tensor::from_vector<float>({1, 2, 4}, {0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1});
  Tensor s = Tensor::from_vector<float>({1, 2, 2}, {0.1f, 0.2f, 0.9f, 0.3f});
  auto y = run(op, {b, s, i64(5), f32(0.5f)});
  // Class 0 keeps box 1 (higher score), class 1 keeps box 0.
  EXPECT_EQ(values<int64_t>(y[0]), (std::vector<int64_t>{0, 0, 1, 0, 1, 0}));
}

TEST(NonMaxSuppression, FactsAndErrors) {
  ops::NonMaxSuppression op(false);
  Fact b(DatumType::F32, std::vector<Dim>{1, Dim::symbol("B"), 4});
  Fact s(DatumType::F32, std::vector<Dim>{1, 2, Dim::symbol("B")});
  auto f = op.output_facts({&b, &s});
  EXPECT_EQ(f[0].dt, DatumType::I64);
  EXPECT_FALSE(f[0].shape[0].is_int());
  EXPECT_EQ(f[0].shape[1], Dim(3));
  Fact b5(DatumType::F32, std::vector<Dim>{1, 3, 5});
  EXPECT_THROW(op.output_facts({&b5, &s}), Error);
  EXPECT_THROW(run(op, {boxes(), Tensor::from_vector<float>({1, 1, 2}, {1, 2}), i64(1)}), Error);
}
