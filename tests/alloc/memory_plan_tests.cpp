// The memory plan (core/memory_plan) and the State's arena built on it (in kiln_alloc_tests).
#include "core/memory_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "core/sequence.h"
#include "core/source_ops.h"
#include "core/state.h"
#include "ops/sequence/sequence_construct.h"

using namespace kiln;

namespace {

size_t round64(size_t n) {
  return (n + 63) / 64 * 64;
}

// Buffers alive at the same step never overlap; offsets are aligned; the arena holds every
// buffer, is at most the sum of the sizes and at least the largest live set.
void check_layout(const std::vector<BufferLife>& buffers, const MemoryLayout& layout) {
  ASSERT_EQ(layout.offsets.size(), buffers.size());
  size_t sum = 0;
  int steps = 0;
  for (size_t i = 0; i < buffers.size(); i++) {
    sum += round64(buffers[i].bytes);
    steps = std::max(steps, buffers[i].last + 1);
    EXPECT_EQ(layout.offsets[i] % 64, 0u);
    EXPECT_LE(layout.offsets[i] + buffers[i].bytes, layout.arena_bytes);
    for (size_t j = 0; j < i; j++) {
      bool live_together =
          buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
      if (!live_together || buffers[i].bytes == 0 || buffers[j].bytes == 0) continue;
      bool disjoint = layout.offsets[i] + buffers[i].bytes <= layout.offsets[j] ||
                      layout.offsets[j] + buffers[j].bytes <= layout.offsets[i];
      EXPECT_TRUE(disjoint) << "buffers " << i << " and " << j;
    }
  }
  EXPECT_LE(layout.arena_bytes, sum);
  for (int s = 0; s < steps; s++) {
    size_t live = 0;
    for (const auto& b : buffers)
      if (b.first <= s && s <= b.last) live += b.bytes;
    EXPECT_GE(layout.arena_bytes, live);
  }
}

TEST(MemoryPlan, RandomLifetimesNeverOverlap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; trial++) {
    int steps = 1 + static_cast<int>(rng() % 40);
    size_t count = rng() % 60;
    std::vector<BufferLife> buffers;
    for (size_t i = 0; i < count; i++) {
      int first = static_cast<int>(rng() % static_cast<unsigned>(steps));
      int last = first + static_cast<int>(rng() % static_cast<unsigned>(steps - first));
      size_t bytes = rng() % 4 == 0 ? rng() % 100 : rng() % 100000;
      buffers.push_back({bytes, first, last});
    }
    check_layout(buffers, plan_memory(buffers));
  }
}

TEST(MemoryPlan, ReusesMemoryOfDeadBuffers) {
  // A chain: each buffer dies when the next one is written from it.
  std::vector<BufferLife> chain;
  for (int i = 0; i < 10; i++) chain.push_back({1000, i, i + 1});
  MemoryLayout layout = plan_memory(chain);
  check_layout(chain, layout);
  EXPECT_EQ(layout.arena_bytes, 2 * round64(1000));  // two alive at a time
  // Disjoint lifetimes share one slot.
  MemoryLayout apart = plan_memory({{500, 0, 0}, {300, 1, 1}, {500, 2, 3}});
  EXPECT_EQ(apart.arena_bytes, round64(500));
  EXPECT_TRUE(plan_memory({}).offsets.empty());
  EXPECT_THROW(plan_memory({{10, 3, 2}}), Error);
  EXPECT_THROW(plan_memory({{10, 0, 1}}, 48), Error);
}

// Test ops on f32 vectors: Mix writes a*p + b*q into its own output; View hands over its input
// reshaped (a view: no copy); MaybeView views its input when the input's first element is
// positive and copies it otherwise, so its aliasing changes from run to run.
class Mix : public Op {
 public:
  Mix(float p, float q) : p_(p), q_(q) {}
  std::string name() const override { return "Mix"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override { return {*in.at(0)}; }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    const Tensor& a = *in.at(0);
    const Tensor& b = *in.at(1);
    float* tmp = ctx.scratch<float>(static_cast<size_t>(a.numel()));
    for (int64_t i = 0; i < a.numel(); i++) tmp[i] = a.data<float>()[i] * p_;
    Tensor& y = ctx.output(0, DatumType::F32, a.shape());
    for (int64_t i = 0; i < a.numel(); i++) y.data<float>()[i] = tmp[i] + b.data<float>()[i] * q_;
  }
  float p_, q_;
};

class View : public Op {
 public:
  std::string name() const override { return "View"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override { return {*in.at(0)}; }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    const Tensor& x = *in.at(0);
    ctx.set_output_view(0, x, x.shape());
  }
};

class MaybeView : public Op {
 public:
  std::string name() const override { return "MaybeView"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override { return {*in.at(0)}; }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    const Tensor& x = *in.at(0);
    if (x.numel() > 0 && x.data<float>()[0] > 0) {
      ctx.set_output(0, x);
    } else {
      Tensor& y = ctx.output(0, DatumType::F32, x.shape());
      for (int64_t i = 0; i < x.numel(); i++) y.data<float>()[i] = x.data<float>()[i];
    }
  }
};

// A random DAG over one input of S floats and its reference evaluation.
struct RandomDag {
  GraphPtr graph;
  struct Step {
    int kind;  // 0 Mix, 1 View, 2 MaybeView
    size_t a, b;
    float p, q;
  };
  std::vector<Step> steps;  // value k+1 is computed by step k; value 0 is the input
  std::vector<size_t> output_values;

  std::vector<std::vector<float>> evaluate(const std::vector<float>& x) const {
    std::vector<std::vector<float>> v{x};
    for (const Step& s : steps) {
      std::vector<float> y = v[s.a];
      if (s.kind == 0)
        for (size_t i = 0; i < y.size(); i++) y[i] = v[s.a][i] * s.p + v[s.b][i] * s.q;
      v.push_back(y);
    }
    std::vector<std::vector<float>> out;
    for (size_t o : output_values) out.push_back(v[o]);
    return out;
  }
};

RandomDag random_dag(std::mt19937& rng) {
  RandomDag dag;
  auto g = std::make_shared<Graph>();
  std::vector<Outlet> values{g->add_source("x", Fact::parse("S,f32"))};
  size_t count = 2 + rng() % 30;
  for (size_t k = 0; k < count; k++) {
    RandomDag::Step s;
    s.kind = rng() % 4 == 0 ? 1 : (rng() % 6 == 0 ? 2 : 0);
    // Mostly recent values, sometimes far back: long and short lifetimes.
    auto pick = [&] {
      size_t n = values.size();
      return rng() % 3 == 0 ? rng() % n : n - 1 - rng() % std::min<size_t>(n, 3);
    };
    s.a = pick();
    s.b = pick();
    s.p = static_cast<float>(rng() % 7) - 3.0f;
    s.q = 0.5f;
    OpPtr op = s.kind == 0   ? OpPtr(std::make_shared<Mix>(s.p, s.q))
               : s.kind == 1 ? OpPtr(std::make_shared<View>())
                             : OpPtr(std::make_shared<MaybeView>());
    std::vector<Outlet> in{values[s.a]};
    if (s.kind == 0) in.push_back(values[s.b]);
    values.push_back({g->add_node("n" + std::to_string(k), op, in), 0});
    dag.steps.push_back(s);
  }
  // The last value and a random earlier one (possibly the input or a view) are outputs.
  dag.output_values = {values.size() - 1, rng() % values.size()};
  g->set_outputs({values[dag.output_values[0]], values[dag.output_values[1]]}, {"y", "z"});
  g->analyse();
  dag.graph = g;
  return dag;
}

std::vector<float> random_input(std::mt19937& rng, size_t n) {
  std::vector<float> x(n);
  for (auto& e : x) e = static_cast<float>(static_cast<int>(rng() % 9) - 4);
  return x;
}

void expect_outputs(const std::vector<Tensor>& got, const std::vector<std::vector<float>>& want,
                    const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t o = 0; o < want.size(); o++) {
    auto v = got[o].values<float>();
    ASSERT_EQ(v.size(), want[o].size()) << where;
    for (size_t i = 0; i < v.size(); i++)
      ASSERT_EQ(v[i], want[o][i]) << where << ", output " << o << ", element " << i;
  }
}

// Values sharing the arena must not clobber each other: every run of random DAGs (views that
// extend their source's life, aliasing that changes between runs, sizes that grow) gives the
// reference values, and outputs the caller kept from an earlier run stay intact.
TEST(StateArena, RandomDagsMatchTheReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; trial++) {
    RandomDag dag = random_dag(rng);
    State state(std::make_shared<Plan>(dag.graph));
    std::vector<Tensor> outputs;
    for (size_t n : {5, 5, 5, 17, 17, 3, 17}) {
      auto x = random_input(rng, n);
      auto kept = state.run({Tensor::from_vector<float>({static_cast<int64_t>(n)}, x)});
      auto want = dag.evaluate(x);
      std::string where = "trial " + std::to_string(trial) + ", size " + std::to_string(n);
      expect_outputs(kept, want, where);
      // The overload that reuses the caller's vector, then the kept outputs again.
      auto x2 = random_input(rng, n);
      state.run({Tensor::from_vector<float>({static_cast<int64_t>(n)}, x2)}, outputs);
      expect_outputs(outputs, dag.evaluate(x2), where + ", into outputs");
      expect_outputs(kept, want, where + ", kept");
    }
    MemoryStats m = state.memory_stats();
    EXPECT_LE(m.arena_bytes, m.planned_bytes + 64 * m.planned_values);
    EXPECT_LE(m.planned_bytes, m.outputs_bytes);
  }
}

// Targets (State::run with caller memory, the API's zero-copy buffers): an output its node
// writes lands in the caller's buffer; views and model inputs are handed over as before; the
// values are the reference's either way; and the State keeps no reference to caller memory: a
// later run without targets leaves the buffers alone.
TEST(StateTargets, OutputsWrittenInPlaceOnRandomDags) {
  std::mt19937 rng(23);
  int in_place = 0, handed_over = 0;
  for (int trial = 0; trial < 60; trial++) {
    RandomDag dag = random_dag(rng);
    State state(std::make_shared<Plan>(dag.graph));
    std::vector<Tensor> outputs;
    for (size_t n : {5, 17, 17, 3}) {
      std::string where = "trial " + std::to_string(trial) + ", size " + std::to_string(n);
      auto x = random_input(rng, n);
      std::vector<std::vector<float>> buffers(2, std::vector<float>(n, -99.0f));
      std::vector<Tensor> targets;
      for (auto& b : buffers)
        targets.push_back(Tensor::borrow(DatumType::F32, {static_cast<int64_t>(n)}, b.data(),
                                         b.size() * sizeof(float)));
      state.run({Tensor::from_vector<float>({static_cast<int64_t>(n)}, x)}, outputs, targets);
      auto want = dag.evaluate(x);
      expect_outputs(outputs, want, where + ", with targets");
      for (size_t o = 0; o < 2; o++) {
        if (outputs[o].raw_data() != buffers[o].data()) {
          handed_over++;
          continue;
        }
        in_place++;
        EXPECT_EQ(buffers[o], want[o]) << where << ", output " << o;
      }
      // Done with the buffers: a run without targets must not touch them.
      outputs.clear();
      for (auto& b : buffers) std::fill(b.begin(), b.end(), 12345.0f);
      auto x2 = random_input(rng, n);
      state.run({Tensor::from_vector<float>({static_cast<int64_t>(n)}, x2)}, outputs);
      expect_outputs(outputs, dag.evaluate(x2), where + ", after");
      for (auto& b : buffers)
        for (float v : b) ASSERT_EQ(v, 12345.0f) << where << ": a buffer was written after";
    }
  }
  // Both ways were exercised.
  EXPECT_GT(in_place, 100);
  EXPECT_GT(handed_over, 20);
}

// Throws when its input's first element is 99: a run that fails midway.
class Boom : public Op {
 public:
  std::string name() const override { return "Boom"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override { return {*in.at(0)}; }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    const Tensor& x = *in.at(0);
    KILN_ENSURE(x.data<float>()[0] != 99.0f, "boom");
    Tensor& y = ctx.output(0, DatumType::F32, x.shape());
    for (int64_t i = 0; i < x.numel(); i++) y.data<float>()[i] = -x.data<float>()[i];
  }
};

TEST(StateTargets, AFailedRunReleasesTheTargets) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("8,f32"));
  Outlet a{g->add_node("a", std::make_shared<Mix>(2.0f, 0.0f), {x, x}), 0};
  Outlet b{g->add_node("b", std::make_shared<Boom>(), {a}), 0};
  g->set_outputs({a, b}, {"a", "b"});
  g->analyse();
  State state(std::make_shared<Plan>(g));
  std::vector<float> buf_a(8), buf_b(8);
  std::vector<Tensor> targets{Tensor::borrow(DatumType::F32, {8}, buf_a.data(), 32),
                              Tensor::borrow(DatumType::F32, {8}, buf_b.data(), 32)};
  std::vector<Tensor> out;
  std::vector<float> boom(8, 1.0f);
  boom[0] = 49.5f;  // a[0] = 99
  EXPECT_THROW(state.run({Tensor::from_vector<float>({8}, boom)}, out, targets), Error);
  EXPECT_EQ(buf_a[1], 2.0f);  // a was written in place before b failed
  std::fill(buf_a.begin(), buf_a.end(), 7.0f);
  std::fill(buf_b.begin(), buf_b.end(), 7.0f);
  state.run({Tensor::from_vector<float>({8}, std::vector<float>(8, 3.0f))}, out);
  EXPECT_EQ(out[0].values<float>()[0], 6.0f);
  EXPECT_EQ(out[1].values<float>()[7], -6.0f);
  EXPECT_NE(out[0].raw_data(), buf_a.data());
  EXPECT_EQ(buf_a, std::vector<float>(8, 7.0f));
  EXPECT_EQ(buf_b, std::vector<float>(8, 7.0f));
  // A target of the wrong count is an error before anything runs.
  EXPECT_THROW(state.run({Tensor::from_vector<float>({8}, boom)}, out, {targets[0]}), Error);
}

TEST(StateArena, ReusesSlotsAndLaysOutAgainWhenSizesGrow) {
  // x -> a -> b -> c -> d (output): a and c can share a slot, so can b and... the arena holds
  // two of the three intermediate values at a time.
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("S,f32"));
  Outlet prev = x;
  for (int i = 0; i < 4; i++)
    prev = {g->add_node("m" + std::to_string(i), std::make_shared<Mix>(1.0f, 1.0f), {prev, prev}),
            0};
  g->set_outputs({prev}, {"y"});
  g->analyse();
  State state(std::make_shared<Plan>(g));
  std::vector<Tensor> out;
  state.run({Tensor::from_vector<float>({256}, std::vector<float>(256, 1.0f))}, out);
  EXPECT_EQ(out[0].values<float>()[0], 16.0f);
  MemoryStats m = state.memory_stats();
  EXPECT_EQ(m.layouts, 1);
  EXPECT_EQ(m.planned_values, 3u);  // m0..m2; m3 is the model output
  EXPECT_EQ(m.planned_bytes, 3u * 1024);
  EXPECT_EQ(m.arena_bytes, 2u * 1024);
  EXPECT_EQ(m.outputs_bytes, 4u * 1024);
  const void* output_buffer = out[0].raw_data();
  state.run({Tensor::from_vector<float>({256}, std::vector<float>(256, 2.0f))}, out);
  EXPECT_EQ(out[0].values<float>()[0], 32.0f);
  EXPECT_EQ(out[0].raw_data(), output_buffer);  // the caller's output buffer, reused
  EXPECT_EQ(state.memory_stats().layouts, 1);
  // Larger: laid out again, still right; smaller again: the larger arena serves.
  state.run({Tensor::from_vector<float>({1000}, std::vector<float>(1000, 1.0f))}, out);
  EXPECT_EQ(out[0].values<float>()[999], 16.0f);
  EXPECT_EQ(state.memory_stats().layouts, 2);
  EXPECT_EQ(state.memory_stats().arena_bytes, 2u * 4032);
  state.run({Tensor::from_vector<float>({10}, std::vector<float>(10, 1.0f))}, out);
  EXPECT_EQ(out[0].values<float>()[9], 16.0f);
  EXPECT_EQ(state.memory_stats().layouts, 2);
}

// A sequence keeps its items past their lifetime: a value captured as an item must not share
// the arena with values written after it.
TEST(StateArena, SequenceItemsStayOutOfTheArena) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("64,f32"));
  Outlet a{g->add_node("a", std::make_shared<Mix>(2.0f, 0.0f), {x, x}), 0};
  Outlet seq{g->add_node("seq", std::make_shared<ops::SequenceConstruct>(), {a}), 0};
  Outlet b{g->add_node("b", std::make_shared<Mix>(3.0f, 0.0f), {x, x}), 0};
  Outlet c{g->add_node("c", std::make_shared<Mix>(1.0f, 1.0f), {b, b}), 0};
  g->set_outputs({seq, c}, {"seq", "c"});
  g->analyse();
  State state(std::make_shared<Plan>(g));
  std::vector<Tensor> out;
  for (float v : {1.0f, 2.0f, 3.0f}) {
    state.run({Tensor::from_vector<float>({64}, std::vector<float>(64, v))}, out);
    const SequenceValue& items = out[0].data<SequenceValue>()[0];
    ASSERT_EQ(items.items.size(), 1u);
    EXPECT_EQ(items.items[0].values<float>()[63], 2.0f * v);
    EXPECT_EQ(out[1].values<float>()[0], 6.0f * v);
  }
}

TEST(ScratchArena, GrowsThenServesFromOneBlock) {
  ScratchArena s;
  void* a = s.allocate(100);
  void* b = s.allocate(10000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  EXPECT_NE(a, b);
  s.reset();
  size_t capacity = s.capacity();
  EXPECT_GE(capacity, 10000u + 128);
  void* c = s.allocate(100);
  void* d = s.allocate(10000);
  EXPECT_GE(static_cast<char*>(d) - static_cast<char*>(c), 128);  // same block, no overlap
  EXPECT_EQ(s.capacity(), capacity);
}

TEST(EvalContext, SetOutputViewSharesTheSource) {
  Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  ctx.set_output_view(0, x, {3, 2});
  EXPECT_TRUE(outs[0].shares_storage_with(x));
  EXPECT_EQ(outs[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(outs[0].values<float>()[5], 6.0f);
  EXPECT_THROW(ctx.set_output_view(0, x, {4, 2}), Error);
}

}  // namespace
