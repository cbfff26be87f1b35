// Graph::compact, ModelPatch and PassManager.
#include "core/patch.h"

#include <gtest/gtest.h>

#include "../passes/pass_test_util.h"
#include "core/pass.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"

using namespace kiln;
using kiln::testing::compute_ops;

namespace {

OpPtr add() {
  return std::make_shared<ops::Binary>(ops::BinaryKind::Add);
}
OpPtr mul() {
  return std::make_shared<ops::Binary>(ops::BinaryKind::Mul);
}
OpPtr neg() {
  return std::make_shared<ops::Unary>(ops::UnaryKind::Neg);
}

}  // namespace

TEST(Compact, DropsDeadNodesKeepsInputsAndRenumbers) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,f32"));
  Outlet unused = g.add_source("unused", Fact::parse("f32"));
  int dead = g.add_node("dead", neg(), {x});
  int y = g.add_node("y", neg(), {x});
  g.set_outputs({{y, 0}}, {"y"});
  g.analyse();
  auto ids = compact(g);
  EXPECT_EQ(ids[static_cast<size_t>(dead)], -1);
  EXPECT_EQ(ids[static_cast<size_t>(unused.node)], 1);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.outputs()[0].node, 2);
  EXPECT_EQ(g.node(2).name, "y");
  EXPECT_EQ(g.node(2).id, 2);
}

TEST(ModelPatch, ShuntToANewNodeRestoresDependencyOrder) {
  // y = neg(x) * x; insert z = neg(neg(x)) + 0 ... simpler: replace neg(x) by a new Mul(x, -1).
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,f32"));
  int n = g.add_node("n", neg(), {x});
  int y = g.add_node("y", mul(), {{n, 0}, x});
  g.set_outputs({{y, 0}}, {"y"});
  g.analyse();
  Graph before = g;
  ModelPatch patch(g);
  Outlet minus_one = patch.add_const("m1", Tensor::from_vector<float>({}, {-1.0f}));
  int m = patch.add_node("n2", mul(), {x, minus_one});
  EXPECT_EQ(g.fact({m, 0}).to_string(), "3,f32");  // analysed right away
  patch.shunt({n, 0}, {m, 0});
  EXPECT_EQ(patch.commit(), 1u);
  EXPECT_EQ(compute_ops(g), "Mul Mul");
  // The new Mul now comes before its user.
  EXPECT_LT(g.node(g.outputs()[0].node).inputs[0].node, g.outputs()[0].node);
  kiln::testing::expect_same_outputs(before, g,
                                     {Tensor::from_vector<float>({3}, {1.0f, -2.0f, 3.5f})});
}

TEST(ModelPatch, ShuntRewiresModelOutputsAndChecksTypes) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("3,f32"));
  Outlet i = g.add_source("i", Fact::parse("3,i64"));
  int n = g.add_node("n", neg(), {x});
  g.set_outputs({{n, 0}}, {"y"});
  g.analyse();
  ModelPatch patch(g);
  EXPECT_THROW(patch.shunt({n, 0}, i), Error);
  patch.shunt({n, 0}, x);
  patch.commit();
  EXPECT_EQ(g.outputs()[0], x);
  EXPECT_EQ(g.output_names()[0], "y");
  EXPECT_EQ(compute_ops(g), "");
}

TEST(ModelPatch, ReplaceOpReanalyses) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,f32"));
  Outlet c = g.add_const("c", Tensor::from_vector<float>({2, 1}, {1, 2}));
  int n = g.add_node("n", neg(), {x});
  g.set_outputs({{n, 0}}, {"y"});
  g.analyse();
  ModelPatch patch(g);
  patch.replace_op(n, add(), {x, c});
  EXPECT_EQ(g.fact({n, 0}).to_string(), "2,2,f32");
  EXPECT_EQ(patch.rewrites(), 1u);
  EXPECT_THROW(patch.replace_op(n, neg(), {{n, 0}}), Error);
}

namespace {

// Test pass: replaces the first Neg(Neg(v)) by v; one rewrite per run.
class DoubleNeg : public Pass {
 public:
  std::string name() const override { return "double-neg"; }
  size_t run(Graph& g) override {
    ModelPatch patch(g);
    for (const auto& n : g.nodes()) {
      if (n.op->name() != "Neg") continue;
      const Node& in = g.node(n.inputs[0].node);
      if (in.op->name() != "Neg") continue;
      patch.shunt({n.id, 0}, in.inputs[0]);
      break;
    }
    return patch.commit();
  }
};

}  // namespace

TEST(PassManager, RunsToAFixedPointAndReports) {
  Graph g;
  Outlet x = g.add_source("x", Fact::parse("2,f32"));
  Outlet v = x;
  for (int i = 0; i < 5; i++) v = {g.add_node("n" + std::to_string(i), neg(), {v}), 0};
  g.set_outputs({v}, {"y"});
  g.analyse();
  Graph before = g;
  PassManager m("declutter");
  m.add(std::make_unique<DoubleNeg>());
  auto report = m.run(g);
  EXPECT_EQ(compute_ops(g), "Neg");
  ASSERT_EQ(report.records.size(), 2u);
  EXPECT_EQ(report.records[0].pass, "double-neg");
  EXPECT_EQ(report.records[0].nodes_before, 5u);
  EXPECT_EQ(report.records[0].nodes_after, 3u);
  EXPECT_EQ(report.records[1].round, 2u);
  EXPECT_EQ(report.total_rewrites(), 2u);
  ASSERT_EQ(report.stages.size(), 1u);
  EXPECT_EQ(report.stages[0].nodes_before, 5u);
  EXPECT_EQ(report.stages[0].nodes_after, 1u);
  kiln::testing::expect_same_outputs(before, g, {Tensor::from_vector<float>({2}, {1, -3})});
}

TEST(FactParse, ConstantValues) {
  Fact sr = Fact::parse("i64=16000");
  ASSERT_TRUE(sr.value);
  EXPECT_EQ(sr.value->value_as_i64(0), 16000);
  EXPECT_EQ(sr.rank(), 0u);
  EXPECT_EQ(sr.to_string(), "i64=16000");
  Fact v = Fact::parse("2,f32=0.5,-1");
  ASSERT_TRUE(v.value);
  EXPECT_EQ(v.concrete_shape(), (Shape{2}));
  EXPECT_FLOAT_EQ(static_cast<float>(v.value->value_as_double(1)), -1.0f);
  EXPECT_TRUE(Fact::parse("bool=true").value->value_as_i64(0));
  EXPECT_THROW(Fact::parse("2,i64=1"), Error);  // count
  EXPECT_THROW(Fact::parse("i64=1.5"), Error);  // not an integer
  EXPECT_THROW(Fact::parse("i64=abc"), Error);  // not a number
  EXPECT_THROW(Fact::parse("S,i64=1"), Error);  // symbolic shape
  // Integers past int64 (the double -> int64 conversion was undefined: fuzz finding 26) and
  // element counts that overflow are errors.
  EXPECT_EQ(Fact::parse("i64=-9223372036854775808").value->value_as_i64(0), INT64_MIN);
  EXPECT_THROW(Fact::parse("i32=4444444444444444444444444444444"), Error);
  EXPECT_THROW(Fact::parse("i64=9223372036854775808"), Error);
  EXPECT_THROW(Fact::parse("i64=inf"), Error);
  EXPECT_THROW(Fact::parse("i64=nan"), Error);
  EXPECT_THROW(Fact::parse("4294967296,4294967296,4,i64=1"), Error);
}
