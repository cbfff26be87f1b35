// Range: start, start + delta, ... up to (excluding) limit, from three scalars.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Range : public Op {
 public:
  std::string name() const override { return "Range"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
