// The ONNX training-preview optimizers (Adagrad, Momentum, Adam): one update step of n tensors.
// Inputs: R (learning rate), T (step count), X1..Xn, G1..Gn, then one or two state tensor
// groups; outputs: the updated X1..Xn and the updated states.
#pragma once

#include "core/op.h"

namespace kiln::ops {

enum class OptimizerKind { Adagrad, Momentum, Nesterov, Adam };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::Adagrad;
  double alpha = 0;         // Momentum/Adam first-moment decay
  double beta = 0;          // Momentum gradient scale / Adam second-moment decay
  double decay_factor = 0;  // Adagrad learning-rate decay
  double epsilon = 0;
  double norm_coefficient = 0;  // L2 regularization folded into the gradient
  double norm_coefficient_post = 0;
};

class Optimizer : public Op {
 public:
  explicit Optimizer(OptimizerConfig config) : config_(config) {}
  std::string name() const override;
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }

 private:
  size_t state_groups() const { return config_.kind == OptimizerKind::Adam ? 2 : 1; }
  size_t tensor_count(size_t num_inputs) const;
  OptimizerConfig config_;
};

}  // namespace kiln::ops
