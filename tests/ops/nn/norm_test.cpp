#include <gtest/gtest.h>

#include "ops/nn/batch_norm.h"
#include "ops/nn/instance_norm.h"
#include "ops/nn/layer_norm.h"
#include "ops/nn/lrn.h"
#include "ops/nn/mvn.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::arange_f;
using kiln::testing::expect_close;
using kiln::testing::fact_refs;
using kiln::testing::run_op;

// Expected values below come from independent numpy code.

TEST(NnBatchNorm, Inference) {
  Tensor x = Tensor::from_vector<float>({2, 2, 3}, arange_f(12, 1.0f / 3));
  Tensor s = Tensor::from_vector<float>({2}, {1, 2});
  Tensor b = Tensor::from_vector<float>({2}, {0.5f, -0.5f});
  Tensor mean = Tensor::from_vector<float>({2}, {1, 2});
  Tensor var = Tensor::from_vector<float>({2}, {0.5f, 2});
  auto y = run_op(ops::BatchNorm(1e-5f, 0.9f, false), {x, s, b, mean, var});
  expect_close(y[0],
               {-0.9141994f, -0.4427996f, 0.02860019f, -1.91421f, -1.442807f, -0.9714033f,
                1.914199f, 2.385599f, 2.856999f, 0.91421f, 1.385613f, 1.857017f},
               1e-4f);
  std::vector<Fact> bad = {Fact::parse("2,3,4"), Fact::parse("2"), Fact::parse("3"),
                           Fact::parse("3"), Fact::parse("3")};
  EXPECT_THROW(ops::BatchNorm(1e-5f, 0.9f, false).output_facts(fact_refs(bad)), Error);
}

TEST(NnBatchNorm, TrainingUsesBatchStatistics) {
  // One channel, values 1..4: batch mean 2.5, population variance 1.25.
  Tensor x = Tensor::from_vector<float>({2, 1, 2}, {1, 2, 3, 4});
  Tensor one = Tensor::from_vector<float>({1}, {1});
  Tensor zero = Tensor::from_vector<float>({1}, {0});
  auto y = run_op(ops::BatchNorm(0, 0.5f, true), {x, one, zero, zero, one}, 3);
  float inv = 1 / std::sqrt(1.25f);
  expect_close(y[0], {-1.5f * inv, -0.5f * inv, 0.5f * inv, 1.5f * inv});
  expect_close(y[1], {1.25f});   // 0 * 0.5 + 2.5 * 0.5
  expect_close(y[2], {1.125f});  // 1 * 0.5 + 1.25 * 0.5
}

TEST(NnInstanceNorm, PerPlane) {
  Tensor x = Tensor::from_vector<float>({2, 2, 3}, arange_f(12, 1.0f / 3));
  Tensor s = Tensor::from_vector<float>({2}, {1, 2});
  Tensor b = Tensor::from_vector<float>({2}, {0.5f, -0.5f});
  auto y = run_op(ops::InstanceNorm(1e-5f), {x, s, b});
  expect_close(y[0],
               {-0.7246622f, 0.5f, 1.724662f, -2.949324f, -0.5f, 1.949324f, -0.7246622f, 0.5f,
                1.724662f, -2.949324f, -0.5f, 1.949324f},
               1e-4f);
}

TEST(NnLayerNorm, NegativeAxisWithStatsOutputs) {
  std::vector<float> xv;
  for (int i = 0; i < 24; i++) xv.push_back(static_cast<float>(i % 5) * 0.7f - 1);
  Tensor x = Tensor::from_vector<float>({2, 3, 4}, xv);
  // Scale of shape [4] broadcasts over the normalized [3, 4].
  Tensor s = Tensor::from_vector<float>({4}, {1.5f, -0.5f, 2, 1});
  Tensor b = Tensor::from_vector<float>({4}, {0.1f, 0.2f, 0.3f, 0.4f});
  ops::LayerNorm ln(-2, 1e-5f, DatumType::F32);
  auto y = run_op(ln, {x, s, b}, 3);
  expect_close(y[0], {-1.746553f,   0.4637933f,  0.6517245f, 1.279311f,  2.47414f,   0.8155178f,
                      -0.7551734f,  0.5758622f,  1.418967f,  -0.59138f,  -2.162071f, -0.1275867f,
                      0.005321394f, -0.1471549f, 3.203477f,  -1.177977f, -1.130822f, 0.2315595f,
                      1.68862f,     1.851739f,   -2.266965f, 0.610274f,  0.1737619f, 1.09431f},
               1e-4f);
  EXPECT_EQ(y[1].shape(), Shape({2, 1, 1}));
  expect_close(y[1], {0.225f, 0.4583333f});
  expect_close(y[2], {1.004927f, 1.082041f});
  std::vector<Fact> in = {Fact::parse("B,T,4"), Fact::parse("4")};
  auto f = ln.output_facts(fact_refs(in));
  EXPECT_EQ(f[1].to_string(), "B,1,1,f32");
  std::vector<Fact> bad = {Fact::parse("B,T,4"), Fact::parse("5")};
  EXPECT_THROW(ln.output_facts(fact_refs(bad)), Error);
  EXPECT_THROW(ops::LayerNorm(3, 1e-5f, DatumType::F32).output_facts(fact_refs(in)), Error);
}

TEST(NnLrn, AcrossChannels) {
  Tensor x = Tensor::from_vector<float>({1, 4, 1, 2}, arange_f(8, 0.5f));
  auto y = run_op(ops::Lrn(3, 0.1f, 0.75f, 2.0f), {x});
  expect_close(y[0],
               {0, 0.2883374f, 0.5599586f, 0.805337f, 1.016125f, 1.189663f, 1.53982f, 1.701205f},
               1e-4f);
}

TEST(NnMvn, DefaultAxes) {
  // [1,2,1,2]: statistics per channel over axes 0, 2, 3.
  Tensor x = Tensor::from_vector<float>({1, 2, 1, 2}, {1, 3, 10, 30});
  auto y = run_op(ops::MeanVarianceNorm({0, 2, 3}), {x});
  expect_close(y[0], {-1, 1, -1, 1}, 1e-4f);
  std::vector<Fact> bad = {Fact::parse("2,3")};
  EXPECT_THROW(ops::MeanVarianceNorm({0, 2, 3}).output_facts(fact_refs(bad)), Error);
}

}  // namespace
}  // namespace kiln
