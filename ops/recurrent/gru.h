// GRU (ONNX): gates z, r, h; linear_before_reset selects where the reset gate applies.
#pragma once

#include "ops/recurrent/recurrent.h"

namespace kiln::ops {

class Gru : public RecurrentOp {
 public:
  Gru(RecurrentConfig config, bool linear_before_reset)
      : RecurrentOp(std::move(config)), linear_before_reset_(linear_before_reset) {}
  std::string name() const override { return "GRU"; }
  // f32, constant weights, default activations, no clip / sequence_lens: a GruPacked
  // (ops/recurrent/gru_packed.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }
  bool linear_before_reset() const { return linear_before_reset_; }

 protected:
  size_t gates() const override { return 3; }
  size_t max_inputs() const override { return 6; }
  size_t state_outputs() const override { return 1; }
  std::vector<Activation> default_activations() const override;
  void step(const RnnStep& s) const override;
  void extra_attributes(Attributes& attrs) const override {
    if (linear_before_reset_) attrs.push_back({"linear_before_reset", "1"});
  }

 private:
  bool linear_before_reset_;
};

}  // namespace kiln::ops
