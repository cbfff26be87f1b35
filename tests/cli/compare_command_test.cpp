// kiln compare through the CLI: every shared float model against its NNEF conversion is clean;
// a deliberately broken kernel (KILN_TEST_FAULT, cli/test_fault.h) is named exactly, whether it
// breaks the optimize stage or only one ISA (run in a child process); thread counts and stages
// agree; reference directories (kiln run --save-values) match and a corrupted value is named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/tensor/tensor_files.h"
#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln_command;
using nlohmann::json;

struct SharedModel {
  const char* name;
  const char* facts;  // -i options both models need (as docs/nnef.md converts them)
};

const SharedModel kFloatModels[] = {
    {"mobilenet_v2", ""},
    {"squeezenet1_1", ""},
    {"kws_tdnn", ""},
    {"lstm_kws", ""},
    {"tiny_bert", ""},
    {"silero_vad_v4", "-i input:1,1536,f32 -i sr:i64 -i h:2,1,64,f32 -i c:2,1,64,f32"},
    {"silero_vad_v5", "-i sr:i64=16000"},
    {"wavenet_kws", ""},
    {"tdnn_stream", ""},
    {"crnn_stream", "-i input:1,200,40,f32"},  // the GRU is written unrolled: a known length
    {"conv2d_stream", ""},
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// `kiln ARGS` with environment assignments (NAME=value ...) in front, through env(1).
kiln::testing::KilnResult run_kiln_with_env(const std::string& env, const std::string& args) {
  fs::path err =
      fs::temp_directory_path() / ("kiln_compare_err_" + std::to_string(::getpid()) + ".txt");
  std::string cmd = "env " + env + " " + KILN_BINARY + " " + args + " 2>" + err.string();
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = pclose(pipe);
  std::string e = slurp(err);
  fs::remove(err);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, e};
}

fs::path model_dir(const std::string& name) {
  auto root = kiln::testing::shared_models_dir();
  if (root.empty() || !fs::exists(root / name / "model.onnx")) return {};
  return root / name;
}

class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kiln_compare_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Runs `kiln compare ARGS --json` (with `env` before it) and parses the report.
  json compare(const std::string& args, int expected_exit, const std::string& env = "") {
    std::string cmd = args + " --json";
    auto r =
        env.empty() ? run_kiln_command("compare " + cmd) : run_kiln_with_env(env, "compare " + cmd);
    EXPECT_EQ(r.exit_code, expected_exit) << args << "\n" << r.err;
    try {
      return json::parse(r.out);
    } catch (const json::exception&) {
      ADD_FAILURE() << "not JSON: " << r.out << "\n" << r.err;
      return json::object();
    }
  }
  fs::path dir_;
};

// The name of a compute node in the middle of the optimized graph with an f32 output made by
// a kernel (the node a broken kernel would be).
std::string middle_kernel_node(const std::string& model) {
  auto r = run_kiln_command("dump " + model + " -O --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& n : doc["nodes"]) {
    std::string op = n["op"];
    if (op.find("ConvPacked") != std::string::npos || op.find("MatMulPacked") != std::string::npos)
      names.push_back(n["name"]);
  }
  EXPECT_FALSE(names.empty()) << model;
  return names.empty() ? "" : names[names.size() / 2];
}

TEST_F(CompareCli, EverySharedFloatModelMatchesItsNnef) {
  int models = 0;
  for (const auto& m : kFloatModels) {
    fs::path dir = model_dir(m.name);
    if (dir.empty()) continue;
    SCOPED_TRACE(m.name);
    models++;
    std::string onnx = (dir / "model.onnx").string();
    std::string nnef = (dir_ / (std::string(m.name) + ".nnef.tgz")).string();
    auto conv = run_kiln_command("convert " + onnx + " " + nnef + " " + m.facts);
    ASSERT_EQ(conv.exit_code, 0) << conv.err;
    json doc = compare(
        onnx + " " + nnef + " " + m.facts + " --input-bundle " + (dir / "test_data_set_0").string(),
        0);
    EXPECT_TRUE(doc.value("clean", false)) << doc.dump(1).substr(0, 3000);
    EXPECT_EQ(doc["over_tolerance"], 0);
    EXPECT_GE(doc["outputs_compared"].get<int>(), 1);
    EXPECT_EQ(doc["outputs_over_tolerance"], 0);
    // Most values are matched by name across the conversion (the rest are listed).
    size_t values = doc["values"].size();
    EXPECT_GE(doc["compared"].get<size_t>() * 2, values)
        << doc["compared"] << " of " << values << " compared";
    std::printf("compare %s vs NNEF: %zu of %zu values compared, %zu fused, %zu only in A\n",
                m.name, doc["compared"].get<size_t>(), values, doc["fused"].get<size_t>(),
                doc["only_in_a"].get<size_t>());
  }
  if (models == 0) GTEST_SKIP() << "shared models not present";
}

TEST_F(CompareCli, ABrokenKernelIsNamedExactly) {
  for (const char* name : {"mobilenet_v2", "kws_tdnn"}) {
    fs::path dir = model_dir(name);
    if (dir.empty()) GTEST_SKIP() << "shared models not present";
    SCOPED_TRACE(name);
    std::string model = (dir / "model.onnx").string();
    std::string broken = middle_kernel_node(model);
    std::string bundle = " --input-bundle " + (dir / "test_data_set_0").string();
    // Broken at the optimize stage: typed (reference ops) against optimize (kernels).
    json doc = compare(model + " --stage-a typed --stage-b optimize" + bundle, 1,
                       "KILN_TEST_FAULT='" + broken + "'");
    ASSERT_TRUE(doc.contains("first_over_tolerance") && doc["first_over_tolerance"].is_object())
        << doc.dump(1).substr(0, 2000);
    EXPECT_EQ(doc["first_over_tolerance"]["name"], broken);
    // Its inputs were right: the error starts at this node.
    for (const auto& in : doc["first_over_tolerance"]["inputs"])
      EXPECT_NE(in["status"], "OVER") << in.dump();
    EXPECT_GT(doc["over_tolerance"].get<int>(), 0);
    // The same stages without the fault are clean.
    json clean = compare(model + " --stage-a typed --stage-b optimize" + bundle, 0);
    EXPECT_TRUE(clean.value("clean", false)) << clean.dump(1).substr(0, 2000);
  }
}

TEST_F(CompareCli, AKernelBrokenUnderOneIsaIsNamed) {
  fs::path dir = model_dir("mobilenet_v2");
  if (dir.empty()) GTEST_SKIP() << "shared models not present";
  std::string model = (dir / "model.onnx").string();
  std::string bundle = " --input-bundle " + (dir / "test_data_set_0").string();
  json ok = compare(model + " --isa-b generic" + bundle, 0);
  if (ok.value("a", std::string()).find("ISA generic ") != std::string::npos)
    GTEST_SKIP() << "this process already runs the generic kernels";
  EXPECT_NE(ok.value("b", std::string()).find("child process"), std::string::npos) << ok["b"];
  EXPECT_TRUE(ok.value("clean", false)) << ok.dump(1).substr(0, 2000);
  std::string broken = middle_kernel_node(model);
  json doc =
      compare(model + " --isa-b generic" + bundle, 1, "KILN_TEST_FAULT='" + broken + "@generic'");
  ASSERT_TRUE(doc["first_over_tolerance"].is_object()) << doc.dump(1).substr(0, 2000);
  EXPECT_EQ(doc["first_over_tolerance"]["name"], broken);
}

TEST_F(CompareCli, ThreadCountsAndStagesAgree) {
  for (const char* name : {"mobilenet_v2", "tiny_bert", "lstm_kws"}) {
    fs::path dir = model_dir(name);
    if (dir.empty()) GTEST_SKIP() << "shared models not present";
    SCOPED_TRACE(name);
    std::string model = (dir / "model.onnx").string();
    std::string bundle = " --input-bundle " + (dir / "test_data_set_0").string();
    json threads = compare(model + " --threads-a 1 --threads-b 2" + bundle, 0);
    EXPECT_TRUE(threads.value("clean", false));
    EXPECT_EQ(threads["compared"].get<size_t>(), threads["values"].size());  // same graph
    json stages = compare(model + " --stage-a typed --stage-b optimize" + bundle, 0);
    EXPECT_TRUE(stages.value("clean", false)) << stages.dump(1).substr(0, 3000);
  }
}

TEST_F(CompareCli, SavedValuesAsReferenceAndACorruptedOne) {
  fs::path dir = model_dir("kws_tdnn");
  if (dir.empty()) GTEST_SKIP() << "shared models not present";
  std::string model = (dir / "model.onnx").string();
  std::string bundle = " --input-bundle " + (dir / "test_data_set_0").string();
  fs::path values = dir_ / "values";
  auto r =
      run_kiln_command("run " + model + bundle + " --stage typed --save-values " + values.string() +
                       " --assert-output-bundle " + (dir / "test_data_set_0").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json index = json::parse(slurp(values / "values.json"));
  ASSERT_GT(index["values"].size(), 10u);
  json doc = compare(model + " --stage-a typed --reference " + values.string() + bundle, 0);
  EXPECT_EQ(doc["compared"].get<size_t>(), index["values"].size());
  // Corrupt one value in the middle: compare names it, its inputs are fine.
  const json& victim = index["values"][index["values"].size() / 2];
  fs::path file = values / victim["file"].get<std::string>();
  kiln::Tensor t = kiln::io::read_npy(file.string());
  t.values_mut<float>()[0] += 1.0f;
  kiln::io::write_npy(file.string(), t);
  json bad = compare(model + " --stage-a typed --reference " + values.string() + bundle, 1);
  ASSERT_TRUE(bad["first_over_tolerance"].is_object());
  EXPECT_EQ(bad["first_over_tolerance"]["key"], victim["key"]);
  EXPECT_EQ(bad["first_over_tolerance"]["mismatches"], 1);
}

// ONNX Runtime's intermediates (scripts/ort-dump-values.js) against kiln's typed and optimized
// values. Needs node and onnxruntime-node under build/ort (docs/compare.md); skipped otherwise.
TEST_F(CompareCli, OnnxRuntimeIntermediatesMatch) {
  fs::path dir = model_dir("kws_tdnn");
  if (dir.empty()) GTEST_SKIP() << "shared models not present";
  fs::path ort = fs::path(KILN_BINARY).parent_path() / "ort" / "node_modules" / "onnxruntime-node";
  if (!fs::exists(ort))
    GTEST_SKIP() << "SKIPPED: no onnxruntime-node at " << ort << " (see docs/compare.md)";
  fs::path values = dir_ / "ort";
  std::string cmd = "NODE_PATH=" + ort.parent_path().string() + " node " + KILN_SOURCE_DIR +
                    "/scripts/ort-dump-values.js " + (dir / "model.onnx").string() + " " +
                    values.string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string bundle = " --input-bundle " + (dir / "test_data_set_0").string();
  for (const char* stage : {"typed", "optimize"}) {
    json doc = compare((dir / "model.onnx").string() + " --stage-a " + stage + " --reference " +
                           values.string() + bundle,
                       0);
    EXPECT_TRUE(doc.value("clean", false)) << stage;
    EXPECT_EQ(doc["compared"].get<size_t>(), doc["values"].size()) << stage;  // all matched
  }
}

TEST_F(CompareCli, BadArgumentsAreClearErrors) {
  fs::path dir = model_dir("kws_tdnn");
  if (dir.empty()) GTEST_SKIP() << "shared models not present";
  std::string model = (dir / "model.onnx").string();
  auto r = run_kiln_command("compare " + model + " --reference /nonexistent/values");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  fs::create_directories(dir_ / "garbage");
  write_text(dir_ / "garbage" / "values.json", "{ not json");
  r = run_kiln_command("compare " + model + " --reference " + (dir_ / "garbage").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  write_text(dir_ / "garbage" / "values.json", R"({"values": [{"file": "../../etc/passwd"}]})");
  r = run_kiln_command("compare " + model + " --reference " + (dir_ / "garbage").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("plain name"), std::string::npos) << r.err;
  r = run_kiln_command("compare " + model + " " + model + " --reference " + dir_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not both"), std::string::npos) << r.err;
  r = run_kiln_command("compare " + model + " --stage-b nonsense");
  EXPECT_EQ(r.exit_code, 2);
  r = run_kiln_command("compare " + model + " --isa-b generic --threads-b 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;  // random inputs
  EXPECT_NE(r.out.find("Inputs: random"), std::string::npos) << r.out;
  r = run_kiln_command("compare " + model + " " + (dir_ / "missing.onnx").string());
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
