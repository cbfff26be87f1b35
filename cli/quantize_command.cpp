// kiln quantize: static post-training quantization of a float ONNX model to QDQ ONNX
// (io/onnx/quantize/quantize_model.h, docs/quantization.md).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "base/error.h"
#include "cli/commands.h"
#include "cli/model_setup.h"
#include "core/random_tensor.h"
#include "io/input_facts.h"
#include "io/onnx/onnx_loader.h"
#include "io/onnx/quantize/quantize_model.h"
#include "io/onnx/tensor_proto.h"

namespace kiln::cli {

namespace {

namespace fs = std::filesystem;

struct QuantizeCliOptions {
  std::string input, output;
  std::string calibrate;
  int random = 0;
  uint64_t seed = 0;
  bool per_tensor = false;
  std::vector<std::string> exclude;
  std::vector<std::string> input_facts;
};

onnx::ModelProto read_model(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  KILN_ENSURE(f.good(), "cannot open '{}'", path);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::ModelProto model;
  KILN_ENSURE(model.ParseFromString(ss.str()), "'{}' is not an ONNX model (protobuf parse failed)",
              path);
  return model;
}

// Calibration input sets from DIR: DIR itself as a bundle (input_N.pb), its test_data_set_*
// (any sub-folder holding input_0.pb), its .npz files (inputs by name), its .npy files (models
// with one input).
std::vector<std::vector<Tensor>> read_calibration_sets(const Graph& graph, const std::string& dir) {
  KILN_ENSURE(fs::is_directory(dir), "--calibrate {}: not a directory", dir);
  std::vector<std::vector<Tensor>> sets;
  auto bundle = [&](const fs::path& d) {
    InputOptions in;
    in.bundle = d.string();
    sets.push_back(gather_inputs(graph, in));
  };
  if (fs::exists(fs::path(dir) / "input_0.pb")) bundle(dir);
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    try {
      if (fs::is_directory(p) && fs::exists(p / "input_0.pb")) {
        bundle(p);
      } else if (p.extension() == ".npz") {
        InputOptions in;
        in.npz = p.string();
        sets.push_back(gather_inputs(graph, in));
      } else if (p.extension() == ".npy") {
        KILN_ENSURE(graph.inputs().size() == 1,
                    "a .npy file holds one input and the model has {}: use .npz files or "
                    "input_N.pb bundles",
                    graph.inputs().size());
        InputOptions in;
        in.files.push_back(graph.input_name(0) + "=" + p.string());
        sets.push_back(gather_inputs(graph, in));
      }
    } catch (Error& e) {
      e.with_context(fmt::format("reading calibration inputs '{}'", p.string()));
      throw;
    }
  }
  KILN_ENSURE(
      !sets.empty(),
      "--calibrate {}: no input sets found (expected input_N.pb, test_data_set_*/input_N.pb, "
      "*.npz or *.npy)",
      dir);
  return sets;
}

// N random input sets: floats ~ normal(0, 1) (the scale of normalized features and images),
// other types as `kiln bench` makes them.
std::vector<std::vector<Tensor>> random_sets(const Graph& graph, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<std::vector<Tensor>> sets(n);
  for (int s = 0; s < n; s++)
    for (size_t i = 0; i < graph.inputs().size(); i++) {
      const Fact& fact = graph.fact(graph.inputs()[i]);
      auto shape = fact.try_concrete_shape();
      KILN_ENSURE(shape.has_value(),
                  "input '{}' has the symbolic shape {}: --random needs concrete sizes; give them "
                  "with -i {}:... or calibrate on real inputs with --calibrate DIR",
                  graph.input_name(i), fact.to_string(), graph.input_name(i));
      if (fact.dt == DatumType::F32) {
        Tensor t(DatumType::F32, *shape);
        for (float& v : t.values_mut<float>()) v = normal(rng);
        sets[s].push_back(std::move(t));
      } else {
        sets[s].push_back(random_tensor(fact.dt, *shape, rng));
      }
    }
  return sets;
}

int quantize(const QuantizeCliOptions& o) {
  KILN_ENSURE((o.random > 0) != !o.calibrate.empty(),
              "give the calibration inputs: --calibrate DIR or --random N (one of them)");
  std::error_code ec;
  KILN_ENSURE(!fs::exists(o.output) || !fs::equivalent(o.input, o.output, ec),
              "the output '{}' is the input model: write the quantized model to another file",
              o.output);
  onnx::ModelProto model = read_model(o.input);
  const std::string base_dir = fs::path(o.input).parent_path().string();
  onnx_io::QuantizeOptions options;
  for (const auto& e : o.exclude) {
    std::stringstream ss(e);
    std::string name;
    while (std::getline(ss, name, ','))
      if (!name.empty()) options.exclude.push_back(name);
  }
  options.per_tensor = o.per_tensor;
  options.input_facts = o.input_facts;

  onnx_io::QuantizePlan plan;
  std::vector<std::vector<Tensor>> sets;
  std::map<std::string, onnx_io::Range> ranges;
  try {
    plan = onnx_io::plan_quantization(model, options);
    auto graph = onnx_io::load_onnx_model(model, base_dir);
    io::apply_input_facts(*graph, options.input_facts);
    sets = o.random > 0 ? random_sets(*graph, o.random, o.seed)
                        : read_calibration_sets(*graph, o.calibrate);
    ranges = onnx_io::calibrate(model, base_dir, plan.tensors, sets, options);
    onnx_io::apply_quantization(model, base_dir, plan, ranges, options);
    // Initializers kept from external data files are stored inline: the output may live
    // elsewhere.
    for (auto& t : *model.mutable_graph()->mutable_initializer())
      if (t.data_location() == onnx::TensorProto::EXTERNAL)
        t = onnx_io::tensor_to_proto(onnx_io::tensor_from_proto(t, base_dir), t.name());
  } catch (Error& e) {
    e.with_context(fmt::format("quantizing '{}'", o.input));
    throw;
  }
  std::string bytes;
  KILN_ENSURE(model.SerializeToString(&bytes), "serializing the quantized model failed");
  {
    std::ofstream f(o.output, std::ios::binary | std::ios::trunc);
    KILN_ENSURE(f.good(), "cannot write '{}'", o.output);
    f << bytes;
    KILN_ENSURE(f.good(), "writing '{}' failed", o.output);
  }
  fmt::print(
      "wrote {}: {} Conv, {} MatMul, {} Gemm quantized (int8 {} weights, int32 biases), "
      "{} uint8 activation tensors calibrated on {} {} input set{}\n",
      o.output, plan.conv, plan.matmul, plan.gemm, o.per_tensor ? "per-tensor" : "per-channel",
      plan.tensors.size(), sets.size(),
      o.random > 0 ? fmt::format("random (seed {})", o.seed) : "--calibrate",
      sets.size() > 1 ? "s" : "");
  for (const auto& [name, step] : onnx_io::output_steps(model, base_dir))
    fmt::print("output '{}': quantization step {}\n", name, step);
  for (const auto& e : plan.excluded) fmt::print("excluded: {}\n", e);
  for (const auto& s : plan.skipped) fmt::print("left float: {}\n", s);
  return 0;
}

}  // namespace

Command add_quantize_command(CLI::App& app) {
  auto o = std::make_shared<QuantizeCliOptions>();
  auto* cmd = app.add_subcommand(
      "quantize", "Static post-training quantization to QDQ ONNX: int8 weights, uint8 activations");
  cmd->add_option("model", o->input, "Float ONNX model (never modified)")->required();
  cmd->add_option("output", o->output, "Quantized ONNX model to write")->required();
  cmd->add_option("--calibrate", o->calibrate,
                  "Calibration inputs: a folder of test_data_set_*/input_N.pb bundles (or one "
                  "bundle), .npz files (inputs by name) or .npy files (one-input models)")
      ->type_name("DIR");
  cmd->add_option("--random", o->random,
                  "Calibrate on N random input sets instead (floats ~ normal(0, 1))")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "Seed of the --random inputs")->default_val(0);
  cmd->add_option("--exclude", o->exclude,
                  "Leave these nodes float (names, repeated or comma-separated)")
      ->type_name("NODE");
  cmd->add_flag("--per-tensor", o->per_tensor,
                "One weight scale per tensor instead of per output channel");
  cmd->add_option("-i,--input-fact", o->input_facts,
                  "Input fact for calibration, by position or name: 1,3,224,224,f32 (needed by "
                  "--random for symbolic dims)");
  cmd->footer(
      "Weights: int8 symmetric, per output channel (Conv axis 0, MatMul B[K,N] axis 1, Gemm\n"
      "axis 0 if transB); biases int32 (scale = input scale * weight scale); activations uint8\n"
      "asymmetric from MinMax calibration; Q/DQ around every Conv / MatMul / Gemm with a constant\n"
      "weight (ONNX Runtime's QDQ format). `kiln run` runs the result on int8 kernels.\n"
      "Examples:\n"
      "  kiln quantize model.onnx model.int8.onnx --random 16\n"
      "  kiln quantize model.onnx model.int8.onnx --calibrate calib/   (test_data_set_*/)\n"
      "  kiln quantize model.onnx q.onnx --random 32 --seed 7 --exclude classifier\n"
      "  kiln quantize model.onnx q.onnx --random 16 -i 1,40,100,f32   (symbolic input dims)");
  return [o] { return quantize(*o); };
}

}  // namespace kiln::cli
