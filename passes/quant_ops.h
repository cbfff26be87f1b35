// Quantized ops onto the int8 kernels: QLinearConv / QLinearMatMul / MatMulInteger with constant
// weights (QOperator format) and DequantizeLinear -> Conv / MatMul / Gemm -> QuantizeLinear
// chains with constant quantized weights (QDQ format) become QConvPacked / QMatMulPacked
// (ops/quant/). Runs first at the optimize stage: declutter keeps DequantizeLinear of constant
// integers (FoldConstants(true)), so the decluttered graph is still standard ops (and writes to
// NNEF); the optimize stage's constant folding comes after this pass. A Relu / Clip between the float op and its QuantizeLinear becomes the
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
