// Scan (ONNX): runs a body once per slice of the scan inputs, threading state values through
// the iterations and stacking the per-iteration scan outputs.
// Opset >= 9 node inputs: [N initial states..., M scan inputs..., captured values...].
// Opset 8 ("batched"): [sequence_lens (optional), N states..., M scan inputs..., captured...],
// every tensor with a leading batch axis, scanning along axis 1 of the scan inputs.
// Body inputs: [N states..., M slices..., captured...]; outputs: [N states..., K slices...].
#pragma once

#include "core/op.h"
#include "ops/control/subgraph_runner.h"

namespace kiln::ops {

struct ScanConfig {
  size_t num_states = 0;
  size_t num_scan_inputs = 0;
  bool batched = false;                   // opset 8 semantics
  std::vector<int64_t> input_axes;        // per scan input (opset >= 9), default 0
  std::vector<int64_t> input_directions;  // per scan input: 0 forward, 1 reverse
  std::vector<int64_t> output_axes;       // per scan output (opset >= 9)
  std::vector<int64_t> output_directions;
};

class Scan : public Op {
 public:
  Scan(GraphPtr body, ScanConfig config);
  std::string name() const override { return "Scan"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  // The body's cost times the sequence length (times the batch for opset 8).
  Cost cost(const FactRefs& inputs) const override;
  std::vector<std::shared_ptr<const Graph>> subgraphs() const override { return {body_}; }
  const GraphPtr& body() const { return body_; }
  const ScanConfig& config() const { return config_; }
  // Sessions run the body optimized by `optimizer` (see SubgraphRunner::set_optimizer).
  void set_body_optimizer(SubgraphRunner::Optimizer optimizer) {
    runner_.set_optimizer(std::move(optimizer));
  }
  bool optimizes_body() const { return runner_.optimizes(); }

 private:
  // Facts of the body inputs for the first iteration; sets the sequence length and (opset 8)
  // the batch size.
  std::vector<Fact> body_input_facts(const FactRefs& inputs, Dim& seq, Dim& batch) const;
  // Runs the scan for one (unbatched) set of states and scan inputs, `length` iterations;
  // scan outputs are `total` long along their axis (zero past `length`). The body's nodes report
  // to `timing` when it has a timer.
  void scan_one(SubgraphRunner::Runs& runs, const BodyTiming& timing,
                const std::vector<Tensor>& states, const std::vector<Tensor>& scan_inputs,
                const std::vector<Tensor>& captures, int64_t length, int64_t total,
                std::vector<Tensor>& final_states, std::vector<Tensor>& scan_outputs) const;
  size_t first_input() const { return config_.batched ? 1 : 0; }
  size_t num_scan_outputs() const { return runner_.num_outputs() - config_.num_states; }

  GraphPtr body_;
  ScanConfig config_;
  SubgraphRunner runner_;
};

}  // namespace kiln::ops
