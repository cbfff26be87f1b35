// Identity: the output is the input (a view, no copy).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Identity : public Op {
 public:
  std::string name() const override { return "Identity"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
