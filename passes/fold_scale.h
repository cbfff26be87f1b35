// fold-scale: a Mul by a scalar constant (or a Div by one) goes back through what is linear in
// its input -- single-use Reshape, Transpose, Squeeze, Unsqueeze, Flatten, and either operand of
// a MatMul without bias -- into the first MatMul with constant 2-D weights it meets: that
// MatMul's weights and (constant) bias are scaled, the Mul disappears. Attention's scores,
//   MatMul(Transpose(Reshape(MatMul(x, Wq, bq))), K) / 8,
// become MatMul(Transpose(Reshape(MatMul(x, Wq / 8, bq / 8))), K). Every outlet on the way must
// have that one user; float types only.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FoldScale : public Pass {
 public:
  std::string name() const override { return "fold-scale"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
