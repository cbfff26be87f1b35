#include "core/patch.h"

#include "base/error.h"
#include "core/source_ops.h"

namespace kiln {

Outlet ModelPatch::add_const(const std::string& name, Tensor value) {
  return graph_.add_const(name, std::move(value));
}

int ModelPatch::add_node(const std::string& name, OpPtr op, std::vector<Outlet> inputs,
                         size_t num_outputs) {
  return graph_.add_node(name, std::move(op), std::move(inputs), num_outputs, true);
}

void ModelPatch::replace_op(int node, OpPtr op) {
  auto inputs = graph_.node(node).inputs;
  replace_op(node, std::move(op), std::move(inputs));
}

void ModelPatch::replace_op(int node, OpPtr op, std::vector<Outlet> inputs) {
  Node& n = graph_.node(node);
  for (const auto& in : inputs)
    KILN_ENSURE(!in.present() || in.node != node, "patch: node {} cannot feed itself",
                graph_.describe(node));
  size_t outputs = n.outputs.size();
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  graph_.analyse_node(node);
  KILN_ENSURE(graph_.node(node).outputs.size() >= outputs,
              "patch: replacement op of {} has fewer outputs", graph_.describe(node));
  graph_.node(node).outputs.resize(outputs);
  rewrites_++;
}

void ModelPatch::shunt(Outlet from, Outlet to) {
  KILN_ENSURE(from.present() && to.present(), "patch: shunt needs two outlets");
  const Fact& a = graph_.fact(from);
  const Fact& b = graph_.fact(to);
  KILN_ENSURE(a.dt == b.dt && a.rank() == b.rank(),
              "patch: cannot shunt {} ({}) to {} ({}): types differ", graph_.describe(from.node),
              a.to_string(), graph_.describe(to.node), b.to_string());
  for (const auto& n : graph_.nodes()) {
    if (n.id == to.node) continue;
    for (auto& in : graph_.node(n.id).inputs)
      if (in == from) in = to;
  }
  auto outputs = graph_.outputs();
  for (auto& o : outputs)
    if (o == from) o = to;
  graph_.set_outputs(outputs, graph_.output_names());
  rewrites_++;
}

std::vector<int> compact(Graph& graph) {
  std::vector<int> order;
  std::vector<char> kept(graph.size(), 0);
  auto keep = [&](int id) {
    if (kept[static_cast<size_t>(id)]) return;
    kept[static_cast<size_t>(id)] = 1;
    order.push_back(id);
  };
  for (const auto& in : graph.inputs()) keep(in.node);
  for (int id : graph.eval_order()) keep(id);
  std::vector<int> new_id(graph.size(), -1);
  for (size_t i = 0; i < order.size(); i++)
    new_id[static_cast<size_t>(order[i])] = static_cast<int>(i);
  auto remap = [&](Outlet o) {
    if (o.present()) o.node = new_id[static_cast<size_t>(o.node)];
    return o;
  };
  Graph compacted;
  for (int old : order) {
    Node& n = graph.node(old);
    std::vector<Outlet> inputs;
    for (const auto& in : n.inputs) inputs.push_back(remap(in));
    int id = compacted.add_node(n.name, n.op, std::move(inputs), n.outputs.size());
    compacted.node(id).outputs = std::move(n.outputs);
    compacted.node(id).fold = std::move(n.fold);
  }
  std::vector<Outlet> inputs, outputs;
  for (const auto& in : graph.inputs()) inputs.push_back(remap(in));
  for (const auto& out : graph.outputs()) outputs.push_back(remap(out));
  compacted.set_inputs(std::move(inputs));
  compacted.set_outputs(std::move(outputs), graph.output_names());
  graph = std::move(compacted);
  return new_id;
}

size_t ModelPatch::commit() {
  compact(graph_);
  graph_.analyse();
  return rewrites_;
}

bool is_source_or_const(const Node& node) {
  return dynamic_cast<const SourceOp*>(node.op.get()) ||
         dynamic_cast<const ConstOp*>(node.op.get());
}

size_t count_compute_nodes(const Graph& graph) {
  size_t count = 0;
  for (const auto& n : graph.nodes())
    if (!is_source_or_const(n)) count++;
  return count;
}

}  // namespace kiln
