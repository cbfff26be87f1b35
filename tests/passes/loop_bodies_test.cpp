// loop-bodies: Loop and Scan bodies run optimized. The optimize stage gives both ops their body
// optimizer; a session switches to the optimized body when it meets the same input facts a
// second time; results match the reference bodies (float MatMul sums in another order: 1e-5).
#include <gtest/gtest.h>

#include <cmath>

#include "ops/control/loop.h"
#include "ops/control/scan.h"
#include "ops/control/subgraph_runner.h"
#include "ops/elementwise/binary.h"
#include "ops/elementwise/unary.h"
#include "ops/nn/matmul.h"
#include "passes/loop_bodies.h"
#include "passes/pipeline.h"
#include "tests/passes/pass_test_util.h"

namespace kiln {
namespace {

using testing::random_tensor;

// [iteration, cond, x [1, 8]] -> [cond, tanh(x W)]: a recurrent body with a constant weight.
GraphPtr loop_body() {
  auto body = std::make_shared<Graph>();
  body->add_source("i", Fact(DatumType::I64, std::vector<Dim>{}));
  Outlet cond = body->add_source("cond", Fact(DatumType::Bool, std::vector<Dim>{}));
  Outlet x = body->add_source("x", Fact(DatumType::F32, std::vector<Dim>{1, 8}));
  Outlet w = body->add_const("w", random_tensor({8, 8}, 7));
  int mm = body->add_node("mm", std::make_shared<ops::MatMul>(), {x, w});
  int act = body->add_node("act", std::make_shared<ops::Unary>(ops::UnaryKind::Tanh), {{mm, 0}});
  body->set_outputs({cond, {act, 0}}, {"cond", "x"});
  return body;
}

TEST(LoopBodies, LoopAndScanGetTheOptimizerAndMatch) {
  Graph g;
  Outlet m = g.add_const("m", Tensor::scalar<int64_t>(6));
  Outlet t = g.add_const("t", Tensor::scalar<bool>(true));
  Outlet x = g.add_source("x", Fact(DatumType::F32, std::vector<Dim>{1, 8}));
  int loop = g.add_node("loop", std::make_shared<ops::Loop>(loop_body(), 1), {m, t, x});
  // Scan body: [s [1, 8], slice [1, 8]] -> [tanh(s W + slice), the same as scan output].
  auto sbody = std::make_shared<Graph>();
  Outlet s = sbody->add_source("s", Fact(DatumType::F32, std::vector<Dim>{1, 8}));
  Outlet slice = sbody->add_source("slice", Fact(DatumType::F32, std::vector<Dim>{1, 8}));
  Outlet w = sbody->add_const("w", random_tensor({8, 8}, 8));
  int mm = sbody->add_node("mm", std::make_shared<ops::MatMul>(), {s, w});
  int add =
      sbody->add_node("add", std::make_shared<ops::Binary>(ops::BinaryKind::Add), {{mm, 0}, slice});
  int act = sbody->add_node("act", std::make_shared<ops::Unary>(ops::UnaryKind::Tanh), {{add, 0}});
  sbody->set_outputs({{act, 0}, {act, 0}}, {"s", "y"});
  ops::ScanConfig config;
  config.num_states = 1;
  config.num_scan_inputs = 1;
  Outlet xs = g.add_source("xs", Fact(DatumType::F32, std::vector<Dim>{5, 1, 8}));
  int scan = g.add_node("scan", std::make_shared<ops::Scan>(sbody, config), {x, xs}, 2);
  g.set_outputs({{loop, 0}, {scan, 0}, {scan, 1}}, {"y", "s", "ys"});
  g.analyse();
  Graph before = g;
  EXPECT_EQ(passes::LoopBodies().run(g), 2u);
  int optimizing = 0;
  for (const auto& n : g.nodes()) {
    if (auto* l = dynamic_cast<const ops::Loop*>(n.op.get())) optimizing += l->optimizes_body();
    if (auto* sc = dynamic_cast<const ops::Scan*>(n.op.get())) optimizing += sc->optimizes_body();
  }
  EXPECT_EQ(optimizing, 2);
  EXPECT_EQ(passes::LoopBodies().run(g), 0u);  // once
  const std::vector<Tensor> inputs = {random_tensor({1, 8}, 1), random_tensor({5, 1, 8}, 2)};
  testing::expect_same_outputs(before, g, inputs, 1e-5, 1e-5);
  // The whole optimize stage installs it too.
  Graph staged = before;
  passes::run_to_stage(staged, passes::Stage::Optimize);
  testing::expect_same_outputs(before, staged, inputs, 1e-5, 1e-5);
}

// A session runs the optimized body from the second iteration with the same input facts on:
// the optimizer runs once, and its body (MatMul -> MatMulPacked) gives the reference's values.
TEST(LoopBodies, RunnerOptimizesOnTheSecondUseOnly) {
  GraphPtr body = loop_body();
  ops::SubgraphRunner reference(body), optimized(body);
  int calls = 0;
  std::string ops_after;
  optimized.set_optimizer([&](Graph& g) {
    calls++;
    passes::run_to_stage(g, passes::Stage::Optimize);
    ops_after = testing::compute_ops(g);
  });
  ops::SubgraphRunner::Runs ref_runs, opt_runs;
  Tensor x = random_tensor({1, 8}, 3);
  for (int it = 0; it < 4; it++) {
    std::vector<Tensor> in = {Tensor::scalar<int64_t>(it), Tensor::scalar<bool>(true), x};
    auto want = reference.run(ref_runs, in);
    auto got = optimized.run(opt_runs, in);
    EXPECT_EQ(calls, it == 0 ? 0 : 1) << "iteration " << it;
    auto r = compare_tensors(got[1], want[1], 1e-5, 1e-5);
    EXPECT_TRUE(r.ok) << r.summary();
    x = want[1];
  }
  EXPECT_NE(ops_after.find("MatMulPacked"), std::string::npos) << ops_after;
  // A body the passes reject keeps running as analysed.
  ops::SubgraphRunner failing(body);
  failing.set_optimizer([](Graph&) { throw Error("no"); });
  ops::SubgraphRunner::Runs runs;
  std::vector<Tensor> in = {Tensor::scalar<int64_t>(0), Tensor::scalar<bool>(true), x};
  auto first = failing.run(runs, in);
  auto second = failing.run(runs, in);
  EXPECT_TRUE(compare_tensors(second[1], first[1], 0, 0).ok);
}

}  // namespace
}  // namespace kiln
