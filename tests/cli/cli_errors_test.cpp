// Bad input through the CLI: each case must exit 1 with a readable message, never crash.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/tensor.h"
#include "io/tensor/tensor_files.h"
#include "tests/cli/run_kiln.h"

namespace {

using kiln::testing::CommandResult;
using kiln::testing::run_kiln;

namespace fs = std::filesystem;

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_cli_errors_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // A valid model: y = Identity(x), x: float[2,3].
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    auto* g = model.mutable_graph();
    g->set_name("g");
    auto* node = g->add_node();
    node->set_op_type("Identity");
    node->add_input("x");
    node->add_output("y");
    for (auto* vi : {g->add_input(), g->add_output()}) {
      vi->set_name(vi == &g->input(0) ? "x" : "y");
      auto* tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(onnx::TensorProto::FLOAT);
      tt->mutable_shape()->add_dim()->set_dim_value(2);
      tt->mutable_shape()->add_dim()->set_dim_value(3);
    }
    good_ = write_model(model, "good.onnx");
    node->set_op_type("FrobnicateTensor");
    auto* node2 = g->add_node();
    node2->set_op_type("Teleport");
    node2->add_input("y");
    node2->add_output("z");
    unknown_op_ = write_model(model, "unknown_op.onnx");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write_model(const onnx::ModelProto& m, const std::string& name) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    m.SerializeToOstream(&out);
    return path;
  }
  std::string path(const std::string& name) { return (dir_ / name).string(); }

  fs::path dir_;
  std::string good_, unknown_op_;
};

TEST_F(CliErrors, GoodModelRuns) {
  kiln::io::write_npy(path("x.npy"), kiln::Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto r = run_kiln("run " + good_ + " --input x=" + path("x.npy"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2,3,f32 [1, 2, 3, 4, 5, 6]"), std::string::npos) << r.output;
}

TEST_F(CliErrors, MissingFile) {
  auto r = run_kiln("dump " + path("absent.onnx"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
}

TEST_F(CliErrors, TruncatedModel) {
  std::ifstream in(good_, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(path("truncated.onnx"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto r = run_kiln("dump " + path("truncated.onnx"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("not a valid ONNX model"), std::string::npos) << r.output;
}

TEST_F(CliErrors, RandomBytes) {
  std::mt19937 rng(42);
  std::string bytes(4096, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  std::ofstream(path("random.onnx"), std::ios::binary) << bytes;
  auto r = run_kiln("dump " + path("random.onnx"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("kiln: error:"), std::string::npos) << r.output;
}

TEST_F(CliErrors, UnknownOpsAreAllListed) {
  auto r = run_kiln("dump " + unknown_op_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("FrobnicateTensor"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Teleport"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 operator types"), std::string::npos) << r.output;
}

TEST_F(CliErrors, WrongInputShape) {
  kiln::io::write_npy(path("x.npy"), kiln::Tensor::from_vector<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  auto r = run_kiln("run " + good_ + " --input x=" + path("x.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("input 'x' should have shape [2,3] but has [3,2]"), std::string::npos)
      << r.output;
}

TEST_F(CliErrors, WrongInputType) {
  kiln::io::write_npy(path("x.npy"),
                      kiln::Tensor::from_vector<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto r = run_kiln("run " + good_ + " --input x=" + path("x.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("input 'x' should be f32 but is i64"), std::string::npos) << r.output;
}

TEST_F(CliErrors, MissingInput) {
  auto r = run_kiln("run " + good_ + " --input-bundle " + dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("missing model inputs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'x'"), std::string::npos) << r.output;
}

TEST_F(CliErrors, UnknownInputName) {
  kiln::io::write_npy(path("x.npy"), kiln::Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto r = run_kiln("run " + good_ + " --input nope=" + path("x.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no input named 'nope'"), std::string::npos) << r.output;
}

TEST_F(CliErrors, BadFactSyntax) {
  auto r = run_kiln("dump " + good_ + " -i 2,3$,f32");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("-i 2,3$,f32"), std::string::npos) << r.output;
}

TEST_F(CliErrors, UsageErrorsExitTwo) {
  EXPECT_EQ(run_kiln("").exit_code, 2);
  EXPECT_EQ(run_kiln("run").exit_code, 2);
  EXPECT_EQ(run_kiln("run " + good_ + " --no-such-flag").exit_code, 2);
  EXPECT_EQ(run_kiln("--help").exit_code, 0);
}

TEST_F(CliErrors, AssertOutputMismatchExitsOne) {
  kiln::io::write_npy(path("x.npy"), kiln::Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  fs::create_directories(dir_ / "ref");
  kiln::io::write_tensor_pb((dir_ / "ref" / "output_0.pb").string(),
                            kiln::Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 7}));
  auto r = run_kiln("run " + good_ + " --input x=" + path("x.npy") + " --assert-output-bundle " +
                    (dir_ / "ref").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("MISMATCH"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at [1,2]"), std::string::npos) << r.output;
}

// float16 outputs are compared at 1e-3 relative / absolute by default (about an ulp: two correct
// implementations round differently), at the given tolerances with --rtol / --atol.
TEST_F(CliErrors, AssertOutputFloat16DefaultTolerance) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(19);
  auto* g = model.mutable_graph();
  g->set_name("g");
  auto* node = g->add_node();
  node->set_op_type("Cast");
  node->add_input("x");
  node->add_output("y");
  auto* to = node->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT16);
  for (auto* vi : {g->add_input(), g->add_output()}) {
    bool in = vi == &g->input(0);
    vi->set_name(in ? "x" : "y");
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(in ? onnx::TensorProto::FLOAT : onnx::TensorProto::FLOAT16);
    tt->mutable_shape()->add_dim()->set_dim_value(2);
  }
  std::string cast = write_model(model, "cast_f16.onnx");
  kiln::io::write_npy(path("x.npy"), kiln::Tensor::from_vector<float>({2}, {1.0f, 2.0f}));
  auto check = [&](float e0, float e1, const std::string& flags) {
    fs::create_directories(dir_ / "ref16");
    kiln::io::write_tensor_pb(
        (dir_ / "ref16" / "output_0.pb").string(),
        kiln::Tensor::from_vector<kiln::f16>({2}, {kiln::f16(e0), kiln::f16(e1)}));
    return run_kiln("run " + cast + " --input x=" + path("x.npy") + " --assert-output-bundle " +
                    (dir_ / "ref16").string() + flags);
  };
  // One ulp off (1 + 2^-10): within the float16 default, not within float's.
  EXPECT_EQ(check(1.0009765625f, 2.0f, "").exit_code, 0);
  EXPECT_EQ(check(1.0009765625f, 2.0f, " --rtol 1e-4 --atol 1e-5").exit_code, 1);
  // Four ulps off at 2 (2 + 4 * 2^-9): over it.
  auto r = check(1.0f, 2.0078125f, "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("at [1]"), std::string::npos) << r.output;
}

}  // namespace
