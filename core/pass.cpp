#include "core/pass.h"

#include <fmt/format.h>

#include "base/error.h"
#include "core/patch.h"

namespace kiln {

void PassReport::append(const PassReport& other) {
  records.insert(records.end(), other.records.begin(), other.records.end());
  stages.insert(stages.end(), other.stages.begin(), other.stages.end());
}

size_t PassReport::total_rewrites() const {
  size_t total = 0;
  for (const auto& r : records) total += r.rewrites;
  return total;
}

PassManager& PassManager::add(std::unique_ptr<Pass> pass) {
  passes_.push_back(std::move(pass));
  return *this;
}

PassManager& PassManager::add_final(std::unique_ptr<Pass> pass) {
  final_passes_.push_back(std::move(pass));
  return *this;
}

size_t PassManager::run_one(Pass& pass, Graph& graph, size_t round, PassReport& report) {
  size_t before = count_compute_nodes(graph);
  size_t rewrites;
  try {
    rewrites = pass.run(graph);
  } catch (Error& e) {
    e.with_context(fmt::format("{} pass '{}'", stage_, pass.name()));
    throw;
  }
  if (rewrites > 0)
    report.records.push_back(
        {stage_, pass.name(), round, rewrites, before, count_compute_nodes(graph)});
  return rewrites;
}

PassReport PassManager::run(Graph& graph) {
  PassReport report;
  PassReport::StageCount count{stage_, count_compute_nodes(graph), 0, 0};
  size_t round = 0;
  bool changed = true;
  while (changed && round < max_rounds_) {
    round++;
    changed = false;
    for (const auto& pass : passes_)
      if (run_one(*pass, graph, round, report) > 0) changed = true;
  }
  round++;
  for (const auto& pass : final_passes_) run_one(*pass, graph, round, report);
  count.rounds = round;
  count.nodes_after = count_compute_nodes(graph);
  report.stages.push_back(count);
  return report;
}

}  // namespace kiln
