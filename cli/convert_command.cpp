// kiln convert: writes a model as NNEF (a .nnef.tgz / .tgz / .tar archive or a directory).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "cli/commands.h"
#include "cli/model_setup.h"
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
};

int convert(const ConvertOptions& o) {
  // NNEF stores the decluttered model by default: canonical ops, training clutter removed.
  passes::Stage stage = selected_stage(o.stage);
  KILN_ENSURE(stage == passes::Stage::Typed || stage == passes::Stage::Declutter,
              "kiln convert writes the typed or the declutter stage, not '{}' (its kernel ops "
              "are specific to this CPU)",
              passes::stage_name(stage));
  auto graph = load_model_at_stage(o.model, o.stage);
  nnef::WriteOptions options;
  options.strict = o.strict;
  nnef::WrittenModel model;
  try {
    model = nnef::write_nnef(*graph, options);
    nnef::write_container(o.output, model.files);
  } catch (Error& e) {
    e.with_context(fmt::format("converting '{}' to NNEF '{}'", o.model.path, o.output));
    throw;
  }
  size_t tensors = model.files.size() - 1;
  if (o.json) {
    nlohmann::json doc{{"output", o.output},
                       {"tensor_files", tensors},
                       {"extensions", model.extensions},
                       {"extension_ops", model.extension_ops},
                       {"standard_only", model.extension_ops.empty()}};
    fmt::print("{}\n", doc.dump(1));
    return 0;
  }
  fmt::print("wrote {} (graph.nnef + {} tensor files)\n", o.output, tensors);
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
  cmd->add_flag("--json", o->json,
                "Print a JSON summary: {\"output\", \"extension_ops\", \"standard_only\", ...}");
  cmd->footer(
      "Examples:\n"
      "  kiln convert model.onnx model.nnef.tgz\n"
      "  kiln convert model.onnx out_dir --nnef-strict\n"
      "  kiln convert model.onnx typed.nnef.tgz --stage typed   (skip the declutter passes)\n"
      "  kiln convert model.onnx model.nnef.tgz -i 1,S,40,f32   (symbolic dims are declared)");
  return [o] { return convert(*o); };
}

}  // namespace kiln::cli
