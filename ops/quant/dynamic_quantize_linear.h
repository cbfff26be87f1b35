// DynamicQuantizeLinear: quantizes a float tensor to u8 with a scale and zero point computed
// from its range (extended to include 0). Outputs y, y_scale, y_zero_point.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class DynamicQuantizeLinear : public Op {
 public:
  std::string name() const override { return "DynamicQuantizeLinear"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
};

}  // namespace kiln::ops
