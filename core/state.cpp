#include "core/state.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/source_ops.h"

namespace kiln {

Plan::Plan(GraphPtr graph) : graph_(std::move(graph)) {
  KILN_ENSURE(graph_, "cannot plan a null graph");
  order_ = graph_->eval_order();
}

State::State(PlanPtr plan) : plan_(std::move(plan)) {
  const Graph& g = plan_->graph();
  values_.resize(g.size());
  for (const auto& n : g.nodes()) values_[static_cast<size_t>(n.id)].resize(n.outputs.size());
  for (int id : plan_->order()) {
    const Node& n = g.node(id);
    if (auto* c = dynamic_cast<const ConstOp*>(n.op.get())) {
      values_[static_cast<size_t>(id)][0] = c->value();
    } else if (!dynamic_cast<const SourceOp*>(n.op.get())) {
      order_without_consts_.push_back(id);
    }
  }
}

void State::check_inputs(const std::vector<Tensor>& inputs) {
  const Graph& g = plan_->graph();
  KILN_ENSURE(inputs.size() == g.inputs().size(), "model expects {} inputs, got {}",
              g.inputs().size(), inputs.size());
  symbols_.clear();
  for (size_t i = 0; i < inputs.size(); i++) {
    const Fact& fact = g.fact(g.inputs()[i]);
    const Tensor& t = inputs[i];
    std::string name = g.input_name(i);
    KILN_ENSURE(!t.is_null(), "input '{}' is missing", name);
    KILN_ENSURE(t.dtype() == fact.dt, "input '{}' should be {} but is {}", name, name_of(fact.dt),
                name_of(t.dtype()));
    KILN_ENSURE(t.rank() == fact.rank(), "input '{}' should have shape [{}] (rank {}) but has [{}]",
                name, dims_to_string(fact.shape), fact.rank(), shape_to_string(t.shape()));
    for (size_t d = 0; d < t.rank(); d++) {
      const Dim& dim = fact.shape[d];
      int64_t actual = t.shape()[d];
      Dim bound = dim.substitute(symbols_);
      if (bound.is_int()) {
        KILN_ENSURE(bound.to_int() == actual,
                    "input '{}' should have shape [{}] but has [{}] (axis {}: {} != {})", name,
                    dims_to_string(fact.shape), shape_to_string(t.shape()), d, bound.to_string(),
                    actual);
      } else {
        auto syms = bound.symbols();
        if (syms.size() == 1 && bound == Dim::symbol(syms[0])) symbols_[syms[0]] = actual;
      }
    }
  }
}

std::vector<Tensor> State::run(const std::vector<Tensor>& inputs) {
  return run_timed(inputs, nullptr);
}

std::vector<Tensor> State::run_timed(const std::vector<Tensor>& inputs, const NodeTimer& timer) {
  check_inputs(inputs);
  const Graph& g = plan_->graph();
  for (size_t i = 0; i < inputs.size(); i++)
    values_[static_cast<size_t>(g.inputs()[i].node)][0] = inputs[i];
  TensorRefs refs;
  for (int id : order_without_consts_) {
    const Node& n = g.node(id);
    refs.clear();
    for (const auto& o : n.inputs)
      refs.push_back(o.present()
                         ? &values_[static_cast<size_t>(o.node)][static_cast<size_t>(o.slot)]
                         : nullptr);
    EvalContext ctx(values_[static_cast<size_t>(id)]);
    try {
      if (timer) {
        auto start = std::chrono::steady_clock::now();
        n.op->eval(ctx, refs);
        timer(id, std::chrono::steady_clock::now() - start);
      } else {
        n.op->eval(ctx, refs);
      }
    } catch (Error& e) {
      e.with_context(fmt::format("running node {}", g.describe(id)));
      throw;
    }
  }
  std::vector<Tensor> outputs;
  outputs.reserve(g.outputs().size());
  for (const auto& o : g.outputs())
    outputs.push_back(values_[static_cast<size_t>(o.node)][static_cast<size_t>(o.slot)]);
  return outputs;
}

std::vector<Tensor> run_graph(GraphPtr graph, const std::vector<Tensor>& inputs) {
  State state(std::make_shared<Plan>(std::move(graph)));
  return state.run(inputs);
}

}  // namespace kiln
