// SequenceMap: runs a body once per position of the input sequence(s) and collects each body
// output into an output sequence. Node inputs: [input_sequence, additional inputs...,
// captured values...]; body inputs: one per node input, an item for a sequence input and the
// whole value for a tensor input, then the captured values.
#pragma once

#include "core/op.h"
#include "ops/control/subgraph_runner.h"

namespace kiln::ops {

class SequenceMap : public Op {
 public:
  // num_inputs: the ONNX node's inputs (sequence + additional), captures excluded.
  SequenceMap(GraphPtr body, size_t num_inputs);
  std::string name() const override { return "SequenceMap"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  // The body's cost times the number of items (a symbol unless the sequence is a constant).
  Cost cost(const FactRefs& inputs) const override;
  std::vector<std::shared_ptr<const Graph>> subgraphs() const override { return {body_}; }

 private:
  // The body's input facts: item facts for sequence inputs, the others as they are.
  std::vector<Fact> body_facts(const FactRefs& inputs) const;
  GraphPtr body_;
  size_t num_inputs_;
  SubgraphRunner runner_;
};

}  // namespace kiln::ops
