#include "ops/nn/nll_loss.h"

#include "base/error.h"
#include "ops/nn/softmax_cross_entropy_loss.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;
using ops::LossReduction;
using ops::NllLoss;
using ops::SoftmaxCrossEntropyLoss;

// N=2, C=3 "log-probabilities" chosen by hand.
Tensor input() {
  return f32({2, 3}, {-1, -2, -3, -4, -5, -6});
}

TEST(NllLossOp, Reductions) {
  Tensor target = i64({2}, {2, 0});
  expect_values<float>(run(NllLoss(LossReduction::None, std::nullopt), {input(), target})[0], {2},
                       {3, 4});
  expect_values<float>(run(NllLoss(LossReduction::Sum, std::nullopt), {input(), target})[0], {},
                       {7});
  expect_values<float>(run(NllLoss(LossReduction::Mean, std::nullopt), {input(), target})[0], {},
                       {3.5});
}

TEST(NllLossOp, WeightsAndIgnoreIndex) {
  Tensor target = i64({2}, {2, 0});
  Tensor weight = f32({3}, {0.5, 1, 2});
  // (3*2 + 4*0.5) / (2 + 0.5) = 3.2
  expect_values<float>(
      run(NllLoss(LossReduction::Mean, std::nullopt), {input(), target, weight})[0], {}, {3.2f});
  // The ignored sample counts neither in the sum nor in the weights.
  expect_values<float>(run(NllLoss(LossReduction::Mean, 0), {input(), target, weight})[0], {}, {3});
  expect_values<float>(run(NllLoss(LossReduction::None, -1), {input(), i64({2}, {-1, 1})})[0], {2},
                       {0, 5});
}

TEST(NllLossOp, ExtraDims) {
  // input [1, 2, 2]: classes along axis 1, two positions.
  Tensor x = f32({1, 2, 2}, {-1, -2, -3, -4});
  Tensor target = i64({1, 2}, {1, 0});
  expect_values<float>(run(NllLoss(LossReduction::None, std::nullopt), {x, target})[0], {1, 2},
                       {3, 2});
}

TEST(NllLossOp, FactsAndErrors) {
  Dim n = Dim::symbol("N");
  Fact x(DatumType::F32, std::vector<Dim>{n, 5, 7});
  Fact t(DatumType::I64, std::vector<Dim>{n, 7});
  EXPECT_EQ(facts(NllLoss(LossReduction::None, std::nullopt), {x, t})[0].shape,
            (std::vector<Dim>{n, 7}));
  EXPECT_EQ(facts(NllLoss(LossReduction::Mean, std::nullopt), {x, t})[0].rank(), 0u);
  Fact bad(DatumType::I64, std::vector<Dim>{n, 8});
  EXPECT_THROW(facts(NllLoss(LossReduction::None, std::nullopt), {x, bad}), Error);
  EXPECT_THROW(run(NllLoss(LossReduction::Sum, std::nullopt), {input(), i64({2}, {3, 0})}), Error);
  EXPECT_THROW(ops::parse_loss_reduction("avg"), Error);
}

TEST(SoftmaxCrossEntropyLossOp, MeanAndLogProb) {
  Tensor scores = f32({2, 3}, {1, 2, 3, 1, 1, 1});
  Tensor labels = i64({2}, {2, 0});
  SoftmaxCrossEntropyLoss op(LossReduction::Mean, std::nullopt);
  auto out = run(op, {scores, labels}, 2);
  // log-softmax rows: [1,2,3] -> x - 3.40760596; [1,1,1] -> -log(3).
  expect_values<float>(out[0], {}, {(0.40760596f + 1.09861229f) / 2});
  expect_values<float>(
      out[1], {2, 3},
      {-2.40760596f, -1.40760596f, -0.40760596f, -1.09861229f, -1.09861229f, -1.09861229f});
  Tensor weight = f32({3}, {2, 1, 0.5});
  auto weighted = run(op, {scores, labels, weight});
  expect_values<float>(weighted[0], {}, {(0.40760596f * 0.5f + 1.09861229f * 2) / 2.5f});
}

TEST(SoftmaxCrossEntropyLossOp, Facts) {
  Fact x(DatumType::F32, std::vector<Dim>{Dim::symbol("N"), 4});
  Fact t(DatumType::I32, std::vector<Dim>{Dim::symbol("N")});
  auto out = facts(SoftmaxCrossEntropyLoss(LossReduction::None, std::nullopt), {x, t});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, t.shape);
  EXPECT_EQ(out[1].shape, x.shape);
}

}  // namespace
}  // namespace kiln
