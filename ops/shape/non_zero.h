// NonZero: the indices of the non-zero elements, as a [rank, count] i64 tensor.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class NonZero : public Op {
 public:
  std::string name() const override { return "NonZero"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
