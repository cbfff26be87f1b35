// STFT: short-time Fourier transform of [batch, length, 1|2] signals into
// [batch, frames, bins, 2], with an optional window and frame length.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Stft : public Op {
 public:
  explicit Stft(bool onesided) : onesided_(onesided) {}
  std::string name() const override { return "STFT"; }
  Attributes attributes() const override { return {{"onesided", onesided_ ? "1" : "0"}}; }
  // inputs: signal, frame_step (scalar), optional window [frame_length], optional frame_length
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  bool onesided_;
};

}  // namespace kiln::ops
