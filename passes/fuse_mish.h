// fuse-mish: x * Tanh(Softplus(x)) (either operand order; the Softplus and the Tanh read by
// nothing else) becomes one Unary Mish(x) -- the form PyTorch exports nn.Mish in before opset 18
// (YOLOv4 / CSP-style backbones), which then runs as one vectorized step or a conv's post step.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FuseMish : public Pass {
 public:
  std::string name() const override { return "fuse-mish"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
