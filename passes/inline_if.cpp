#include "passes/inline_if.h"

#include <map>

#include "base/error.h"
#include "core/patch.h"
#include "core/source_ops.h"
#include "ops/control/if.h"
#include "passes/graph_util.h"

namespace kiln::passes {

std::vector<Outlet> inline_graph(ModelPatch& patch, const Graph& body,
                                 const std::vector<Outlet>& inputs, const std::string& prefix) {
  KILN_ENSURE(inputs.size() == body.inputs().size(), "inlining: {} inputs for a body with {}",
              inputs.size(), body.inputs().size());
  std::map<int, int> copied;  // body node id -> outer node id
  std::map<int, Outlet> sources;
  for (size_t i = 0; i < inputs.size(); i++) sources[body.inputs()[i].node] = inputs[i];
  auto outer = [&](Outlet o) -> Outlet {
    if (!o.present()) return o;
    if (auto it = sources.find(o.node); it != sources.end()) {
      KILN_ENSURE(o.slot == 0, "inlining: a body input has one output");
      return it->second;
    }
    return {copied.at(o.node), o.slot};
  };
  for (int id : body.eval_order()) {
    const Node& n = body.node(id);
    if (sources.count(id)) continue;
    KILN_ENSURE(!op_as<SourceOp>(n), "inlining: body node {} is an input not bound to a value",
                body.describe(id));
    std::vector<Outlet> ins;
    for (const auto& in : n.inputs) ins.push_back(outer(in));
    copied[id] = patch.add_node(prefix + n.name, n.op, std::move(ins), n.outputs.size());
  }
  std::vector<Outlet> outs;
  for (const auto& o : body.outputs()) outs.push_back(outer(o));
  return outs;
}

size_t InlineIf::run(Graph& graph) {
  ModelPatch patch(graph);
  size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    auto* op = op_as<ops::If>(n);
    if (!op || n.inputs.empty() || !n.inputs[0].present()) continue;
    const Fact& cond = graph.fact(n.inputs[0]);
    if (!cond.value || cond.value->numel() != 1) continue;
    bool taken = cond.value->value_as_double(0) != 0;
    const ops::IfBranch& branch = op->branch(taken);
    std::vector<Outlet> inputs;
    for (size_t index : branch.input_map) inputs.push_back(n.inputs.at(index));
    FactRefs facts;
    for (const auto& o : n.inputs) facts.push_back(o.present() ? &graph.fact(o) : nullptr);
    // The analysed branch: what typing by cases decided inside it stays decided.
    GraphPtr body = op->analysed_branch(taken, facts);
    int id = n.id;
    size_t num_outputs = n.outputs.size();
    auto outs = inline_graph(patch, *body, inputs, "");
    KILN_ENSURE(outs.size() >= num_outputs, "inline-if: branch has {} outputs, node {}",
                outs.size(), num_outputs);
    for (size_t slot = 0; slot < num_outputs; slot++)
      patch.shunt({id, static_cast<int>(slot)}, outs[slot]);
  }
  return patch.commit();
}

}  // namespace kiln::passes
