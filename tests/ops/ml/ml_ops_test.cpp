// ai.onnx.ml operators on cases computed by hand: linear models, the tree ensemble's traversal
// and aggregation, encoders, normalizer and imputer.
#include <cmath>

#include "ops/ml/feature_ops.h"
#include "ops/ml/label_encoder.h"
#include "ops/ml/linear_classifier.h"
#include "ops/ml/linear_regressor.h"
#include "ops/ml/normalizer.h"
#include "ops/ml/one_hot_encoder.h"
#include "ops/ml/svm_regressor.h"
#include "ops/ml/tree_ensemble.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using namespace ops::ml;
using testing::expect_close;
using testing::run_op;

TEST(MlLinear, RegressorAndClassifier) {
  Tensor x = Tensor::from_vector<float>({2, 2}, {1, 2, -1, 0});
  auto y = run_op(LinearRegressor({1, 1, 2, -1}, {0.5f, 0}, 2, PostTransform::None), {x})[0];
  expect_close(y, {3.5f, 0, -0.5f, -2});
  Labels labels;
  labels.ints = {10, 20};
  auto c =
      run_op(LinearClassifier({1, 1, 2, -1}, {0.5f, 0}, labels, PostTransform::Softmax), {x}, 2);
  EXPECT_EQ(c[0].values<int64_t>()[0], 10);  // 3.5 > 0
  EXPECT_EQ(c[0].values<int64_t>()[1], 10);  // -0.5 > -2
  const float e = std::exp(-3.5f);
  expect_close(c[1], {1 / (1 + e), e / (1 + e), 1 / (1 + std::exp(-1.5f)),
                      std::exp(-1.5f) / (1 + std::exp(-1.5f))});
  // One coefficient row, two labels: binary, scores [1 - p, p].
  auto b = run_op(LinearClassifier({1, 0}, {-1.5f}, labels, PostTransform::Logistic), {x}, 2);
  EXPECT_EQ(b[0].values<int64_t>()[0], 10);  // score 1 - 1.5 < 0: the first label
  const float p = 1 / (1 + std::exp(0.5f));
  expect_close(b[1], {1 - p, p, 1 - 1 / (1 + std::exp(2.5f)), 1 / (1 + std::exp(2.5f))});
}

TEST(MlTrees, TraversalAggregationAndMissingValues) {
  // One tree: x0 <= 0.5 ? leaf A (target 0: 1, target 1: 2) : leaf B (target 0: 10); NaN goes
  // to the true branch.
  Trees t;
  t.n_targets = 2;
  t.nodes.resize(3);
  t.nodes[0].mode = NodeMode::Leq;
  t.nodes[0].threshold = 0.5;
  t.nodes[0].true_child = 1;
  t.nodes[0].false_child = 2;
  t.nodes[0].missing_tracks_true = true;
  t.nodes[1].weights = {{0, 1.0}, {1, 2.0}};
  t.nodes[2].weights = {{0, 10.0}};
  t.roots = {0, 0};  // the same tree twice
  t.validate("test");
  Tensor x = Tensor::from_vector<float>({3, 1}, {0.2f, 0.9f, NAN});
  auto sum = run_op(
      TreeEnsemble("TreeEnsembleRegressor", t, Aggregate::Sum, PostTransform::None, {100, 0}),
      {x})[0];
  expect_close(sum, {102, 4, 120, 0, 102, 4});
  auto avg =
      run_op(TreeEnsemble("TreeEnsembleRegressor", t, Aggregate::Average, PostTransform::None, {}),
             {x})[0];
  expect_close(avg, {1, 2, 10, 0, 1, 2});
  auto mx = run_op(
      TreeEnsemble("TreeEnsembleRegressor", t, Aggregate::Max, PostTransform::None, {}), {x})[0];
  expect_close(mx, {1, 2, 10, 0, 1, 2});
  t.nodes[0].true_child = 0;  // a cycle
  EXPECT_THROW(
      run_op(TreeEnsemble("TreeEnsemble", t, Aggregate::Sum, PostTransform::None, {}), {x}), Error);
}

TEST(MlEncoders, LabelEncoderOneHotAndNormalizer) {
  Tensor keys = Tensor::from_vector<float>({3}, {0.5f, NAN, 2});
  Tensor values = Tensor::from_vector<std::string>({3}, {"half", "nan", "two"});
  LabelEncoder enc(keys, values, Tensor::scalar<std::string>("?"));
  auto y = run_op(enc, {Tensor::from_vector<float>({4}, {2, NAN, 7, 0.5f})})[0];
  auto s = y.values<std::string>();
  EXPECT_EQ(std::vector<std::string>(s.begin(), s.end()),
            (std::vector<std::string>{"two", "nan", "?", "half"}));
  auto oh =
      run_op(OneHotEncoder({3, 1}, {}, true), {Tensor::from_vector<int64_t>({3}, {1, 2, 3})})[0];
  EXPECT_EQ(oh.shape(), (Shape{3, 2}));
  expect_close(oh, {0, 1, 0, 0, 1, 0});
  EXPECT_THROW(run_op(OneHotEncoder({3, 1}, {}, false), {Tensor::from_vector<int64_t>({1}, {2})}),
               Error);
  Tensor x = Tensor::from_vector<float>({2, 2}, {3, -4, 0, 0});
  expect_close(run_op(Normalizer(NormKind::L2), {x})[0], {0.6f, -0.8f, 0, 0});
  expect_close(run_op(Normalizer(NormKind::L1), {x})[0], {3.0f / 7, -4.0f / 7, 0, 0});
  expect_close(run_op(Normalizer(NormKind::Max), {x})[0], {1, -4.0f / 3, 0, 0});
  FeatureOpParams imp;
  imp.imputed = {7, 8};
  imp.replaced = NAN;
  expect_close(run_op(FeatureOp(FeatureOpKind::Imputer, imp),
                      {Tensor::from_vector<float>({2, 2}, {NAN, 1, 2, NAN})})[0],
               {7, 1, 2, 8});
}

TEST(MlSvm, RegressorKernels) {
  Tensor x = Tensor::from_vector<float>({1, 2}, {1, 2});
  SvmKernelParams rbf{SvmKernel::Rbf, 0.5f, 0, 0};
  // Two vectors (1, 2) and (0, 0): kernels 1 and exp(-0.5 * 5).
  auto y = run_op(SvmRegressor(rbf, {2, -1}, {1, 2, 0, 0}, 2, 0.25f, false, PostTransform::None),
                  {x})[0];
  expect_close(y, {2 - std::exp(-2.5f) + 0.25f});
  SvmKernelParams poly{SvmKernel::Poly, 2, 1, 2};
  auto p = run_op(SvmRegressor(poly, {1}, {1, 1}, 1, 0, true, PostTransform::None), {x})[0];
  expect_close(p, {1});  // (2 * 3 + 1)^2 > 0: one_class gives 1
}

}  // namespace
}  // namespace kiln
