// --timeout and --max-memory (kiln run, kiln bench): a runaway model stops with a clear error and
// exit code 1; a model larger than the budget is refused as "too large".
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "core/tensor.h"
#include "io/tensor/tensor_files.h"
#include "tests/cli/run_kiln.h"

namespace {

using kiln::testing::run_kiln;
namespace fs = std::filesystem;

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("kiln_limits_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// y = x + w with w a constant of `n` floats.
std::string write_add_model(int64_t n) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("g");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(n);
  w->set_raw_data(std::string(static_cast<size_t>(n) * 4, '\0'));
  auto* node = g->add_node();
  node->set_op_type("Add");
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  for (auto* vi : {g->add_input(), g->add_output()}) {
    vi->set_name(vi == &g->input(0) ? "x" : "y");
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(n);
  }
  std::string path = (temp_dir() / ("add_" + std::to_string(n) + ".onnx")).string();
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  return path;
}

TEST(LimitsCli, TimeoutStopsALoopOf2To62Trips) {
  const std::string model = KILN_SOURCE_DIR "/tests/cli/data/loop_2p62_trips.onnx";
  const std::string x = (temp_dir() / "x.npy").string();
  kiln::io::write_npy(x, kiln::Tensor::from_vector<float>({1}, {0}));
  for (const char* cmd : {"run", "bench"}) {
    auto r = run_kiln(std::string(cmd) + " " + model + " --input x=" + x + " --timeout 1");
    EXPECT_EQ(r.exit_code, 1) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("timed out after 1 s (--timeout)"), std::string::npos)
        << cmd << ": " << r.output;
    EXPECT_NE(r.output.find("Loop"), std::string::npos) << r.output;
  }
  // Unoptimized (the reference ops) too.
  auto r = run_kiln("run " + model + " --input x=" + x + " --timeout 1 --stage typed");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("timed out"), std::string::npos) << r.output;
}

TEST(LimitsCli, MaxMemoryRefusesTooLargeModels) {
  const std::string model = write_add_model(1 << 18);  // 1 MiB of weights
  const std::string x = (temp_dir() / "x1m.npy").string();
  kiln::io::write_npy(x, kiln::Tensor(kiln::DatumType::F32, {1 << 18}));
  auto ok = run_kiln("run " + model + " --input x=" + x + " --max-memory 64M -q");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  auto weights = run_kiln("run " + model + " --input x=" + x + " --max-memory 512K");
  EXPECT_EQ(weights.exit_code, 1) << weights.output;
  EXPECT_NE(weights.output.find("too large"), std::string::npos) << weights.output;
  // Weights fit, but weights + input + output do not.
  auto run = run_kiln("run " + model + " --input x=" + x + " --max-memory 2500K");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("too large"), std::string::npos) << run.output;
  auto bench = run_kiln("bench " + model + " --max-memory 512K --runs 1");
  EXPECT_EQ(bench.exit_code, 1) << bench.output;
  EXPECT_NE(bench.output.find("too large"), std::string::npos) << bench.output;
  // Not a size: a usage error.
  auto bad = run_kiln("run " + model + " --input x=" + x + " --max-memory lots");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

}  // namespace
