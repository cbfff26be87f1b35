// Translators of opset-dependent forms the backend cases do not cover: Upsample-7 (scales as an
// attribute) and Resize-10 (X, scales inputs; asymmetric coordinates).
#include <gtest/gtest.h>

#include "core/state.h"
#include "io/onnx/onnx_loader.h"
#include "io/onnx/tensor_proto.h"

using namespace kiln;

namespace {

onnx::ModelProto model(const std::string& op, int64_t opset, bool scales_input) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* imp = m.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* node = g->add_node();
  node->set_op_type(op);
  node->add_input("x");
  node->add_output("y");
  auto* mode = node->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("nearest");
  Tensor scales = Tensor::from_vector<float>({2}, {1.f, 3.f});
  if (scales_input) {
    node->add_input("scales");
    *g->add_initializer() = onnx_io::tensor_to_proto(scales, "scales");
  } else {
    auto* a = node->add_attribute();
    a->set_name("scales");
    a->set_type(onnx::AttributeProto::FLOATS);
    a->add_floats(1.f);
    a->add_floats(3.f);
  }
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  g->add_output()->set_name("y");
  return m;
}

void check(const onnx::ModelProto& m) {
  auto graph = onnx_io::load_onnx_model(m, "");
  graph->analyse();
  EXPECT_EQ(dims_to_string(graph->fact(graph->outputs()[0]).shape), "1,6");
  auto out = run_graph(graph, {Tensor::from_vector<float>({1, 2}, {1, 2})});
  auto v = out[0].values<float>();
  // Nearest with asymmetric coordinates and floor: each value repeated 3 times.
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

}  // namespace

TEST(ImageTranslators, Upsample7ScalesAttribute) {
  check(model("Upsample", 7, false));
}
TEST(ImageTranslators, Upsample9ScalesInput) {
  check(model("Upsample", 9, true));
}
TEST(ImageTranslators, Resize10) {
  check(model("Resize", 10, true));
}
