// BinaryF32 / UnaryF32 (the codegen of Binary and Unary) against the reference ops.
// Binary: the same float operations, so results are exact. Unary: the vec_math error bounds
// (exp 4e-7 relative, sigmoid 2e-7, tanh 6e-7, erf 5e-7 absolute) with margin: 1e-6 abs + 1e-6 rel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/elementwise/vectorized.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::fact_refs;
using kiln::testing::run_op;
using ops::BinaryKind;
using ops::UnaryKind;

Tensor random_tensor(std::mt19937& rng, Shape shape, float lo = -2, float hi = 2) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  return Tensor::from_vector<float>(shape, v);
}

TEST(OpsVectorized, BinaryBroadcastPatternsMatchReferenceExactly) {
  std::mt19937 rng(1);
  std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 3, 17}, {2, 3, 17}}, {{2, 3, 17}, {}},        {{}, {2, 3, 17}},
      {{2, 3, 17}, {17}},       {{17}, {2, 3, 17}},      {{2, 3, 17}, {3, 17}},
      {{2, 3, 17}, {2, 3, 1}},  {{2, 3, 1}, {2, 3, 17}}, {{1, 64, 256}, {1, 64, 1}},
      {{2, 3, 17}, {2, 1, 17}},  // the last one: reference fallback
      {{4, 1}, {1, 5}}};
  for (BinaryKind kind : {BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div}) {
    ops::Binary ref(kind);
    for (auto& [sa, sb] : shapes) {
      Tensor a = random_tensor(rng, sa), b = random_tensor(rng, sb, 0.5f, 2);
      std::vector<Fact> facts = {Fact(DatumType::F32, sa), Fact(DatumType::F32, sb)};
      OpPtr fast = ref.codegen(fact_refs(facts));
      ASSERT_NE(fast, nullptr);
      auto want = run_op(ref, {a, b});
      auto got = run_op(*fast, {a, b});
      ASSERT_EQ(got[0].shape(), want[0].shape());
      for (int64_t i = 0; i < got[0].numel(); i++) {
        ASSERT_EQ(got[0].data<float>()[i], want[0].data<float>()[i])
            << ref.name() << " [" << shape_to_string(sa) << "] [" << shape_to_string(sb) << "] at "
            << i;
      }
    }
  }
}

TEST(OpsVectorized, PowByConstantTwoIsSquare) {
  std::mt19937 rng(2);
  ops::Binary pow(BinaryKind::Pow);
  Tensor x = random_tensor(rng, {3, 33});
  Tensor two = Tensor::scalar<float>(2.0f);
  std::vector<Fact> facts = {Fact(DatumType::F32, x.shape()), Fact::constant(two)};
  OpPtr fast = pow.codegen(fact_refs(facts));
  ASSERT_NE(fast, nullptr);
  auto want = run_op(pow, {x, two});
  auto got = run_op(*fast, {x, two});
  for (int64_t i = 0; i < x.numel(); i++) {
    EXPECT_NEAR(got[0].data<float>()[i], want[0].data<float>()[i], 1e-6f);
  }
  std::vector<Fact> three = {Fact(DatumType::F32, x.shape()),
                             Fact::constant(Tensor::scalar<float>(3))};
  EXPECT_EQ(pow.codegen(fact_refs(three)), nullptr);
}

TEST(OpsVectorized, UnaryWithinStatedError) {
  std::mt19937 rng(3);
  Tensor x = random_tensor(rng, {5, 101}, -6, 6);
  for (UnaryKind kind : {UnaryKind::Exp, UnaryKind::Sigmoid, UnaryKind::Tanh, UnaryKind::Erf}) {
    ops::Unary ref(kind);
    std::vector<Fact> facts = {Fact(DatumType::F32, x.shape())};
    OpPtr fast = ref.codegen(fact_refs(facts));
    ASSERT_NE(fast, nullptr);
    auto want = run_op(ref, {x});
    auto got = run_op(*fast, {x});
    for (int64_t i = 0; i < x.numel(); i++) {
      float w = want[0].data<float>()[i];
      EXPECT_NEAR(got[0].data<float>()[i], w, 1e-6 + 1e-6 * std::fabs(w)) << ref.name() << " " << i;
    }
  }
  std::vector<Fact> f64 = {Fact(DatumType::F64, Shape{3})};
  EXPECT_EQ(ops::Unary(UnaryKind::Exp).codegen(fact_refs(f64)), nullptr);
}

// Relu runs as the vectorized clamp [0, inf): bit for bit the reference, NaN and -0 included
// (max(0, x) as ONNX's reference computes it; the fused clamp epilogue keeps them the same way).
TEST(OpsVectorized, ReluIsTheReferenceBitForBit) {
  std::mt19937 rng(4);
  Tensor x = random_tensor(rng, {3, 37}, -3, 3);
  float* v = x.data<float>();
  v[0] = std::numeric_limits<float>::quiet_NaN();
  v[1] = -0.0f;
  v[2] = -std::numeric_limits<float>::infinity();
  v[3] = std::numeric_limits<float>::infinity();
  ops::Unary ref(UnaryKind::Relu);
  std::vector<Fact> facts = {Fact(DatumType::F32, x.shape())};
  OpPtr fast = ref.codegen(fact_refs(facts));
  ASSERT_NE(fast, nullptr);
  EXPECT_FALSE(fast->is_reference_impl());
  auto want = run_op(ref, {x});
  auto got = run_op(*fast, {x});
  EXPECT_TRUE(std::isnan(want[0].data<float>()[0]));
  EXPECT_TRUE(std::signbit(want[0].data<float>()[1]));
  EXPECT_EQ(want[0].data<float>()[2], 0.0f);
  for (int64_t i = 0; i < x.numel(); i++) {
    const float w = want[0].data<float>()[i], g = got[0].data<float>()[i];
    EXPECT_EQ(std::memcmp(&w, &g, sizeof(float)), 0) << i << ": " << w << " vs " << g;
    if (i > 3) {
      EXPECT_EQ(w, v[i] > 0 ? v[i] : 0.0f) << i;
    }
  }
}

}  // namespace
}  // namespace kiln
