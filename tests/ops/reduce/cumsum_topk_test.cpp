#include "base/error.h"
#include "ops/reduce/cumsum.h"
#include "ops/reduce/topk.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::CumSum;
using ops::TopK;

TEST(CumSumOp, Modes) {
  Tensor x = f32({4}, {1, 2, 3, 4});
  Tensor axis = i64({}, {0});
  expect_values<float>(run(CumSum(false, false), {x, axis})[0], {4}, {1, 3, 6, 10});
  expect_values<float>(run(CumSum(true, false), {x, axis})[0], {4}, {0, 1, 3, 6});
  expect_values<float>(run(CumSum(false, true), {x, axis})[0], {4}, {10, 9, 7, 4});
  expect_values<float>(run(CumSum(true, true), {x, axis})[0], {4}, {9, 7, 4, 0});
}

TEST(CumSumOp, AxesAndTypes) {
  Tensor x = Tensor::from_vector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values<int32_t>(run(CumSum(false, false), {x, i64({}, {0})})[0], {2, 3},
                         {1, 2, 3, 5, 7, 9});
  Tensor axis32 = Tensor::from_vector<int32_t>({1}, {-1});
  expect_values<int32_t>(run(CumSum(false, false), {x, axis32})[0], {2, 3}, {1, 3, 6, 4, 9, 15});
  EXPECT_THROW(run(CumSum(false, false), {x, i64({}, {2})}), Error);
  Fact f(DatumType::F32, std::vector<Dim>{Dim::symbol("S")});
  EXPECT_EQ(facts(CumSum(false, false), {f, Fact::constant(i64({}, {0}))})[0].shape, f.shape);
  EXPECT_THROW(facts(CumSum(false, false), {f, Fact::constant(i64({}, {1}))}), Error);
}

TEST(TopKOp, LargestWithTiesKeepsLowerIndexFirst) {
  Tensor x = f32({2, 4}, {1, 3, 3, 2, 5, 5, 5, 0});
  auto out = run(TopK(-1, true, true), {x, i64({1}, {3})}, 2);
  expect_values<float>(out[0], {2, 3}, {3, 3, 2, 5, 5, 5});
  expect_values<int64_t>(out[1], {2, 3}, {1, 2, 3, 0, 1, 2});
}

TEST(TopKOp, SmallestAlongAxis0AndAttributeK) {
  Tensor x = f32({3, 2}, {4, 1, 2, 1, 3, 0});
  auto out = run(TopK(0, false, true, 2), {x}, 2);
  expect_values<float>(out[0], {2, 2}, {2, 0, 3, 1});
  expect_values<int64_t>(out[1], {2, 2}, {1, 2, 2, 0});
}

TEST(TopKOp, FactsAndErrors) {
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 10});
  auto out = facts(TopK(1, true, true), {x, Fact::constant(i64({1}, {4}))});
  EXPECT_EQ(out[0].shape, (std::vector<Dim>{Dim::symbol("N"), 4}));
  EXPECT_EQ(out[1].dt, DatumType::I64);
  // k from a runtime input: unknown dim.
  auto unknown = facts(TopK(1, true, true), {x, Fact(DatumType::I64, Shape{1})});
  EXPECT_FALSE(unknown[0].shape[1].is_int());
  EXPECT_THROW(facts(TopK(1, true, true), {x, Fact::constant(i64({1}, {11}))}), Error);
  EXPECT_THROW(run(TopK(0, true, true), {f32({2}, {1, 2}), i64({1}, {3})}, 2), Error);
}

}  // namespace
}  // namespace kiln
