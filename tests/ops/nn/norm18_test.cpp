// GroupNormalization (18: per-group scale, 21: per-channel), RMSNormalization (23) and
// LpNormalization, with expected values computed by hand.
#include <cmath>

#include "ops/nn/group_norm.h"
#include "ops/nn/lp_norm.h"
#include "ops/nn/rms_norm.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::expect_close;
using testing::run_op;

TEST(GroupNorm, PerGroupAndPerChannelScales) {
  // N=1, C=4, 2 groups of 2 channels, 1 pixel each: group 0 holds {1, 3}, group 1 {2, 6}.
  Tensor x = Tensor::from_vector<float>({1, 4, 1}, {1, 3, 2, 6});
  const float e = 0.0f;
  // Mean 2, variance 1 -> {-1, 1}; mean 4, variance 4 -> {-1, 1}.
  auto per_group = run_op(
      ops::GroupNorm(2, e, false),
      {x, Tensor::from_vector<float>({2}, {2, 10}), Tensor::from_vector<float>({2}, {0, 1})})[0];
  expect_close(per_group, {-2, 2, -9, 11});
  auto per_channel =
      run_op(ops::GroupNorm(2, e, true), {x, Tensor::from_vector<float>({4}, {1, 2, 3, 4}),
                                          Tensor::from_vector<float>({4}, {0, 0, 1, 1})})[0];
  expect_close(per_channel, {-1, 2, -2, 5});
  // A group count that does not divide the channels is refused.
  EXPECT_THROW(run_op(ops::GroupNorm(3, e, true), {x, Tensor::from_vector<float>({4}, {1, 1, 1, 1}),
                                                   Tensor::from_vector<float>({4}, {0, 0, 0, 0})}),
               Error);
}

TEST(RmsNorm, NormalizesTheTrailingAxesAndBroadcastsScale) {
  // Rows {3, 4} (rms sqrt(12.5)) and {0, 0} (only epsilon).
  Tensor x = Tensor::from_vector<float>({2, 2}, {3, 4, 0, 0});
  auto y = run_op(ops::RmsNorm(-1, 0.0f), {x, Tensor::from_vector<float>({2}, {1, 2})})[0];
  const float r = std::sqrt(12.5f);
  EXPECT_NEAR(y.values<float>()[0], 3 / r, 1e-6);
  EXPECT_NEAR(y.values<float>()[1], 8 / r, 1e-6);
  EXPECT_TRUE(std::isnan(y.values<float>()[2]));  // 0 / 0 with epsilon 0
  auto all = run_op(ops::RmsNorm(0, 1.0f), {x, Tensor::from_vector<float>({1}, {1})})[0];
  const float r2 = std::sqrt(25.0f / 4 + 1);  // mean of squares over all 4, plus epsilon 1
  expect_close(all, {3 / r2, 4 / r2, 0, 0});
  Fact xf = Fact::parse("N,3,4,f32"), sf = Fact::parse("5,f32");
  EXPECT_THROW(ops::RmsNorm(-1, 1e-5f).output_facts({&xf, &sf}), Error);
}

TEST(LpNorm, OneAndTwoNormsAlongAnAxis) {
  Tensor x = Tensor::from_vector<float>({2, 2}, {3, -4, 0, 0});
  expect_close(run_op(ops::LpNorm(1, 2), {x})[0], {0.6f, -0.8f, 0, 0});
  expect_close(run_op(ops::LpNorm(-1, 1), {x})[0], {3.0f / 7, -4.0f / 7, 0, 0});
  expect_close(run_op(ops::LpNorm(0, 1), {x})[0], {1, -1, 0, 0});
}

}  // namespace
}  // namespace kiln
