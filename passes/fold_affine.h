// fold-affine: a per-output-channel Mul, Add, Sub or Div by a constant right after a Conv
// (channels on axis 1) or a MatMul (channels on the last axis) goes into the weights and bias:
// Conv(x, W, B) * s -> Conv(x, W * s, B * s); Conv(x, W, B) + c -> Conv(x, W, B + c);
// MatMul(x, W, b) * s -> MatMul(x, W * s, b * s) (W constant); MatMul(x, W, b) + c ->
// MatMul(x, W, b + c) (any W: the bias is MatMul's input 2, 1-D). x - c is x + (-c), x / c is
// x * (1/c). The producer must have no other user, the result the producer's shape.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FoldAffine : public Pass {
 public:
  std::string name() const override { return "fold-affine"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
