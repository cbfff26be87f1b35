// QLinearConv: quantized convolution. y = saturate(round((conv(x - x_zp, w - w_zp) + B) *
// x_scale * w_scale / y_scale) + y_zp); w_scale and w_zp may be per output channel, B is i32.
#pragma once

#include "core/op.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

class QLinearConv : public Op {
 public:
  explicit QLinearConv(quant::ConvGeometry geometry) : g_(std::move(geometry)) {}
  std::string name() const override { return "QLinearConv"; }
  const quant::ConvGeometry& geometry() const { return g_; }
  Attributes attributes() const override { return g_.attributes(); }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  quant::ConvGeometry g_;
};

}  // namespace kiln::ops
