// LstmPacked (Lstm::codegen) against the reference LSTM (which computes in double).
// Tolerance 2e-5 absolute: the packed path sums in float (input projection <= 40 terms,
// recurrence <= 37 terms of size < 1 per step) and uses the vec_math approximations (sigmoid
// <= 2e-7, tanh <= 6e-7); over 12 steps the errors stay ~1e-6, while a wrong gate, bias or time
// order changes outputs by ~0.1.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <random>

#include "base/threading.h"

#include "ops/recurrent/lstm.h"
#include "ops/recurrent/lstm_packed.h"
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
  bool bias = true, peepholes = false, initial = false;
};

void check(const Setup& s) {
  SCOPED_TRACE(::testing::Message() << "layout " << s.layout << " batch " << s.batch << " hidden "
                                    << s.hidden << " peepholes " << s.peepholes);
  std::mt19937 rng(static_cast<unsigned>(s.hidden * 7 + s.batch));
  RecurrentConfig c;
  c.direction = s.direction;
  const int64_t nd = s.direction == RnnDirection::Bidirectional ? 2 : 1;
  c.layout = s.layout;
  ops::Lstm lstm(c, false);
  Shape xs = s.layout ? Shape{s.batch, s.seq, s.input} : Shape{s.seq, s.batch, s.input};
  Shape ss = s.layout ? Shape{s.batch, nd, s.hidden} : Shape{nd, s.batch, s.hidden};
  std::vector<Tensor> in = {random_tensor(rng, xs, 1.0f),
                            random_tensor(rng, {nd, 4 * s.hidden, s.input}),
                            random_tensor(rng, {nd, 4 * s.hidden, s.hidden}),
                            random_tensor(rng, {nd, 8 * s.hidden}),
                            Tensor(),
                            random_tensor(rng, ss),
                            random_tensor(rng, ss),
                            random_tensor(rng, {nd, 3 * s.hidden})};
  std::vector<bool> absent = {false, false,      false,      !s.bias,
                              true,  !s.initial, !s.initial, !s.peepholes};
  std::vector<Fact> facts;
  for (size_t i = 0; i < in.size(); i++) {
    facts.push_back(i == 0 || absent[i] ? Fact(DatumType::F32, in[i].shape())
                                        : Fact::constant(in[i]));
  }
  FactRefs refs = fact_refs(facts);
  for (size_t i = 0; i < in.size(); i++) {
    if (absent[i]) refs[i] = nullptr;
  }
  OpPtr fast = lstm.codegen(refs);
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->name(), "LstmPacked");
  auto want = run_op(lstm, in, 3, absent);
  auto got = run_op(*fast, in, 3, absent);
  for (size_t o = 0; o < 3; o++) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << "output " << o;
    for (int64_t i = 0; i < got[o].numel(); i++) {
      ASSERT_NEAR(got[o].data<float>()[i], want[o].data<float>()[i], 2e-5)
          << "output " << o << " at " << i;
    }
  }
}

TEST(OpsLstmPacked, MatchesReference) {
  check({});
  check({.hidden = 128, .bias = false});
  check({.batch = 3, .hidden = 16, .peepholes = true, .initial = true});
  check({.direction = RnnDirection::Reverse, .layout = 1, .batch = 2, .hidden = 5});
  check({.direction = RnnDirection::Bidirectional,
         .layout = 0,
         .batch = 2,
         .input = 3,
         .hidden = 64,
         .initial = true});
  check({.direction = RnnDirection::Bidirectional, .layout = 1, .seq = 1, .hidden = 1});
}

// Random LSTMs split between 1, 2 and 3 threads (the team thresholds lowered so that every
// LSTM of two or more pieces is split): the outputs must be bitwise identical whatever the thread
// count (each unit's sums in the same order wherever it runs), and match the reference. Weights
// are scaled by 1 / sqrt(hidden) (as trained LSTMs are), so pre-activations stay O(1) for every
// size; tolerance 5e-5 absolute: float sums of up to 200 + 40 terms per step (relative error
// ~1e-6 of their O(1) size), the vec_math sigmoid / tanh (<= 6e-7), accumulated over up to 50
// steps through c (|f| < 1 damps it). A wrong block, gate or slice boundary changes outputs by
// > 1e-2.
TEST(OpsLstmPacked, SplitBetweenThreadsIsBitwiseIdentical) {
  const int saved_threads = num_threads();
  std::mt19937 rng(2026);
  const int64_t hiddens[] = {1, 3, 8, 9, 15, 16, 17, 24, 31, 33, 48, 63, 100, 129, 200};
  for (int trial = 0; trial < 40; trial++) {
    const int64_t hidden = hiddens[trial % std::size(hiddens)];
    const int64_t seq = std::uniform_int_distribution<int64_t>(1, 50)(rng);
    const int64_t batch = 1 + trial % 2, input = std::uniform_int_distribution<int64_t>(1, 40)(rng);
    const RnnDirection direction =
        trial % 5 == 3 ? RnnDirection::Bidirectional
                       : (trial % 5 == 4 ? RnnDirection::Reverse : RnnDirection::Forward);
    const int64_t layout = trial % 3 == 2 ? 1 : 0,
                  nd = direction == RnnDirection::Bidirectional ? 2 : 1;
    const bool peepholes = trial % 4 == 1, initial = trial % 3 == 0, bias = trial % 7 != 6;
    SCOPED_TRACE(::testing::Message()
                 << "trial " << trial << " hidden " << hidden << " seq " << seq << " batch "
                 << batch << " input " << input << " nd " << nd << " layout " << layout
                 << " peepholes " << peepholes << " initial " << initial);
    RecurrentConfig c;
    c.direction = direction;
    c.layout = layout;
    ops::Lstm lstm(c, false);
    const float ws = 1.0f / std::sqrt(static_cast<float>(hidden));
    Shape xs = layout ? Shape{batch, seq, input} : Shape{seq, batch, input};
    Shape ss = layout ? Shape{batch, nd, hidden} : Shape{nd, batch, hidden};
    std::vector<Tensor> in = {random_tensor(rng, xs, 1.0f),
                              random_tensor(rng, {nd, 4 * hidden, input}, ws),
                              random_tensor(rng, {nd, 4 * hidden, hidden}, ws),
                              random_tensor(rng, {nd, 8 * hidden}),
                              Tensor(),
                              random_tensor(rng, ss),
                              random_tensor(rng, ss),
                              random_tensor(rng, {nd, 3 * hidden})};
    std::vector<bool> absent = {false, false, false, !bias, true, !initial, !initial, !peepholes};
    std::vector<Fact> facts;
    for (size_t i = 0; i < in.size(); i++) {
      facts.push_back(i == 0 || absent[i] ? Fact(DatumType::F32, in[i].shape())
                                          : Fact::constant(in[i]));
    }
    FactRefs refs = fact_refs(facts);
    for (size_t i = 0; i < in.size(); i++) {
      if (absent[i]) refs[i] = nullptr;
    }
    auto packed = std::dynamic_pointer_cast<const ops::LstmPacked>(lstm.codegen(refs));
    ASSERT_NE(packed, nullptr);
    OpPtr fast =
        packed->with_team_policy({.member_step_fma = 0, .sequence_fma = 0, .by_time = false});
    auto want = run_op(lstm, in, 3, absent);
    set_num_threads(1);
    auto one = run_op(*fast, in, 3, absent);
    for (size_t o = 0; o < 3; o++) {
      ASSERT_EQ(one[o].shape(), want[o].shape()) << "output " << o;
      for (int64_t i = 0; i < one[o].numel(); i++) {
        ASSERT_NEAR(one[o].data<float>()[i], want[o].data<float>()[i], 5e-5)
            << "output " << o << " at " << i;
      }
    }
    for (int threads : {2, 3}) {
      set_num_threads(threads);
      // Twice: the second run reuses the team's workers while they still spin.
      for (int run = 0; run < 2; run++) {
        auto got = run_op(*fast, in, 3, absent);
        for (size_t o = 0; o < 3; o++) {
          ASSERT_EQ(got[o].shape(), one[o].shape());
          for (int64_t i = 0; i < got[o].numel(); i++) {
            ASSERT_EQ(got[o].data<float>()[i], one[o].data<float>()[i])
                << threads << " threads, output " << o << " at " << i;
          }
        }
      }
    }
  }
  set_num_threads(saved_threads);
}

TEST(OpsLstmPacked, KeepsReferenceForUnsupportedVariants) {
  RecurrentConfig c;
  c.clip = 1.0f;
  std::vector<Fact> facts = {Fact(DatumType::F32, Shape{2, 1, 3}),
                             Fact::constant(Tensor(DatumType::F32, {1, 8, 3})),
                             Fact::constant(Tensor(DatumType::F32, {1, 8, 2}))};
  EXPECT_EQ(ops::Lstm(c, false).codegen(fact_refs(facts)), nullptr);
  EXPECT_EQ(ops::Lstm(RecurrentConfig{}, true).codegen(fact_refs(facts)), nullptr);
  EXPECT_NE(ops::Lstm(RecurrentConfig{}, false).codegen(fact_refs(facts)), nullptr);
  std::vector<Fact> dynamic = {Fact(DatumType::F32, Shape{2, 1, 3}),
                               Fact(DatumType::F32, Shape{1, 8, 3}),
                               Fact::constant(Tensor(DatumType::F32, {1, 8, 2}))};
  EXPECT_EQ(ops::Lstm(RecurrentConfig{}, false).codegen(fact_refs(dynamic)), nullptr);
}

}  // namespace
}  // namespace kiln
