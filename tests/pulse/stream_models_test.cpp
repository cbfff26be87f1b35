// Acceptance of issue 20: the four streaming models of ../shared/models, pulsified with P in
// {1, 2, 4, 8, 16} (crnn_stream: multiples of its stride 2), streamed over both data sets, give
// ONNX Runtime's whole-input outputs within the models' tolerances (rtol 1e-4, atol 1e-5), and
// the delay kiln finds is the one SOURCE.txt works out by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "core/graph_cost.h"
#include "core/tensor_compare.h"
#include "io/model_loader.h"
#include "io/tensor/tensor_files.h"
#include "pulse_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct PulseLine {
  int64_t stride = 0, delay = 0;
};

// The `pulse:` line of SOURCE.txt.
PulseLine read_pulse_line(const fs::path& source) {
  std::ifstream in(source);
  std::string line;
  std::regex re(R"(^pulse: .*stride=(\d+) .*delay=(\d+))");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) return {std::stoll(m[1]), std::stoll(m[2])};
  ADD_FAILURE() << "no pulse: line in " << source;
  return {};
}

struct Case {
  std::string model;
  int64_t pulse;
  int set;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.model + "_P" + std::to_string(info.param.pulse) + "_set" +
         std::to_string(info.param.set);
}

class StreamModel : public ::testing::TestWithParam<Case> {};

TEST_P(StreamModel, PulsedEqualsWholeInput) {
  const Case& c = GetParam();
  fs::path dir = testing::stream_models_dir() / c.model;
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  PulseLine expected = read_pulse_line(dir / "SOURCE.txt");
  auto graph = io::load_model((dir / "model.onnx").string());
  passes::to_typed(*graph);
  auto s = testing::stream_model(*graph, "", c.pulse);
  ASSERT_EQ(s.model.spec.outputs.size(), 1u);
  EXPECT_EQ(s.model.spec.outputs[0].delay, expected.delay);
  EXPECT_EQ(s.model.spec.outputs[0].pulse, c.pulse / expected.stride);

  fs::path set = dir / ("test_data_set_" + std::to_string(c.set));
  auto inputs = io::read_bundle(set.string(), "input");
  auto outputs = io::read_bundle(set.string(), "output");
  StreamSession stream(s.plan, s.model.spec, {1});
  auto got = stream.run_whole({inputs.at(0).tensor});
  auto r = compare_tensors(got.at(0), outputs.at(0).tensor, 1e-4, 1e-5);
  EXPECT_TRUE(r.ok) << r.summary();
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (std::string m : {"wavenet_kws", "tdnn_stream", "crnn_stream", "conv2d_stream"})
    for (int64_t p : {1, 2, 4, 8, 16})
      for (int set : {0, 1}) {
        if (m == "crnn_stream" && p % 2) continue;
        out.push_back({m, p, set});
      }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Shared, StreamModel, ::testing::ValuesIn(cases()), case_name);

// No recomputation: FMA per pulse x S/P is the whole-input FMA within 5% (the edges: a pulsed
// model also computes the delay's frames past the end; a whole-input conv skips nothing).
class StreamCost : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamCost, FmaPerPulseTimesPulsesIsWholeInputFma) {
  fs::path dir = testing::stream_models_dir() / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto graph = io::load_model((dir / "model.onnx").string());
  passes::to_typed(*graph);
  passes::declutter(*graph);
  const int64_t P = 8, S = 200;
  auto pulsed = passes::pulsify(*graph, {"", P});
  double per_pulse = static_cast<double>(graph_cost(*pulsed.graph).fma.to_int());
  double whole = static_cast<double>(graph_cost(*graph).fma.eval({{"S", S}}));
  EXPECT_GT(per_pulse, 0);
  EXPECT_NEAR(per_pulse * S / P / whole, 1.0, 0.05) << per_pulse << " per pulse, " << whole;
}

INSTANTIATE_TEST_SUITE_P(Shared, StreamCost,
                         ::testing::Values("wavenet_kws", "tdnn_stream", "crnn_stream",
                                           "conv2d_stream"));

// crnn_stream strides by 2: an odd pulse is refused with the node and the multiple.
TEST(StreamModelErrors, OddPulseOnStridedModelNamesNodeAndMultiple) {
  fs::path dir = testing::stream_models_dir() / "crnn_stream";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto graph = io::load_model((dir / "model.onnx").string());
  passes::to_typed(*graph);
  passes::declutter(*graph);
  try {
    passes::pulsify(*graph, {"", 3});
    FAIL() << "pulse 3 accepted";
  } catch (const std::exception& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("/conv/Conv"), std::string::npos) << msg;
    EXPECT_NE(msg.find("multiple of 2"), std::string::npos) << msg;
  }
}

// kws_tdnn ends with a global average pool over time: refused, naming node, op and axis.
TEST(StreamModelErrors, GlobalPoolOverTimeRefused) {
  fs::path dir = testing::stream_models_dir() / "kws_tdnn";
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto graph = io::load_model((dir / "model.onnx").string());
  auto facts = input_facts(*graph);
  Fact f = facts.at(0);
  f.shape.at(2) = Dim::symbol("T");
  graph->set_input_fact(0, f);
  passes::to_typed(*graph);
  passes::declutter(*graph);
  try {
    passes::pulsify(*graph, {"T", 8});
    FAIL() << "kws_tdnn pulsified";
  } catch (const std::exception& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("axis 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("whole stream"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node '"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace kiln
