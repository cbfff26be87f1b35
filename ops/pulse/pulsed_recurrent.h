// PulsedRecurrent: an RNN / GRU / LSTM (or its kernel form) run pulse by pulse along its sequence
// axis, its hidden (and cell) state carried from one pulse to the next in the session state.
// The first `warmup` frames of the stream (the delay its input lags the stream by: frames that
// precede the stream start) are not fed into the state; their outputs are zeros. Forward
// direction, layout 0 ([seq, batch, ...]) and no sequence_lens only (the pass checks).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class PulsedRecurrent : public Op {
 public:
  // `inner`: the recurrent op; `state_outputs`: 1 (Y_h) or 2 (Y_h, Y_c); `warmup`: frames.
  PulsedRecurrent(OpPtr inner, size_t state_outputs, int64_t warmup)
      : inner_(std::move(inner)), state_outputs_(state_outputs), warmup_(warmup) {}
  std::string name() const override { return "PulsedRecurrent"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override {
    return inner_->output_facts(inputs);
  }
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override { return inner_->cost(inputs); }
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  OpPtr codegen(const FactRefs& inputs) const override;
  const Op& inner() const { return *inner_; }
  int64_t warmup() const { return warmup_; }
  size_t state_outputs() const { return state_outputs_; }
  // Bytes of carried state for these input facts (hidden and cell state).
  Dim state_bytes(const FactRefs& inputs) const;

 private:
  OpPtr inner_;
  size_t state_outputs_;
  int64_t warmup_;
};

}  // namespace kiln::ops
