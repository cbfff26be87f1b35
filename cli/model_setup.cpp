#include "cli/model_setup.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <map>

#include "base/error.h"
#include "io/input_facts.h"
#include "io/model_loader.h"
#include "io/tensor/tensor_files.h"

namespace kiln::cli {

void add_model_options(CLI::App* app, ModelOptions& options) {
  app->add_option("model", options.path, "Model file (.onnx, .pb)")->required();
  app->add_option("--format", options.format,
                  "Model format when the name does not say: onnx|tf|nnef");
  app->add_option("-i,--input-fact", options.input_facts,
                  "Input fact, by position or name: 1,3,224,224,f32 or name:1,S,40,f32 (letters "
                  "are symbols); a value makes the input a constant the passes fold: sr:i64=16000");
  app->add_option("--input-node", options.input_nodes,
                  "TensorFlow: feed this node instead of computing it, cutting the graph above "
                  "(e.g. --input-node Mfcc)");
  app->add_option("--output-node", options.output_nodes,
                  "TensorFlow: this node (or node:N) is a model output (default: the nodes no "
                  "one consumes)");
}

std::shared_ptr<Graph> load_typed_model(const ModelOptions& options) {
  auto graph = load_model_with_facts(options);
  graph->analyse();
  return graph;
}

std::shared_ptr<Graph> load_model_with_facts(const ModelOptions& options) {
  std::optional<io::ModelFormat> format;
  if (!options.format.empty()) format = io::parse_model_format(options.format);
  auto graph = io::load_model(options.path, format, {options.input_nodes, options.output_nodes});
  size_t positional = 0;
  for (const auto& spec : options.input_facts) {
    size_t i = io::apply_input_fact(*graph, spec, positional);
    spdlog::info("input {} '{}' fact set to {}", i, graph->input_name(i),
                 graph->fact(graph->inputs()[i]).to_string());
  }
  return graph;
}

void add_input_options(CLI::App* app, InputOptions& options) {
  app->add_option("--input-bundle", options.bundle,
                  "Folder of input_N.pb files (ONNX backend-test layout), fed in order");
  app->add_option(
      "--input", options.files,
      "Input from a file: NAME=FILE.npy, NAME=FILE.pb, or NAME=@FILE (the file's raw bytes "
      "as a string scalar, e.g. wav_data=@clip.wav)");
  app->add_option("--input-npz", options.npz, "A .npz file holding inputs by name");
}

bool has_inputs(const InputOptions& options) {
  return !options.bundle.empty() || !options.files.empty() || !options.npz.empty();
}

Tensor read_bytes_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_ENSURE(in.good(), "cannot open input file '{}'", path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Tensor::scalar<std::string>(std::move(bytes));
}

std::vector<Tensor> gather_inputs(const Graph& graph, const InputOptions& options) {
  size_t n = graph.inputs().size();
  std::vector<Tensor> inputs(n);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < n; i++) index[graph.input_name(i)] = i;
  auto set_by_name = [&](const std::string& name, Tensor t, const std::string& from) {
    auto it = index.find(name);
    if (it == index.end()) {
      std::string names;
      for (size_t i = 0; i < n; i++) names += " " + graph.input_name(i);
      fail("{}: the model has no input named '{}' (inputs:{})", from, name, names);
    }
    inputs[it->second] = std::move(t);
  };
  if (!options.bundle.empty()) {
    auto bundle = io::read_bundle(options.bundle, "input", input_facts(graph));
    KILN_ENSURE(bundle.size() <= n, "--input-bundle {}: {} input files for a model with {} inputs",
                options.bundle, bundle.size(), n);
    for (size_t i = 0; i < bundle.size(); i++) inputs[i] = std::move(bundle[i].tensor);
  }
  if (!options.npz.empty())
    for (auto& t : io::read_npz(options.npz)) set_by_name(t.name, std::move(t.tensor), options.npz);
  for (const auto& spec : options.files) {
    size_t eq = spec.find('=');
    KILN_ENSURE(eq != std::string::npos && eq > 0, "--input {}: expected NAME=FILE", spec);
    if (spec.compare(eq + 1, 1, "@") == 0) {  // NAME=@FILE: the file's bytes as one string
      set_by_name(spec.substr(0, eq), read_bytes_tensor(spec.substr(eq + 2)), "--input " + spec);
      continue;
    }
    auto it = index.find(spec.substr(0, eq));
    auto t = io::read_tensor_file(
        spec.substr(eq + 1), it == index.end() ? nullptr : &graph.fact(graph.inputs()[it->second]));
    set_by_name(spec.substr(0, eq), std::move(t.tensor), "--input " + spec);
  }
  std::string missing;
  for (size_t i = 0; i < n; i++)
    if (inputs[i].is_null())
      missing += fmt::format("\n  '{}' ({})", graph.input_name(i),
                             graph.fact(graph.inputs()[i]).to_string());
  if (!missing.empty())
    fail(
        "missing model inputs:{}\ngive them with --input-bundle DIR, --input NAME=FILE.npy or "
        "--input-npz FILE",
        missing);
  return inputs;
}

}  // namespace kiln::cli
