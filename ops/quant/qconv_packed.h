// A quantized convolution with constant weights, run by the int8 kernels (kernels/quant):
//   y = requantize(conv(x - x_zp, w - w_zp) + bias)
// with x u8/s8 (per-tensor zero point), w u8/s8 (per-tensor or per-output-channel zero point
// and scale), an i32 bias, and the output u8 / i8 (requantized with the per-channel multiplier
// x_scale * w_scale[c] / y_scale, round half to even, zero point, saturation, an optional clamp
// from a fused Relu / Clip), f32 (dequantized: multiplier x_scale * w_scale[c]) or i32 (the raw
// sums: ConvInteger). Made by passes/quant_ops from QLinearConv / ConvInteger and from QDQ
// DequantizeLinear -> Conv -> QuantizeLinear patterns. Weights are packed once, for the kernel
// of the active ISA; the zero-point corrections are folded into per-channel i32 offsets. 1-D and
// 2-D convolutions; depthwise ones (one input and output channel per group) use the depthwise
// channel-plane kernel.
#pragma once

#include <memory>
#include <vector>

#include "core/op.h"
#include "kernels/aligned_buffer.h"
#include "kernels/quant/qmmm.h"
#include "ops/quant/quant_util.h"

namespace kiln::ops {

struct QConvParams {
  quant::ConvGeometry geometry;
  Shape w_shape;  // [M, C / group, k...]
  bool x_signed = false;
  int32_t x_zp = 0;
  bool w_signed = true;
  std::vector<uint8_t> w;     // the weights' bytes, as w_shape
  std::vector<int32_t> w_zp;  // 1 or M values
  std::vector<int32_t> bias;  // M values (zeros when none)
  std::vector<float> mult;    // M values (unused for I32 output)
  kernels::OutputType output = kernels::OutputType::U8;
  int32_t y_zp = 0;
  float min = -std::numeric_limits<float>::infinity();  // clamp, before the zero point
  float max = std::numeric_limits<float>::infinity();
};

DatumType datum_of(kernels::OutputType t);
// The attributes of a fused int8 output (QConvPacked, QMatMulPacked): its type, the zero point of
// an 8-bit output and the clamp when there is one.
void append_output_attributes(Attributes& a, kernels::OutputType output, int32_t y_zp, float min,
                              float max);

class QConvPacked : public Op {
 public:
  explicit QConvPacked(QConvParams params);
  std::string name() const override { return "QConvPacked"; }
  Attributes attributes() const override;
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // The session's plans: per input shape, the resolved geometry (made once, so a steady-state
  // run allocates nothing; the im2col and packed-panel buffers are the session's scratch).
  std::unique_ptr<OpState> make_state(const FactRefs& inputs) const override;
  const QConvParams& params() const { return p_; }
  // A copy with a clamp (in the pre-zero-point domain) narrowed to [lo, hi].
  std::shared_ptr<QConvPacked> with_clamp(float lo, float hi) const;

 private:
  QConvParams p_;
  const kernels::QMicroKernel* kernel_ = nullptr;
  int64_t m_ = 0, groups_ = 1, mg_ = 0, k_ = 0;
  bool depthwise_ = false;
  std::vector<std::shared_ptr<kernels::AlignedFloats>> packed_;  // per group
  std::vector<int32_t> offsets_;                                 // M: bias + corrections
  std::vector<int32_t> dw_weights_;                              // depthwise: w - w_zp
};

}  // namespace kiln::ops
