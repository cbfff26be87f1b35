#include "passes/fuse_output.h"

#include <set>

#include "core/patch.h"
#include "ops/core/output_steps.h"
#include "passes/graph_util.h"

namespace kiln::passes {

size_t FuseOutput::run(Graph& graph) {
  // One step per producer per sweep; sweep again until nothing joins.
  size_t total = 0;
  while (size_t rewrites = fuse_one_step(graph)) total += rewrites;
  return total;
}

size_t FuseOutput::fuse_one_step(Graph& graph) {
  ModelPatch patch(graph);
  Uses uses(graph);
  std::set<int> done;  // nodes consumed by a fusion this sweep
  const size_t count = graph.size();
  for (size_t i = 0; i < count; i++) {
    const Node& n = graph.node(static_cast<int>(i));
    const auto* producer = dynamic_cast<const ops::FusableProducer*>(n.op.get());
    if (!producer || n.outputs.size() != 1 || done.count(n.id)) continue;
    const Outlet out{n.id, 0};
    const int user_id = single_consumer(uses, out);
    if (user_id < 0 || done.count(user_id)) continue;
    const Node& user = graph.node(user_id);
    const auto* source = dynamic_cast<const ops::OutputStepSource*>(user.op.get());
    if (!source || user.outputs.size() != 1) continue;
    // The step keeps the value's type and shape (no broadcast to a larger output).
    if (!graph.fact({user_id, 0}).same_type_and_shape(n.outputs[0])) continue;
    size_t value = 0;
    while (value < user.inputs.size() && user.inputs[value] != out) value++;
    if (value == user.inputs.size()) continue;
    FactRefs user_facts;
    for (const Outlet& in : user.inputs)
      user_facts.push_back(in.present() ? &graph.fact(in) : nullptr);
    const auto step = source->output_step(user_facts, value);
    if (!step) continue;
    // A binary step's operand: the user's other input (never the value itself: x + x).
    Outlet operand;
    if (step->kind == ops::OutputStep::Kind::Binary) {
      operand = user.inputs[1 - value];
      if (!operand.present() || operand == out) continue;
    }
    FactRefs facts;
    for (const Outlet& in : n.inputs) facts.push_back(in.present() ? &graph.fact(in) : nullptr);
    OpPtr fused = producer->with_output_step(*step, facts,
                                             operand.present() ? &graph.fact(operand) : nullptr);
    if (!fused) continue;
    std::vector<Outlet> inputs = n.inputs;
    if (operand.present()) inputs.push_back(operand);
    const int id = n.id;
    const std::string name = n.name;
    const int f = patch.add_node(name, fused, inputs);
    patch.shunt({user_id, 0}, {f, 0});
    done.insert(id);
    done.insert(user_id);
  }
  return patch.commit();
}

}  // namespace kiln::passes
