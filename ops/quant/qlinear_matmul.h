// QLinearMatMul: quantized matmul. y = saturate(round((a - a_zp) x (b - b_zp) * a_scale *
// b_scale / y_scale) + y_zp); a's parameters may be per row, b's per column.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class QLinearMatMul : public Op {
 public:
  std::string name() const override { return "QLinearMatMul"; }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
};

}  // namespace kiln::ops
