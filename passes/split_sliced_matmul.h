// split-sliced-matmul: a MatMul with constant 2-D weights (and a constant bias, or none) whose
// output is read only by Slices of its last axis (constant bounds, step 1) becomes one MatMul
// per Slice, on that slice's columns of the weights and bias. A fused attention projection
//   qkv = x·[Wq Wk Wv] + [bq bk bv]; q = qkv[..., 0:d]; k = qkv[..., d:2d]; v = ...
// becomes q = x·Wq + bq, ...: each head's projection is then a plain MatMul that the passes
// after it can reshape and scale (fold-scale puts attention's 1/√d into Wq). The optimize
// stage's merge-parallel-matmuls joins them again into one product and a Split.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class SplitSlicedMatMul : public Pass {
 public:
  std::string name() const override { return "split-sliced-matmul"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
