// gemm-to-matmul: Gemm(A, B, C) = alpha * op(A) op(B) + beta * C becomes MatMul(op(A), alpha *
// op(B)) + beta * C, with the transposes and scalings of constant operands done now and
// Transpose / Mul nodes for the others. Float types only. At declutter (keep_quantized), a Gemm
// whose B is DequantizeLinear of an integer constant stays: quant-ops reads it at optimize.
#pragma once

#include "core/pass.h"

namespace kiln::passes {

class GemmToMatMul : public Pass {
 public:
  explicit GemmToMatMul(bool keep_quantized = false) : keep_quantized_(keep_quantized) {}
  std::string name() const override { return "gemm-to-matmul"; }
  size_t run(Graph& graph) override;

 private:
  bool keep_quantized_;
};

}  // namespace kiln::passes
