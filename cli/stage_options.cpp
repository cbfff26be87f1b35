#include "cli/stage_options.h"

#include "cli/test_fault.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <map>
#include <nlohmann/json.hpp>

namespace kiln::cli {

void add_stage_options(CLI::App* app, StageOptions& options, const std::string& default_stage) {
  options.stage = default_stage;
  app->add_option("--stage", options.stage,
                  "Pipeline stage to work on: load, typed, declutter, optimize or plan")
      ->check(CLI::IsMember({"load", "typed", "declutter", "optimize", "plan"}))
      ->capture_default_str();
  app->add_flag("-O,--optimize", options.optimize, "Shorthand for --stage optimize");
}

passes::Stage selected_stage(const StageOptions& options) {
  return options.optimize ? passes::Stage::Optimize : passes::parse_stage(options.stage);
}

std::shared_ptr<Graph> load_model_at_stage(const ModelOptions& model, const StageOptions& stage,
                                           PassReport* report) {
  auto graph = load_model_with_facts(model);
  PassReport r = run_stages(*graph, stage);
  if (report) *report = std::move(r);
  return graph;
}

PassReport run_stages(Graph& graph, const StageOptions& stage) {
  PassReport report = passes::run_to_stage(graph, selected_stage(stage));
  if (selected_stage(stage) >= passes::Stage::Optimize) apply_test_fault(graph);
  if (spdlog::should_log(spdlog::level::info) && !report.stages.empty()) {
    std::string text = pass_report_text(report);
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) spdlog::info("{}", text.substr(start, end - start));
      start = end + 1;
    }
  }
  return report;
}

namespace {

struct PassTotal {
  std::string stage, pass;
  size_t runs = 0, rewrites = 0, nodes_before = 0, nodes_after = 0;
  long removed = 0;  // compute nodes removed by this pass's runs (negative: added)
};

// One line per (stage, pass) in first-run order: total rewrites, nodes before its first run
// and after its last.
std::vector<PassTotal> totals(const PassReport& report) {
  std::vector<PassTotal> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& r : report.records) {
    auto key = std::make_pair(r.stage, r.pass);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back({r.stage, r.pass, 0, 0, r.nodes_before, 0, 0});
    }
    auto& t = out[it->second];
    t.runs++;
    t.rewrites += r.rewrites;
    t.nodes_after = r.nodes_after;
    t.removed += static_cast<long>(r.nodes_before) - static_cast<long>(r.nodes_after);
  }
  return out;
}

}  // namespace

std::string pass_report_text(const PassReport& report) {
  std::string out = fmt::format("{:<10} {:<20} {:>8} {:>5} {:>8} {:>13} {:>12}\n", "stage", "pass",
                                "rewrites", "runs", "removed", "nodes before", "nodes after");
  for (const auto& t : totals(report))
    out += fmt::format("{:<10} {:<20} {:>8} {:>5} {:>8} {:>13} {:>12}\n", t.stage, t.pass,
                       t.rewrites, t.runs, t.removed, t.nodes_before, t.nodes_after);
  for (const auto& s : report.stages)
    out += fmt::format("{}: {} -> {} compute nodes in {} rounds\n", s.stage, s.nodes_before,
                       s.nodes_after, s.rounds);
  return out;
}

std::string pass_report_json(const PassReport& report) {
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& t : totals(report))
    passes.push_back({{"stage", t.stage},
                      {"pass", t.pass},
                      {"rewrites", t.rewrites},
                      {"runs", t.runs},
                      {"removed", t.removed},
                      {"nodes_before", t.nodes_before},
                      {"nodes_after", t.nodes_after}});
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : report.stages)
    stages.push_back({{"stage", s.stage},
                      {"nodes_before", s.nodes_before},
                      {"nodes_after", s.nodes_after},
                      {"rounds", s.rounds}});
  return nlohmann::json{{"passes", passes}, {"stages", stages}}.dump(1);
}

}  // namespace kiln::cli
