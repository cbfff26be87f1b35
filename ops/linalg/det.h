// Det: determinant of square matrices [*, M, M] -> [*], by LU decomposition with partial
// pivoting in double precision.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Det : public Op {
 public:
  std::string name() const override { return "Det"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
};

}  // namespace kiln::ops
