// The shared models through `kiln run --stage S` (declutter, optimize) and their compute-node
// counts after the passes (issue 4's targets where they are met).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;

fs::path models_dir() {
  return kiln::testing::shared_models_dir();
}

std::pair<int, std::string> kiln(const std::string& args) {
  auto r = kiln::testing::run_kiln(args, /*with_stderr=*/false);
  return {r.exit_code, r.output};
}

struct ModelCase {
  std::string name;
  std::string facts;  // -i options
  size_t max_declutter;
  size_t max_optimize;
};

class ModelStages : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ModelStages, MatchAndShrink) {
  const auto& c = GetParam();
  fs::path dir = models_dir() / c.name;
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  std::string model = (dir / "model.onnx").string();
  std::string bundle = (dir / "test_data_set_0").string();
  for (const char* stage : {"declutter", "optimize"}) {
    auto [rc, out] = kiln("run " + model + " --stage " + stage + " " + c.facts +
                          " --input-bundle " + bundle + " --assert-output-bundle " + bundle);
    EXPECT_EQ(rc, 0) << c.name << " at " << stage << ": " << out;
    auto [drc, json] = kiln("dump " + model + " --json --stage " + stage + " " + c.facts);
    ASSERT_EQ(drc, 0) << c.name;
    // Parsed into a named value first: ranging over parse(json)["nodes"] would read a destroyed
    // temporary (the range-init's temporaries die before the loop body runs).
    const nlohmann::json doc = nlohmann::json::parse(json);
    size_t compute = 0;
    for (const auto& node : doc.at("nodes"))
      if (node["op"] != "Source" && node["op"] != "Const") compute++;
    EXPECT_GT(compute, 0u) << c.name << " at " << stage;
    EXPECT_LE(compute, std::string(stage) == "declutter" ? c.max_declutter : c.max_optimize)
        << c.name << " at " << stage;
  }
}

// Bounds: issue 4's targets (silero_vad_v5 <= 80, lstm_kws <= 10, squeezenet1_1 <= 65 decluttered,
// mobilenet_v2 <= 66 optimized, tiny_bert <= 45 decluttered); the others pin what the passes
// reach today (MatMul's bias input, fold-scale, split-sliced-matmul, reshape-around-matmul).
INSTANTIATE_TEST_SUITE_P(
    Models, ModelStages,
    ::testing::Values(ModelCase{"mobilenet_v2", "", 100, 55},
                      ModelCase{"squeezenet1_1", "", 65, 39}, ModelCase{"kws_tdnn", "", 35, 14},
                      ModelCase{"lstm_kws", "", 7, 7}, ModelCase{"tiny_bert", "", 44, 36},
                      ModelCase{"silero_vad_v4", "-i sr:i64=16000", 80, 63},
                      ModelCase{"silero_vad_v5", "-i sr:i64=16000 -i input:1,576", 80, 32}),
    [](const auto& info) { return info.param.name; });

}  // namespace

#include "core/patch.h"
#include "io/model_loader.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"

namespace {

struct CostTotal {
  double fma = 0;
  size_t unknown = 0;  // compute nodes without a cost model
};

CostTotal total_cost(const kiln::Graph& g) {
  CostTotal t;
  for (const auto& n : g.nodes()) {
    if (kiln::is_source_or_const(n)) continue;
    kiln::FactRefs in;
    for (const auto& o : n.inputs) in.push_back(o.present() ? &g.fact(o) : nullptr);
    kiln::Cost c = n.op->cost(in);
    if (!c.known || !c.fma.is_int()) {
      t.unknown++;
      continue;
    }
    t.fma += static_cast<double>(c.fma.to_int());
  }
  return t;
}

class ModelCost : public ::testing::TestWithParam<std::string> {};

// The FMA count never grows from stage to stage (inputs bound to the bundle's shapes).
TEST_P(ModelCost, DoesNotGrowFromStageToStage) {
  fs::path dir = models_dir() / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto bundle = kiln::io::read_bundle((dir / "test_data_set_0").string(), "input");
  std::vector<kiln::Tensor> inputs;
  for (auto& t : bundle) inputs.push_back(t.tensor);
  double previous = -1;
  for (auto stage : {kiln::passes::Stage::Typed, kiln::passes::Stage::Declutter,
                     kiln::passes::Stage::Optimize}) {
    auto g = kiln::io::load_model((dir / "model.onnx").string());
    kiln::bind_input_shapes(*g, inputs);
    kiln::passes::run_to_stage(*g, stage);
    CostTotal t = total_cost(*g);
    std::printf("%s %s: %.0f FMA, %zu nodes without cost\n", GetParam().c_str(),
                kiln::passes::stage_name(stage).c_str(), t.fma, t.unknown);
    if (previous >= 0) {
      EXPECT_LE(t.fma, previous) << kiln::passes::stage_name(stage);
    }
    previous = t.fma;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ModelCost,
                         ::testing::Values("mobilenet_v2", "squeezenet1_1", "kws_tdnn", "lstm_kws",
                                           "tiny_bert", "silero_vad_v4", "silero_vad_v5"));

}  // namespace

namespace {

// The TensorFlow keyword spotters (NHWC graphs): the decluttered and optimized graphs give the
// typed graph's outputs, with far fewer nodes (transposes around per-channel ops removed).
TEST(TfModelStages, SameOutputsFewerNodes) {
  fs::path dir = models_dir() / "tf-ml-kws";
  if (!fs::exists(dir / "DS_CNN_S.pb")) GTEST_SKIP() << dir << " not present";
  fs::path out = fs::temp_directory_path() / ("kiln_tf_stages_" + std::to_string(::getpid()));
  std::string wav = " --input wav_data=@" + (dir / "silence.wav").string();
  struct Case {
    const char* model;
    size_t max_declutter, max_optimize;
  };
  for (Case c : {Case{"DS_CNN_S", 30, 20}, Case{"CNN_S", 20, 12}, Case{"LSTM_S", 8, 7}}) {
    std::string model = (dir / (std::string(c.model) + ".pb")).string();
    auto [rc, text] =
        kiln("run " + model + " --stage typed" + wav + " --output-dir " + out.string());
    ASSERT_EQ(rc, 0) << c.model;
    for (const char* stage : {"declutter", "optimize"}) {
      auto [r, o] = kiln("run " + model + " --stage " + stage + wav + " --assert-output-bundle " +
                         out.string());
      EXPECT_EQ(r, 0) << c.model << " at " << stage << ": " << o;
      auto [drc, json] = kiln("dump " + model + " --json --stage " + stage);
      ASSERT_EQ(drc, 0);
      // Parsed into a named value first: ranging over parse(json)["nodes"] would read a destroyed
      // temporary (the range-init's temporaries die before the loop body runs).
      const nlohmann::json doc = nlohmann::json::parse(json);
      size_t compute = 0;
      for (const auto& node : doc.at("nodes"))
        if (node["op"] != "Source" && node["op"] != "Const") compute++;
      EXPECT_GT(compute, 0u) << c.model << " at " << stage;
      EXPECT_LE(compute, std::string(stage) == "declutter" ? c.max_declutter : c.max_optimize)
          << c.model << " at " << stage;
    }
  }
  fs::remove_all(out);
}

}  // namespace
