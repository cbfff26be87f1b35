// kiln profile: per-node time and cost table, the most time consuming operation types, cost
// summary, whole-network time and how much of it the nodes account for, memory; --json and a
// Chrome trace. `kiln dump --cost/--profile` print parts of the same report.
#include <fmt/format.h>

#include <memory>

#include "base/error.h"
#include "base/isa.h"
#include "base/threading.h"
#include "cli/commands.h"
#include "cli/cost_profile.h"
#include "cli/profile_html.h"
#include "cli/profile_report.h"
#include "cli/progress.h"
#include "cli/timing_inputs.h"
#include "core/session.h"
#include "core/state.h"
#include "passes/pipeline.h"

namespace kiln::cli {

void add_profile_limit_options(CLI::App* cmd, CostProfileOptions& o) {
  cmd->add_option("--threads", o.threads, "Threads kernels may use (default: the core count)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--warmup", o.limits.warmup_runs, "Unprofiled runs first")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  o.runs_option = cmd->add_option("--runs", o.limits.max_runs,
                                  "Profiled runs (default: 100, or up to --max-time when only "
                                  "that is given)")
                      ->check(CLI::PositiveNumber);
  o.max_time_option = cmd->add_option("--max-time", o.limits.max_seconds,
                                      "Stop profiling after this many seconds (default: 2, or "
                                      "no limit when only --runs is given)")
                          ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o.seed, "Seed of the random inputs")->capture_default_str();
}

int run_cost_profile(const CostProfileOptions& options) {
  CostProfileOptions o = options;
  bool runs_given = o.runs_option && o.runs_option->count() > 0;
  bool time_given = o.max_time_option && o.max_time_option->count() > 0;
  if (runs_given && !time_given) o.limits.max_seconds = 0;
  if (time_given && !runs_given) o.limits.max_runs = 0;
  if (o.threads > 0) set_num_threads(o.threads);
  std::shared_ptr<Graph> graph;
  std::string inputs_text;
  ProfileResult profile;
  SymbolValues symbols;
  std::optional<MemoryStats> arena;
  std::vector<PlannedValue> layout;
  std::vector<int> order;
  if (o.profile) {
    auto model = load_model_for_timing(o.model, o.inputs, o.stage, o.seed);
    graph = model.graph;
    inputs_text = model.inputs.description;
    Session state(model.plan);
    ProgressLine progress("profile");
    // Events feed the trace, and one run of them the timeline of --json and --html.
    bool events = !o.trace.empty() || !o.html.empty() || o.json;
    profile = profile_state(state, model.inputs.tensors, o.limits, events,
                            [&](double elapsed, size_t runs) { progress.update(elapsed, runs); });
    symbols = state.symbols();
    arena = state.memory_stats();
    layout = state.state().memory_layout();
    order = model.plan->order();
  } else {
    graph = load_model_with_facts(o.model);
    if (has_inputs(o.inputs)) {
      auto inputs = gather_inputs(*graph, o.inputs);
      bind_input_shapes(*graph, inputs);
    }
    passes::run_to_stage(*graph, selected_stage(o.stage));
  }
  Report report = build_report(*graph, o.profile ? &profile : nullptr, symbols);
  report.model = o.model.path;
  report.stage = passes::stage_name(selected_stage(o.stage));
  report.inputs = inputs_text;
  report.threads = num_threads();
  report.arena = arena;
  report.memory_layout = std::move(layout);
  report.order = std::move(order);
  report.timeline = median_run_events(profile);
  report.cpu = cpu_description();
  report.isa = isa_name(active_isa());
  if (!o.trace.empty()) write_trace(o.trace, *graph, profile);
  if (!o.html.empty()) write_profile_html(o.html, report_json(report));
  if (o.json) {
    fmt::print("{}\n", report_json(report).dump(1));
    return 0;
  }
  if (o.profile) fmt::print("Inputs: {}\n", inputs_text);
  fmt::print("Stage: {}{}\n", report.stage, o.stage_note);
  print_node_table(report, o.cost);
  if (o.summary) print_summary(report);
  if (!o.trace.empty())
    fmt::print("\nTrace: {} ({} events; open in https://ui.perfetto.dev or chrome://tracing)\n",
               o.trace, profile.events.size());
  if (!o.html.empty())
    fmt::print("\nHTML report: {} (self-contained; open it in a browser)\n", o.html);
  return 0;
}

Command add_profile_command(CLI::App& app) {
  auto o = std::make_shared<CostProfileOptions>();
  o->cost = o->profile = o->summary = true;
  auto* cmd = app.add_subcommand(
      "profile",
      "Time every node and report it with its cost: per-node table, most time consuming "
      "operations, cost summary, whole-network time, memory");
  add_model_options(cmd, o->model);
  add_input_options(cmd, o->inputs);
  add_stage_options(cmd, o->stage, "optimize");
  add_profile_limit_options(cmd, *o);
  cmd->add_flag(
      "--json", o->json,
      "Machine-readable output: {\"nodes\":[{\"name\",\"op\",\"ms\",\"percent\",\"fma\","
      "\"gflops\",\"output_shapes\",\"kernel\",\"reference\"}],\"total_ms\",\"total_fma\","
      "\"by_op\",\"memory\":{...,\"plan\",\"order\"},\"timeline\",\"cpu\",\"isa\"}");
  cmd->add_option("--trace", o->trace,
                  "Write a Chrome trace (one event per node per run) to this JSON file; open it "
                  "in https://ui.perfetto.dev or chrome://tracing");
  cmd->add_option("--html", o->html,
                  "Write a self-contained HTML report (no network): time by op type, sortable "
                  "node table, timeline, cost against time, memory plan; same data as --json");
  cmd->footer(
      "Inputs are random tensors of the input facts unless --input-bundle, --input or "
      "--input-npz give real ones.\n"
      "Examples:\n"
      "  kiln profile model.onnx\n"
      "  kiln profile model.onnx --stage declutter   (before optimization)\n"
      "  kiln profile model.onnx -i 1,100,40,f32 --threads 1 --json > profile.json\n"
      "  kiln profile model.onnx --input-bundle test_data_set_0 --trace trace.json\n"
      "  kiln profile model.onnx --html report.html");
  return [o] { return run_cost_profile(*o); };
}

}  // namespace kiln::cli
