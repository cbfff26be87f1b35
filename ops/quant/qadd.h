// The QDQ residual Add on the 8-bit tensors themselves:
//   y = QuantizeLinear(DequantizeLinear(a) + DequantizeLinear(b))   (optionally with a Relu
//                                                                      before the QuantizeLinear)
// with one scale and zero point per tensor (a, b and y u8 / i8, a and b of one shape). Made by
// passes/quant_ops from DequantizeLinear -> Add -> QuantizeLinear chains (mobilenet's and the
// TDNN's residual connections): one pass over the bytes instead of two float tensors written
// and read again. Each element goes through the same float operations as the reference chain
// (the product (x - z) * s of DequantizeLinear, the float sum, QuantizeLinear's division,
// clamp and round half to even), so the result is bitwise the chain's.
#pragma once

#include "core/op.h"

namespace kiln::ops {

struct QAddParams {
  float a_scale = 1, b_scale = 1, y_scale = 1;
  int32_t a_zp = 0, b_zp = 0, y_zp = 0;
  bool a_signed = false, b_signed = false, y_signed = false;
  // A Relu between the Add and the QuantizeLinear: y = max(y, y_zp), exact (Q is monotonic and
  // Q(0) = y_zp).
  bool relu = false;
};

class QAdd : public Op {
 public:
  explicit QAdd(QAddParams p) : p_(p) {}
  std::string name() const override { return "QAdd"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  const QAddParams& params() const { return p_; }

 private:
  QAddParams p_;
};

}  // namespace kiln::ops
