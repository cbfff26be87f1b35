// ConvInteger: i32 convolution of (x - x_zero_point) by (w - w_zero_point); w_zero_point may
// be per output channel. Padding acts as the zero point (contributes nothing).
#pragma once

#include "core/op.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

class ConvInteger : public Op {
 public:
  explicit ConvInteger(quant::ConvGeometry geometry) : g_(std::move(geometry)) {}
  std::string name() const override { return "ConvInteger"; }
  Attributes attributes() const override { return g_.attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  quant::ConvGeometry g_;
};

}  // namespace kiln::ops
