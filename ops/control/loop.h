// Loop (ONNX): runs a body while an iteration count and/or a condition allow it.
// Node inputs: [M (optional), cond (optional), N carried initial values..., captured values...].
// Body inputs: [iteration, cond, N carried..., captured...]; body outputs: [cond, N carried...,
// K scan outputs...]. Node outputs: [N final carried..., K scan outputs stacked on a new axis 0].
// A carried value the body declares optional but produces plain (opset 16 `optional(seq)`
// patterns) is wrapped into an optional each time it goes back into the body.
#pragma once

#include "core/op.h"
#include "ops/control/subgraph_runner.h"

namespace kiln::ops {

class Loop : public Op {
 public:
  Loop(GraphPtr body, size_t num_carried);
  std::string name() const override { return "Loop"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  // The body's cost times the trip count: M when known (an upper bound when the condition may
  // stop the loop earlier), else the symbol `trips`.
  Cost cost(const FactRefs& inputs) const override;
  bool is_deterministic() const override;
  std::vector<std::shared_ptr<const Graph>> subgraphs() const override { return {body_}; }
  const GraphPtr& body() const { return body_; }
  size_t num_carried() const { return num_carried_; }
  // Sessions run the body optimized by `optimizer` (see SubgraphRunner::set_optimizer).
  void set_body_optimizer(SubgraphRunner::Optimizer optimizer) {
    runner_.set_optimizer(std::move(optimizer));
  }
  bool optimizes_body() const { return runner_.optimizes(); }

 private:
  // Facts of the body inputs for the first iteration.
  std::vector<Fact> body_input_facts(const FactRefs& inputs) const;
  bool carried_is_optional(size_t i) const;
  // The value the body's carried input i receives for a value the body produced.
  Fact as_carried(size_t i, const Fact& produced) const;
  Tensor as_carried(size_t i, const Tensor& produced) const;
  GraphPtr body_;
  size_t num_carried_;
  size_t num_scans_;
  SubgraphRunner runner_;
};

}  // namespace kiln::ops
