// kiln bench: times whole inferences -- warm-up, timed runs, median and percentiles, JSON for
// CI, and a regression gate against a previous JSON result.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/threading.h"
#include "cli/commands.h"
#include "cli/limit_options.h"
#include "cli/model_setup.h"
#include "cli/progress.h"
#include "cli/pulse_bench.h"
#include "cli/stage_options.h"
#include "cli/timing_inputs.h"
#include "core/benchmark.h"
#include "core/concurrent_runs.h"
#include "core/session.h"
#include "core/timing_stats.h"
#include "passes/pipeline.h"

namespace kiln::cli {

namespace {

struct BenchOptions {
  ModelOptions model;
  InputOptions inputs;
  StageOptions stage;
  BenchLimits limits;
  CLI::Option* runs_option = nullptr;
  CLI::Option* max_time_option = nullptr;
  int threads = 0;
  uint64_t seed = 0;
  bool json = false;
  std::string baseline;
  std::string max_regression = "10%";
  int concurrent = 0;       // --concurrent N: N sessions of one loaded model at once
  LimitOptions run_limits;  // --max-memory, --timeout
  std::string pulse;        // --pulse: time the streaming model pulse by pulse
  double frame_ms = 10;     // --frame-ms: input duration of one frame (real-time factor)
};

// "10%", "10" or "2.5 %" -> 10, 10, 2.5.
double parse_percent(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '%' || t.back() == ' ')) t.pop_back();
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  KILN_ENSURE(used == t.size() && used > 0 && value >= 0,
              "--max-regression {}: expected a non-negative percentage such as 10%", text);
  return value;
}

double read_baseline_median(const std::string& path) {
  std::ifstream in(path);
  KILN_ENSURE(in, "--baseline {}: cannot open the file", path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    fail("--baseline {}: not valid JSON ({})", path, e.what());
  }
  KILN_ENSURE(doc.is_object() && doc.contains("median_ms") && doc["median_ms"].is_number(),
              "--baseline {}: no numeric \"median_ms\" field (expected the output of kiln "
              "bench --json)",
              path);
  double median = doc["median_ms"].get<double>();
  KILN_ENSURE(median > 0, "--baseline {}: median_ms must be positive, got {}", path, median);
  return median;
}

// --concurrent N: the single-session throughput first (same limits), then N sessions at once,
// each with --threads workers (default 1); every run's outputs checked against a single
// session's, bitwise.
int bench_concurrent(BenchOptions& o, const BenchLimits& limits) {
  const int threads = o.threads > 0 ? o.threads : 1;
  set_num_threads(threads);
  auto model = load_model_for_timing(o.model, o.inputs, o.stage, o.seed);
  check_weights_fit(o.run_limits, model.plan->graph());
  const auto& inputs = model.inputs.tensors;
  std::vector<Tensor> reference;
  {
    Session single(model.plan, SessionOptions{threads});
    reference = single.run(inputs);
  }
  ConcurrentOptions single_options{1, threads, limits};
  ConcurrentOptions options{o.concurrent, threads, limits};
  ConcurrentResult one, all;
  {
    ProgressLine progress("bench");
    one = run_concurrent(model.plan, inputs, reference, single_options);
    all = run_concurrent(model.plan, inputs, reference, options);
  }
  std::vector<double> every;
  for (const auto& s : all.run_ms) every.insert(every.end(), s.begin(), s.end());
  const auto overall = timing_stats(every);
  const double speedup = one.throughput_ips > 0 ? all.throughput_ips / one.throughput_ips : 0;
  if (o.json) {
    nlohmann::json sessions = nlohmann::json::array();
    for (const auto& s : all.run_ms) {
      auto st = timing_stats(s);
      sessions.push_back({{"runs", st.count},
                          {"median_ms", st.median},
                          {"p90_ms", st.p90},
                          {"p99_ms", st.p99},
                          {"max_ms", st.max}});
    }
    nlohmann::json doc{{"model", o.model.path},
                       {"stage", passes::stage_name(selected_stage(o.stage))},
                       {"cpu", cpu_description()},
                       {"concurrent", o.concurrent},
                       {"threads", threads},
                       {"runs", all.runs},
                       {"median_ms", overall.median},
                       {"p90_ms", overall.p90},
                       {"p99_ms", overall.p99},
                       {"max_ms", overall.max},
                       {"wall_s", all.wall_seconds},
                       {"throughput_ips", all.throughput_ips},
                       {"single_session_throughput_ips", one.throughput_ips},
                       {"throughput_ratio", speedup},
                       {"outputs_identical", all.identical && one.identical},
                       {"sessions", sessions},
                       {"random_inputs", model.inputs.random},
                       {"inputs", model.inputs.description}};
    fmt::print("{}\n", doc.dump(1));
  } else {
    fmt::print("Inputs: {}\n", model.inputs.description);
    fmt::print("Stage: {}\n", passes::stage_name(selected_stage(o.stage)));
    fmt::print("Concurrent: {} sessions of one loaded model, {} thread{} each\n", o.concurrent,
               threads, threads == 1 ? "" : "s");
    for (size_t s = 0; s < all.run_ms.size(); s++) {
      auto st = timing_stats(all.run_ms[s]);
      fmt::print("Session {}: {} runs, median {:.3f} ms/i (p90 {:.3f}, p99 {:.3f}, max {:.3f})\n",
                 s, st.count, st.median, st.p90, st.p99, st.max);
    }
    fmt::print(
        "Throughput {:.1f} inferences/s ({} runs in {:.3f} s); one session alone "
        "{:.1f} inferences/s: {:.2f}x\n",
        all.throughput_ips, all.runs, all.wall_seconds, one.throughput_ips, speedup);
    if (all.identical && one.identical)
      fmt::print("Outputs: every run of every session bitwise identical to a single session's\n");
  }
  if (!all.identical || !one.identical) {
    std::fflush(stdout);
    fail("concurrent sessions gave different outputs: {}",
         all.identical ? one.mismatch : all.mismatch);
  }
  return 0;
}

int bench(BenchOptions& o) {
  apply_limits(o.run_limits);
  if (o.threads > 0) set_num_threads(o.threads);
  BenchLimits limits = o.limits;
  bool runs_given = o.runs_option->count() > 0, time_given = o.max_time_option->count() > 0;
  if (runs_given && !time_given) limits.max_seconds = 0;
  if (time_given && !runs_given) limits.max_runs = 0;
  double max_regression = parse_percent(o.max_regression);
  double baseline_median = o.baseline.empty() ? 0 : read_baseline_median(o.baseline);
  if (!o.pulse.empty()) {
    KILN_ENSURE(o.concurrent == 0 && o.baseline.empty(),
                "--pulse times one stream: drop --concurrent / --baseline");
    return bench_pulsed({o.model, o.pulse, o.frame_ms, limits, o.seed, o.json});
  }
  if (o.concurrent > 0) {
    KILN_ENSURE(o.baseline.empty(), "--baseline compares single-session runs: drop --concurrent");
    return bench_concurrent(o, limits);
  }

  auto model = load_model_for_timing(o.model, o.inputs, o.stage, o.seed);
  check_weights_fit(o.run_limits, model.plan->graph());
  Session state(model.plan);
  const auto& inputs = model.inputs.tensors;

  BenchResult result;
  {
    ProgressLine progress("bench");
    std::vector<Tensor> outputs;  // reused run after run: a steady-state run allocates nothing
    result = benchmark([&] { state.run(inputs, outputs); }, limits,
                       [&](double elapsed, size_t runs) { progress.update(elapsed, runs); });
  }
  auto stats = timing_stats(result.run_ms);
  // Mean CPU time per timed run (all threads; includes the pool's spinning).
  const double cpu_ms = result.cpu_seconds * 1000.0 / static_cast<double>(stats.count);

  double change = 0;
  bool regressed = false;
  if (!o.baseline.empty()) {
    change = (stats.median - baseline_median) / baseline_median * 100.0;
    regressed = change > max_regression;
  }

  if (o.json) {
    nlohmann::json doc{{"model", o.model.path},
                       {"stage", passes::stage_name(selected_stage(o.stage))},
                       {"cpu", cpu_description()},
                       {"threads", num_threads()},
                       {"runs", stats.count},
                       {"warmup_runs", result.warmup_runs},
                       {"median_ms", stats.median},
                       {"min_ms", stats.min},
                       {"max_ms", stats.max},
                       {"mean_ms", stats.mean},
                       {"p90_ms", stats.p90},
                       {"p99_ms", stats.p99},
                       {"cpu_ms", cpu_ms},
                       {"random_inputs", model.inputs.random},
                       {"inputs", model.inputs.description}};
    if (!o.baseline.empty())
      doc["baseline"] = {{"path", o.baseline},
                         {"median_ms", baseline_median},
                         {"change_percent", change},
                         {"max_regression_percent", max_regression},
                         {"regressed", regressed}};
    fmt::print("{}\n", doc.dump(1));
  } else {
    fmt::print("Inputs: {}\n", model.inputs.description);
    fmt::print("Stage: {}\n", passes::stage_name(selected_stage(o.stage)));
    fmt::print("Threads: {}, warm-up: {} runs ({:.3f} s)\n", num_threads(), result.warmup_runs,
               result.warmup_seconds);
    fmt::print("Bench ran {} times, median {:.3f} ms/i (min {:.3f}, p90 {:.3f}, p99 {:.3f})\n",
               stats.count, stats.median, stats.min, stats.p90, stats.p99);
    fmt::print("CPU time {:.3f} ms/i (mean, all threads)\n", cpu_ms);
    if (!o.baseline.empty())
      fmt::print("Baseline {}: median {:.3f} ms/i; now {:.1f}% {} (allowed: {}% slower)\n",
                 o.baseline, baseline_median, std::abs(change), change > 0 ? "slower" : "faster",
                 max_regression);
  }
  if (regressed) {
    std::fflush(stdout);
    fmt::print(stderr,
               "kiln: error: regression: median {:.3f} ms/i is {:.1f}% slower than the baseline "
               "{:.3f} ms/i ({}), more than the {}% allowed\n",
               stats.median, change, baseline_median, o.baseline, max_regression);
    return 1;
  }
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench", "Time whole inferences: warm-up, runs, median and percentiles, JSON for CI");
  add_model_options(cmd, o->model);
  add_input_options(cmd, o->inputs);
  add_stage_options(cmd, o->stage, "optimize");
  cmd->add_option("--threads", o->threads, "Threads kernels may use (default: the core count)")
      ->check(CLI::NonNegativeNumber);
  add_limit_options(cmd, o->run_limits);
  cmd->add_option("--warmup", o->limits.warmup_runs, "Untimed runs before timing")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--warmup-time", o->limits.warmup_seconds,
                  "Keep warming up for at least this many seconds")
      ->check(CLI::NonNegativeNumber);
  o->runs_option = cmd->add_option("--runs", o->limits.max_runs,
                                   "Timed runs (default: 100, or up to --max-time when only "
                                   "that is given)")
                       ->check(CLI::PositiveNumber);
  o->max_time_option = cmd->add_option("--max-time", o->limits.max_seconds,
                                       "Stop timing after this many seconds (default: 5, or no "
                                       "limit when only --runs is given)")
                           ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_flag("--json", o->json,
                "Machine-readable output: {\"median_ms\",\"min_ms\",\"p90_ms\",\"p99_ms\","
                "\"cpu_ms\" (mean CPU time per run, all threads),\"runs\",\"threads\",\"model\","
                "\"cpu\",...}");
  cmd->add_option("--baseline", o->baseline,
                  "A previous 'kiln bench --json' output: exit 1 when the median is slower "
                  "than it by more than --max-regression");
  cmd->add_option("--max-regression", o->max_regression,
                  "Allowed slowdown against --baseline, in percent")
      ->capture_default_str();
  cmd->add_option("--pulse", o->pulse,
                  "Stream: time the pulsified model one pulse of P frames at a time (8 or S=8): "
                  "per-pulse latency and the real-time factor");
  cmd->add_option("--frame-ms", o->frame_ms,
                  "With --pulse: milliseconds of input one frame stands for (real-time factor = "
                  "P x frame-ms / median pulse latency)")
      ->capture_default_str();
  cmd->add_option("--concurrent", o->concurrent,
                  "Run N sessions of the loaded model at once, each in its own thread with "
                  "--threads workers (default 1): per-session latency, total throughput "
                  "(\"throughput_ips\") against one session alone, outputs checked bitwise")
      ->check(CLI::PositiveNumber);
  cmd->footer(
      "Inputs are random tensors of the input facts unless --input-bundle, --input or "
      "--input-npz give real ones.\n"
      "Examples:\n"
      "  kiln bench model.onnx\n"
      "  kiln bench model.onnx --stage typed        (the reference ops, no optimization)\n"
      "  kiln bench model.onnx -i 1,100,40,f32 --threads 1 --runs 50\n"
      "  kiln bench model.onnx --input-bundle test_data_set_0 --json > base.json\n"
      "  kiln bench model.onnx --baseline base.json --max-regression 10%\n"
      "  kiln bench wavenet_kws/model.onnx --pulse 8 --frame-ms 10 --threads 1   (streaming)\n"
      "  kiln bench model.onnx --concurrent 2 --threads 1 --json   (a server's throughput)");
  return [o] { return bench(*o); };
}

}  // namespace kiln::cli
