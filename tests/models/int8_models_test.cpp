// The int8 models of ../shared/models/int8 (QDQ and QOperator formats) against ONNX Runtime's
// outputs with the int8 rule of shared/models/README.md: every element within 2 s of the
// reference, at most max(1, 1% of the elements) beyond 1 s, s being the output quantization
// step from SOURCE.txt (`output step s:`). Two correct int8 engines differ by up to one step
// (ORT's fused kernels vs its own literal execution); a real bug (per-tensor instead of
// per-channel scales, a dropped bias, a zero point off by one, floor instead of round) moves
// many elements by more. tiny_bert (float ops after the last quantized tensor): relative L2
// error <= 2.5% and max abs error <= 0.15. Runs the optimized model (the int8 kernels), with the
// reference ops when KILN_ISA=generic as with every ISA. Every quantized Conv / MatMul / Gemm
// with constant weights (SOURCE.txt's `quantized nodes:` line) must run as an int8 packed op.
//
// NNEF: each model decluttered (as `kiln convert` writes it: standard ops, graph.quant for
// per-tensor quantization, the kiln_core quantization fragments for the rest, no int8 kernel op)
// goes to NNEF, loads back, and its optimized form has the same int8 packed ops and gives
// bit-identical outputs to the ONNX model's.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "core/session.h"
#include "io/model_loader.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"

namespace {

namespace fs = std::filesystem;

// ../shared/models/int8 from the source tree, or ../../shared/models/int8 (a worktree one level
// further down).
fs::path int8_dir() {
  const fs::path near = fs::path(KILN_SOURCE_DIR) / ".." / "shared" / "models" / "int8";
  if (fs::exists(near)) return near;
  return fs::path(KILN_SOURCE_DIR) / ".." / ".." / "shared" / "models" / "int8";
}

// The `output step s: X` value of SOURCE.txt, or nullopt ("none").
std::optional<double> output_step(const fs::path& dir) {
  std::ifstream f(dir / "SOURCE.txt");
  std::stringstream ss;
  ss << f.rdbuf();
  std::smatch m;
  const std::string text = ss.str();
  if (std::regex_search(text, m, std::regex("output step s: ([0-9.eE+-]+)")))
    return std::stod(m[1]);
  return std::nullopt;
}

// Conv + MatMul (constant weight) + Gemm counts of SOURCE.txt's `quantized nodes:` line.
int quantized_weight_ops(const fs::path& dir) {
  std::ifstream f(dir / "SOURCE.txt");
  std::stringstream ss;
  ss << f.rdbuf();
  std::smatch m;
  const std::string text = ss.str();
  if (!std::regex_search(text, m,
                         std::regex("quantized nodes: ([0-9]+) Conv, ([0-9]+) MatMul \\(constant "
                                    "weight\\), [0-9]+ MatMul \\(activation x activation\\), "
                                    "([0-9]+) Gemm")))
    return -1;
  return std::stoi(m[1]) + std::stoi(m[2]) + std::stoi(m[3]);
}

int count_ops(const kiln::Graph& g, std::initializer_list<const char*> names) {
  int n = 0;
  for (const auto& node : g.nodes())
    for (const char* name : names) n += node.op->name() == name;
  return n;
}

std::vector<float> as_floats(const kiln::Tensor& t) {
  kiln::Tensor f = t.dtype() == kiln::DatumType::F32 ? t : t.cast_to(kiln::DatumType::F32);
  auto v = f.values<float>();
  return {v.begin(), v.end()};
}

class Int8Model : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Model, MatchesOrtWithinTwoSteps) {
  const fs::path dir = int8_dir() / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto graph = kiln::io::load_model((dir / "model.onnx").string());
  auto bundle = kiln::io::read_bundle((dir / "test_data_set_0").string(), "input");
  std::vector<kiln::Tensor> inputs;
  for (auto& t : bundle) inputs.push_back(t.tensor);
  kiln::bind_input_shapes(*graph, inputs);
  kiln::passes::run_to_stage(*graph, kiln::passes::Stage::Optimize);
  const int want_packed = quantized_weight_ops(dir);
  ASSERT_GE(want_packed, 0) << "no `quantized nodes:` line in " << dir / "SOURCE.txt";
  EXPECT_EQ(count_ops(*graph, {"QConvPacked", "QMatMulPacked"}), want_packed);
  auto expected = kiln::io::read_bundle((dir / "test_data_set_0").string(), "output");
  kiln::Session session(kiln::passes::plan(graph), kiln::SessionOptions{1});
  auto outputs = session.run(inputs);
  ASSERT_EQ(outputs.size(), expected.size());
  const auto step = output_step(dir);
  for (size_t o = 0; o < outputs.size(); o++) {
    SCOPED_TRACE(testing::Message() << "output " << o);
    const auto got = as_floats(outputs[o]), want = as_floats(expected[o].tensor);
    ASSERT_EQ(got.size(), want.size());
    double max_abs = 0, err2 = 0, ref2 = 0;
    size_t beyond_one = 0;
    for (size_t i = 0; i < got.size(); i++) {
      const double d = std::abs(static_cast<double>(got[i]) - want[i]);
      max_abs = std::max(max_abs, d);
      err2 += d * d;
      ref2 += static_cast<double>(want[i]) * want[i];
      // A float epsilon over the step: dequantized values are products of floats.
      if (step && d > *step * (1 + 1e-4)) beyond_one++;
    }
    if (step) {
      EXPECT_LE(max_abs, 2 * *step * (1 + 1e-4)) << "s = " << *step;
      EXPECT_LE(beyond_one, std::max<size_t>(1, got.size() / 100)) << "s = " << *step;
    } else {
      EXPECT_LE(std::sqrt(err2 / std::max(ref2, 1e-30)), 0.025);
      EXPECT_LE(max_abs, 0.15);
    }
  }
}

class Int8Nnef : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Nnef, RoundTripGivesIdenticalOutputs) {
  const fs::path dir = int8_dir() / GetParam();
  if (!fs::exists(dir / "model.onnx")) GTEST_SKIP() << dir << " not present";
  auto bundle = kiln::io::read_bundle((dir / "test_data_set_0").string(), "input");
  std::vector<kiln::Tensor> inputs;
  for (auto& t : bundle) inputs.push_back(t.tensor);

  auto onnx = kiln::io::load_model((dir / "model.onnx").string());
  kiln::bind_input_shapes(*onnx, inputs);
  kiln::passes::run_to_stage(*onnx, kiln::passes::Stage::Declutter);
  // Declutter keeps standard ops: the int8 rewrite belongs to the optimize stage.
  EXPECT_EQ(count_ops(*onnx, {"QConvPacked", "QMatMulPacked"}), 0);
  kiln::nnef::WrittenModel written = kiln::nnef::write_nnef(*onnx);
  const std::string& text = written.files.at("graph.nnef");
  EXPECT_NE(text.find("extension kiln_registry kiln_core;"), std::string::npos);
  // The integers stay integers: no float copy of the quantized weights.
  EXPECT_TRUE(text.find("kiln_core_dequantize_linear(") != std::string::npos ||
              text.find("kiln_core_qlinear_") != std::string::npos);

  // QDQ models: every activation's QuantizeLinear -> DequantizeLinear pair (one scale and zero
  // point) is `copy` with a graph.quant entry, as tract writes quantized tensors; per-channel
  // weights and biases stay kiln_core_dequantize_linear.
  if (GetParam().find("_qdq") != std::string::npos) {
    ASSERT_TRUE(written.files.count("graph.quant"));
    EXPECT_NE(written.files.at("graph.quant").find("zero_point_linear_quantize("),
              std::string::npos);
    EXPECT_EQ(text.find("kiln_core_quantize_linear("), std::string::npos);
  }
  auto loaded = kiln::nnef::load_nnef_files(written.files, GetParam());
  kiln::bind_input_shapes(*loaded, inputs);
  kiln::passes::run_to_stage(*loaded, kiln::passes::Stage::Optimize);
  kiln::passes::optimize(*onnx);
  const int packed = count_ops(*onnx, {"QConvPacked", "QMatMulPacked"});
  EXPECT_EQ(packed, quantized_weight_ops(dir));
  EXPECT_EQ(count_ops(*loaded, {"QConvPacked", "QMatMulPacked"}), packed);

  kiln::Session a(kiln::passes::plan(onnx), kiln::SessionOptions{1});
  kiln::Session b(kiln::passes::plan(loaded), kiln::SessionOptions{1});
  auto want = a.run(inputs);
  auto got = b.run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); o++) {
    SCOPED_TRACE(testing::Message() << "output " << o);
    ASSERT_EQ(got[o].shape(), want[o].shape());
    const auto g = as_floats(got[o]), w = as_floats(want[o]);
    size_t differ = 0;
    for (size_t i = 0; i < g.size(); i++) differ += g[i] != w[i];
    EXPECT_EQ(differ, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Int8Nnef,
                         ::testing::Values("mobilenet_v2_int8_qdq", "mobilenet_v2_int8_qop",
                                           "squeezenet1_1_int8_qdq", "squeezenet1_1_int8_qop",
                                           "kws_tdnn_int8_qdq", "kws_tdnn_int8_qop",
                                           "tiny_bert_int8_qdq", "tiny_bert_int8_qop",
                                           "lstm_kws_int8_qdq", "lstm_kws_int8_qop"));

INSTANTIATE_TEST_SUITE_P(Models, Int8Model,
                         ::testing::Values("mobilenet_v2_int8_qdq", "mobilenet_v2_int8_qop",
                                           "squeezenet1_1_int8_qdq", "squeezenet1_1_int8_qop",
                                           "kws_tdnn_int8_qdq", "kws_tdnn_int8_qop",
                                           "tiny_bert_int8_qdq", "tiny_bert_int8_qop",
                                           "lstm_kws_int8_qdq", "lstm_kws_int8_qop"));

}  // namespace
