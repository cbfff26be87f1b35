#include "cli/pulse_dump.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/pulse_setup.h"
#include "core/graph_cost.h"
#include "ops/pulse/pulse_delay.h"
#include "ops/pulse/pulsed_recurrent.h"

namespace kiln::cli {

namespace {

// Bytes of state a node keeps from pulse to pulse (delay lines, recurrent state).
int64_t state_bytes(const Graph& g, const Node& n) {
  FactRefs in;
  for (Outlet o : n.inputs) in.push_back(o.present() ? &g.fact(o) : nullptr);
  Dim bytes = 0;
  if (auto* d = dynamic_cast<const ops::PulseDelay*>(n.op.get())) bytes = d->state_bytes(*in[0]);
  if (auto* r = dynamic_cast<const ops::PulsedRecurrent*>(n.op.get())) bytes = r->state_bytes(in);
  return bytes.as_int().value_or(0);
}

Dim total_fma(const Graph& g) {
  Cost c = graph_cost(g);
  return c.fma;
}

}  // namespace

int dump_pulsed(const PulseDumpOptions& o) {
  auto graph = load_model_with_facts(o.model);
  auto batch = std::make_shared<Graph>(*graph);
  bool optimize = selected_stage(o.stage) == passes::Stage::Optimize ||
                  selected_stage(o.stage) == passes::Stage::Plan;
  PulsedSetup s = pulsify_model(*graph, o.pulse, optimize);
  const Graph& g = *s.model.graph;
  const StreamSpec& spec = s.model.spec;
  // Pulsed facts per node (optimize may have replaced nodes: their facts are re-derived by
  // following the outputs' facts, so only the pre-optimize graph has them all).
  auto fact_of = [&](int id) -> const passes::PulsedFact* {
    if (optimize || static_cast<size_t>(id) >= s.model.facts.size()) return nullptr;
    return &s.model.facts[static_cast<size_t>(id)];
  };
  int64_t state = 0;
  for (const Node& n : g.nodes()) state += state_bytes(g, n);
  Dim fma_pulse = 0, fma_batch = 0;
  if (o.cost) {
    fma_pulse = total_fma(g);
    passes::run_to_stage(*batch, passes::Stage::Declutter);
    fma_batch = total_fma(*batch);
  }
  if (o.json) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const Node& n : g.nodes()) {
      nlohmann::json attrs = nlohmann::json::object();
      for (const auto& [k, v] : n.op->attributes()) attrs[k] = v;
      nlohmann::json outs = nlohmann::json::array();
      for (const auto& f : n.outputs) outs.push_back(f.to_string());
      nlohmann::json node{{"id", n.id},
                          {"name", n.name},
                          {"op", n.op->name()},
                          {"outputs", outs},
                          {"attributes", attrs}};
      if (auto* pf = fact_of(n.id); pf && pf->streaming)
        node["pulse"] = {{"axis", pf->axis},
                         {"pulse", pf->pulse},
                         {"delay", pf->delay},
                         {"full", pf->full.to_string()}};
      if (int64_t b = state_bytes(g, n)) node["state_bytes"] = b;
      if (o.cost) {
        FactRefs in;
        for (Outlet x : n.inputs) in.push_back(x.present() ? &g.fact(x) : nullptr);
        Cost c = n.op->cost(in);
        if (c.known) node["fma_per_pulse"] = c.fma.to_string();
      }
      nodes.push_back(node);
    }
    nlohmann::json outs = nlohmann::json::array();
    for (size_t i = 0; i < spec.outputs.size(); i++)
      outs.push_back({{"name", g.output_names()[i]},
                      {"streaming", spec.outputs[i].streaming},
                      {"axis", spec.outputs[i].axis},
                      {"pulse", spec.outputs[i].pulse},
                      {"delay", spec.outputs[i].delay},
                      {"full", spec.outputs[i].full.to_string()}});
    nlohmann::json doc{{"symbol", spec.symbol},
                       {"pulse", spec.pulse},
                       {"nodes", nodes},
                       {"outputs", outs},
                       {"state_bytes", state}};
    if (o.cost) {
      doc["fma_per_pulse"] = fma_pulse.to_string();
      doc["fma_whole_input"] = fma_batch.to_string();
    }
    fmt::print("{}\n", doc.dump(1));
    return 0;
  }
  for (const Node& n : g.nodes()) {
    std::string facts;
    for (const auto& f : n.outputs) facts += (facts.empty() ? "" : " ") + f.to_string();
    std::string attrs;
    for (const auto& [k, v] : n.op->attributes()) attrs += fmt::format(" {}={}", k, v);
    std::string in;
    for (Outlet x : n.inputs)
      in += (in.empty() ? "" : ",") +
            (x.present() ? (x.slot ? fmt::format("{}/{}", x.node, x.slot) : std::to_string(x.node))
                         : std::string("_"));
    std::string pulse;
    if (auto* pf = fact_of(n.id); pf && pf->streaming)
      pulse = fmt::format("  [stream axis {} pulse {} delay {}]", pf->axis, pf->pulse, pf->delay);
    std::string cost;
    if (o.cost) {
      FactRefs ins;
      for (Outlet x : n.inputs) ins.push_back(x.present() ? &g.fact(x) : nullptr);
      Cost c = n.op->cost(ins);
      if (c.known && c.fma != Dim(0)) cost = fmt::format("  fma/pulse={}", c.fma.to_string());
      if (int64_t b = state_bytes(g, n)) cost += fmt::format("  state={}B", b);
    }
    fmt::print("{:>4} {:<18} {}{}{} -> {}{}{}{}\n", n.id, n.op->name(), n.name,
               in.empty() ? "" : " <- ", in, facts, attrs, pulse, cost);
  }
  for (size_t i = 0; i < g.outputs().size(); i++)
    fmt::print("output {} '{}' = {}/{}\n", i, g.output_names()[i], g.outputs()[i].node,
               g.outputs()[i].slot);
  fmt::print("pulse {} frames of {}: {}\n", spec.pulse, spec.symbol,
             describe_delays(spec, g.output_names()));
  fmt::print("state: {} bytes (delay lines and recurrent states)\n", state);
  if (o.cost) {
    fmt::print("FMA per pulse: {}\n", fma_pulse.to_string());
    fmt::print("FMA whole input: {}\n", fma_batch.to_string());
    if (auto p = fma_pulse.as_int())
      fmt::print("FMA per pulse x {}/{}: {}\n", spec.symbol, spec.pulse,
                 (Dim(*p) * Dim::symbol(spec.symbol)).div(spec.pulse).to_string());
  }
  return 0;
}

}  // namespace kiln::cli
