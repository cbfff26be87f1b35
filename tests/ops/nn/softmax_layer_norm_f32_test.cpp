// SoftmaxF32, LayerNormF32 (Softmax::codegen, LayerNorm::codegen) and UnaryF32's Gelu against
// the reference ops, at 1 and 2 threads (rows split across threads: results must not change).
// Tolerances: the kernels' stated bounds (kernels/norm/norm.h, checked tightly in
// tests/kernels/norm_test.cpp) for rows of <= 96 values of magnitude <= 4 stay below 1e-5
// relative / 3e-5 absolute; a wrong row, axis or parameter broadcast is off by >= 1e-2.
#include <gtest/gtest.h>

#include <random>

#include "base/threading.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/layer_norm.h"
#include "ops/nn/softmax.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using testing::fact_refs;
using testing::run_op;

Tensor random_tensor(std::mt19937& rng, const Shape& shape, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  return Tensor::from_vector<float>(shape, v);
}

void expect_all_near(const Tensor& got, const Tensor& want, double rel, double abs) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); i++) {
    const double w = want.data<float>()[i];
    ASSERT_NEAR(got.data<float>()[i], w, abs + rel * std::fabs(w)) << "at " << i;
  }
}

class OpsNormF32Threads : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { set_num_threads(GetParam()); }
  void TearDown() override { set_num_threads(0); }
};

TEST_P(OpsNormF32Threads, SoftmaxF32MatchesReference) {
  std::mt19937 rng(31);
  struct Case {
    Shape shape;
    int64_t axis;
    bool coerce_2d;
  };
  // The last axis, a negative axis, the opset < 13 form (rows from an inner axis), a large
  // tensor (split across threads), rows of 1; then other axes (strided: the channels of NCHW,
  // YOLOv8's 16 box bins before 4 x 8400 anchors, inner sizes off the lane count, the first axis,
  // an axis of 1, a large tensor split in column blocks across threads).
  std::vector<Case> cases = {
      {{2, 3, 17}, 2, false},    {{2, 3, 17}, -1, false},     {{4, 5, 6}, 1, true},
      {{4, 5, 6}, 3, true},      {{8, 96, 96}, -1, false},    {{7, 1}, 1, false},
      {{2, 19, 5, 7}, 1, false}, {{1, 16, 4, 333}, 1, false}, {{3, 9, 2}, -2, false},
      {{5, 3, 65}, 0, false},    {{2, 1, 13}, 1, false},      {{1, 12, 130, 100}, 1, false}};
  for (ops::SoftmaxKind kind : {ops::SoftmaxKind::Softmax, ops::SoftmaxKind::LogSoftmax}) {
    for (const Case& c : cases) {
      ops::Softmax ref(kind, c.axis, c.coerce_2d);
      Tensor x = random_tensor(rng, c.shape, -4, 4);
      std::vector<Fact> facts = {Fact(DatumType::F32, c.shape)};
      OpPtr fast = ref.codegen(fact_refs(facts));
      ASSERT_NE(fast, nullptr) << shape_to_string(c.shape) << " axis " << c.axis;
      EXPECT_EQ(fast->output_facts(fact_refs(facts))[0].to_string(),
                ref.output_facts(fact_refs(facts))[0].to_string());
      expect_all_near(run_op(*fast, {x})[0], run_op(ref, {x})[0], 1e-5, 3e-6);
    }
  }
}

TEST(OpsSoftmaxF32, CodegenKeepsReferenceWhereNoKernel) {
  std::vector<Fact> f32 = {Fact(DatumType::F32, Shape{2, 3, 4})};
  EXPECT_EQ(ops::Softmax(ops::SoftmaxKind::Hardmax, -1).codegen(fact_refs(f32)), nullptr);
  std::vector<Fact> f64 = {Fact(DatumType::F64, Shape{2, 3, 4})};
  EXPECT_EQ(ops::Softmax(ops::SoftmaxKind::Softmax, -1).codegen(fact_refs(f64)), nullptr);
}

TEST_P(OpsNormF32Threads, LayerNormF32MatchesReference) {
  std::mt19937 rng(32);
  struct Case {
    Shape shape;
    int64_t axis;
    Shape scale;
    bool bias;
  };
  // Last axis, two normalized axes with a broadcast scale, no bias, a large tensor.
  std::vector<Case> cases = {{{2, 3, 17}, -1, {17}, true},
                             {{2, 3, 5, 7}, 2, {1, 7}, true},
                             {{5, 9}, 1, {9}, false},
                             {{1, 256, 96}, -1, {96}, true}};
  for (const Case& c : cases) {
    ops::LayerNorm ref(c.axis, 1e-5f, DatumType::F32);
    Tensor x = random_tensor(rng, c.shape, -1, 3);
    Tensor scale = random_tensor(rng, c.scale, -2, 2);
    Shape bias_shape(c.shape.end() - 1, c.shape.end());
    Tensor bias = random_tensor(rng, bias_shape, -1, 1);
    std::vector<Fact> facts = {Fact(DatumType::F32, c.shape), Fact::constant(scale)};
    std::vector<Tensor> in = {x, scale};
    if (c.bias) {
      facts.push_back(Fact::constant(bias));
      in.push_back(bias);
    }
    OpPtr fast = ref.codegen(fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    auto want = run_op(ref, in, 3);
    auto got = run_op(*fast, in, 3);
    for (size_t o = 0; o < 3; o++) {
      SCOPED_TRACE(o);
      expect_all_near(got[o], want[o], 1e-5, 3e-5);
    }
    // Only the main output asked for.
    expect_all_near(run_op(*fast, in, 1)[0], want[0], 1e-5, 3e-5);
  }
}

TEST(OpsLayerNormF32, CodegenNeedsConstantParametersAndKnownDims) {
  ops::LayerNorm ref(-1, 1e-5f, DatumType::F32);
  Tensor scale = Tensor::from_vector<float>({4}, {1, 2, 3, 4});
  std::vector<Fact> non_const = {Fact(DatumType::F32, Shape{2, 4}), Fact(DatumType::F32, Shape{4})};
  EXPECT_EQ(ref.codegen(fact_refs(non_const)), nullptr);
  std::vector<Fact> symbolic = {Fact(DatumType::F32, std::vector<Dim>{Dim(2), Dim::fresh()}),
                                Fact::constant(scale)};
  EXPECT_EQ(ref.codegen(fact_refs(symbolic)), nullptr);
  ops::LayerNorm f64_stash(-1, 1e-5f, DatumType::F64);
  std::vector<Fact> ok = {Fact(DatumType::F32, Shape{2, 4}), Fact::constant(scale)};
  EXPECT_EQ(f64_stash.codegen(fact_refs(ok)), nullptr);
  OpPtr fast = ref.codegen(fact_refs(ok));
  ASSERT_NE(fast, nullptr);
  // A run-time input of the wrong normalized length is an error, not a crash.
  Tensor bad = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(run_op(*fast, {bad, scale}), Error);
}

TEST_P(OpsNormF32Threads, GeluMatchesReference) {
  std::mt19937 rng(33);
  for (ops::UnaryKind kind : {ops::UnaryKind::Gelu, ops::UnaryKind::GeluTanh}) {
    for (Shape shape : {Shape{3, 37}, Shape{64, 1024}}) {
      ops::Unary ref(kind);
      Tensor x = random_tensor(rng, shape, -6, 6);
      std::vector<Fact> facts = {Fact(DatumType::F32, shape)};
      OpPtr fast = ref.codegen(fact_refs(facts));
      ASSERT_NE(fast, nullptr);
      // 0.5 |x| 6e-7 <= 1.8e-6 (tanh form: plus the rounding of its cubic argument).
      expect_all_near(run_op(*fast, {x})[0], run_op(ref, {x})[0], 1e-6, 3e-6);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, OpsNormF32Threads, ::testing::Values(1, 2));

}  // namespace
}  // namespace kiln
