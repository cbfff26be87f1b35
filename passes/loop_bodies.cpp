#include "passes/loop_bodies.h"

#include "core/patch.h"
#include "ops/control/loop.h"
#include "ops/control/scan.h"
#include "passes/graph_util.h"
#include "passes/pipeline.h"

namespace kiln::passes {

namespace {

void optimize_body(Graph& body) {
  run_to_stage(body, Stage::Optimize);
}

}  // namespace

size_t LoopBodies::run(Graph& graph) {
  ModelPatch patch(graph);
  for (size_t i = 0; i < graph.size(); i++) {
    const Node& n = graph.node(static_cast<int>(i));
    if (auto* loop = op_as<ops::Loop>(n); loop && !loop->optimizes_body()) {
      auto op = std::make_shared<ops::Loop>(loop->body(), loop->num_carried());
      op->set_body_optimizer(optimize_body);
      patch.replace_op(n.id, op);
    } else if (auto* scan = op_as<ops::Scan>(n); scan && !scan->optimizes_body()) {
      auto op = std::make_shared<ops::Scan>(scan->body(), scan->config());
      op->set_body_optimizer(optimize_body);
      patch.replace_op(n.id, op);
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
