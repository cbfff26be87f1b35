// Where: select from X where the condition holds, else from Y; all three broadcast together.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Where : public Op {
 public:
  std::string name() const override { return "Where"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Where&) { return 0; });
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
