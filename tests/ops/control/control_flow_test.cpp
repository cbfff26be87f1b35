// If, Loop and Scan on hand-built body graphs. Bodies use Identity, Const and a test-only Add.
#include <gtest/gtest.h>

#include "core/graph.h"
#include "core/state.h"
#include "ops/control/if.h"
#include "ops/control/loop.h"
#include "ops/control/scan.h"
#include "ops/core/identity.h"

namespace kiln::ops {
namespace {

// f32 addition of two same-shape tensors (test only).
class TestAdd : public Op {
 public:
  std::string name() const override { return "TestAdd"; }
  std::vector<Fact> output_facts(const FactRefs& in) const override {
    KILN_ENSURE(in.size() == 2 && in[0] && in[1], "TestAdd needs 2 inputs");
    KILN_ENSURE(in[0]->rank() == in[1]->rank(), "TestAdd: ranks differ");
    return {Fact(DatumType::F32, in[0]->shape)};
  }
  void eval(EvalContext& ctx, const TensorRefs& in) const override {
    KILN_ENSURE(in[0]->shape() == in[1]->shape(), "TestAdd: shapes differ");
    Tensor& out = ctx.output(0, DatumType::F32, in[0]->shape());
    for (int64_t i = 0; i < out.numel(); i++)
      out.data<float>()[i] = in[0]->data<float>()[i] + in[1]->data<float>()[i];
  }
};

Tensor f32(Shape shape, std::vector<float> v) {
  return Tensor::from_vector<float>(shape, v);
}
std::vector<float> values(const Tensor& t) {
  auto s = t.values<float>();
  return {s.begin(), s.end()};
}

// then: x (captured), else: c + c (captured const).
std::shared_ptr<If> make_if() {
  auto then_g = std::make_shared<Graph>();
  Outlet tx = then_g->add_source("x", Fact());
  int ti = then_g->add_node("id", std::make_shared<Identity>(), {tx});
  then_g->set_outputs({{ti, 0}}, {"out"});
  auto else_g = std::make_shared<Graph>();
  Outlet ec = else_g->add_source("c", Fact());
  int ea = else_g->add_node("add", std::make_shared<TestAdd>(), {ec, ec});
  else_g->set_outputs({{ea, 0}}, {"out"});
  return std::make_shared<If>(IfBranch{then_g, {1}}, IfBranch{else_g, {2}});
}

TEST(ControlIf, FactsAndBothBranches) {
  auto g = std::make_shared<Graph>();
  Outlet cond = g->add_source("cond", Fact(DatumType::Bool, std::vector<Dim>{}));
  Outlet x = g->add_source("x", Fact(DatumType::F32, std::vector<Dim>{Dim::symbol("S"), 2}));
  Outlet c = g->add_const("c", f32({1, 2}, {1, 2}));
  int id = g->add_node("if", make_if(), {cond, x, c});
  g->set_outputs({{id, 0}}, {"y"});
  g->analyse();
  const Fact& f = g->fact({id, 0});
  ASSERT_EQ(f.rank(), 2u);
  EXPECT_FALSE(f.shape[0].is_int());  // S vs 1: a fresh dim
  EXPECT_NE(f.shape[0], Dim::symbol("S"));
  EXPECT_EQ(f.shape[1], Dim(2));

  State state(std::make_shared<Plan>(g));
  Tensor xv = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = state.run({Tensor::scalar<bool>(true), xv});
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  out = state.run({Tensor::scalar<bool>(false), xv});
  EXPECT_EQ(out[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{2, 4}));
  // Another x shape: the then branch re-checks against its facts.
  out = state.run({Tensor::scalar<bool>(true), f32({1, 2}, {7, 8})});
  EXPECT_EQ(values(out[0]), (std::vector<float>{7, 8}));
}

TEST(ControlIf, ConstantConditionUsesTakenBranch) {
  auto g = std::make_shared<Graph>();
  Outlet cond = g->add_const("cond", Tensor::scalar<bool>(true));
  Outlet x = g->add_source("x", Fact(DatumType::F32, std::vector<Dim>{Dim::symbol("S"), 2}));
  Outlet c = g->add_const("c", f32({1, 3}, {1, 2, 3}));  // else would not even agree in shape
  int id = g->add_node("if", make_if(), {cond, x, c});
  g->set_outputs({{id, 0}}, {"y"});
  g->analyse();
  EXPECT_EQ(dims_to_string(g->fact({id, 0}).shape), "S,2");
}

TEST(ControlIf, MismatchedBranchesAndBadCond) {
  auto g = std::make_shared<Graph>();
  Outlet cond = g->add_source("cond", Fact(DatumType::Bool, std::vector<Dim>{}));
  Outlet x = g->add_source("x", Fact(DatumType::F32, Shape{2}));
  Outlet c = g->add_const("c", f32({1, 2}, {1, 2}));
  g->add_node("if", make_if(), {cond, x, c});
  EXPECT_THROW(g->analyse(), Error);  // rank 1 vs rank 2
  auto op = make_if();
  Tensor two = Tensor::from_vector<bool>({2}, {true, false});
  Tensor xv = f32({1, 2}, {1, 2});
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  EXPECT_THROW(op->eval(ctx, {&two, &xv, &xv}), Error);
}

// Body: y_out = y_in + x (captured); cond passed through; scan = y_out.
std::shared_ptr<Loop> make_loop() {
  auto body = std::make_shared<Graph>();
  body->add_source("iter", Fact(DatumType::I64, Shape{}));
  Outlet cin = body->add_source("cond", Fact(DatumType::Bool, Shape{}));
  Outlet y = body->add_source("y", Fact());
  Outlet x = body->add_source("x", Fact());
  int add = body->add_node("add", std::make_shared<TestAdd>(), {y, x});
  int cid = body->add_node("cond_out", std::make_shared<Identity>(), {cin});
  int sid = body->add_node("scan", std::make_shared<Identity>(), {{add, 0}});
  body->set_outputs({{cid, 0}, {add, 0}, {sid, 0}}, {"cond", "y", "scan"});
  return std::make_shared<Loop>(body, 1);
}

TEST(ControlLoop, CarriedAndScanOutputs) {
  auto g = std::make_shared<Graph>();
  Outlet m = g->add_source("m", Fact(DatumType::I64, Shape{}));
  Outlet cond = g->add_source("cond", Fact(DatumType::Bool, Shape{}));
  Outlet y = g->add_source("y", Fact(DatumType::F32, Shape{2}));
  Outlet x = g->add_const("x", f32({2}, {1, 10}));
  int id = g->add_node("loop", make_loop(), {m, cond, y, x}, 2);
  g->set_outputs({{id, 0}, {id, 1}}, {"y", "scan"});
  g->analyse();
  EXPECT_EQ(dims_to_string(g->fact({id, 0}).shape), "2");
  const Fact& sf = g->fact({id, 1});
  ASSERT_EQ(sf.rank(), 2u);
  EXPECT_FALSE(sf.shape[0].is_int());
  EXPECT_EQ(sf.shape[1], Dim(2));

  State state(std::make_shared<Plan>(g));
  Tensor y0 = f32({2}, {0, 1});
  auto out = state.run({Tensor::scalar<int64_t>(3), Tensor::scalar<bool>(true), y0});
  EXPECT_EQ(values(out[0]), (std::vector<float>{3, 31}));
  EXPECT_EQ(out[1].shape(), (Shape{3, 2}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{1, 11, 2, 21, 3, 31}));
  // cond false: no iteration, empty scan output.
  out = state.run({Tensor::scalar<int64_t>(3), Tensor::scalar<bool>(false), y0});
  EXPECT_EQ(values(out[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(out[1].shape(), (Shape{0, 2}));
}

TEST(ControlLoop, KnownTripCountAndFolding) {
  // M constant, cond absent, body cond constant true: the scan length is M.
  auto body = std::make_shared<Graph>();
  body->add_source("iter", Fact(DatumType::I64, Shape{}));
  body->add_source("cond", Fact(DatumType::Bool, Shape{}));
  Outlet y = body->add_source("y", Fact());
  Outlet t = body->add_const("true", Tensor::scalar<bool>(true));
  int add = body->add_node("add", std::make_shared<TestAdd>(), {y, y});
  body->set_outputs({t, {add, 0}, {add, 0}}, {"cond", "y", "scan"});
  auto g = std::make_shared<Graph>();
  Outlet m = g->add_const("m", Tensor::scalar<int64_t>(4));
  Outlet y0 = g->add_source("y", Fact(DatumType::F32, Shape{1}));
  int id = g->add_node("loop", std::make_shared<Loop>(body, 1), {m, Outlet{}, y0}, 2);
  g->set_outputs({{id, 0}, {id, 1}}, {"y", "scan"});
  g->analyse();
  EXPECT_EQ(dims_to_string(g->fact({id, 1}).shape), "4,1");
  auto out = run_graph(g, {f32({1}, {1})});
  EXPECT_EQ(values(out[0]), (std::vector<float>{16}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{2, 4, 8, 16}));
  EXPECT_THROW(Loop(body, 3), Error);
}

// Issue 25, defect 4: a loop whose body leaves its carried values as they were (a TF while
// counter that adds 0) and keeps its condition true would never end: an error, not a hang. A
// counted loop at such a fixed point stops early with the same result.
TEST(ControlLoop, FixedPointIsAnErrorOrAnEarlyExit) {
  auto body = std::make_shared<Graph>();
  body->add_source("iter", Fact(DatumType::I64, Shape{}));
  Outlet c = body->add_source("cond", Fact(DatumType::Bool, Shape{}));
  Outlet y = body->add_source("y", Fact());
  int id = body->add_node("same", std::make_shared<Identity>(), {y});
  body->set_outputs({c, {id, 0}}, {"cond", "y"});
  for (int64_t trips : {int64_t{-1}, int64_t{1} << 62, int64_t{3}}) {
    auto g = std::make_shared<Graph>();
    Outlet m = trips < 0 ? Outlet{} : g->add_source("m", Fact(DatumType::I64, Shape{}));
    Outlet cond = g->add_source("cond", Fact(DatumType::Bool, Shape{}));
    Outlet y0 = g->add_source("y", Fact(DatumType::F32, Shape{2}));
    int loop = g->add_node("loop", std::make_shared<Loop>(body, 1), {m, cond, y0}, 1);
    g->set_outputs({{loop, 0}}, {"y"});
    g->analyse();
    std::vector<Tensor> in;
    if (trips >= 0) in.push_back(Tensor::scalar<int64_t>(trips));
    in.push_back(Tensor::scalar<bool>(true));
    in.push_back(f32({2}, {5, 6}));
    if (trips < 0) {
      try {
        run_graph(g, in);
        ADD_FAILURE() << "an endless loop ran to completion";
      } catch (const Error& e) {
        EXPECT_NE(e.chain().find("would never end"), std::string::npos) << e.chain();
      }
    } else {
      EXPECT_EQ(values(run_graph(g, in)[0]), (std::vector<float>{5, 6})) << trips;
    }
  }
}

// Body: sum_out = sum_in + next; scan = sum_out.
GraphPtr sum_body() {
  auto body = std::make_shared<Graph>();
  Outlet s = body->add_source("sum", Fact());
  Outlet n = body->add_source("next", Fact());
  int add = body->add_node("add", std::make_shared<TestAdd>(), {s, n});
  int id = body->add_node("scan", std::make_shared<Identity>(), {{add, 0}});
  body->set_outputs({{add, 0}, {id, 0}}, {"sum", "scan"});
  return body;
}

std::vector<Tensor> eval_op(const Op& op, const TensorRefs& in, size_t n) {
  std::vector<Tensor> outs(n);
  EvalContext ctx(outs);
  op.eval(ctx, in);
  return outs;
}

TEST(ControlScan, Opset9AxesAndDirections) {
  ScanConfig c;
  c.num_states = 1;
  c.num_scan_inputs = 1;
  Scan plain(sum_body(), c);
  Tensor init = f32({2}, {0, 0});
  Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Fact fi(DatumType::F32, Shape{2});
  Fact fx(DatumType::F32, std::vector<Dim>{Dim::symbol("T"), 2});
  auto facts = plain.output_facts({&fi, &fx});
  EXPECT_EQ(dims_to_string(facts[0].shape), "2");
  EXPECT_EQ(dims_to_string(facts[1].shape), "T,2");
  auto out = eval_op(plain, {&init, &x}, 2);
  EXPECT_EQ(values(out[0]), (std::vector<float>{9, 12}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{1, 2, 4, 6, 9, 12}));

  // Scan along axis 1 of the transposed input, reversed, output on axis 1 reversed.
  ScanConfig r = c;
  r.input_axes = {-1};
  r.input_directions = {1};
  r.output_axes = {1};
  r.output_directions = {1};
  Scan rev(sum_body(), r);
  Tensor xt = f32({2, 3}, {1, 3, 5, 2, 4, 6});
  Fact fxt(DatumType::F32, std::vector<Dim>{2, Dim::symbol("T")});
  EXPECT_EQ(dims_to_string(rev.output_facts({&fi, &fxt})[1].shape), "2,T");
  out = eval_op(rev, {&init, &xt}, 2);
  EXPECT_EQ(values(out[0]), (std::vector<float>{9, 12}));
  // Iterations see t=2,1,0: sums (5,6), (8,10), (9,12), written at positions 2,1,0 of axis 1.
  EXPECT_EQ(out[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{9, 8, 5, 12, 10, 6}));
}

TEST(ControlScan, Opset8BatchedWithSequenceLengths) {
  ScanConfig c;
  c.num_states = 1;
  c.num_scan_inputs = 1;
  c.batched = true;
  Scan op(sum_body(), c);
  Tensor init = f32({2, 1}, {0, 100});
  Tensor x = f32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  Tensor lens = Tensor::from_vector<int32_t>({2}, {3, 2});
  Fact fl(DatumType::I32, Shape{2}), fi(DatumType::F32, Shape{2, 1}),
      fx(DatumType::F32, Shape{2, 3, 1});
  auto facts = op.output_facts({&fl, &fi, &fx});
  EXPECT_EQ(dims_to_string(facts[0].shape), "2,1");
  EXPECT_EQ(dims_to_string(facts[1].shape), "2,3,1");
  auto out = eval_op(op, {&lens, &init, &x}, 2);
  EXPECT_EQ(values(out[0]), (std::vector<float>{6, 109}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{1, 3, 6, 104, 109, 0}));
  Tensor bad = Tensor::from_vector<int32_t>({2}, {4, 1});
  EXPECT_THROW(eval_op(op, {&bad, &init, &x}, 2), Error);
}

TEST(ControlScan, BadConfig) {
  ScanConfig c;
  c.num_states = 1;
  c.num_scan_inputs = 1;
  c.input_axes = {0, 1};
  EXPECT_THROW(Scan(sum_body(), c), Error);
  ScanConfig d;
  d.num_states = 2;
  d.num_scan_inputs = 1;
  EXPECT_THROW(Scan(sum_body(), d), Error);
  ScanConfig ok;
  ok.num_states = 1;
  ok.num_scan_inputs = 1;
  Scan op(sum_body(), ok);
  Fact fi(DatumType::F32, Shape{2}), fx(DatumType::F32, Shape{3, 3, 3});
  EXPECT_THROW(op.output_facts({&fi, &fx}), Error);  // slice rank 2 vs state rank 1
}

}  // namespace
}  // namespace kiln::ops

namespace kiln::ops {
namespace {

TEST(ControlScan, EmptySequence) {
  ScanConfig c;
  c.num_states = 1;
  c.num_scan_inputs = 1;
  Scan op(sum_body(), c);
  Tensor init = f32({2}, {1, 2});
  Tensor x(DatumType::F32, Shape{0, 2});
  auto out = eval_op(op, {&init, &x}, 2);
  EXPECT_EQ(values(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(out[1].shape(), (Shape{0, 2}));
}

}  // namespace
}  // namespace kiln::ops
