// MatMul: numpy matmul semantics: batched over leading dims with broadcasting; a 1-D first
// operand is a row vector, a 1-D second operand a column vector (their unit dim is dropped).
// Optional input 2, a bias: a 1-D tensor of N values (B's column count, so B must be a matrix
// or a batch of them) added to every row of the product, "linear" = A·B + bias. The ONNX
// MatMul has no bias; declutter passes (gemm-to-matmul, fold-affine) fill it.
#pragma once

#include "core/op.h"

namespace kiln::ops {

class MatMul : public Op {
 public:
  std::string name() const override { return "MatMul"; }
  bool same_as(const Op& other) const override {
    return same_fields(*this, other, [](const MatMul&) { return 0; });
  }
  std::vector<Fact> output_facts(const FactRefs& inputs) const override;
  void eval(EvalContext& ctx, const TensorRefs& inputs) const override;
  Cost cost(const FactRefs& inputs) const override;
  // f32 with a constant 2-D B (and a constant bias, if any): a MatMulPacked with the bias in its
  // epilogue (ops/nn/matmul_packed.h); both operands computed: a MatMulDynamic.
  OpPtr codegen(const FactRefs& inputs) const override;
  bool is_reference_impl() const override { return true; }
};

}  // namespace kiln::ops
