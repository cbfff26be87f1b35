// Gradient (ai.onnx.preview.training) beyond the two suite cases: broadcasting operands, Sub,
// Div, Neg, constants held by zs, outputs independent of an x, ops it cannot differentiate.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "base/error.h"
#include "core/state.h"
#include "io/onnx/onnx_loader.h"
#include "ops/training/sum_to_shape.h"

namespace kiln {
namespace {

struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* g;
  ModelBuilder() {
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    auto* training = model.add_opset_import();
    training->set_domain("ai.onnx.preview.training");
    training->set_version(1);
    g = model.mutable_graph();
    g->set_name("g");
  }
  void input(const std::string& name, std::vector<int64_t> dims) {
    auto* vi = g->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
  }
  void gradient(std::vector<std::string> xs, const std::string& y, std::vector<std::string> zs,
                std::vector<std::string> outs) {
    auto* n = g->add_node();
    n->set_op_type("Gradient");
    n->set_domain("ai.onnx.preview.training");
    for (auto& x : xs) n->add_input(x);
    for (auto& z : zs) n->add_input(z);
    for (auto& o : outs) n->add_output(o);
    auto* a = n->add_attribute();
    a->set_name("xs");
    a->set_type(onnx::AttributeProto::STRINGS);
    for (auto& x : xs) a->add_strings(x);
    auto* b = n->add_attribute();
    b->set_name("y");
    b->set_type(onnx::AttributeProto::STRING);
    b->set_s(y);
    if (!zs.empty()) {
      auto* c = n->add_attribute();
      c->set_name("zs");
      c->set_type(onnx::AttributeProto::STRINGS);
      for (auto& z : zs) c->add_strings(z);
    }
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) {
    auto graph = onnx_io::load_onnx_model(model, "");
    graph->analyse();
    return run_graph(graph, inputs);
  }
};

std::vector<float> values(const Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

TEST(Gradient, BroadcastMulSubDivNeg) {
  // y = -((a * b) - a / b), a: [2,3], b: [3] broadcast over rows.
  ModelBuilder m;
  m.input("a", {2, 3});
  m.input("b", {3});
  m.node("Mul", {"a", "b"}, {"p"});
  m.node("Div", {"a", "b"}, {"q"});
  m.node("Sub", {"p", "q"}, {"r"});
  m.node("Neg", {"r"}, {"y"});
  m.gradient({"a", "b"}, "y", {}, {"dy_da", "dy_db"});
  m.output("dy_da");
  m.output("dy_db");
  Tensor a = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::from_vector<float>({3}, {1, 2, 4});
  auto out = m.run({a, b});
  ASSERT_EQ(out[0].shape(), (Shape{2, 3}));
  ASSERT_EQ(out[1].shape(), (Shape{3}));
  // dy/da = -(b - 1/b); dy/db = sum over rows of -(a + a/b^2).
  std::vector<float> bv{1, 2, 4}, av{1, 2, 3, 4, 5, 6};
  for (int i = 0; i < 6; i++) EXPECT_FLOAT_EQ(values(out[0])[i], -(bv[i % 3] - 1 / bv[i % 3]));
  for (int j = 0; j < 3; j++) {
    float expected = 0;
    for (int r = 0; r < 2; r++) expected += -(av[r * 3 + j] + av[r * 3 + j] / (bv[j] * bv[j]));
    EXPECT_FLOAT_EQ(values(out[1])[j], expected);
  }
}

TEST(Gradient, ZsAreConstantsAndUnusedXsGetZeros) {
  // y = (a + c) * c with c held constant: dy/da = c; dy/dz for an x y ignores is 0.
  ModelBuilder m;
  m.input("a", {2});
  m.input("c", {2});
  m.input("unused", {2});
  m.node("Add", {"a", "c"}, {"s"});
  m.node("Mul", {"s", "c"}, {"y"});
  m.gradient({"a", "unused"}, "y", {"c"}, {"dy_da", "dy_du"});
  m.output("dy_da");
  m.output("dy_du");
  auto out =
      m.run({Tensor::from_vector<float>({2}, {1, 2}), Tensor::from_vector<float>({2}, {3, 5}),
             Tensor::from_vector<float>({2}, {7, 7})});
  EXPECT_EQ(values(out[0]), (std::vector<float>{3, 5}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{0, 0}));
}

TEST(Gradient, ReportsOpsItCannotDifferentiate) {
  ModelBuilder m;
  m.input("a", {2});
  m.node("Exp", {"a"}, {"y"});
  m.gradient({"a"}, "y", {}, {"dy_da"});
  m.output("dy_da");
  try {
    m.run({Tensor::from_vector<float>({2}, {1, 2})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("cannot differentiate"), std::string::npos) << e.chain();
  }
}

TEST(SumToShape, SumsBroadcastAxes) {
  ops::SumToShape op;
  Tensor x = Tensor::from_vector<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  Tensor like(DatumType::F32, {1, 3});
  std::vector<Tensor> outs(1);
  EvalContext ctx(outs);
  op.eval(ctx, {&x, &like});
  EXPECT_EQ(outs[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(values(outs[0]), (std::vector<float>{5, 7, 9}));
  Tensor bad(DatumType::F32, {2});
  EXPECT_THROW(op.eval(ctx, {&x, &bad}), Error);
}

}  // namespace
}  // namespace kiln
