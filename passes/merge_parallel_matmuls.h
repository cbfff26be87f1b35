// merge-parallel-matmuls: MatMuls reading the same input with constant 2-D weights of the same
// depth, x·W1 + b1, x·W2 + b2, ..., become one x·[W1 W2 ...] + [b1 b2 ...] (constant biases, or
// zeros for a member without one) and a Split along the last axis: one larger
// matrix product (better kernel efficiency, the input packed once) instead of several.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class MergeParallelMatMuls : public Pass {
 public:
  std::string name() const override { return "merge-parallel-matmuls"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
