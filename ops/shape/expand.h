// Expand: broadcasts the input to a shape given as a tensor (numpy rules, both ways).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class Expand : public Op {
 public:
  std::string name() const override { return "Expand"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const Expand&) { return 0; });
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs&) const override { return {}; }
};

}  // namespace kiln::ops
