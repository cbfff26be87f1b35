// kiln run: runs a model on given inputs; writes outputs or checks them against references.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "base/error.h"
#include "base/threading.h"
#include "cli/commands.h"
#include "cli/labels.h"
#include "cli/limit_options.h"
#include "cli/model_setup.h"
#include "cli/pulse_setup.h"
#include "cli/stage_options.h"
#include "cli/stream_run.h"
#include "cli/value_capture.h"
#include "core/session.h"
#include "core/state.h"
#include "core/stream_session.h"
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
  bool tolerance_given = false;  // --rtol or --atol on the command line
  bool quiet = false;
  std::string labels;  // --labels: print the top classes of output 0
  size_t top = 3;
  int threads = 0;          // --threads: 0 keeps the default (physical cores)
  LimitOptions limits;      // --max-memory, --timeout
  std::string save_values;  // --save-values: every intermediate value as DIR/<key>.npy
  std::string pulse;        // --pulse: stream the inputs through the pulsed model
  StreamRunOptions stream;  // --stream: a stateful model over a long input, chunk by chunk
};

// The tolerances an output of type `dt` is compared at. Without --rtol / --atol, a 16-bit float
// output gets its type's: two correct implementations differ there by an ulp or two (where
// they round intermediate results, the order they accumulate in), 1e-3 relative for float16
// (about one ulp; ONNX Runtime's own float16 checks use 1e-3 relative, 2.5e-3 absolute) and
// 1e-2 for bfloat16 (8 significant bits). An explicit tolerance is used as given.
std::pair<double, double> output_tolerance(const RunOptions& o, DatumType dt) {
  if (!o.tolerance_given && dt == DatumType::F16) return {1e-3, 1e-3};
  if (!o.tolerance_given && dt == DatumType::BF16) return {1e-2, 1e-2};
  return {o.rtol, o.atol};
}

int run(const RunOptions& o) {
  apply_limits(o.limits);
  if (o.threads > 0) set_num_threads(o.threads);
  if (!o.stream.stream.empty()) {
    KILN_ENSURE(o.pulse.empty() && o.assert_bundle.empty(),
                "--stream runs a stateful model chunk by chunk: drop --pulse / "
                "--assert-output-bundle");
    StreamRunOptions s = o.stream;
    s.model = o.model;
    s.inputs = o.inputs;
    s.output_dir = o.output_dir;
    s.output_format = o.output_format;
    s.quiet = o.quiet;
    return run_stream(s);
  }
  auto graph = load_model_with_facts(o.model);
  const size_t weights = check_weights_fit(o.limits, *graph);
  const std::optional<StreamSpec> pulsed_spec = pulsed_model_spec(o.model, *graph);
  auto inputs = pulsed_spec ? gather_inputs(whole_stream_inputs(*graph, *pulsed_spec), o.inputs)
                            : gather_inputs(*graph, o.inputs);
  std::vector<Tensor> outputs;
  if (pulsed_spec) {
    // A pulsed NNEF model (kiln convert --pulse): streamed like --pulse, its own pulse.
    KILN_ENSURE(o.pulse.empty() && o.save_values.empty(),
                "'{}' is already a pulsed model (pulse {}): drop --pulse / --save-values",
                o.model.path, pulsed_spec->pulse);
    graph->analyse();
    run_stages(*graph, o.stage);
    StreamSession stream(passes::plan(graph), *pulsed_spec);
    outputs = stream.run_whole(inputs);
    if (!o.quiet)
      fmt::print("pulsed model, pulse {} ({}): {}, {} pulses\n", pulsed_spec->pulse,
                 pulsed_spec->symbol, describe_delays(*pulsed_spec, graph->output_names()),
                 stream.pulses());
  } else if (!o.pulse.empty()) {
    // Streaming: the whole inputs cut into pulses, pushed through one session, the outputs
    // concatenated with their delay dropped.
    passes::check_constant_inputs(*graph, inputs);
    PulsedSetup pulsed = pulsify_model(*graph, o.pulse);
    StreamSession stream(pulsed.plan, pulsed.model.spec);
    outputs = stream.run_whole(inputs);
    if (!o.quiet)
      fmt::print("pulse {} ({}): {}, {} pulses\n", pulsed.model.spec.pulse,
                 pulsed.model.spec.symbol,
                 describe_delays(pulsed.model.spec, graph->output_names()), stream.pulses());
  } else {
    // The inputs are known: analyse with their shapes so shape-dependent branches fold.
    bind_input_shapes(*graph, inputs);
    passes::check_constant_inputs(*graph, inputs);
    run_stages(*graph, o.stage);
    if (o.save_values.empty()) {
      Session state(passes::plan(graph));
      outputs = state.run(inputs);
      check_plan_fits(o.limits, weights, state.memory_stats().arena_bytes);
    } else {
      CapturedRun values = capture_run(graph, inputs);
      values.description = o.model.path;
      save_values(values, o.save_values);
      outputs = std::move(values.outputs);
    }
  }

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
      auto [rtol, atol] = output_tolerance(o, expected[i].tensor.dtype());
      auto r = compare_tensors(outputs[i], expected[i].tensor, rtol, atol);
      all_ok = all_ok && r.ok;
      if (!o.quiet || !r.ok)
        fmt::print("output {} '{}' {}: {}\n", i, graph->output_names()[i],
                   outputs[i].rank() ? shape_to_string(outputs[i].shape()) + "," +
                                           std::string(name_of(outputs[i].dtype()))
                                     : std::string(name_of(outputs[i].dtype())),
                   r.summary());
    }
    const std::string tolerances =
        fmt::format("rtol {}, atol {}{}", o.rtol, o.atol,
                    o.tolerance_given ? "" : "; float16 1e-3, bfloat16 1e-2");
    if (!all_ok) {
      std::fflush(stdout);
      spdlog::error("outputs do not match {} ({})", o.assert_bundle, tolerances);
      return 1;
    }
    if (!o.quiet) fmt::print("all {} outputs match ({})\n", outputs.size(), tolerances);
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
  cmd->add_option("--rtol", o->rtol,
                  "Relative tolerance for --assert-output-bundle (default: float16 outputs "
                  "1e-3, bfloat16 1e-2)")
      ->capture_default_str()
      ->each([o](const std::string&) { o->tolerance_given = true; });
  cmd->add_option("--atol", o->atol,
                  "Absolute tolerance for --assert-output-bundle (default: float16 outputs "
                  "1e-3, bfloat16 1e-2)")
      ->capture_default_str()
      ->each([o](const std::string&) { o->tolerance_given = true; });
  cmd->add_flag("-q,--quiet", o->quiet, "Print only mismatches");
  cmd->add_option("--labels", o->labels,
                  "Labels file (one per line): print the top classes of output 0 instead of "
                  "its values");
  cmd->add_option("--top", o->top, "How many classes --labels prints")->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Threads kernels may use (default: the physical cores); results do not depend "
                  "on it")
      ->check(CLI::PositiveNumber);
  add_limit_options(cmd, o->limits);
  cmd->add_option("--save-values", o->save_values,
                  "Also write every intermediate value (each node's outputs) as DIR/<name>.npy, "
                  "listed in DIR/values.json (what kiln compare --reference reads)");
  cmd->add_option("--pulse", o->pulse,
                  "Stream: pulsify the model (P frames per call along the symbol's axis: 8 or "
                  "S=8), cut the inputs into pulses (zero-padding the last), push them through "
                  "one streaming session and concatenate the outputs without their delay");
  cmd->add_option("--stream", o->stream.stream,
                  "Stateful model over a long input: feed input NAME chunk by chunk along its "
                  "last axis (a .wav given with --input NAME=FILE.wav is read as 16-bit PCM "
                  "samples in [-1,1))");
  cmd->add_option("--chunk", o->stream.chunk, "With --stream: new samples per chunk");
  cmd->add_option("--context", o->stream.context,
                  "With --stream: samples of the previous chunk each chunk repeats before its new "
                  "ones (zeros before the start)")
      ->capture_default_str();
  cmd->add_option("--state", o->stream.states,
                  "With --stream: OUTPUT:INPUT, feed output OUTPUT of each chunk to input INPUT "
                  "of the next (starts as zeros or its --input); repeatable");
  cmd->footer(
      "Examples:\n"
      "  kiln run model.onnx --input-bundle test_data_set_0 --assert-output-bundle "
      "test_data_set_0\n"
      "  kiln run wavenet_kws/model.onnx --pulse 8 --input-bundle test_data_set_0 "
      "--assert-output-bundle test_data_set_0\n"
      "  kiln run model.onnx --input x=x.npy --output-dir out --output-format npy\n"
      "  kiln run model.onnx --input-bundle test_data_set_0 --threads 1\n"
      "  kiln run model.onnx --input-bundle test_data_set_0 --max-memory 512M --timeout 10\n"
      "  kiln run model.onnx -i 1,S,40,f32 --input-npz inputs.npz\n"
      "  kiln run model.onnx --stage typed --input-bundle test_data_set_0   (no passes)\n"
      "  kiln run kws.pb --input wav_data=@clip.wav --labels labels.txt --top 3\n"
      "  kiln run kws.pb --input-node Mfcc --input Mfcc=mfcc.npy --output-node labels_softmax\n"
      "  kiln run silero_vad_v5/model.onnx --stream input --chunk 512 --context 64 --state "
      "stateN:state --input input=speech.wav -i sr:i64=16000   (a VAD over a file: one line "
      "per chunk; --output-dir saves them stacked)");
  return [o] { return run(*o); };
}

}  // namespace kiln::cli
