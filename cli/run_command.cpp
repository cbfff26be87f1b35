// kiln run: runs a model on given inputs; writes outputs or checks them against references.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/error.h"
#include "base/threading.h"
#include "cli/commands.h"
#include "cli/labels.h"
#include "cli/model_setup.h"
#include "cli/stage_options.h"
#include "core/session.h"
#include "core/tensor_compare.h"
#include "io/tensor/tensor_files.h"

namespace kiln::cli {

namespace {

struct RunOptions {
  ModelOptions model;
  StageOptions stage;
  InputOptions inputs;
  std::string assert_bundle;
  std::string output_dir;
  std::string output_format = "pb";
  double rtol = 1e-4;
  double atol = 1e-5;
  bool quiet = false;
  std::string labels;  // --labels: print the top classes of output 0
  size_t top = 3;
  int threads = 0;  // --threads: 0 keeps the default (physical cores)
};

int run(const RunOptions& o) {
  if (o.threads > 0) set_num_threads(o.threads);
  auto graph = load_model_with_facts(o.model);
  auto inputs = gather_inputs(*graph, o.inputs);
  // The inputs are known: analyse with their shapes so shape-dependent branches fold.
  bind_input_shapes(*graph, inputs);
  passes::check_constant_inputs(*graph, inputs);
  run_stages(*graph, o.stage);
  Session state(passes::plan(graph));
  auto outputs = state.run(inputs);

  if (!o.output_dir.empty()) {
    std::filesystem::create_directories(o.output_dir);
    for (size_t i = 0; i < outputs.size(); i++) {
      auto path =
          std::filesystem::path(o.output_dir) / fmt::format("output_{}.{}", i, o.output_format);
      if (o.output_format == "npy")
        io::write_npy(path.string(), outputs[i]);
      else
        io::write_tensor_pb(path.string(), outputs[i], graph->output_names()[i]);
    }
  }
  if (!o.assert_bundle.empty()) {
    auto expected = io::read_bundle(o.assert_bundle, "output", output_facts(*graph));
    KILN_ENSURE(!expected.empty(), "--assert-output-bundle {}: no output_N.pb files",
                o.assert_bundle);
    KILN_ENSURE(expected.size() == outputs.size(),
                "--assert-output-bundle {}: {} reference outputs for a model with {} outputs",
                o.assert_bundle, expected.size(), outputs.size());
    bool all_ok = true;
    for (size_t i = 0; i < outputs.size(); i++) {
      auto r = compare_tensors(outputs[i], expected[i].tensor, o.rtol, o.atol);
      all_ok = all_ok && r.ok;
      if (!o.quiet || !r.ok)
        fmt::print("output {} '{}' {}: {}\n", i, graph->output_names()[i],
                   outputs[i].rank() ? shape_to_string(outputs[i].shape()) + "," +
                                           std::string(name_of(outputs[i].dtype()))
                                     : std::string(name_of(outputs[i].dtype())),
                   r.summary());
    }
    if (!all_ok) {
      std::fflush(stdout);
      spdlog::error("outputs do not match {} (rtol {}, atol {})", o.assert_bundle, o.rtol, o.atol);
      return 1;
    }
    if (!o.quiet)
      fmt::print("all {} outputs match (rtol {}, atol {})\n", outputs.size(), o.rtol, o.atol);
    return 0;
  }
  if (!o.labels.empty()) {
    KILN_ENSURE(!outputs.empty(), "--labels: the model has no output");
    fmt::print("output 0 '{}' top {}:\n{}", graph->output_names()[0], o.top,
               format_top_k(outputs[0], read_labels(o.labels), o.top));
    return 0;
  }
  if (o.output_dir.empty())
    for (size_t i = 0; i < outputs.size(); i++)
      fmt::print("output {} '{}': {}\n", i, graph->output_names()[i], outputs[i].to_string(16));
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run a model on given inputs, write or check its outputs");
  add_model_options(cmd, o->model);
  add_stage_options(cmd, o->stage, "optimize");
  add_input_options(cmd, o->inputs);
  cmd->add_option("--assert-output-bundle", o->assert_bundle,
                  "Compare outputs with DIR/output_N.pb; exit 1 on mismatch");
  cmd->add_option("--output-dir", o->output_dir, "Write outputs as DIR/output_N.pb (or .npy)");
  cmd->add_option("--output-format", o->output_format, "pb or npy")
      ->check(CLI::IsMember({"pb", "npy"}));
  cmd->add_option("--rtol", o->rtol, "Relative tolerance for --assert-output-bundle")
      ->capture_default_str();
  cmd->add_option("--atol", o->atol, "Absolute tolerance for --assert-output-bundle")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", o->quiet, "Print only mismatches");
  cmd->add_option("--labels", o->labels,
                  "Labels file (one per line): print the top classes of output 0 instead of "
                  "its values");
  cmd->add_option("--top", o->top, "How many classes --labels prints")->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Threads kernels may use (default: the physical cores); results do not depend "
                  "on it")
      ->check(CLI::PositiveNumber);
  cmd->footer(
      "Examples:\n"
      "  kiln run model.onnx --input-bundle test_data_set_0 --assert-output-bundle "
      "test_data_set_0\n"
      "  kiln run model.onnx --input x=x.npy --output-dir out --output-format npy\n"
      "  kiln run model.onnx --input-bundle test_data_set_0 --threads 1\n"
      "  kiln run model.onnx -i 1,S,40,f32 --input-npz inputs.npz\n"
      "  kiln run model.onnx --stage typed --input-bundle test_data_set_0   (no passes)\n"
      "  kiln run kws.pb --input wav_data=@clip.wav --labels labels.txt --top 3\n"
      "  kiln run kws.pb --input-node Mfcc --input Mfcc=mfcc.npy --output-node labels_softmax");
  return [o] { return run(*o); };
}

}  // namespace kiln::cli
