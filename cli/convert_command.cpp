// kiln convert: writes a model as NNEF (a .nnef.tgz / .tgz / .tar archive or a directory).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "cli/commands.h"
#include "cli/model_setup.h"
#include "cli/pulse_setup.h"
#include "cli/stage_options.h"
#include "io/nnef/nnef_writer.h"

namespace kiln::cli {

namespace {

struct ConvertOptions {
  ModelOptions model;
  StageOptions stage;
  std::string output;
  bool strict = false;
  bool json = false;
  std::string pulse;  // --pulse: write the pulsed (streaming) model
};

int convert(const ConvertOptions& o) {
  // NNEF stores the decluttered model by default: canonical ops, training clutter removed.
  passes::Stage stage = selected_stage(o.stage);
  KILN_ENSURE(stage == passes::Stage::Typed || stage == passes::Stage::Declutter,
              "kiln convert writes the typed or the declutter stage, not '{}' (its kernel ops "
              "are specific to this CPU)",
              passes::stage_name(stage));
  std::shared_ptr<Graph> graph;
  nnef::WriteOptions options;
  options.strict = o.strict;
  PulsedSetup pulsed;
  if (o.pulse.empty()) {
    graph = load_model_at_stage(o.model, o.stage);
  } else {
    // The pulsed graph at the declutter stage, and its stream description beside it.
    KILN_ENSURE(stage == passes::Stage::Declutter,
                "--pulse writes the pulsed model of the declutter stage: drop --stage {}",
                passes::stage_name(stage));
    auto loaded = load_model_with_facts(o.model);
    pulsed = pulsify_model(*loaded, o.pulse, false);
    graph = pulsed.model.graph;
    options.stream = &pulsed.model.spec;
  }
  nnef::WrittenModel model;
  try {
    model = nnef::write_nnef(*graph, options);
    nnef::write_container(o.output, model.files);
  } catch (Error& e) {
    e.with_context(fmt::format("converting '{}' to NNEF '{}'", o.model.path, o.output));
    throw;
  }
  size_t tensors = 0;
  for (const auto& entry : model.files)
    if (entry.first.ends_with(".dat")) tensors++;
  if (o.json) {
    nlohmann::json doc{{"output", o.output},
                       {"tensor_files", tensors},
                       {"extensions", model.extensions},
                       {"extension_ops", model.extension_ops},
                       {"standard_only", model.extension_ops.empty()}};
    if (options.stream)
      doc["stream"] = {{"symbol", pulsed.model.spec.symbol},
                       {"pulse", pulsed.model.spec.pulse},
                       {"delays", [&] {
                          std::vector<int64_t> d;
                          for (const auto& p : pulsed.model.spec.outputs) d.push_back(p.delay);
                          return d;
                        }()}};
    fmt::print("{}\n", doc.dump(1));
    return 0;
  }
  fmt::print("wrote {} (graph.nnef + {} tensor files)\n", o.output, tensors);
  if (options.stream)
    fmt::print("pulsed: pulse {} frames of {}; {} (stream description in kiln_stream.json)\n",
               pulsed.model.spec.pulse, pulsed.model.spec.symbol,
               describe_delays(pulsed.model.spec, graph->output_names()));
  if (model.extension_ops.empty()) {
    fmt::print("standard NNEF ops only\n");
  } else {
    std::string ops;
    for (const auto& op : model.extension_ops) ops += (ops.empty() ? "" : ", ") + op;
    fmt::print("extension fragments used for: {}\n", ops);
  }
  return 0;
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto o = std::make_shared<ConvertOptions>();
  auto* cmd = app.add_subcommand(
      "convert", "Write the model as NNEF: graph.nnef + .dat tensors, as an archive or directory");
  add_model_options(cmd, o->model);
  add_stage_options(cmd, o->stage, "declutter");
  cmd->add_option("output", o->output,
                  "Output: OUT.nnef.tgz, OUT.tgz, OUT.tar, or a directory (any other name)")
      ->required();
  cmd->add_flag("--nnef-strict", o->strict,
                "Refuse models that need kiln extension fragments, listing the ops that do");
  cmd->add_option("--pulse", o->pulse,
                  "Write the streaming model: pulsify along the symbolic axis of -i (8 or S=8 "
                  "frames per call); `kiln run OUT --input-bundle ...` then streams it")
      ->type_name("P");
  cmd->add_flag("--json", o->json,
                "Print a JSON summary: {\"output\", \"extension_ops\", \"standard_only\", ...}");
  cmd->footer(
      "Examples:\n"
      "  kiln convert model.onnx model.nnef.tgz\n"
      "  kiln convert model.onnx out_dir --nnef-strict\n"
      "  kiln convert model.onnx typed.nnef.tgz --stage typed   (skip the declutter passes)\n"
      "  kiln convert model.onnx model.nnef.tgz -i 1,S,40,f32   (symbolic dims are declared)\n"
      "  kiln convert kws.onnx kws.pulse8.nnef.tgz -i 1,40,S,f32 --pulse 8   (streaming model)");
  return [o] { return convert(*o); };
}

}  // namespace kiln::cli
