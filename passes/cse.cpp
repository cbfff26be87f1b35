#include "passes/cse.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <string_view>

#include "core/patch.h"
#include "core/source_ops.h"
#include "passes/graph_util.h"

namespace kiln::passes {

namespace {

// Nodes are grouped by op name and inputs (a cheap key); within a group, Op::same_as decides.
std::string node_key(const Node& n, const std::vector<Outlet>& inputs) {
  std::string key = n.op->name() + " <-";
  for (const auto& in : inputs)
    key += in.present() ? fmt::format(" {}/{}", in.node, in.slot) : std::string(" _");
  return key;
}

std::string const_key(const Tensor& t) {
  std::string key = fmt::format("{}[{}]", name_of(t.dtype()), shape_to_string(t.shape()));
  if (t.dtype() == DatumType::String) return key + t.to_string(1 << 20);
  std::string_view bytes(static_cast<const char*>(t.raw_data()), t.nbytes());
  return key + std::to_string(std::hash<std::string_view>{}(bytes));
}

}  // namespace

size_t CommonSubexpressions::run(Graph& graph) {
  ModelPatch patch(graph);
  std::map<Outlet, Outlet> replaced;  // merged outlet -> the outlet kept
  std::map<std::string, std::vector<int>> consts;
  std::map<std::string, std::vector<int>> seen;
  auto current = [&](Outlet o) {
    auto it = replaced.find(o);
    return it == replaced.end() ? o : it->second;
  };
  for (const auto& n : graph.nodes()) {
    int keep = -1;
    if (auto* c = op_as<ConstOp>(n)) {
      auto& candidates = consts[const_key(c->value())];
      for (int other : candidates) {
        auto* oc = op_as<ConstOp>(graph.node(other));
        if (oc->value().equals(c->value())) keep = other;
      }
      if (keep < 0) candidates.push_back(n.id);
    } else if (n.op->is_deterministic()) {
      std::vector<Outlet> inputs;
      for (const auto& in : n.inputs) inputs.push_back(current(in));
      auto& candidates = seen[node_key(n, inputs)];
      for (int other : candidates) {
        if (n.op->same_as(*graph.node(other).op)) keep = other;
      }
      if (keep < 0) candidates.push_back(n.id);
    }
    if (keep < 0) continue;
    for (size_t slot = 0; slot < n.outputs.size(); slot++) {
      Outlet from{n.id, static_cast<int>(slot)}, to{keep, static_cast<int>(slot)};
      replaced[from] = to;
      patch.shunt(from, to);
    }
  }
  return patch.commit();
}

}  // namespace kiln::passes
