// Typing by cases (Graph::analyse, Op::output_fact_cases / assume_case) on an If shaped like
// torch's squeeze(-1) export: `x[2,T]` squeezed when its condition holds, passed on otherwise.
// The condition is only known when running, so the rest of the graph decides which branch
// typing assumes; the If then refuses at run time the inputs that take the other branch.
#include <gtest/gtest.h>

#include "core/graph.h"
#include "core/state.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "ops/control/if.h"
#include "ops/core/identity.h"
#include "ops/shape/concat.h"
#include "ops/shape/squeeze.h"

namespace kiln::ops {
namespace {

Tensor f32(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(shape, v);
}

// then: squeeze(x, -1) (rank 1), else: x (rank 2).
std::shared_ptr<If> squeeze_if() {
  auto then_g = std::make_shared<Graph>();
  Outlet tx = then_g->add_source("x", Fact());
  int sq = then_g->add_node("squeeze", std::make_shared<Squeeze>(std::vector<int64_t>{-1}), {tx});
  then_g->set_outputs({{sq, 0}}, {"out"});
  auto else_g = std::make_shared<Graph>();
  Outlet ex = else_g->add_source("x", Fact());
  int id = else_g->add_node("id", std::make_shared<Identity>(), {ex});
  else_g->set_outputs({{id, 0}}, {"out"});
  return std::make_shared<If>(IfBranch{then_g, {1}}, IfBranch{else_g, {1}});
}

struct Model {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  int if_node = -1;
  int user = -1;
};

// cond (bool, run-time), x [2,T]; y = concat(if(cond, x), c, axis 0) where c has `c_shape`:
// a rank-1 c fits only the squeezed (then) branch, a rank-2 [k,T] c only the else branch.
Model model(std::vector<Dim> c_shape) {
  Model m;
  Outlet cond = m.graph->add_source("cond", Fact(DatumType::Bool, std::vector<Dim>{}));
  Outlet x = m.graph->add_source("x", Fact(DatumType::F32, std::vector<Dim>{2, Dim::symbol("T")}));
  Outlet c = m.graph->add_source("c", Fact(DatumType::F32, std::move(c_shape)));
  m.if_node = m.graph->add_node("if", squeeze_if(), {cond, x});
  m.user = m.graph->add_node("concat", std::make_shared<Concat>(0), {{m.if_node, 0}, c});
  m.graph->set_outputs({{m.user, 0}}, {"y"});
  return m;
}

const If& if_op(const Model& m) {
  return dynamic_cast<const If&>(*m.graph->node(m.if_node).op);
}

TEST(IfCases, TypingAssumesTheBranchTheRestOfTheGraphNeeds) {
  Model m = model({3});
  m.graph->analyse();
  ASSERT_TRUE(if_op(m).assumed().has_value());
  EXPECT_TRUE(*if_op(m).assumed());
  EXPECT_EQ(dims_to_string(m.graph->fact({m.if_node, 0}).shape), "2");
  EXPECT_EQ(dims_to_string(m.graph->fact({m.user, 0}).shape), "5");
  EXPECT_EQ(if_op(m).attributes(), (Attributes{{"assumed", "then"}}));

  Model e = model({1, Dim::symbol("T")});
  e.graph->analyse();
  ASSERT_TRUE(if_op(e).assumed().has_value());
  EXPECT_FALSE(*if_op(e).assumed());
  EXPECT_EQ(dims_to_string(e.graph->fact({e.user, 0}).shape), "3,T");
}

TEST(IfCases, EvalRunsTheAssumedBranchAndRefusesTheOther) {
  Model m = model({3});
  m.graph->analyse();
  State state(std::make_shared<Plan>(m.graph));
  Tensor x = f32({2, 1}, {1, 2});
  Tensor c = f32({3}, {3, 4, 5});
  auto out = state.run({Tensor::scalar<bool>(true), x, c});
  ASSERT_EQ(out[0].shape(), (Shape{5}));
  auto v = out[0].values<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()), (std::vector<float>{1, 2, 3, 4, 5}));
  try {
    state.run({Tensor::scalar<bool>(false), x, c});
    FAIL() << "the else branch ran although typing assumed the then branch";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("typed assuming this If takes its then branch"), std::string::npos)
        << e.chain();
    EXPECT_NE(e.chain().find("-i"), std::string::npos) << e.chain();
  }
}

TEST(IfCases, NoneOrSeveralCasesAreErrors) {
  // Nothing after the If: both branches type the graph, nothing says which one runs.
  auto g = std::make_shared<Graph>();
  Outlet cond = g->add_source("cond", Fact(DatumType::Bool, std::vector<Dim>{}));
  Outlet x = g->add_source("x", Fact(DatumType::F32, std::vector<Dim>{2, Dim::symbol("T")}));
  int id = g->add_node("if", squeeze_if(), {cond, x});
  g->set_outputs({{id, 0}}, {"y"});
  try {
    g->analyse();
    FAIL() << "an If with two typable cases was typed";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("several cases"), std::string::npos) << e.chain();
    EXPECT_NE(e.chain().find("differs between branches"), std::string::npos) << e.chain();
  }
  // A rank-3 c fits neither branch: both cases' failures are reported.
  Model m = model({1, 1, 1});
  try {
    m.graph->analyse();
    FAIL() << "an If with no typable case was typed";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("no case of node"), std::string::npos) << e.chain();
    EXPECT_NE(e.chain().find("assuming the then branch"), std::string::npos) << e.chain();
    EXPECT_NE(e.chain().find("assuming the else branch"), std::string::npos) << e.chain();
  }
}

TEST(IfCases, KnownConditionAgainstTheAssumptionIsAnError) {
  auto g = std::make_shared<Graph>();
  Outlet cond = g->add_const("cond", Tensor::scalar<bool>(false));
  Outlet x = g->add_source("x", Fact(DatumType::F32, std::vector<Dim>{2, 1}));
  auto base = squeeze_if();
  g->add_node("if", base->assume_case(0), {cond, x});
  EXPECT_THROW(g->analyse(), Error);
  // Without the assumption the known condition simply picks the else branch.
  auto h = std::make_shared<Graph>();
  Outlet hc = h->add_const("cond", Tensor::scalar<bool>(false));
  Outlet hx = h->add_source("x", Fact(DatumType::F32, std::vector<Dim>{2, 1}));
  int id = h->add_node("if", base, {hc, hx});
  h->analyse();
  EXPECT_EQ(dims_to_string(h->fact({id, 0}).shape), "2,1");
}

TEST(IfCases, NnefKeepsTheAssumedBranch) {
  Model m = model({3});
  m.graph->analyse();
  auto written = nnef::write_nnef(*m.graph);
  const auto& text = written.files.at("graph.nnef");
  std::string graph_text(text.begin(), text.end());
  EXPECT_NE(graph_text.find("assumed = 'then'"), std::string::npos) << graph_text;
  auto loaded = nnef::load_nnef_files(written.files);
  loaded->analyse();
  const If* op = nullptr;
  for (const auto& n : loaded->nodes())
    if (auto* i = dynamic_cast<const If*>(n.op.get())) op = i;
  ASSERT_NE(op, nullptr);
  ASSERT_TRUE(op->assumed().has_value());
  EXPECT_TRUE(*op->assumed());
  State state(std::make_shared<Plan>(loaded));
  Tensor x = f32({2, 1}, {1, 2});
  Tensor c = f32({3}, {3, 4, 5});
  EXPECT_EQ(state.run({Tensor::scalar<bool>(true), x, c})[0].shape(), (Shape{5}));
  EXPECT_THROW(state.run({Tensor::scalar<bool>(false), x, c}), Error);
}

}  // namespace
}  // namespace kiln::ops
