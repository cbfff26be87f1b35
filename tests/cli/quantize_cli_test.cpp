// kiln quantize (io/onnx/quantize/): kws_tdnn quantized on 16 random input sets is a valid QDQ
// ONNX model that kiln loads; after optimize every Conv / MatMul / Gemm of the float model runs
// as an int8 packed op; its output on test_data_set_0 is >= 30 dB SNR against the float model's
// output; ONNX Runtime (when node + onnxruntime-node are installed, else skipped) agrees with
// kiln within 2 output quantization steps (docs/quantization.md's rule). The input file is never
// modified; bad options are clear errors (exit 1). A per-tensor quantized model goes to strict
// NNEF (graph.quant) and back bit-identically; a damaged graph.quant is an error (exit 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/isa.h"
#include "core/session.h"
#include "io/model_loader.h"
#include "io/nnef/nnef_loader.h"
#include "io/nnef/nnef_writer.h"
#include "io/onnx/tensor_proto.h"
#include "io/tensor/tensor_files.h"
#include "passes/pipeline.h"
#include "tests/cli/run_kiln.h"

namespace {

namespace fs = std::filesystem;
using kiln::testing::run_kiln;

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<float> floats(const kiln::Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

double snr_db(const std::vector<float>& got, const std::vector<float>& ref) {
  double s = 0, n = 0;
  for (size_t i = 0; i < got.size(); i++) {
    s += static_cast<double>(ref[i]) * ref[i];
    n += (static_cast<double>(got[i]) - ref[i]) * (static_cast<double>(got[i]) - ref[i]);
  }
  return 10 * std::log10(s / std::max(n, 1e-30));
}

// The scale of the DequantizeLinear that produces graph output `o`: the output's step.
double output_step(const onnx::ModelProto& m, int o) {
  const std::string& name = m.graph().output(o).name();
  for (const auto& n : m.graph().node())
    if (n.op_type() == "DequantizeLinear" && n.output(0) == name)
      for (const auto& t : m.graph().initializer())
        if (t.name() == n.input(1)) return kiln::onnx_io::tensor_from_proto(t).values<float>()[0];
  return 0;
}

class QuantizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    models_ = kiln::testing::shared_models_dir();
    if (models_.empty() || !fs::exists(models_ / "kws_tdnn" / "model.onnx"))
      GTEST_SKIP() << "shared models not present";
    float_model_ = models_ / "kws_tdnn" / "model.onnx";
    data_ = models_ / "kws_tdnn" / "test_data_set_0";
    dir_ = fs::temp_directory_path() / ("kiln_quantize_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    quantized_ = dir_ / "q.onnx";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void quantize(const std::string& extra = "") {
    const std::string before = read_file(float_model_);
    auto r = run_kiln("quantize " + float_model_.string() + " " + quantized_.string() +
                      " --random 16 " + extra);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Conv"), std::string::npos) << r.output;
    EXPECT_EQ(read_file(float_model_), before) << "the input model was modified";
  }
  fs::path models_, float_model_, data_, dir_, quantized_;
};

int count_ops(const kiln::Graph& g, std::initializer_list<const char*> names) {
  int n = 0;
  for (const auto& node : g.nodes())
    for (const char* name : names) n += node.op->name() == name;
  return n;
}

TEST_F(QuantizeCli, KwsTdnnRunsOnInt8OpsWithin30dB) {
  quantize();
  onnx::ModelProto float_proto, q_proto;
  ASSERT_TRUE(float_proto.ParseFromString(read_file(float_model_)));
  ASSERT_TRUE(q_proto.ParseFromString(read_file(quantized_)));
  int weight_ops = 0, dq = 0, q = 0;
  for (const auto& n : float_proto.graph().node())
    weight_ops += n.op_type() == "Conv" || n.op_type() == "MatMul" || n.op_type() == "Gemm";
  for (const auto& n : q_proto.graph().node()) {
    dq += n.op_type() == "DequantizeLinear";
    q += n.op_type() == "QuantizeLinear";
  }
  EXPECT_GT(weight_ops, 0);
  EXPECT_GT(q, 0);
  EXPECT_GE(dq, q + weight_ops);  // one per activation pair and one per weight

  auto inputs_b = kiln::io::read_bundle(data_.string(), "input");
  std::vector<kiln::Tensor> inputs;
  for (auto& t : inputs_b) inputs.push_back(t.tensor);
  auto graph = kiln::io::load_model(quantized_.string());
  kiln::bind_input_shapes(*graph, inputs);
  kiln::passes::run_to_stage(*graph, kiln::passes::Stage::Optimize);
  EXPECT_EQ(count_ops(*graph, {"QConvPacked", "QMatMulPacked"}), weight_ops);
  EXPECT_EQ(count_ops(*graph, {"ConvPacked", "MatMulPacked", "Conv", "MatMul", "Gemm"}), 0);
  kiln::Session session(kiln::passes::plan(graph), kiln::SessionOptions{1});
  auto out = session.run(inputs);
  auto ref = kiln::io::read_bundle(data_.string(), "output");
  ASSERT_EQ(out.size(), ref.size());
  for (size_t o = 0; o < out.size(); o++) {
    const double snr = snr_db(floats(out[o]), floats(ref[o].tensor));
    RecordProperty("snr_db_output_" + std::to_string(o), std::to_string(snr));
    EXPECT_GE(snr, 30.0) << "output " << o;
  }

  // ONNX Runtime on the same quantized model, when installed.
  if (std::system("node --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "node not installed";
  const fs::path ort_out = dir_ / "ort";
  const std::string cmd = "node " +
                          (fs::path(KILN_SOURCE_DIR) / "scripts" / "ort-run.js").string() + " " +
                          quantized_.string() + " " + data_.string() + " " + ort_out.string() +
                          " > " + (dir_ / "ort.log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  if (WIFEXITED(rc) && WEXITSTATUS(rc) == 3) GTEST_SKIP() << "onnxruntime-node not installed";
  ASSERT_EQ(rc, 0) << read_file(dir_ / "ort.log");
  auto ort = kiln::io::read_bundle(ort_out.string(), "output");
  ASSERT_EQ(ort.size(), out.size());
#if defined(__x86_64__)
  // On an x86 CPU without VNNI, ONNX Runtime's u8 x s8 kernel sums pairs of products with
  // VPMADDUBSW, which saturates at 16 bits with the full-range symmetric weights kiln quantize
  // writes: its outputs then stray from the exact int8 result (measured on an AVX2-only AMD EPYC,
  // kws_tdnn: ORT 26.4 dB against the float model, kiln 44.1 dB, 7 steps apart). There ORT is no
  // reference: kiln must be at least as close to the float model as ORT is.
  if (!kiln::cpu_has(kiln::CpuFeature::Avx512Vnni) && !kiln::cpu_has(kiln::CpuFeature::AvxVnni)) {
    for (size_t o = 0; o < out.size(); o++) {
      const auto r = floats(ref[o].tensor);
      const double kiln_snr = snr_db(floats(out[o]), r), ort_snr = snr_db(floats(ort[o].tensor), r);
      RecordProperty("ort_snr_db_output_" + std::to_string(o), std::to_string(ort_snr));
      EXPECT_GE(kiln_snr, ort_snr - 0.5) << "output " << o;
    }
    GTEST_SKIP() << "no VNNI: ONNX Runtime's int8 products saturate here, so its outputs are "
                    "compared by SNR against the float model, not step by step";
  }
#endif
  for (size_t o = 0; o < out.size(); o++) {
    const double step = output_step(q_proto, static_cast<int>(o));
    ASSERT_GT(step, 0) << "output " << o << " is not a quantized tensor";
    const auto a = floats(out[o]), b = floats(ort[o].tensor);
    ASSERT_EQ(a.size(), b.size());
    double max_abs = 0;
    for (size_t i = 0; i < a.size(); i++)
      max_abs = std::max(max_abs, std::abs(static_cast<double>(a[i]) - b[i]));
    EXPECT_LE(max_abs, 2 * step * (1 + 1e-4)) << "output " << o << ", step " << step;
  }
}

TEST_F(QuantizeCli, PerTensorAndExcludeKeepTheModelValid) {
  // The first Conv left float: the model still loads and runs; per-tensor weights have scalar
  // scales.
  onnx::ModelProto float_proto;
  ASSERT_TRUE(float_proto.ParseFromString(read_file(float_model_)));
  std::string first_conv;
  int weight_ops = 0;
  for (const auto& n : float_proto.graph().node()) {
    if (first_conv.empty() && n.op_type() == "Conv") first_conv = n.name();
    weight_ops += n.op_type() == "Conv" || n.op_type() == "MatMul" || n.op_type() == "Gemm";
  }
  ASSERT_FALSE(first_conv.empty());
  quantize("--per-tensor --exclude " + first_conv);
  auto r = run_kiln("run " + quantized_.string() + " --input-bundle " + data_.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto graph = kiln::io::load_model(quantized_.string());
  kiln::passes::run_to_stage(*graph, kiln::passes::Stage::Optimize);
  EXPECT_EQ(count_ops(*graph, {"QConvPacked", "QMatMulPacked"}), weight_ops - 1);
}

TEST_F(QuantizeCli, PerTensorModelGoesToStrictNnefWithGraphQuant) {
  // Per-tensor weights and activations have one scale each: the whole int8 model is standard
  // NNEF (copy + graph.quant, quantized variables) once the Gemm is left float
  // (kiln_core_gemm), and reads back to the same int8 ops and bit-identical outputs.
  onnx::ModelProto float_proto;
  ASSERT_TRUE(float_proto.ParseFromString(read_file(float_model_)));
  std::string gemms;
  for (const auto& n : float_proto.graph().node())
    if (n.op_type() == "Gemm") gemms += (gemms.empty() ? "" : ",") + n.name();
  quantize("--per-tensor" + (gemms.empty() ? std::string() : " --exclude " + gemms));
  auto inputs_b = kiln::io::read_bundle(data_.string(), "input");
  std::vector<kiln::Tensor> inputs;
  for (auto& t : inputs_b) inputs.push_back(t.tensor);
  auto onnx = kiln::io::load_model(quantized_.string());
  kiln::bind_input_shapes(*onnx, inputs);
  kiln::passes::run_to_stage(*onnx, kiln::passes::Stage::Declutter);
  kiln::nnef::WriteOptions strict;
  strict.strict = true;
  auto written = kiln::nnef::write_nnef(*onnx, strict);
  EXPECT_TRUE(written.extension_ops.empty());
  ASSERT_TRUE(written.files.count("graph.quant"));
  EXPECT_NE(written.files.at("graph.quant").find("bits = 32, signed = true"), std::string::npos);
  auto loaded = kiln::nnef::load_nnef_files(written.files, "kws_tdnn per-tensor");
  kiln::bind_input_shapes(*loaded, inputs);
  kiln::passes::run_to_stage(*loaded, kiln::passes::Stage::Optimize);
  kiln::passes::optimize(*onnx);
  const int packed = count_ops(*onnx, {"QConvPacked", "QMatMulPacked"});
  EXPECT_GT(packed, 0);
  EXPECT_EQ(count_ops(*loaded, {"QConvPacked", "QMatMulPacked"}), packed);
  kiln::Session a(kiln::passes::plan(onnx), kiln::SessionOptions{1});
  kiln::Session b(kiln::passes::plan(loaded), kiln::SessionOptions{1});
  auto want = a.run(inputs), got = b.run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); o++) EXPECT_EQ(floats(got[o]), floats(want[o]));
}

TEST_F(QuantizeCli, HostileGraphQuantExitsOne) {
  // kiln convert of the per-tensor model, then a damaged graph.quant: a clear error, exit 1.
  quantize("--per-tensor");
  const fs::path nnef_dir = dir_ / "nnef";
  auto c = run_kiln("convert " + quantized_.string() + " " + nnef_dir.string());
  ASSERT_EQ(c.exit_code, 0) << c.output;
  ASSERT_TRUE(fs::exists(nnef_dir / "graph.quant"));
  auto r = run_kiln("run " + nnef_dir.string() + " --input-bundle " + data_.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  {
    std::ofstream f(nnef_dir / "graph.quant", std::ios::app);
    f << "\"ghost\": zero_point_linear_quantize(zero_point = 0, scale = 1.0, bits = 99, signed = "
         "true);\n";
  }
  r = run_kiln("run " + nnef_dir.string() + " --input-bundle " + data_.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bits = 99"), std::string::npos) << r.output;
}

TEST_F(QuantizeCli, ClearErrors) {
  const std::string m = float_model_.string(), out = quantized_.string();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"quantize " + m + " " + out, "--calibrate DIR or --random N"},
      {"quantize " + m + " " + out + " --random 2 --exclude no_such_node", "no_such_node"},
      {"quantize " + m + " " + m + " --random 2", "is the input model"},
      {"quantize " + m + " " + out + " --calibrate " + dir_.string(), "no input sets found"},
      {"quantize " + (dir_ / "missing.onnx").string() + " " + out + " --random 2", "cannot open"},
  };
  for (const auto& c : cases) {
    auto r = run_kiln(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  auto help = run_kiln("quantize --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("Examples:"), std::string::npos);
}

TEST_F(QuantizeCli, CalibratesOnBundles) {
  // --calibrate on a folder holding test_data_set_0 (a copy of the float model's test data).
  fs::create_directories(dir_ / "calib");
  fs::copy(data_, dir_ / "calib" / "test_data_set_0");
  auto r = run_kiln("quantize " + float_model_.string() + " " + quantized_.string() +
                    " --calibrate " + (dir_ / "calib").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 --calibrate input set"), std::string::npos) << r.output;
  auto run = run_kiln("run " + quantized_.string() + " --input-bundle " + data_.string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

}  // namespace
