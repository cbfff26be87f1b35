// MinMaxF32 (the codegen of a two-input f32 Max / Min) against the reference Variadic: exact
// (both pick one of the operands), NaN wins as in the reference, on every broadcast pattern the
// vectorized path takes and one it leaves to the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ops/elementwise/min_max_f32.h"
#include "ops/elementwise/variadic.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::fact_refs;
using kiln::testing::run_op;

Tensor random_tensor(std::mt19937& rng, Shape shape) {
  std::uniform_real_distribution<float> d(-2, 2);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  // A few NaNs, infinities and signed zeros among them.
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(), -0.0f, 0.0f};
  for (size_t i = 0; i < v.size(); i += 7) v[i] = specials[(i / 7) % 4];
  return Tensor::from_vector<float>(shape, v);
}

void expect_same_bits(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); i++) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << i;
    } else {
      EXPECT_EQ(g, w) << i;
      EXPECT_EQ(std::signbit(g), std::signbit(w)) << i;
    }
  }
}

TEST(OpsMinMaxF32, MatchesTheReferenceOnEveryBroadcast) {
  std::mt19937 rng(3);
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{4, 33}, {4, 33}},      // equal
      {{5, 7}, {}},            // scalar operand
      {{}, {3, 9}},            // scalar first
      {{2, 3, 17}, {17}},      // trailing block (a bias)
      {{3, 1, 1}, {3, 4, 5}},  // leading block, first operand
      {{2, 6, 8}, {2, 6, 1}},  // leading block
      {{4, 1, 5}, {1, 3, 1}},  // neither: the reference
      {{0, 3}, {0, 3}},        // empty
  };
  for (auto kind : {ops::VariadicKind::Max, ops::VariadicKind::Min}) {
    ops::Variadic ref(kind);
    for (const auto& [sa, sb] : shapes) {
      SCOPED_TRACE(::testing::Message() << ref.name() << " [" << shape_to_string(sa) << "] ["
                                        << shape_to_string(sb) << "]");
      Tensor a = random_tensor(rng, sa), b = random_tensor(rng, sb);
      std::vector<Fact> facts = {Fact(DatumType::F32, sa), Fact(DatumType::F32, sb)};
      OpPtr fast = ref.codegen(fact_refs(facts));
      ASSERT_NE(fast, nullptr);
      EXPECT_EQ(fast->name(), ref.name() + "F32");
      expect_same_bits(run_op(*fast, {a, b})[0], run_op(ref, {a, b})[0]);
    }
  }
}

TEST(OpsMinMaxF32, OnlyForTwoF32Inputs) {
  ops::Variadic max(ops::VariadicKind::Max), sum(ops::VariadicKind::Sum);
  std::vector<Fact> two = {Fact::parse("3,f32"), Fact::parse("3,f32")};
  std::vector<Fact> three = {Fact::parse("3,f32"), Fact::parse("3,f32"), Fact::parse("3,f32")};
  std::vector<Fact> ints = {Fact::parse("3,i32"), Fact::parse("3,i32")};
  EXPECT_NE(max.codegen(fact_refs(two)), nullptr);
  EXPECT_EQ(max.codegen(fact_refs(three)), nullptr);
  EXPECT_EQ(max.codegen(fact_refs(ints)), nullptr);
  EXPECT_EQ(sum.codegen(fact_refs(two)), nullptr);
}

}  // namespace
}  // namespace kiln
