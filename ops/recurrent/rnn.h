// RNN (ONNX): the simple recurrent cell H = f(X·W^T + H·R^T + Wb + Rb).
#pragma once

#include "ops/recurrent/recurrent.h"

namespace kiln::ops {

class Rnn : public RecurrentOp {
 public:
  explicit Rnn(RecurrentConfig config) : RecurrentOp(std::move(config)) {}
  std::string name() const override { return "RNN"; }
  bool is_reference_impl() const override { return true; }

 protected:
  size_t gates() const override { return 1; }
  size_t max_inputs() const override { return 6; }
  size_t state_outputs() const override { return 1; }
  std::vector<Activation> default_activations() const override;
  void step(const RnnStep& s) const override;
};

}  // namespace kiln::ops
