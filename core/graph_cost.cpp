#include "core/graph_cost.h"

#include <fmt/format.h>

#include <cmath>

#include "base/error.h"
#include "core/source_ops.h"

namespace kiln {

Dim CostTotals::total_fma() const {
  Dim total = 0;
  for (const auto& [dt, n] : fma) total += n;
  return total;
}

std::vector<NodeCost> node_costs(const Graph& graph) {
  std::vector<NodeCost> result;
  for (int id : graph.eval_order()) {
    const Node& n = graph.node(id);
    if (dynamic_cast<const SourceOp*>(n.op.get()) || dynamic_cast<const ConstOp*>(n.op.get()))
      continue;
    NodeCost nc;
    nc.node = id;
    FactRefs inputs;
    for (const auto& in : n.inputs) inputs.push_back(in.present() ? &graph.fact(in) : nullptr);
    try {
      nc.cost = n.op->cost(inputs);
    } catch (const std::exception& e) {
      nc.cost = Cost{};
      nc.cost.known = false;
      nc.error = e.what();
    }
    for (const auto& f : n.outputs)
      if (!is_object(f.dt))
        nc.output_bytes += f.volume() * Dim(static_cast<int64_t>(size_of(f.dt)));
    result.push_back(std::move(nc));
  }
  return result;
}

CostTotals sum_costs(const std::vector<NodeCost>& costs) {
  CostTotals t;
  for (const auto& nc : costs) {
    t.output_bytes += nc.output_bytes;
    if (!nc.cost.known) {
      t.unknown_nodes.push_back(nc.node);
      continue;
    }
    if (nc.cost.fma != Dim(0)) {
      auto it = t.fma.find(nc.cost.fma_type);
      if (it == t.fma.end())
        t.fma.emplace(nc.cost.fma_type, nc.cost.fma);
      else
        it->second += nc.cost.fma;
    }
    t.other += nc.cost.other;
    t.params_bytes += nc.cost.params_bytes;
  }
  return t;
}

Cost graph_cost(const Graph& graph) {
  CostTotals t = sum_costs(node_costs(graph));
  Cost c;
  c.known = t.unknown_nodes.empty();
  c.fma = t.total_fma();
  // The type with the most FMAs when they compare as integers; otherwise the first.
  int64_t best = -1;
  for (const auto& [dt, n] : t.fma) {
    int64_t v = n.as_int().value_or(0);
    if (v > best) {
      best = v;
      c.fma_type = dt;
    }
  }
  c.other = t.other;
  c.params_bytes = t.params_bytes;
  return c;
}

int64_t weights_bytes(const Graph& graph) {
  int64_t total = 0;
  for (int id : graph.eval_order()) {
    const Op& op = *graph.node(id).op;
    if (auto* c = dynamic_cast<const ConstOp*>(&op)) {
      if (!is_object(c->value().dtype())) total += static_cast<int64_t>(c->value().nbytes());
    }
    for (const auto& body : op.subgraphs())
      if (body) total += weights_bytes(*body);
  }
  return total;
}

Cost scale_cost(const Cost& cost, const Dim& times) {
  Cost c = cost;
  c.fma = cost.fma * times;
  c.other = cost.other * times;
  return c;
}

std::string human_count(double value) {
  double a = std::fabs(value);
  if (a >= 1e12) return fmt::format("{:.3f} T", value / 1e12);
  if (a >= 1e9) return fmt::format("{:.3f} G", value / 1e9);
  if (a >= 1e6) return fmt::format("{:.3f} M", value / 1e6);
  if (a >= 1e3) return fmt::format("{:.3f} k", value / 1e3);
  return fmt::format("{:.0f}", value);
}

}  // namespace kiln
