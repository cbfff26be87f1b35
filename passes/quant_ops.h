// Quantized ops onto the int8 kernels: QLinearConv / QLinearMatMul / MatMulInteger with constant
// weights (QOperator format) and DequantizeLinear -> Conv / MatMul / Gemm -> QuantizeLinear
// chains with constant quantized weights (QDQ format) become QConvPacked / QMatMulPacked
// (ops/quant/). Runs first in declutter, before constant folding would turn the dequantized
// weights into floats. A Relu / Clip between the float op and its QuantizeLinear becomes the
// packed op's clamp.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class QuantOps : public Pass {
 public:
  std::string name() const override { return "quant-ops"; }
  size_t run(Graph& graph) override;
};

}  // namespace kiln::passes
