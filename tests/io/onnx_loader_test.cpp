#include "io/onnx/onnx_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "core/state.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

class OnnxLoader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_loader_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    model_.set_ir_version(8);
    model_.add_opset_import()->set_version(13);
    auto* g = model_.mutable_graph();
    g->set_name("g");
    auto* x = g->add_input();
    x->set_name("x");
    auto* tt = x->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_param("batch size");
    tt->mutable_shape()->add_dim()->set_dim_value(2);
    auto* w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(2);
    auto* node = g->add_node();
    node->set_op_type("Add");
    node->add_input("x");
    node->add_input("w");
    node->add_output("y");
    g->add_output()->set_name("y");
  }
  void TearDown() override { fs::remove_all(dir_); }
  onnx::TensorProto* weight() { return model_.mutable_graph()->mutable_initializer(0); }
  std::string save() {
    std::string path = (dir_ / "m.onnx").string();
    std::ofstream out(path, std::ios::binary);
    model_.SerializeToOstream(&out);
    return path;
  }
  void set_external(const std::string& location) {
    weight()->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = weight()->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
  }
  fs::path dir_;
  onnx::ModelProto model_;
};

}  // namespace

TEST_F(OnnxLoader, DimParamsBecomeSymbolsAndModelRuns) {
  weight()->add_float_data(10);
  weight()->add_float_data(20);
  auto g = onnx_io::load_onnx_file(save());
  g->analyse();
  EXPECT_EQ(g->fact(g->inputs()[0]).to_string(), "batch_size,2,f32");
  EXPECT_EQ(g->fact(g->outputs()[0]).to_string(), "batch_size,2,f32");
  auto out = run_graph(g, {Tensor::from_vector<float>({1, 2}, {1, 2})});
  EXPECT_EQ(out[0].values<float>()[1], 22.0f);
}

TEST_F(OnnxLoader, ExternalDataNextToTheModel) {
  float values[2] = {3.5f, -1.0f};
  std::ofstream(dir_ / "w.bin", std::ios::binary)
      .write(reinterpret_cast<char*>(values), sizeof values);
  set_external("w.bin");
  auto g = onnx_io::load_onnx_file(save());
  g->analyse();
  auto out = run_graph(g, {Tensor::from_vector<float>({1, 2}, {1, 1})});
  EXPECT_EQ(out[0].values<float>()[0], 4.5f);
  EXPECT_EQ(out[0].values<float>()[1], 0.0f);
}

TEST_F(OnnxLoader, ExternalDataMustStayInTheModelFolder) {
  set_external("../../etc/passwd");
  try {
    onnx_io::load_onnx_file(save());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("outside the model folder"), std::string::npos) << e.chain();
  }
}

TEST_F(OnnxLoader, ExternalDataOfTheWrongSize) {
  std::ofstream(dir_ / "w.bin", std::ios::binary) << "abc";
  set_external("w.bin");
  EXPECT_THROW(onnx_io::load_onnx_file(save()), Error);
}

TEST_F(OnnxLoader, DanglingNamesAndBadRawData) {
  weight()->set_raw_data("12345");  // 5 bytes for 2 floats
  EXPECT_THROW(onnx_io::load_onnx_file(save()), Error);
  weight()->set_raw_data(std::string(8, '\0'));
  model_.mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
  try {
    onnx_io::load_onnx_file(save());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.chain().find("'nowhere' is used but never defined"), std::string::npos)
        << e.chain();
  }
}

TEST_F(OnnxLoader, OpsetInfo) {
  weight()->add_float_data(0);
  weight()->add_float_data(0);
  onnx_io::OnnxModelInfo info;
  onnx_io::load_onnx_file(save(), &info);
  EXPECT_EQ(info.opsets.at(""), 13);
  EXPECT_EQ(info.ir_version, 8);
}
