// An 8-bit tensor requantized to other parameters: y = QuantizeLinear(DequantizeLinear(x)) with
// one scale and zero point on each side, each byte through the same float operations as the two
// reference ops (bitwise their result; kernels/quant/qconvert.h). passes/quant_ops puts it on the
// inputs of a Concat whose DequantizeLinear inputs and QuantizeLinear output it turns into a
// Concat of the 8-bit tensors (inputs already at the output's parameters need none).
#pragma once

#include "core/op.h"

namespace kiln::ops {

class QRequant : public Op {
 public:
  QRequant(float x_scale, int32_t x_zp, bool x_signed, float y_scale, int32_t y_zp, bool y_signed);
  std::string name() const override { return "QRequant"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;

 private:
  float x_scale_, y_scale_;
  int32_t x_zp_, y_zp_;
  bool x_signed_, y_signed_;
};

}  // namespace kiln::ops
