// Gather, GatherElements, GatherND, ScatterElements, ScatterND, Compress, NonZero: values by hand.
#include <gtest/gtest.h>

#include "ops/shape/compress.h"
#include "ops/shape/gather.h"
#include "ops/shape/non_zero.h"
#include "ops/shape/scatter.h"
#include "tests/ops/shape/test_util.h"

using namespace kiln;
using namespace kiln::test;
using V = std::vector<float>;

TEST(ShapeGather, AxisAndNegativeIndices) {
  Tensor x = iota({3, 2});  // [[0,1],[2,3],[4,5]]
  auto out = eval_op(ops::Gather(0), {x, i64s({-1, 0})});
  EXPECT_EQ(values(out[0]), (V{4, 5, 0, 1}));
  out = eval_op(ops::Gather(1), {x, Tensor::scalar<int64_t>(1)});
  EXPECT_EQ(out[0].shape(), (Shape{3}));
  EXPECT_EQ(values(out[0]), (V{1, 3, 5}));
  EXPECT_THROW(eval_op(ops::Gather(0), {x, i64s({3})}), Error);
  auto f = facts_of(ops::Gather(1), {Fact::parse("S,5,f32"), Fact::parse("2,3,i64")});
  EXPECT_EQ(f[0].to_string(), "S,2,3,f32");
}

TEST(ShapeGather, Strings) {
  Tensor s = Tensor::from_vector<std::string>({2}, {"a", "b"});
  auto out = eval_op(ops::Gather(0), {s, i64s({1, 1, 0})});
  EXPECT_EQ(out[0].data<std::string>()[0], "b");
  EXPECT_EQ(out[0].data<std::string>()[2], "a");
}

TEST(ShapeGatherElements, Axis1) {
  Tensor x = f32s({2, 2}, {1, 2, 3, 4});
  Tensor idx = Tensor::from_vector<int64_t>({2, 2}, {0, 0, 1, -2});
  auto out = eval_op(ops::GatherElements(1), {x, idx});
  EXPECT_EQ(values(out[0]), (V{1, 1, 4, 3}));
}

TEST(ShapeGatherND, BatchDims) {
  Tensor x = iota({2, 2, 2});
  Tensor idx = Tensor::from_vector<int64_t>({2, 1}, {1, 0});
  auto out = eval_op(ops::GatherND(1), {x, idx});  // x[0][1], x[1][0]
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values(out[0]), (V{2, 3, 4, 5}));
  Tensor idx2 = Tensor::from_vector<int64_t>({2, 3}, {0, 0, 1, 1, 1, 0});
  out = eval_op(ops::GatherND(0), {x, idx2});
  EXPECT_EQ(values(out[0]), (V{1, 6}));
  EXPECT_EQ(
      facts_of(ops::GatherND(0), {Fact::parse("2,2,S,f32"), Fact::parse("N,2,i64")})[0].to_string(),
      "N,S,f32");
}

TEST(ShapeScatterElements, Reductions) {
  Tensor x = f32s({1, 4}, {1, 2, 3, 4});
  Tensor idx = Tensor::from_vector<int64_t>({1, 3}, {1, 1, -1});
  Tensor up = f32s({1, 3}, {10, 20, 30});
  EXPECT_EQ(values(eval_op(ops::ScatterElements(1), {x, idx, up})[0]), (V{1, 20, 3, 30}));
  EXPECT_EQ(values(eval_op(ops::ScatterElements(1, ops::ScatterReduction::Add), {x, idx, up})[0]),
            (V{1, 32, 3, 34}));
  EXPECT_EQ(values(eval_op(ops::ScatterElements(1, ops::ScatterReduction::Mul), {x, idx, up})[0]),
            (V{1, 400, 3, 120}));
  EXPECT_EQ(values(eval_op(ops::ScatterElements(1, ops::ScatterReduction::Min), {x, idx, up})[0]),
            (V{1, 2, 3, 4}));
  EXPECT_EQ(values(x), (V{1, 2, 3, 4}));  // input untouched
  Tensor bad = Tensor::from_vector<int64_t>({1, 3}, {0, 4, 0});
  EXPECT_THROW(eval_op(ops::ScatterElements(1), {x, bad, up}), Error);
}

TEST(ShapeScatterND, SlicesAndReduction) {
  Tensor x = iota({3, 2});
  Tensor idx = Tensor::from_vector<int64_t>({2, 1}, {2, 2});
  Tensor up = f32s({2, 2}, {10, 20, 1, 1});
  EXPECT_EQ(values(eval_op(ops::ScatterND(), {x, idx, up})[0]), (V{0, 1, 2, 3, 1, 1}));
  EXPECT_EQ(values(eval_op(ops::ScatterND(ops::ScatterReduction::Add), {x, idx, up})[0]),
            (V{0, 1, 2, 3, 15, 26}));
  Tensor bad_up = f32s({2}, {1, 2});
  EXPECT_THROW(eval_op(ops::ScatterND(), {x, idx, bad_up}), Error);
}

TEST(ShapeCompress, AxisAndFlat) {
  Tensor x = iota({3, 2});
  Tensor cond = Tensor::from_vector<bool>({3}, {false, true, true});
  auto out = eval_op(ops::Compress(0), {x, cond});
  EXPECT_EQ(values(out[0]), (V{2, 3, 4, 5}));
  out = eval_op(ops::Compress(), {x, cond});
  EXPECT_EQ(values(out[0]), (V{1, 2}));
  auto f = facts_of(ops::Compress(1), {Fact::parse("3,2,f32"), Fact::parse("2,bool")});
  EXPECT_FALSE(f[0].shape[1].is_int());
  EXPECT_EQ(f[0].shape[0], Dim(3));
}

TEST(ShapeNonZero, Indices) {
  Tensor x = f32s({2, 2}, {1, 0, 0, 3});
  auto out = eval_op(ops::NonZero(), {x});
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_TRUE(out[0].equals(Tensor::from_vector<int64_t>({2, 2}, {0, 1, 0, 1})));
  auto f = facts_of(ops::NonZero(), {Fact::parse("2,S,f32")});
  EXPECT_EQ(f[0].shape[0], Dim(2));
  EXPECT_FALSE(f[0].shape[1].is_int());
}
