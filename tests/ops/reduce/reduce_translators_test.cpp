// ONNX translators of the reduce family: opset-dependent attribute handling.
#include <gtest/gtest.h>

#include "base/error.h"
#include "core/state.h"
#include "io/onnx/onnx_loader.h"
#include "io/onnx/tensor_proto.h"
#include "tests/ops/reduce/op_test_util.h"

namespace kiln {
namespace {

using namespace reduce_test;

// A model with one node over float input "x" (shape given) and output "y".
onnx::ModelProto one_node_model(const std::string& op_type, int64_t opset, const Shape& shape,
                                const std::vector<std::pair<std::string, int64_t>>& int_attrs,
                                const std::vector<int64_t>* axes_initializer = nullptr) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto* g = model.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
  g->add_output()->set_name("y");
  auto* node = g->add_node();
  node->set_op_type(op_type);
  node->add_input("x");
  node->add_output("y");
  if (axes_initializer) {
    node->add_input("axes");
    Tensor axes = Tensor::from_vector<int64_t>({static_cast<int64_t>(axes_initializer->size())},
                                               *axes_initializer);
    *g->add_initializer() = onnx_io::tensor_to_proto(axes, "axes");
  }
  for (const auto& [name, value] : int_attrs) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  return model;
}

Tensor run_model(const onnx::ModelProto& model, const Tensor& x) {
  auto graph = onnx_io::load_onnx_model(model, "");
  graph->analyse();
  return run_graph(graph, {x})[0];
}

TEST(ReduceTranslators, SoftmaxAxisDefaultsDependOnOpset) {
  Tensor x = f32({2, 2}, {0, 0, 0, 0});
  // Opset 11: coerced to 2-D from axis 1 (rows of 2); opset 13: along the last axis. Both give
  // halves here, so use a 3-D input where they differ.
  Tensor x3 = f32({1, 2, 2}, {0, 0, 0, 0});
  expect_values<float>(run_model(one_node_model("Softmax", 11, {1, 2, 2}, {}), x3), {1, 2, 2},
                       {0.25f, 0.25f, 0.25f, 0.25f});
  expect_values<float>(run_model(one_node_model("Softmax", 13, {1, 2, 2}, {}), x3), {1, 2, 2},
                       {0.5f, 0.5f, 0.5f, 0.5f});
  expect_values<float>(run_model(one_node_model("Softmax", 13, {2, 2}, {{"axis", 0}}), x), {2, 2},
                       {0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(ReduceTranslators, AxesAttributeOrInput) {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  // Opset 11 ReduceSum: no axes attribute reduces everything.
  expect_values<float>(run_model(one_node_model("ReduceSum", 11, {2, 3}, {{"keepdims", 0}}), x), {},
                       {21});
  std::vector<int64_t> axes{-1};
  expect_values<float>(
      run_model(one_node_model("ReduceSum", 13, {2, 3}, {{"keepdims", 0}}, &axes), x), {2},
      {6, 15});
  expect_values<float>(
      run_model(one_node_model("ReduceMax", 18, {2, 3}, {{"keepdims", 1}}, &axes), x), {2, 1},
      {3, 6});
  // Opset 13 ReduceSum with no axes and noop_with_empty_axes: identity.
  expect_values<float>(
      run_model(one_node_model("ReduceSum", 13, {2, 3}, {{"noop_with_empty_axes", 1}}), x), {2, 3},
      {1, 2, 3, 4, 5, 6});
}

TEST(ReduceTranslators, ArgMaxAttributes) {
  Tensor x = f32({2, 2}, {1, 1, 3, 2});
  expect_values<int64_t>(
      run_model(one_node_model("ArgMax", 12, {2, 2},
                               {{"axis", -1}, {"keepdims", 0}, {"select_last_index", 1}}),
                x),
      {2}, {1, 0});
}

}  // namespace
}  // namespace kiln
