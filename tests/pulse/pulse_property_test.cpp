// Property test of pulsification (as tract's proptests): random small stacks of convolutions
// and pools (random kernel, dilation, stride, padding), Pad, Slice, residual adds and channel
// concats of paths with different delays, GRU / LSTM along a time axis, pulsified with a random
// P (a multiple of the stride product), streamed over a random length: the pulsed outputs equal
// the whole-input reference (unoptimized) run within rtol 1e-4 / atol 1e-5 (float sums in other
// orders), and the delay the pass reports is the one the stream shows.
#include <gtest/gtest.h>

#include <random>

#include "core/random_tensor.h"
#include "core/tensor_compare.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/conv.h"
#include "ops/nn/pool.h"
#include "ops/recurrent/gru.h"
#include "ops/recurrent/lstm.h"
#include "ops/shape/concat.h"
#include "ops/shape/pad.h"
#include "ops/shape/slice.h"
#include "ops/shape/squeeze.h"
#include "ops/shape/transpose.h"
#include "pulse_test_util.h"

namespace kiln {
namespace {

constexpr int64_t kChannels = 3;

struct Builder {
  Graph g;
  std::mt19937_64 rng;
  int serial = 0;
  int64_t stride = 1;  // product of the strides so far
  std::string log;     // what was built, for failure messages

  explicit Builder(uint64_t seed) : rng(seed) {}
  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  std::string name(const std::string& what) { return what + std::to_string(serial++); }
  Outlet node(const std::string& what, OpPtr op, std::vector<Outlet> in, size_t outs = 1) {
    return {g.add_node(name(what), std::move(op), std::move(in), outs), 0};
  }
  Outlet weights(const Shape& s) {
    Tensor t = random_tensor(DatumType::F32, s, rng);
    return g.add_const(name("w"), t);
  }
  Outlet conv(Outlet x, int64_t k, int64_t d, int64_t s, int64_t pl, int64_t pr) {
    ops::WindowGeometry geo;
    geo.strides = {s};
    geo.dilations = {d};
    geo.pads = {pl, pr};
    log += fmt::format(" conv(k={},d={},s={},pads={},{})", k, d, s, pl, pr);
    stride *= s;
    return node("conv", std::make_shared<ops::Conv>(geo, 1),
                {x, weights({kChannels, kChannels, k}), weights({kChannels})});
  }
  Outlet relu(Outlet x) {
    return node("relu", std::make_shared<ops::Unary>(ops::UnaryKind::Relu), {x});
  }
  Outlet tanh(Outlet x) {
    return node("tanh", std::make_shared<ops::Unary>(ops::UnaryKind::Tanh), {x});
  }

  // One random layer on a [1, C, L] value.
  Outlet layer(Outlet x) {
    switch (pick(0, 8)) {
      case 0:
      case 1: {
        int64_t k = pick(1, 4), d = pick(1, 3), s = stride >= 4 ? 1 : pick(1, 2);
        int64_t span = (k - 1) * d;
        return relu(conv(x, k, d, s, pick(0, span), pick(0, span)));
      }
      case 2: {
        int64_t k = pick(1, 3), s = stride >= 4 ? 1 : pick(1, 2);
        bool max = pick(0, 1);
        ops::WindowGeometry geo;
        geo.kernel = {k};
        geo.strides = {s};
        geo.pads = {pick(0, k - 1), pick(0, k - 1)};
        ops::Pool::Options o;
        o.count_include_pad = true;
        log += fmt::format(" {}pool(k={},s={},pads={},{})", max ? "max" : "avg", k, s, geo.pads[0],
                           geo.pads[1]);
        stride *= s;
        return node(
            "pool",
            std::make_shared<ops::Pool>(max ? ops::PoolKind::Max : ops::PoolKind::Average, geo, o),
            {x}, max ? 2 : 1);
      }
      case 3: {
        int64_t pl = pick(0, 3), pr = pick(0, 3);
        double v = pick(0, 1) ? 0.5 : 0.0;
        log += fmt::format(" pad({},{},value={})", pl, pr, v);
        return node("pad",
                    std::make_shared<ops::Pad>(ops::PadMode::Constant,
                                               std::vector<int64_t>{0, 0, pl, 0, 0, pr}, v),
                    {x});
      }
      case 4: {
        int64_t b = pick(0, 3);
        log += fmt::format(" slice({}:)", b);
        return node(
            "slice",
            std::make_shared<ops::Slice>(std::vector<int64_t>{b}, std::vector<int64_t>{INT64_MAX},
                                         std::vector<int64_t>{2}),
            {x});
      }
      case 5: {
        // Residual: x + relu(conv(x)) with symmetric padding (the paths' delays differ).
        int64_t d = pick(1, 3);
        log += " residual[";
        Outlet y = relu(conv(x, 3, d, 1, d, d));
        log += "]";
        return node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {x, y});
      }
      case 6: {
        // Channel concat of a causal and a centred conv (different delays), back to C channels.
        int64_t d = pick(1, 2);
        log += " concat[";
        Outlet a = conv(x, 3, d, 1, 2 * d, 0);
        Outlet b = conv(x, 3, d, 1, d, d);
        log += "]";
        Outlet c = node("concat", std::make_shared<ops::Concat>(1), {a, b});
        ops::WindowGeometry geo;
        geo.strides = {1};
        geo.pads = {0, 0};
        return node("mix", std::make_shared<ops::Conv>(geo, 1),
                    {c, weights({kChannels, 2 * kChannels, 1}), weights({kChannels})});
      }
      case 7:
      case 8: {
        // GRU or LSTM over time: [1,C,L] -> [L,1,C] -> Y [L,1,1,H] -> [1,H,L] (H = C).
        bool lstm = pick(0, 1);
        log += lstm ? " lstm" : " gru";
        Outlet t = node("t", std::make_shared<ops::Transpose>(std::vector<int64_t>{2, 0, 1}), {x});
        ops::RecurrentConfig cfg;
        cfg.hidden_size = kChannels;
        int64_t gates = lstm ? 4 : 3;
        Outlet w = weights({1, gates * kChannels, kChannels});
        Outlet r = weights({1, gates * kChannels, kChannels});
        Outlet b = weights({1, 2 * gates * kChannels});
        Outlet y = lstm ? node("lstm", std::make_shared<ops::Lstm>(cfg, false), {t, w, r, b}, 3)
                        : node("gru", std::make_shared<ops::Gru>(cfg, true), {t, w, r, b}, 2);
        Outlet sq = node("sq", std::make_shared<ops::Squeeze>(std::vector<int64_t>{1}), {y});
        return node("back", std::make_shared<ops::Transpose>(std::vector<int64_t>{1, 2, 0}), {sq});
      }
    }
    return x;
  }
};

// Builds the same random model for a seed (called twice: one copy per run).
std::unique_ptr<Builder> build(uint64_t seed) {
  auto b = std::make_unique<Builder>(seed);
  Outlet x = b->g.add_source("x", Fact::parse("1,3,T,f32"));
  int64_t layers = b->pick(1, 4);
  for (int64_t i = 0; i < layers; i++) x = b->layer(x);
  b->g.set_outputs({x}, {"y"});
  return b;
}

TEST(PulseProperty, RandomStacksPulsedEqualWholeInput) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 120; seed++) {
    auto batch = build(seed);
    auto streamed = build(seed);
    std::mt19937_64 rng(seed * 7919);
    const int64_t length = std::uniform_int_distribution<int64_t>(30, 70)(rng);
    const int64_t pulse = streamed->stride * std::uniform_int_distribution<int64_t>(1, 4)(rng);
    SCOPED_TRACE(fmt::format("seed {}: T={} P={}:{}", seed, length, pulse, streamed->log));

    Tensor input = random_tensor(DatumType::F32, {1, kChannels, length}, rng);
    passes::to_typed(batch->g);
    auto expected = run_graph(std::make_shared<Graph>(batch->g), {input});

    passes::to_typed(streamed->g);
    testing::Streamed s;
    try {
      s = testing::stream_model(streamed->g, "T", pulse);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    StreamSession stream(s.plan, s.model.spec, {1});
    auto got = stream.run_whole({input});
    ASSERT_EQ(got.size(), 1u);
    auto r = compare_tensors(got[0], expected[0], 1e-4, 1e-5);
    EXPECT_TRUE(r.ok) << r.summary();

    // The same stream pushed pulse by pulse after a reset: identical to run_whole.
    stream.reset();
    stream.set_stream_length(length);
    const StreamPort& out = s.model.spec.outputs[0];
    std::vector<Tensor> pulses;
    int64_t total = 0;
    for (int64_t k = 0; total < out.full.eval({{"T", length}}) + out.delay; k++) {
      Tensor chunk(DatumType::F32, {1, kChannels, pulse});
      for (int64_t c = 0; c < kChannels; c++)
        for (int64_t i = 0; i < pulse; i++) {
          int64_t t = k * pulse + i;
          chunk.data<float>()[c * pulse + i] =
              t < length ? input.data<float>()[c * length + t] : 0.0f;
        }
      auto o = stream.push({chunk});
      ASSERT_EQ(o[0].dim(out.axis), out.pulse);
      // Output frame j of the whole run is pulse frame j + delay of the stream.
      for (int64_t i = 0; i < out.pulse; i++) {
        int64_t j = total + i - out.delay;
        if (j < 0 || j >= expected[0].dim(2)) continue;
        for (int64_t c = 0; c < expected[0].dim(1); c++) {
          float e = expected[0].data<float>()[c * expected[0].dim(2) + j];
          float v = o[0].data<float>()[c * out.pulse + i];
          ASSERT_NEAR(v, e, 1e-5 + 1e-4 * std::abs(e)) << "frame " << j << " channel " << c;
        }
      }
      total += out.pulse;
    }
    checked++;
  }
  EXPECT_EQ(checked, 120);
}

// Two streaming inputs on one symbol (tract's #839): x goes through a centred conv (delay 2),
// y joins it directly; y is re-synchronised and the sum equals the whole-input run.
TEST(PulseProperty, TwoStreamingInputsAreResynchronised) {
  auto build2 = [] {
    auto b = std::make_unique<Builder>(7);
    Outlet x = b->g.add_source("x", Fact::parse("1,3,T,f32"));
    Outlet y = b->g.add_source("y", Fact::parse("1,3,T,f32"));
    Outlet c = b->conv(x, 3, 2, 1, 2, 2);
    Outlet sum = b->node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {c, y});
    b->g.set_outputs({sum}, {"z"});
    return b;
  };
  auto batch = build2();
  auto streamed = build2();
  std::mt19937_64 rng(3);
  Tensor x = random_tensor(DatumType::F32, {1, kChannels, 45}, rng);
  Tensor y = random_tensor(DatumType::F32, {1, kChannels, 45}, rng);
  passes::to_typed(batch->g);
  auto expected = run_graph(std::make_shared<Graph>(batch->g), {x, y});
  passes::to_typed(streamed->g);
  testing::Streamed s = testing::stream_model(streamed->g, "T", 4);
  EXPECT_EQ(s.model.spec.outputs.at(0).delay, 2);
  StreamSession stream(s.plan, s.model.spec, {1});
  auto got = stream.run_whole({x, y});
  auto r = compare_tensors(got.at(0), expected.at(0), 1e-4, 1e-5);
  EXPECT_TRUE(r.ok) << r.summary();
}

// Edge lengths: an empty stream gives empty outputs; a stream shorter than an unpadded window
// is a clear error, not a crash.
TEST(PulseProperty, EmptyAndTooShortStreams) {
  auto b = std::make_unique<Builder>(5);
  Outlet x = b->g.add_source("x", Fact::parse("1,3,T,f32"));
  Outlet padded = b->conv(x, 3, 1, 1, 1, 1);
  Outlet valid = b->conv(padded, 5, 1, 1, 0, 0);
  b->g.set_outputs({padded, valid}, {"padded", "valid"});
  passes::to_typed(b->g);
  testing::Streamed s = testing::stream_model(b->g, "T", 4);
  StreamSession stream(s.plan, s.model.spec, {1});
  try {
    stream.run_whole({Tensor(DatumType::F32, {1, kChannels, 2})});
    ADD_FAILURE() << "a 2-frame stream through a 5-frame window was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("too few"), std::string::npos) << e.what();
  }
  auto out = stream.run_whole({Tensor(DatumType::F32, {1, kChannels, 4})});
  EXPECT_EQ(out.at(0).shape(), (Shape{1, kChannels, 4}));
  EXPECT_EQ(out.at(1).shape(), (Shape{1, kChannels, 0}));
}

}  // namespace
}  // namespace kiln
