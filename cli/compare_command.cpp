// kiln compare: runs two things on the same inputs and compares every value both have, node by
// node in A's evaluation order; names the first value over tolerance, its op and its inputs'
// errors. A and B: two model files (model.onnx vs model.nnef.tgz), one model at two stages,
// two ISAs or thread counts, or a model against a directory of reference values (--reference,
// e.g. ONNX Runtime's intermediates from scripts/ort-dump-values.js).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/compare_sides.h"
#include "cli/compare_values.h"
#include "cli/timing_inputs.h"
#include "base/error.h"

namespace kiln::cli {

namespace {

struct CompareOptions {
  ModelOptions model;   // A (facts, format and cuts apply to both models)
  std::string model_b;  // B's file; empty: A's
  InputOptions inputs;
  std::string reference;  // B is this directory of values
  std::string stage_a = "optimize", stage_b = "optimize";
  std::string isa_a, isa_b;
  int threads_a = 0, threads_b = 0;
  // Intermediate values carry more rounding than outputs (a Winograd conv differs from the
  // direct sum by ~2e-5 on squeezenet1_1): atol is 10x kiln run's.
  double rtol = 1e-4, atol = 1e-4;
  uint64_t seed = 0;
  bool json = false;
  bool failures_only = false;
};

int compare(const CompareOptions& o) {
  KILN_ENSURE(o.reference.empty() || o.model_b.empty(),
              "give either a second model or --reference, not both");
  SideSpec a, b;
  a.label = "A";
  a.model = o.model;
  a.stage = o.stage_a;
  a.isa = o.isa_a;
  a.threads = o.threads_a;
  b.label = "B";
  if (o.reference.empty()) {
    b.model = o.model;
    if (!o.model_b.empty()) b.model.path = o.model_b;
    b.stage = o.stage_b;
    b.isa = o.isa_b;
    b.threads = o.threads_b;
  } else {
    b.reference = o.reference;
  }
  // The inputs: the user's, or random tensors of A's input facts; B gets the same, by position.
  auto graph = load_model_with_facts(o.model);
  TimingInputs inputs = make_timing_inputs(*graph, o.inputs, o.seed);
  graph.reset();
  CapturedRun run_a = run_side(a, inputs.tensors);
  CapturedRun run_b = run_side(b, inputs.tensors);
  Comparison c = compare_runs(run_a, run_b, o.rtol, o.atol);
  if (o.json) {
    nlohmann::json doc = comparison_json(c, run_a);
    doc["a"] = run_a.description;
    doc["b"] = run_b.description;
    doc["inputs"] = inputs.description;
    fmt::print("{}\n", doc.dump(1));
  } else {
    fmt::print("A: {}\nB: {}\nInputs: {}\n\n{}", run_a.description, run_b.description,
               inputs.description, comparison_text(c, run_a, o.failures_only));
  }
  return c.clean() ? 0 : 1;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Run two things on the same inputs and compare every intermediate value, node by node: "
      "two models (ONNX vs its NNEF), two stages, two ISAs or thread counts, or a model against "
      "reference values");
  cmd->add_option("model", o->model.path, "Model A")->required();
  cmd->add_option("model_b", o->model_b, "Model B (default: A again, with the --*-b options)");
  cmd->add_option("--format", o->model.format, "Model format when the name does not say");
  cmd->add_option("-i,--input-fact", o->model.input_facts,
                  "Input fact for both models, by position or name (see kiln run)");
  cmd->add_option("--input-node", o->model.input_nodes, "TensorFlow: cut the graph here");
  cmd->add_option("--output-node", o->model.output_nodes, "TensorFlow: an output node");
  add_input_options(cmd, o->inputs);
  const auto stages = CLI::IsMember({"typed", "declutter", "optimize"});
  cmd->add_option("--stage-a", o->stage_a, "Stage of A")->check(stages)->capture_default_str();
  cmd->add_option("--stage-b", o->stage_b, "Stage of B")->check(stages)->capture_default_str();
  const auto isas = CLI::IsMember({"generic", "avx2", "avx512", "neon"});
  cmd->add_option("--isa-a", o->isa_a, "Kernel ISA of A (another ISA runs in a child process)")
      ->check(isas);
  cmd->add_option("--isa-b", o->isa_b, "Kernel ISA of B (another ISA runs in a child process)")
      ->check(isas);
  cmd->add_option("--threads-a", o->threads_a, "Threads of A")->check(CLI::PositiveNumber);
  cmd->add_option("--threads-b", o->threads_b, "Threads of B")->check(CLI::PositiveNumber);
  cmd->add_option("--reference", o->reference,
                  "B is this directory of NAME.npy values (with values.json: from kiln run "
                  "--save-values or scripts/ort-dump-values.js)");
  cmd->add_option("--rtol", o->rtol, "Relative tolerance")->capture_default_str();
  cmd->add_option("--atol", o->atol, "Absolute tolerance")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->add_flag("-q,--failures-only", o->failures_only,
                "List only the values that are not within tolerance");
  cmd->footer(
      "Exit code 0 when no value is over tolerance, 1 otherwise. Inputs are random unless "
      "--input-bundle, --input or --input-npz give them.\n"
      "Examples:\n"
      "  kiln compare model.onnx model.nnef.tgz --input-bundle test_data_set_0\n"
      "  kiln compare model.onnx --stage-a typed --stage-b optimize\n"
      "  kiln compare model.onnx --isa-b generic\n"
      "  kiln compare model.onnx --threads-a 1 --threads-b 2\n"
      "  kiln compare model.onnx --stage-a typed --reference ort_values/ --input-bundle "
      "test_data_set_0");
  return [o] { return compare(*o); };
}

}  // namespace kiln::cli
