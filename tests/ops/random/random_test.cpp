// The random generators: shapes, types, seeding, and the moments of the draws within bounds
// (the bounds are 6 standard errors of the estimate wide: a correct generator fails them with
// probability under 1e-8; a wrong mean, scale or range fails by far).
#include <cmath>

#include "ops/random/bernoulli.h"
#include "ops/random/multinomial.h"
#include "ops/random/random_tensor.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::run_op;

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const Tensor& t) {
  Moments m;
  for (int64_t i = 0; i < t.numel(); i++) m.mean += t.value_as_double(i);
  m.mean /= static_cast<double>(t.numel());
  for (int64_t i = 0; i < t.numel(); i++) m.var += std::pow(t.value_as_double(i) - m.mean, 2);
  m.var /= static_cast<double>(t.numel() - 1);
  return m;
}

TEST(RandomTensor, NormalMomentsAndSeeding) {
  ops::RandomOptions o;
  o.distribution = ops::Distribution::Normal;
  o.a = 3.0;
  o.b = 2.0;
  o.seed = 5.0f;
  o.shape = Shape{200, 100};
  ops::RandomTensor op(o);
  EXPECT_FALSE(op.is_deterministic());
  auto y = run_op(op, {})[0];
  EXPECT_EQ(y.dtype(), DatumType::F32);
  EXPECT_EQ(y.shape(), (Shape{200, 100}));
  Moments m = moments(y);
  const double n = 20000;
  EXPECT_NEAR(m.mean, 3.0, 6 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(m.var, 4.0, 6 * 4.0 * std::sqrt(2.0 / n));
  EXPECT_TRUE(run_op(op, {})[0].equals(y));  // seeded: the same draws every evaluation
  o.seed = 6.0f;
  EXPECT_FALSE(run_op(ops::RandomTensor(o), {})[0].equals(y));
}

TEST(RandomTensor, UniformLikeTakesShapeAndTypeFromItsInput) {
  ops::RandomOptions o;
  o.distribution = ops::Distribution::Uniform;
  o.a = -1.0;
  o.b = 3.0;
  Tensor like(DatumType::F64, {100, 100});
  auto y = run_op(ops::RandomTensor(o), {like})[0];
  EXPECT_EQ(y.dtype(), DatumType::F64);
  EXPECT_EQ(y.shape(), like.shape());
  double lo = 1e9, hi = -1e9;
  for (double v : y.values<double>()) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 3.0);
  Moments m = moments(y);
  EXPECT_NEAR(m.mean, 1.0, 6 * std::sqrt(16.0 / 12 / 10000));
  EXPECT_NEAR(m.var, 16.0 / 12, 6 * 16.0 / 12 * std::sqrt(0.8 / 10000));
  o.dtype = DatumType::I32;
  Fact lf(DatumType::F32, Shape{2});
  EXPECT_THROW(ops::RandomTensor(o).output_facts({&lf}), Error);
}

TEST(Bernoulli, FrequencyFollowsTheProbabilities) {
  Tensor p(DatumType::F32, {2, 10000});
  for (int64_t i = 0; i < 10000; i++) p.data<float>()[i] = 0.2f, p.data<float>()[10000 + i] = 0.9f;
  auto y = run_op(ops::Bernoulli(DatumType::I64, 3.0f), {p})[0];
  ASSERT_EQ(y.dtype(), DatumType::I64);
  double first = 0, second = 0;
  for (int64_t i = 0; i < 10000; i++)
    first += y.values<int64_t>()[i], second += y.values<int64_t>()[10000 + i];
  EXPECT_NEAR(first / 10000, 0.2, 6 * std::sqrt(0.2 * 0.8 / 10000));
  EXPECT_NEAR(second / 10000, 0.9, 6 * std::sqrt(0.9 * 0.1 / 10000));
  Tensor bad = Tensor::from_vector<float>({1}, {1.5f});
  EXPECT_THROW(run_op(ops::Bernoulli(std::nullopt, std::nullopt), {bad}), Error);
}

TEST(Multinomial, DrawsClassesInProportionToSoftmax) {
  // Log-probabilities of 0.1, 0.3, 0.6 (unnormalized: shifted by 5).
  Tensor logits = Tensor::from_vector<float>(
      {1, 3}, {std::log(0.1f) + 5, std::log(0.3f) + 5, std::log(0.6f) + 5});
  auto y = run_op(ops::Multinomial(20000, DatumType::I64, 1.0f), {logits})[0];
  ASSERT_EQ(y.shape(), (Shape{1, 20000}));
  double counts[3] = {0, 0, 0};
  for (int64_t v : y.values<int64_t>()) {
    ASSERT_TRUE(v >= 0 && v < 3);
    counts[v]++;
  }
  const double p[3] = {0.1, 0.3, 0.6};
  for (int k = 0; k < 3; k++)
    EXPECT_NEAR(counts[k] / 20000, p[k], 6 * std::sqrt(p[k] * (1 - p[k]) / 20000));
  auto i32 = run_op(ops::Multinomial(4, DatumType::I32, std::nullopt), {logits})[0];
  EXPECT_EQ(i32.dtype(), DatumType::I32);
}

}  // namespace
}  // namespace kiln
