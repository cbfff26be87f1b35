#include "ops/reduce/arg_reduce.h"

#include "base/error.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::ArgReduce;

// [[2, 1, 2], [0, 3, 3]]
Tensor sample() {
  return f32({2, 3}, {2, 1, 2, 0, 3, 3});
}

TEST(ArgReduceOp, FirstAndLastIndex) {
  expect_values<int64_t>(run(ArgReduce(true, 1, true, false), {sample()})[0], {2, 1}, {0, 1});
  expect_values<int64_t>(run(ArgReduce(true, 1, false, true), {sample()})[0], {2}, {2, 2});
  expect_values<int64_t>(run(ArgReduce(false, -1, false, false), {sample()})[0], {2}, {1, 0});
  expect_values<int64_t>(run(ArgReduce(false, 0, false, true), {sample()})[0], {3}, {1, 0, 0});
}

TEST(ArgReduceOp, IntegersAndFacts) {
  Tensor x = Tensor::from_vector<int32_t>({4}, {5, -7, 9, 9});
  expect_values<int64_t>(run(ArgReduce(true, 0, true, false), {x})[0], {1}, {2});
  Fact f(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 5});
  auto out = facts(ArgReduce(false, 1, false, false), {f});
  EXPECT_EQ(out[0].dt, DatumType::I64);
  EXPECT_EQ(out[0].shape, (std::vector<Dim>{Dim::symbol("N")}));
  EXPECT_THROW(facts(ArgReduce(false, 2, false, false), {f}), Error);
}

}  // namespace
}  // namespace kiln
