// MatMulInteger: i32 = (A - a_zero_point) x (B - b_zero_point), numpy matmul semantics.
// a_zero_point may be per row of A, b_zero_point per column of B.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class MatMulInteger : public Op {
 public:
  std::string name() const override { return "MatMulInteger"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
};

}  // namespace kiln::ops
