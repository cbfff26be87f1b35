// LSTM (ONNX): gates i, o, f, c; optional peepholes, coupled input-forget gate.
#pragma once

#include "ops/recurrent/recurrent.h"

namespace kiln::ops {

class Lstm : public RecurrentOp {
 public:
  Lstm(RecurrentConfig config, bool input_forget)
      : RecurrentOp(std::move(config)), input_forget_(input_forget) {}
  std::string name() const override { return "LSTM"; }
  // f32, constant weights, default activations, no clip / input_forget / sequence_lens: an
  // LstmPacked (ops/recurrent/lstm_packed.h).
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }

 protected:
  size_t gates() const override { return 4; }
  size_t max_inputs() const override { return 8; }
  size_t state_outputs() const override { return 2; }
  std::vector<Activation> default_activations() const override;
  void step(const RnnStep& s) const override;
  void extra_attributes(Attributes& attrs) const override {
    if (input_forget_) attrs.push_back({"input_forget", "1"});
  }

 private:
  bool input_forget_;
};

}  // namespace kiln::ops
