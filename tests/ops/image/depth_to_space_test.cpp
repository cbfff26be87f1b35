#include "ops/image/depth_to_space.h"

#include <gtest/gtest.h>

#include "ops/image/space_to_depth.h"
#include "tests/ops/image/image_test_util.h"

using namespace kiln;
using kiln::image_test::run;
using kiln::image_test::values;

namespace {
// [1, 8, 1, 1] with channel c holding c: the output shows which channel lands where.
Tensor channels8() {
  std::vector<float> v(8);
  for (int i = 0; i < 8; i++) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return Tensor::from_vector<float>({1, 8, 1, 1}, v);
}
}  // namespace

TEST(DepthToSpace, DcrAndCrdOrders) {
  auto dcr = run(ops::DepthToSpace(2, false), {channels8()});
  ASSERT_EQ(dcr[0].shape(), (Shape{1, 2, 2, 2}));
  // DCR: output channel c, block (i, j) comes from channel (i*2 + j) * 2 + c.
  EXPECT_EQ(values<float>(dcr[0]), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  auto crd = run(ops::DepthToSpace(2, true), {channels8()});
  // CRD: from channel c*4 + i*2 + j.
  EXPECT_EQ(values<float>(crd[0]), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(DepthToSpace, SpatialInterleaving) {
  // 4 channels of 1x2: each output row interleaves two channels.
  Tensor x = Tensor::from_vector<int32_t>({1, 4, 1, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  auto y = run(ops::DepthToSpace(2, false), {x});
  ASSERT_EQ(y[0].shape(), (Shape{1, 1, 2, 4}));
  EXPECT_EQ(values<int32_t>(y[0]), (std::vector<int32_t>{0, 10, 1, 11, 20, 30, 21, 31}));
  auto back = run(ops::SpaceToDepth(2), {y[0]});
  EXPECT_TRUE(back[0].equals(x));
}

TEST(DepthToSpace, SymbolicFactsAndErrors) {
  ops::DepthToSpace op(2, false);
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 12, Dim::symbol("H"), 3});
  auto f = op.output_facts({&x});
  EXPECT_EQ(dims_to_string(f[0].shape), "N,3,2*H,6");
  Fact bad(DatumType::F32, std::vector<Dim>{1, 6, 2, 2});
  EXPECT_THROW(op.output_facts({&bad}), Error);
  Fact r3(DatumType::F32, std::vector<Dim>{4, 2, 2});
  EXPECT_THROW(op.output_facts({&r3}), Error);
}

TEST(SpaceToDepth, BlocksToChannels) {
  Tensor x = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  auto y = run(ops::SpaceToDepth(2), {x});
  ASSERT_EQ(y[0].shape(), (Shape{1, 4, 1, 1}));
  EXPECT_EQ(values<float>(y[0]), (std::vector<float>{1, 2, 3, 4}));
  ops::SpaceToDepth op(2);
  Fact s(DatumType::F32, std::vector<Dim>{1, 3, Dim::symbol("H"), 4});
  EXPECT_EQ(dims_to_string(op.output_facts({&s})[0].shape), "1,12,H/2,2");
  Fact odd(DatumType::F32, std::vector<Dim>{1, 3, 3, 4});
  EXPECT_THROW(op.output_facts({&odd}), Error);
  EXPECT_THROW(run(op, {Tensor::from_vector<float>({1, 1, 1, 3}, {1, 2, 3})}), Error);
}

// Empty inputs declaring huge dims (fuzz finding 29): the loops walked the non-zero dims (a hang
// at -O1, optimized away at -O3), and the output dims could overflow.
TEST(DepthToSpace, EmptyInputsWithHugeDims) {
  Tensor x(DatumType::F32, {1, 41, 0, int64_t{1} << 62});
  auto y = run(ops::SpaceToDepth(16384), {x});
  EXPECT_EQ(y[0].shape(), Shape({1, 41 * 16384 * 16384LL, 0, (int64_t{1} << 62) / 16384}));
  Tensor wide(DatumType::F32, {1, 4, 0, int64_t{1} << 62});
  EXPECT_THROW(run(ops::DepthToSpace(2, false), {wide}), Error);  // 2^63 columns
  Tensor many(DatumType::F32, {1, int64_t{1} << 62, 0, 4});
  EXPECT_THROW(run(ops::SpaceToDepth(2), {many}), Error);  // 2^64 channels
}
