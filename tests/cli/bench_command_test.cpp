// kiln bench through the CLI: statistics, JSON fields, the baseline gate, inputs.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/tensor.h"
#include "io/tensor/tensor_files.h"
#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln_command;

// y = Relu(x), x: float[2, dim1] where dim1 is a number or a symbol.
void write_relu_model(const std::string& path, const std::string& dim1) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("g");
  auto* node = g->add_node();
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  for (auto* vi : {g->add_input(), g->add_output()}) {
    vi->set_name(vi == &g->input(0) ? "x" : "y");
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(2);
    if (std::isdigit(static_cast<unsigned char>(dim1[0])))
      tt->mutable_shape()->add_dim()->set_dim_value(std::stoll(dim1));
    else
      tt->mutable_shape()->add_dim()->set_dim_param(dim1);
  }
  std::ofstream out(path, std::ios::binary);
  model.SerializeToOstream(&out);
}

class BenchCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_bench_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    model_ = path("relu.onnx");
    write_relu_model(model_, "3");
    symbolic_ = path("relu_sym.onnx");
    write_relu_model(symbolic_, "S");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) { return (dir_ / name).string(); }
  void write_file(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }

  fs::path dir_;
  std::string model_, symbolic_;
};

TEST_F(BenchCommand, TextReportsRunsAndOrderedPercentiles) {
  auto r = run_kiln_command("bench " + model_ + " --runs 7 --warmup 2");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::smatch m;
  std::regex line(
      R"(Bench ran (\d+) times, median ([0-9.]+) ms/i \(min ([0-9.]+), p90 ([0-9.]+), p99 ([0-9.]+)\))");
  ASSERT_TRUE(std::regex_search(r.out, m, line)) << r.out;
  EXPECT_EQ(m[1].str(), "7");
  double median = std::stod(m[2]), min = std::stod(m[3]), p90 = std::stod(m[4]),
         p99 = std::stod(m[5]);
  EXPECT_LE(min, median);
  EXPECT_LE(median, p90);
  EXPECT_LE(p90, p99);
  EXPECT_NE(r.out.find("random inputs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'x' 2,3,f32 uniform in [-1,1)"), std::string::npos) << r.out;
}

TEST_F(BenchCommand, JsonHasTheDocumentedFields) {
  auto r = run_kiln_command("bench " + model_ + " --runs 5 --threads 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"median_ms", "min_ms", "p90_ms", "p99_ms", "cpu_ms"}) {
    ASSERT_TRUE(doc.contains(key) && doc[key].is_number()) << key << "\n" << r.out;
    EXPECT_GE(doc[key].get<double>(), 0) << key;
  }
  EXPECT_EQ(doc["runs"], 5);
  EXPECT_EQ(doc["threads"], 1);
  EXPECT_EQ(doc["model"], model_);
  EXPECT_TRUE(doc["cpu"].is_string() && !doc["cpu"].get<std::string>().empty());
  EXPECT_EQ(doc["random_inputs"], true);
  EXPECT_LE(doc["min_ms"].get<double>(), doc["median_ms"].get<double>());
  EXPECT_LE(doc["median_ms"].get<double>(), doc["p99_ms"].get<double>());
}

TEST_F(BenchCommand, MaxTimeAloneRunsUntilTheBudget) {
  auto r = run_kiln_command("bench " + model_ + " --max-time 0.2 --warmup 0 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  // A Relu on 6 floats takes microseconds: 0.2 s holds far more than the default 100 runs.
  EXPECT_GT(doc["runs"].get<int>(), 100);
  EXPECT_EQ(doc["warmup_runs"], 0);
}

TEST_F(BenchCommand, BaselineGatePassesWhenFaster) {
  write_file("slow_base.json", R"({"median_ms": 100000.0})");
  auto r = run_kiln_command("bench " + model_ + " --runs 3 --baseline " + path("slow_base.json") +
                            " --max-regression 10%");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("faster"), std::string::npos) << r.out;
}

TEST_F(BenchCommand, BaselineGateFailsWhenSlowerAndSaysByHowMuch) {
  write_file("fast_base.json", R"({"median_ms": 0.0000001})");
  auto r = run_kiln_command("bench " + model_ + " --runs 3 --json --baseline " +
                            path("fast_base.json") + " --max-regression 10");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("slower than the baseline"), std::string::npos) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["baseline"]["regressed"], true);
  EXPECT_GT(doc["baseline"]["change_percent"].get<double>(), 10);
  EXPECT_EQ(doc["baseline"]["max_regression_percent"], 10);
}

TEST_F(BenchCommand, OwnJsonOutputIsAValidBaseline) {
  auto first = run_kiln_command("bench " + model_ + " --runs 3 --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  write_file("base.json", first.out);
  // 1e6 % allowed: the gate must pass against its own previous result.
  auto r = run_kiln_command("bench " + model_ + " --runs 3 --baseline " + path("base.json") +
                            " --max-regression 1000000%");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(BenchCommand, BadBaselinesAreErrors) {
  write_file("not_json.json", "median 3 ms");
  write_file("no_median.json", R"({"runs": 3})");
  for (const char* name : {"not_json.json", "no_median.json", "absent.json"}) {
    auto r = run_kiln_command("bench " + model_ + " --runs 1 --baseline " + path(name));
    EXPECT_EQ(r.exit_code, 1) << name;
    EXPECT_NE(r.err.find("--baseline"), std::string::npos) << r.err;
  }
  write_file("base.json", R"({"median_ms": 1})");
  auto r = run_kiln_command("bench " + model_ + " --runs 1 --baseline " + path("base.json") +
                            " --max-regression lots");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--max-regression lots"), std::string::npos) << r.err;
}

TEST_F(BenchCommand, SymbolicInputNeedsAFactOrABundle) {
  auto r = run_kiln_command("bench " + symbolic_ + " --runs 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("input 'x' has the symbolic shape 2,S"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-i x:2,1,f32"), std::string::npos) << r.err;
  auto ok = run_kiln_command("bench " + symbolic_ + " -i 2,5,f32 --runs 1");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("'x' 2,5,f32"), std::string::npos) << ok.out;
}

TEST_F(BenchCommand, GivenInputsAreUsedAndConstantOnesWarned) {
  kiln::io::write_npy(path("x.npy"),
                      kiln::Tensor::from_vector<float>({2, 4}, {1, 1, 1, 1, 1, 1, 1, 1}));
  auto r = run_kiln_command("bench " + symbolic_ + " --input x=" + path("x.npy") + " --runs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Inputs: inputs from --input files"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("input 'x' is constant"), std::string::npos) << r.err;
}

TEST(BenchSharedModels, EveryModelBenchesWithRandomAndBundleInputs) {
  auto dir = kiln::testing::shared_models_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/models not present";
  int benched = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    auto model = entry.path() / "model.onnx";
    if (!fs::exists(model)) continue;
    auto bundle = entry.path() / "test_data_set_0";
    auto r = run_kiln_command("bench " + model.string() + " --input-bundle " + bundle.string() +
                              " --runs 1 --warmup 0 --json");
    ASSERT_EQ(r.exit_code, 0) << model << "\n" << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["runs"], 1) << model;
    auto random = run_kiln_command("bench " + model.string() + " --runs 1 --warmup 0");
    // Random inputs work unless the model has symbolic input dims, which must be named.
    if (random.exit_code != 0)
      EXPECT_NE(random.err.find("has the symbolic shape"), std::string::npos) << model << "\n"
                                                                              << random.err;
    else
      EXPECT_NE(random.out.find("random inputs"), std::string::npos) << model;
    benched++;
  }
  EXPECT_GE(benched, 5);
}

TEST(BenchSharedModels, TensorFlowGraphWithWavBytes) {
  auto dir = kiln::testing::shared_models_dir();
  if (dir.empty() || !fs::exists(dir / "tf-ml-kws" / "DS_CNN_S.pb")) GTEST_SKIP();
  std::string model = (dir / "tf-ml-kws" / "DS_CNN_S.pb").string();
  auto random = run_kiln_command("bench " + model + " --runs 1");
  EXPECT_EQ(random.exit_code, 1);
  EXPECT_NE(random.err.find("input 'wav_data' holds strings"), std::string::npos) << random.err;
  auto r = run_kiln_command("bench " + model + " --input wav_data=@" +
                            (dir / "tf-ml-kws" / "silence.wav").string() + " --runs 2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["runs"], 2);
}

TEST_F(BenchCommand, StageOption) {
  auto typed = run_kiln_command("bench " + model_ + " --runs 1 --stage typed --json");
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  EXPECT_EQ(nlohmann::json::parse(typed.out)["stage"], "typed");
  auto dflt = run_kiln_command("bench " + model_ + " --runs 1 --json");
  EXPECT_EQ(nlohmann::json::parse(dflt.out)["stage"], "optimize");
  EXPECT_EQ(run_kiln_command("bench " + model_ + " --stage fast").exit_code, 2);
}

}  // namespace
