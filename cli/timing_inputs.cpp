#include "cli/timing_inputs.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <random>

#include "base/error.h"
#include "core/random_tensor.h"
#include "passes/pipeline.h"

namespace kiln::cli {

TimingInputs make_timing_inputs(const Graph& graph, const InputOptions& options, uint64_t seed) {
  TimingInputs result;
  if (has_inputs(options)) {
    result.tensors = gather_inputs(graph, options);
    result.description =
        "inputs from " + (!options.bundle.empty() ? "--input-bundle " + options.bundle
                          : !options.npz.empty()  ? "--input-npz " + options.npz
                                                  : std::string("--input files"));
  } else {
    result.random = true;
    std::mt19937_64 rng(seed);
    std::string parts;
    for (size_t i = 0; i < graph.inputs().size(); i++) {
      const Fact& fact = graph.fact(graph.inputs()[i]);
      auto shape = fact.try_concrete_shape();
      if (!shape) {
        std::vector<Dim> example;
        for (const auto& d : fact.shape) example.push_back(d.is_int() ? d : Dim(1));
        fail(
            "input '{}' has the symbolic shape {}: random inputs need concrete sizes; give them "
            "with -i (for example -i {}:{},{}) or give real inputs with --input-bundle DIR",
            graph.input_name(i), fact.to_string(), graph.input_name(i), dims_to_string(example),
            name_of(fact.dt));
      }
      KILN_ENSURE(!is_container(fact.dt),
                  "input '{}' holds a {} ({}): random values cannot stand in for it; give it "
                  "with --input-bundle DIR or --input {}=FILE.pb",
                  graph.input_name(i), name_of(fact.dt), fact.to_string(), graph.input_name(i));
      KILN_ENSURE(fact.dt != DatumType::String,
                  "input '{}' holds strings ({}): random values cannot stand in for it; give it "
                  "with --input {}=FILE (for raw bytes, e.g. a WAV file: --input {}=@FILE) or "
                  "--input-bundle DIR",
                  graph.input_name(i), fact.to_string(), graph.input_name(i), graph.input_name(i));
      try {
        result.tensors.push_back(random_tensor(fact.dt, *shape, rng));
      } catch (Error& e) {
        e.with_context(fmt::format("making a random value for input '{}'", graph.input_name(i)));
        throw;
      }
      parts += fmt::format("{}'{}' {} {}", parts.empty() ? "" : ", ", graph.input_name(i),
                           fact.to_string(), random_distribution_text(fact.dt));
    }
    result.description = fmt::format("random inputs (seed {}): {}", seed, parts);
  }
  for (size_t i = 0; i < result.tensors.size(); i++)
    if (is_constant_tensor(result.tensors[i]))
      spdlog::warn(
          "input '{}' is constant (every element equal): timings may differ from real data",
          graph.input_name(i));
  return result;
}

TimedModel load_model_for_timing(const ModelOptions& model, const InputOptions& inputs,
                                 const StageOptions& stage, uint64_t seed) {
  TimedModel m;
  m.graph = load_model_with_facts(model);
  m.inputs = make_timing_inputs(*m.graph, inputs, seed);
  bind_input_shapes(*m.graph, m.inputs.tensors);
  passes::check_constant_inputs(*m.graph, m.inputs.tensors);
  passes::run_to_stage(*m.graph, selected_stage(stage));
  m.plan = passes::plan(m.graph);
  return m;
}

std::string cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    // x86: "model name : ..."; arm: "Model : Raspberry Pi ..." or "Hardware : ...".
    for (const char* key : {"model name", "Model", "Hardware"}) {
      if (line.rfind(key, 0) == 0) {
        auto colon = line.find(':');
        if (colon != std::string::npos) {
          auto value = line.substr(colon + 1);
          value.erase(0, value.find_first_not_of(" \t"));
          if (!value.empty()) return value;
        }
      }
    }
  }
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm";
#else
  return "unknown";
#endif
}

}  // namespace kiln::cli
