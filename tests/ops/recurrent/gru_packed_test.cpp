// GruPacked (Gru::codegen) against the reference GRU (which computes in double), both
// linear_before_reset forms, every direction and layout, batches, initial states.
// Tolerance 2e-5 absolute: the packed path sums in float (input projection <= 40 terms,
// recurrence <= 128 terms of size < 1 per step, weights scaled by 1 / sqrt(hidden)) and uses the
// vec_math approximations (sigmoid <= 2e-7, tanh <= 6e-7); h is a convex mix of tanh values and
// the old h, so errors do not grow over the 12 steps, while a wrong gate, bias, reset placement
// or time order changes outputs by ~0.1.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/recurrent/gru.h"
#include "ops/recurrent/gru_packed.h"
#include "tests/ops/nn/nn_test_util.h"

namespace kiln {
namespace {

using kiln::testing::fact_refs;
using kiln::testing::run_op;
using ops::RecurrentConfig;
using ops::RnnDirection;

Tensor random_tensor(std::mt19937& rng, Shape shape, float scale = 0.5f) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = d(rng);
  return Tensor::from_vector<float>(shape, v);
}

struct Setup {
  RnnDirection direction = RnnDirection::Forward;
  int64_t layout = 0, seq = 12, batch = 1, input = 40, hidden = 37;
  bool bias = true, initial = false, after = true;
};

void check(const Setup& s) {
  SCOPED_TRACE(::testing::Message() << "layout " << s.layout << " batch " << s.batch << " hidden "
                                    << s.hidden << " linear_before_reset " << s.after);
  std::mt19937 rng(static_cast<unsigned>(s.hidden * 7 + s.batch + s.after));
  RecurrentConfig c;
  c.direction = s.direction;
  const int64_t nd = s.direction == RnnDirection::Bidirectional ? 2 : 1;
  c.layout = s.layout;
  ops::Gru gru(c, s.after);
  Shape xs = s.layout ? Shape{s.batch, s.seq, s.input} : Shape{s.seq, s.batch, s.input};
  Shape ss = s.layout ? Shape{s.batch, nd, s.hidden} : Shape{nd, s.batch, s.hidden};
  const float ws = 1.5f / std::sqrt(static_cast<float>(s.hidden));
  std::vector<Tensor> in = {random_tensor(rng, xs, 1.0f),
                            random_tensor(rng, {nd, 3 * s.hidden, s.input}),
                            random_tensor(rng, {nd, 3 * s.hidden, s.hidden}, ws),
                            random_tensor(rng, {nd, 6 * s.hidden}),
                            Tensor(),
                            random_tensor(rng, ss)};
  std::vector<bool> absent = {false, false, false, !s.bias, true, !s.initial};
  std::vector<Fact> facts;
  for (size_t i = 0; i < in.size(); i++) {
    facts.push_back(i == 0 || absent[i] ? Fact(DatumType::F32, in[i].shape())
                                        : Fact::constant(in[i]));
  }
  FactRefs refs = fact_refs(facts);
  for (size_t i = 0; i < in.size(); i++) {
    if (absent[i]) refs[i] = nullptr;
  }
  OpPtr fast = gru.codegen(refs);
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->name(), "GruPacked");
  EXPECT_TRUE(gru.is_reference_impl());
  EXPECT_FALSE(fast->is_reference_impl());
  auto want = run_op(gru, in, 2, absent);
  auto got = run_op(*fast, in, 2, absent);
  double moved = 0;  // outputs must depend on the input (a zero GRU would pass trivially)
  for (size_t o = 0; o < 2; o++) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << "output " << o;
    for (int64_t i = 0; i < got[o].numel(); i++) {
      ASSERT_NEAR(got[o].data<float>()[i], want[o].data<float>()[i], 2e-5)
          << "output " << o << " at " << i;
      moved = std::max(moved, std::fabs(double(want[o].data<float>()[i])));
    }
  }
  if (s.seq > 0) {
    EXPECT_GT(moved, 0.05);
  }
}

TEST(OpsGruPacked, MatchesReference) {
  for (bool after : {true, false}) {
    check({.after = after});
    check({.hidden = 128, .bias = false, .after = after});
    check({.batch = 3, .hidden = 16, .initial = true, .after = after});
    check(
        {.direction = RnnDirection::Reverse, .layout = 1, .batch = 2, .hidden = 5, .after = after});
    check({.direction = RnnDirection::Bidirectional,
           .layout = 0,
           .batch = 2,
           .input = 3,
           .hidden = 64,
           .initial = true,
           .after = after});
    check({.direction = RnnDirection::Bidirectional,
           .layout = 1,
           .seq = 1,
           .hidden = 1,
           .after = after});
    check({.seq = 0, .hidden = 9, .after = after});
  }
}

TEST(OpsGruPacked, KeepsReferenceForUnsupportedVariants) {
  std::vector<Fact> facts = {Fact(DatumType::F32, Shape{2, 1, 3}),
                             Fact::constant(Tensor(DatumType::F32, {1, 6, 3})),
                             Fact::constant(Tensor(DatumType::F32, {1, 6, 2}))};
  RecurrentConfig clipped;
  clipped.clip = 1.0f;
  EXPECT_EQ(ops::Gru(clipped, true).codegen(fact_refs(facts)), nullptr);
  RecurrentConfig relu;
  relu.activations = ops::Activation::from_onnx({"Relu", "Tanh"}, {}, {});
  EXPECT_EQ(ops::Gru(relu, true).codegen(fact_refs(facts)), nullptr);
  EXPECT_NE(ops::Gru(RecurrentConfig{}, true).codegen(fact_refs(facts)), nullptr);
  EXPECT_NE(ops::Gru(RecurrentConfig{}, false).codegen(fact_refs(facts)), nullptr);
  std::vector<Fact> dynamic = {Fact(DatumType::F32, Shape{2, 1, 3}),
                               Fact(DatumType::F32, Shape{1, 6, 3}),
                               Fact::constant(Tensor(DatumType::F32, {1, 6, 2}))};
  EXPECT_EQ(ops::Gru(RecurrentConfig{}, true).codegen(fact_refs(dynamic)), nullptr);
  std::vector<Fact> with_lens = facts;
  with_lens.push_back(Fact::constant(Tensor(DatumType::F32, {1, 12})));
  with_lens.push_back(Fact(DatumType::I32, Shape{1}));
  EXPECT_EQ(ops::Gru(RecurrentConfig{}, true).codegen(fact_refs(with_lens)), nullptr);
}

}  // namespace
}  // namespace kiln
