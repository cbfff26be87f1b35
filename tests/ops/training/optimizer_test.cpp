#include "ops/training/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"

using namespace kiln;

namespace {
std::vector<Tensor> run(const ops::Optimizer& op, const std::vector<Tensor>& inputs) {
  TensorRefs refs;
  FactRefs facts;
  std::vector<Fact> fs;
  fs.reserve(inputs.size());
  for (const auto& t : inputs) {
    refs.push_back(&t);
    fs.emplace_back(t.dtype(), t.shape());
  }
  for (const auto& f : fs) facts.push_back(&f);
  std::vector<Tensor> outs(op.output_facts(facts).size());
  EvalContext ctx(outs);
  op.eval(ctx, refs);
  return outs;
}
}  // namespace

TEST(Optimizer, AdagradStep) {
  ops::OptimizerConfig c;
  c.kind = ops::OptimizerKind::Adagrad;
  c.decay_factor = 0.5;
  c.epsilon = 0.0;
  ops::Optimizer op(c);
  // r = 1 / (1 + 2*0.5) = 0.5; H' = 1 + 4 = 5; X' = 3 - 0.5 * 2 / sqrt(5)
  auto out = run(op, {Tensor::scalar<float>(1.0f), Tensor::scalar<int64_t>(2),
                      Tensor::from_vector<float>({1}, {3}), Tensor::from_vector<float>({1}, {2}),
                      Tensor::from_vector<float>({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].values<float>()[0], 3.0 - 1.0 / std::sqrt(5.0), 1e-6);
  EXPECT_FLOAT_EQ(out[1].values<float>()[0], 5.0f);
}

TEST(Optimizer, MomentumFirstStepTakesWholeGradient) {
  ops::OptimizerConfig c;
  c.kind = ops::OptimizerKind::Momentum;
  c.alpha = 0.9;
  c.beta = 0.1;
  ops::Optimizer op(c);
  auto out = run(op, {Tensor::scalar<float>(0.5f), Tensor::scalar<int64_t>(0),
                      Tensor::from_vector<float>({1}, {1}), Tensor::from_vector<float>({1}, {2}),
                      Tensor::from_vector<float>({1}, {4})});
  EXPECT_FLOAT_EQ(out[1].values<float>()[0], 0.9f * 4 + 2);  // beta replaced by 1 at T = 0
  EXPECT_FLOAT_EQ(out[0].values<float>()[0], 1 - 0.5f * 5.6f);
}

TEST(Optimizer, BadInputCount) {
  ops::OptimizerConfig c;
  c.kind = ops::OptimizerKind::Adam;
  ops::Optimizer op(c);
  Fact r(DatumType::F32, Shape{}), t(DatumType::I64, Shape{}), x(DatumType::F32, Shape{2});
  EXPECT_THROW(op.output_facts({&r, &t, &x, &x, &x}), Error);  // Adam needs X, G, V, H
}
