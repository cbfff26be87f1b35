#include "passes/if_branches.h"

#include <spdlog/spdlog.h>

#include "base/error.h"
#include "core/patch.h"
#include "ops/control/if.h"
#include "passes/graph_util.h"
#include "passes/pipeline.h"

namespace kiln::passes {

namespace {

// The branch taken through the pipeline, or nullptr when nothing changed or it cannot be typed
// with these input facts.
GraphPtr rewrite_branch(const ops::IfBranch& branch, const Graph& graph, const Node& n,
                        Stage stage) {
  auto body = std::make_shared<Graph>(*branch.graph);
  try {
    for (size_t i = 0; i < branch.input_map.size(); i++)
      body->set_input_fact(i, graph.fact(n.inputs.at(branch.input_map[i])));
    PassReport report = run_to_stage(*body, stage);
    if (report.total_rewrites() == 0) return nullptr;
  } catch (const Error& e) {
    spdlog::debug("if-branches: a branch of '{}' is left as loaded: {}", n.name, e.what());
    return nullptr;
  }
  return body;
}

}  // namespace

size_t IfBranches::run(Graph& graph) {
  ModelPatch patch(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* op = op_as<ops::If>(n);
    if (!op) continue;
    ops::IfBranch then_branch = op->branch(true), else_branch = op->branch(false);
    GraphPtr then_graph = rewrite_branch(then_branch, graph, n, stage_);
    GraphPtr else_graph = rewrite_branch(else_branch, graph, n, stage_);
    if (!then_graph && !else_graph) continue;
    if (then_graph) then_branch.graph = then_graph;
    if (else_graph) else_branch.graph = else_graph;
    patch.replace_op(n.id, std::make_shared<ops::If>(then_branch, else_branch, op->assumed()));
  }
  return patch.commit();
}

}  // namespace kiln::passes
