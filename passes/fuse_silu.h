// fuse-silu: x * Sigmoid(x) (either operand order; the Sigmoid read by nothing else) becomes one
// Silu(x) node (ops/elementwise/silu.h).
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FuseSilu : public Pass {
 public:
  std::string name() const override { return "fuse-silu"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
