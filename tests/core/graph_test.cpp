#include "core/graph.h"

#include <gtest/gtest.h>

#include <random>

#include "core/broadcast.h"
#include "core/patch.h"
#include "core/source_ops.h"
#include "core/state.h"

using namespace kiln;

namespace {

// A test-only op: y = x + c for f32, with broadcasting on a scalar c.
class AddScalar : public Op {
 public:
  explicit AddScalar(float c) : c_(c) {}
  std::string name() const override { return "AddScalar"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override {
    return {Fact(in.at(0)->dt, in.at(0)->shape)};
  }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    const Tensor& x = *in.at(0);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    for (int64_t i = 0; i < x.numel(); i++) y.data<float>()[i] = x.data<float>()[i] + c_;
  }
  float c_;
};

// AddScalar counting its evaluations.
class CountingAdd : public AddScalar {
 public:
  CountingAdd(float c, int* evals) : AddScalar(c), evals_(evals) {}
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    (*evals_)++;
    AddScalar::eval(ctx, in);
  }
  int* evals_;
};

}  // namespace

// A node folded from constants is evaluated again only when its op or an input value changed:
// analysing the graph again (after every pass), or compacting it, reuses the fold; a new
// constant, a new op or a constant replaced by another one with the same bytes elsewhere
// recompute it.
TEST(Graph, ConstantFoldsAreReusedUntilAnInputChanges) {
  int evals = 0;
  Graph g;
  Outlet c = g.add_const("c", Tensor::from_vector<float>({3}, {1, 2, 3}));
  int a = g.add_node("a", std::make_shared<CountingAdd>(1.0f, &evals), {c});
  g.set_outputs({{a, 0}}, {"y"});
  g.analyse();
  ASSERT_EQ(evals, 1);
  ASSERT_TRUE(g.fact({a, 0}).value);
  EXPECT_EQ(g.fact({a, 0}).value->values<float>()[2], 4.0f);
  g.analyse();
  g.analyse();
  EXPECT_EQ(evals, 1);
  compact(g);
  g.analyse();
  EXPECT_EQ(evals, 1);
  EXPECT_EQ(g.fact({g.outputs()[0].node, 0}).value->values<float>()[2], 4.0f);
  // Another constant of other values: evaluated again, with the new values.
  const int node = g.outputs()[0].node;
  Outlet c2 = g.add_const("c2", Tensor::from_vector<float>({3}, {10, 20, 30}));
  g.node(node).inputs[0] = c2;
  g.analyse();
  EXPECT_EQ(evals, 2);
  EXPECT_EQ(g.fact({node, 0}).value->values<float>()[2], 31.0f);
  // Another op object: evaluated again.
  g.node(node).op = std::make_shared<CountingAdd>(2.0f, &evals);
  g.analyse();
  EXPECT_EQ(evals, 3);
  EXPECT_EQ(g.fact({node, 0}).value->values<float>()[2], 32.0f);
}

TEST(Graph, AnalyseRunAndReuseBuffers) {
  auto g = std::make_shared<Graph>();
  Outlet x = g->add_source("x", Fact::parse("2,S,f32"));
  int a = g->add_node("a", std::make_shared<AddScalar>(1.0f), {x});
  int b = g->add_node("b", std::make_shared<AddScalar>(10.0f), {{a, 0}});
  g->set_outputs({{b, 0}}, {"y"});
  g->analyse();
  EXPECT_EQ(g->fact({b, 0}).to_string(), "2,S,f32");
  State state(std::make_shared<Plan>(g));
  auto in = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  auto out = state.run({in});
  EXPECT_EQ(out[0].values<float>()[3], 15.0f);
  EXPECT_EQ(state.symbols().at("S"), 2);
  const void* first = out[0].raw_data();
  out.clear();
  auto again = state.run({in});
  EXPECT_EQ(again[0].raw_data(), first);  // steady state: same buffer
  EXPECT_THROW(state.run({Tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6})}), Error);
  EXPECT_THROW(state.run({}), Error);
}

TEST(Graph, AddingNodesNeverMovesTheOthers) {
  // Loaders and passes hold `const Node&` while they add nodes (the Gradient builder did, and
  // ASan caught it reading a node a growing vector had freed).
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,f32"));
  const Node& first = g.node(x.node);
  const std::string* name = &first.name;
  Outlet last = x;
  for (int i = 0; i < 5000; i++)
    last = {g.add_node("n" + std::to_string(i), std::make_shared<AddScalar>(1.0f), {last}), 0};
  EXPECT_EQ(&g.node(x.node), &first);
  EXPECT_EQ(&first.name, name);
  EXPECT_EQ(first.name, "x");
  EXPECT_EQ(g.size(), 5001u);
}

TEST(Graph, ConstantsFoldDuringAnalysis) {
  auto g = std::make_shared<Graph>();
  Outlet c = g->add_const("c", Tensor::from_vector<float>({2}, {1, 2}));
  int a = g->add_node("a", std::make_shared<AddScalar>(1.0f), {c});
  g->set_outputs({{a, 0}}, {"y"});
  g->analyse();
  ASSERT_TRUE(g->fact({a, 0}).value);
  EXPECT_EQ(g->fact({a, 0}).value->values<float>()[1], 3.0f);
}

TEST(Graph, EvalOrderSkipsUnusedNodes) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,f32"));
  g.add_node("unused", std::make_shared<AddScalar>(1.0f), {x});
  int used = g.add_node("used", std::make_shared<AddScalar>(1.0f), {x});
  g.set_outputs({{used, 0}}, {"y"});
  EXPECT_EQ(g.eval_order(), (std::vector<int>{0, 2}));
}

TEST(Graph, ErrorsNameTheNode) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("1,f32"));
  EXPECT_THROW(g.add_node("bad", std::make_shared<AddScalar>(1.0f), {{5, 0}}), Error);
  int n = g.add_node("fine", std::make_shared<AddScalar>(1.0f), {x});
  EXPECT_EQ(g.describe(n), "#1 'fine' (AddScalar)");
}

TEST(Fact, ParseAndPrint) {
  EXPECT_EQ(Fact::parse("1,3,224,224,f32").to_string(), "1,3,224,224,f32");
  EXPECT_EQ(Fact::parse("1,S,40").to_string(), "1,S,40,f32");
  EXPECT_EQ(Fact::parse("i64").to_string(), "i64");
  EXPECT_EQ(Fact::parse("N,2*S+1,u8").shape[1], Dim::parse("2*S+1"));
  EXPECT_THROW(Fact::parse("1,,3"), Error);
  EXPECT_THROW(Fact::parse("1,-3,f32"), Error);
  auto c = Fact::constant(Tensor::from_vector<int64_t>({2}, {4, 5}));
  ASSERT_TRUE(c.dims_value);
  EXPECT_EQ((*c.dims_value)[1], Dim(5));
  EXPECT_EQ(*c.known_i64_values(), (std::vector<int64_t>{4, 5}));
}

TEST(Broadcast, ShapesAndStrides) {
  EXPECT_EQ(broadcast_shapes({{2, 1, 3}, {4, 1}}), (Shape{2, 4, 3}));
  EXPECT_THROW(broadcast_shapes({{2, 3}, {4, 3}}), Error);
  EXPECT_EQ(broadcast_strides({4, 1}, {2, 4, 3}), (std::vector<int64_t>{0, 1, 0}));
  auto dims = broadcast_dims({{Dim(1), Dim::symbol("S")}, {Dim(3), Dim(1)}});
  EXPECT_EQ(dims_to_string(dims), "3,S");
  std::vector<int64_t> seen;
  for_each_broadcast<2>(
      {2, 3}, {broadcast_strides({3}, {2, 3}), broadcast_strides({2, 1}, {2, 3})},
      [&](int64_t, const std::array<int64_t, 2>& o) { seen.push_back(o[0] * 10 + o[1]); });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 10, 20, 1, 11, 21}));
}

// for_each_broadcast walks the trailing dims every input reads contiguously as one run: on random
// shapes of rank 0..9 (past kSmallRank too) with dims of 1 broadcast on either side, every output
// index comes once, in order, with the offsets a per-element index computation gives.
TEST(Broadcast, RunsVisitEveryElementWithItsOffsets) {
  std::mt19937 rng(7);
  for (int round = 0; round < 400; round++) {
    const size_t rank = rng() % 10;
    Shape out(rank), a(rank), b;
    for (size_t d = 0; d < rank; d++) {
      out[d] = 1 + static_cast<int64_t>(rng() % (rank > 6 ? 2 : 4));
      a[d] = rng() % 3 == 0 ? 1 : out[d];
    }
    const size_t b_rank = rank == 0 ? 0 : rng() % (rank + 1);
    for (size_t d = rank - b_rank; d < rank; d++) b.push_back(rng() % 3 == 0 ? 1 : out[d]);
    for (size_t d = 0; d < rank; d++)
      if (rng() % 4 == 0) out[d] = a[d];  // dims of 1 in the output too
    for (size_t d = 0; d < b_rank; d++)
      if (out[rank - b_rank + d] == 1) b[d] = 1;
    const auto sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
    std::vector<int64_t> seen;
    bool offsets_ok = true;
    for_each_broadcast<2>(out, {sa, sb}, [&](int64_t i, const std::array<int64_t, 2>& o) {
      int64_t rest = i, want_a = 0, want_b = 0;
      for (size_t d = rank; d-- > 0;) {
        const int64_t idx = rest % out[d];
        rest /= out[d];
        want_a += idx * sa[d];
        want_b += idx * sb[d];
      }
      offsets_ok = offsets_ok && o[0] == want_a && o[1] == want_b;
      seen.push_back(i);
    });
    ASSERT_TRUE(offsets_ok) << "round " << round << " out " << shape_to_string(out);
    ASSERT_EQ(static_cast<int64_t>(seen.size()), shape_numel(out)) << round;
    for (size_t i = 0; i < seen.size(); i++) ASSERT_EQ(seen[i], static_cast<int64_t>(i));
  }
}
