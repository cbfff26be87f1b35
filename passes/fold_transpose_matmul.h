// fold-transpose-matmul (optimize, after codegen): a Transpose feeding a MatMulDynamic operand, or
// reading its result (keeping the last axis last), becomes part of the MatMulDynamic's layout:
// the matrix multiply reads and writes through the permuted strides, and the Transpose, which
// copied the whole tensor, disappears. Attention's head split (Q, K^T, V) and head merge are the
// typical cases. Only Transposes with no other reader, on operands of concrete shape.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class FoldTransposeMatMul : public Pass {
 public:
  std::string name() const override { return "fold-transpose-matmul"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
