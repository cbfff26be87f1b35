// An 8-bit tensor requantized to other parameters: y = QuantizeLinear(DequantizeLinear(x)) with
// one scale and zero point on each side, as a 256-entry table built with the same float
// operations as the two reference ops (bitwise their result). passes/quant_ops puts it on the
// inputs of a Concat whose DequantizeLinear inputs and QuantizeLinear output it turns into a
// Concat of the 8-bit tensors (inputs already at the output's parameters need none).
#pragma once

#include <array>

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
  // The output byte of input byte b (the bits of a u8 or i8 value).
  uint8_t at(uint8_t b) const { return table_[b]; }

 private:
  float x_scale_, y_scale_;
  int32_t x_zp_, y_zp_;
  bool x_signed_, y_signed_;
  std::array<uint8_t, 256> table_{};
};

// DequantizeLinear then QuantizeLinear of one value, per tensor, as the reference ops' fast
// paths compute it (float product, float quotient, clamp, round half to even).
int32_t requantize_one(int32_t v, float x_scale, int32_t x_zp, float y_scale, int32_t y_zp,
                       bool y_signed);

}  // namespace kiln::ops
