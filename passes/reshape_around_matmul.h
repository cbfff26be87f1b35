// reshape-around-matmul: a MatMul with constant 2-D weights between two reshapes,
//   Reshape(MatMul(Reshape(x), W, b)),
// where one of the reshapes only regroups the leading dims (keeps the last one), has that
// reshape moved to the other side of the MatMul (a product by constant weights treats every
// row alike, so which leading dims the rows have does not matter). The two reshapes then meet
// and reshape-chains makes them one. In a transformer layer: the input's [1,S,D] -> [S,1,D]
// reshape moves after the Q/K/V projections into their per-head reshapes; the output
// projection's [S,D] -> [1,S,D] reshape moves before it into the heads' merge.
// (Reshape here: Reshape, Squeeze, Unsqueeze, Flatten with a known output shape.)
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class ReshapeAroundMatMul : public Pass {
 public:
  std::string name() const override { return "reshape-around-matmul"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
